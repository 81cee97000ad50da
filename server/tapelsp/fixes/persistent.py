"""Make a tape persistent and release it after its last use (TAPE002), built with libcst.

`tf.GradientTape()` -> `tf.GradientTape(persistent=True)` (an explicit `persistent=False`
becomes `True`), and `del tape` goes right after the statement holding the tape's last use
(the rule finds that statement on `ast`, and says when no `del` is needed: the last use
returns, or the tape is already deleted).

`make_persistent` / `delete_after` register the edits on a `blocks.Rewrite`, so other fixes
(TAPE003's dedent) can combine them with their own.
"""

from __future__ import annotations

import ast

import libcst as cst

from ..model import Applicability, Fix
from .blocks import Rewrite, or_none, with_keyword


def make_persistent(rewrite: Rewrite, tape_call: ast.Call, persistent: ast.expr | None) -> None:
    """`persistent`: the expression given for `persistent` (a literal False), or None when absent."""
    if persistent is not None:
        node = rewrite.node(persistent, cst.Name)
        rewrite.change(node, lambda updated: updated.with_changes(value="True"))
        return
    call = rewrite.node(tape_call, cst.Call)
    rewrite.change(call, lambda updated: with_keyword(updated, "persistent", "True", first=True))


def delete_after(rewrite: Rewrite, stmt: ast.stmt, name: str) -> None:
    """Insert `del name` after the statement `stmt` (after what other edits insert there too,
    when they are registered first)."""
    statement = rewrite.line_of(stmt)
    block, index = rewrite.block_of(statement)
    rewrite.insert(block, index + 1, [f"del {name}"])


@or_none
def persistent_fix(text: str, tape_call: ast.Call, persistent: ast.expr | None, release_after: ast.stmt | None,
                   name: str, title: str, applicability: Applicability = Applicability.SAFE) -> Fix | None:
    rewrite = Rewrite(text, [tape_call, release_after])
    make_persistent(rewrite, tape_call, persistent)
    if release_after is not None:
        delete_after(rewrite, release_after, name)
    return rewrite.fix(title, applicability)
