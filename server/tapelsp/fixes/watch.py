"""Insert `tape.watch(x)` into a tape's `with` block (TAPE010), built with libcst.

The rule decides on `ast` where the call goes (before which statement of the block);
this only writes it, with the block's own indentation and line endings.
"""

from __future__ import annotations

import ast

from ..model import Applicability, Fix
from .blocks import Rewrite, or_none


@or_none
def watch_fix(text: str, with_node: ast.With | ast.AsyncWith, before: ast.stmt | None, call_code: str,
              title: str, applicability: Applicability) -> Fix | None:
    """Insert the statement `call_code` into the block of `with_node`, before its statement
    `before` (at the end of the block when None)."""
    rewrite = Rewrite(text, [with_node, before])
    block = rewrite.body(rewrite.statement(with_node))
    if before is None:
        index = len(block.body)
    else:
        found, index = rewrite.block_of(rewrite.line_of(before))
        if found is not block:
            return None
    rewrite.insert(block, index, [call_code])
    return rewrite.fix(title, applicability)
