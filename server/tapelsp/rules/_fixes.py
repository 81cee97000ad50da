"""What the fixable GradientTape rules share about their fixes and examples.

- `unfixed(example)`: an invalid example for which the rule deliberately offers no fix;
  its expected fixed source is the source itself (the fix tests then check that no fix
  of the rule applies, and the runtime fix proofs skip it).
- `leading_watches(body, tape)`: how many `tape.watch(...)` statements open a block.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from ..facts.names import dotted
from .base import Example


def unfixed(example: Example) -> Example:
    return replace(example, fixed=example.source)


def is_watch(stmt: ast.stmt, tape: str) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
        and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "watch" \
        and dotted(stmt.value.func.value) == tape


def first_after_watches(body: list[ast.stmt], start: int, tape: str) -> ast.stmt | None:
    """The first statement of `body` from `start` on that is not `tape.watch(...)` (None: the end)."""
    index = start
    while index < len(body) and is_watch(body[index], tape):
        index += 1
    return body[index] if index < len(body) else None
