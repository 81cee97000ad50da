"""Move statements into or out of a tape's `with` block (TAPE003, TAPE004, TAPE005), with libcst.

- `move_into_block_fix`: statements that follow the block (a loss computed after it, a
  first derivative taken after the outer tape's block) move to the end of the block, in
  their order, with their comments; a target written in the gradient call itself becomes
  a name assigned at the end of the block.
- `dedent_fix`: a gradient call inside its tape's block moves right after the block; for a
  non-persistent tape the tape is made persistent and released after its last use
  (fixes/persistent.py), since two calls then follow the block.
- `stop_recording_fix`: the statement of a gradient call is put under
  `with tape.stop_recording():` (a call in a loop inside the block of a persistent tape).

The rules decide on `ast` what moves and whether that is safe; these only rewrite.
"""

from __future__ import annotations

import ast

import libcst as cst

from ..model import Applicability, Fix
from .blocks import Rewrite, next_statement, or_none
from .persistent import delete_after, make_persistent


@or_none
def move_into_block_fix(text: str, with_node: ast.With | ast.AsyncWith, run: list[ast.stmt], title: str,
                        applicability: Applicability, *, target: ast.expr | None = None,
                        name: str | None = None) -> Fix | None:
    """Move the statements `run` (consecutive, in the block holding the `with`) to the end of the
    `with` block; with `target`/`name`, also assign `name = <target>` there and use `name` in
    place of the expression `target`."""
    following = next_statement(text, run[-1]) if run else None
    rewrite = Rewrite(text, [with_node, *run, target, following])
    statement = rewrite.statement(with_node)
    body = rewrite.body(statement)
    moved = [rewrite.statement(stmt) for stmt in run]
    if moved:
        rewrite.move(moved, body, len(body.body), blank_lines_stay=True)
    if target is not None and name is not None:
        expression = rewrite.node(target, cst.BaseExpression)
        assignment = cst.SimpleStatementLine([cst.Assign(targets=[cst.AssignTarget(cst.Name(name))],
                                                         value=expression)])
        rewrite.insert(body, len(body.body), [assignment])
        rewrite.change(expression, lambda updated: cst.Name(name, lpar=updated.lpar, rpar=updated.rpar))
    return rewrite.fix(title, applicability)


@or_none
def dedent_fix(text: str, stmt: ast.stmt, with_node: ast.With | ast.AsyncWith, title: str,
               applicability: Applicability, *, tape_call: ast.Call | None = None,
               persistent: ast.expr | None = None, make_it_persistent: bool = False,
               release_after: ast.stmt | None = None, name: str | None = None) -> Fix | None:
    """Move `stmt` out of the block of `with_node`, right after it. With `make_it_persistent`,
    also `persistent=True` on `tape_call` and `del name` after `release_after` (right after the
    moved statement when `release_after` is the `with` itself)."""
    rewrite = Rewrite(text, [with_node, stmt, tape_call, release_after])
    outer = rewrite.statement(with_node)
    block, index = rewrite.block_of(outer)
    moved = rewrite.statement(stmt)
    rewrite.move([moved], block, index + 1)
    if make_it_persistent:
        if tape_call is None:
            return None
        make_persistent(rewrite, tape_call, persistent)
        if release_after is not None and name is not None:
            if release_after is with_node:
                rewrite.insert(block, index + 1, [f"del {name}"])
            else:
                delete_after(rewrite, release_after, name)
    return rewrite.fix(title, applicability)


@or_none
def stop_recording_fix(text: str, stmt: ast.stmt, tape: str, title: str,
                       applicability: Applicability = Applicability.SAFE) -> Fix | None:
    rewrite = Rewrite(text, [stmt])
    rewrite.wrap(rewrite.statement(stmt), f"with {tape}.stop_recording():")
    return rewrite.fix(title, applicability)
