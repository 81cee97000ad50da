"""Call the model instead of `model.predict(x)` inside a tape (TAPE008), built with libcst.

`model.predict(x)` / `model.predict_on_batch(x)` -> `model(x, training=False)`: the model
runs on the tape, in inference mode as `predict` ran it. (`K.eval(t)` -> `t` is
`blocks.replace_by_part`.) The rule checks that the call has nothing but the input (and
`verbose=`, which only drives a progress bar).
"""

from __future__ import annotations

import ast

import libcst as cst

from ..model import Applicability, Fix
from .blocks import Rewrite, or_none


@or_none
def model_call_fix(text: str, call: ast.Call, model_input: ast.expr, title: str,
                   applicability: Applicability = Applicability.UNSAFE) -> Fix | None:
    rewrite = Rewrite(text, [call])
    node = rewrite.node(call, cst.Call)
    assert isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
    argument = rewrite.node(model_input, cst.BaseExpression)
    space = cst.SimpleWhitespace(" ")

    def change(updated):
        receiver = updated.func.value
        return cst.Call(
            func=receiver,
            args=[cst.Arg(value=argument, comma=cst.Comma(whitespace_after=space)),
                  cst.Arg(value=cst.Name("False"), keyword=cst.Name("training"),
                          equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                whitespace_after=cst.SimpleWhitespace("")))],
            lpar=updated.lpar, rpar=updated.rpar)
    rewrite.change(node, change)
    return rewrite.fix(title, applicability)
