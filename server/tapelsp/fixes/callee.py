"""Call another function with the same arguments, built with libcst.

`print(...)` -> `tf.print(...)` (FUNC007), `tf.constant(t)` -> `tf.convert_to_tensor(t)`
(FUNC005): the rule decides on `ast` that the arguments mean the same to the new callee
(and which keywords it calls differently, e.g. `file=` -> `output_stream=`); this swaps the
callee and renames those keywords, keeping every argument's own text, its comments and
line breaks.

Importing this module imports libcst: rules import it inside their fix builders only.
"""

from __future__ import annotations

import ast
from typing import Mapping

import libcst as cst

from ..model import Applicability, Fix
from .blocks import Rewrite, or_none


@or_none
def callee_fix(text: str, call: ast.Call, func: str, title: str, applicability: Applicability,
               keywords: Mapping[str, str] | None = None) -> Fix | None:
    """`call` with its callee replaced by the expression `func`, keyword `k` renamed `keywords[k]`."""
    rewrite = Rewrite(text, around=(call,))  # libcst for the statement holding the call only
    node = rewrite.node(call, cst.Call)
    assert isinstance(node, cst.Call)
    new_func = cst.parse_expression(func)
    renames = dict(keywords or {})

    def change(updated):
        args = []
        for arg in updated.args:
            if arg.keyword is not None and arg.keyword.value in renames:
                arg = arg.with_changes(keyword=cst.Name(renames[arg.keyword.value]))
            args.append(arg)
        return updated.with_changes(func=new_func.with_changes(lpar=updated.func.lpar, rpar=updated.func.rpar),
                                    args=args)
    rewrite.change(node, change)
    return rewrite.fix(title, applicability)
