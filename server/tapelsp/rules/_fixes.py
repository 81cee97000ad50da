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


# --- where a tape is released ----------------------------------------------------------------

def release_point(tape, index, name: str) -> tuple[bool, ast.stmt | None]:
    """Where `del name` goes once the tape made by `tape` (a facts Tape: `with ... as name` or
    `name = tf.GradientTape()`) is used for the last time, in the statement list that holds
    its creation: (True, statement) to put it after that statement; (True, None) when no
    `del` is needed (the last use returns, or the name is deleted already); (False, None) when
    there is no certain place (the name is used outside that list, in a nested function, by
    an earlier iteration of a loop, or declared global).

    `index` is the scope's ScopeIndex (rules/_tape_gradcalls.py)."""
    scope = tape.scope
    if name in scope.globals or "." in name:
        return False, None
    made = tape.node
    path = index.path(made)
    if not path or path[-1][0] is not made:
        return False, None
    block = index.block_of(path, len(path) - 1)
    start = next((i for i, stmt in enumerate(block) if stmt is made), None)
    if start is None:
        return False, None
    stop = len(block)
    for i in range(start + 1, len(block)):
        if _rebinds(block[i], name):
            stop = i
            break
    region = block[start:stop]
    last = None
    for i, stmt in enumerate(region):
        if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) and _mentions(n, name)
               for n in ast.walk(stmt)):
            return False, None  # a closure may use the name after a `del`
        if _mentions(stmt, name, skip_binding=stmt is made):
            last = i
    begin = (made.lineno, made.col_offset)
    end_stmt = region[last] if last is not None else made
    end = (end_stmt.end_lineno or 0, end_stmt.end_col_offset or 0)
    region_end = (region[-1].end_lineno or 0, region[-1].end_col_offset or 0)
    for load in scope.loads.get(name, ()):
        where = (load.lineno, load.col_offset)
        if begin <= where <= end:
            continue
        if where < begin:
            if any(_encloses(loop, made) and _encloses(loop, load) for loop in tape.loops):
                return False, None
            continue
        if stop < len(block) and where >= (block[stop].lineno, block[stop].col_offset):
            continue  # a later binding's
        if where > region_end or where > end:
            return False, None
    if last is None:
        return True, None
    final = region[last]
    if isinstance(final, (ast.Return, ast.Raise)):
        return True, None
    if isinstance(final, ast.Delete) and any(isinstance(t, ast.Name) and t.id == name for t in final.targets):
        return True, None
    return True, final


def _rebinds(stmt: ast.stmt, name: str) -> bool:
    targets: list[ast.AST] = []
    if isinstance(stmt, ast.Assign):
        targets = list(stmt.targets)
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        targets = [stmt.target]
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        targets = [item.optional_vars for item in stmt.items if item.optional_vars is not None]
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        targets = [stmt.target]
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return stmt.name == name
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return any((alias.asname or alias.name.split(".")[0]) == name for alias in stmt.names)
    return any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t))


def _mentions(node: ast.AST, name: str, skip_binding: bool = False) -> bool:
    """Does the code load or delete `name`? (`skip_binding`: not counting the `as name` of a with.)"""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name) and inner.id == name and isinstance(inner.ctx, (ast.Load, ast.Del)):
            return True
        if not skip_binding and isinstance(inner, ast.Name) and inner.id == name:
            return True
    return False


def _encloses(outer: ast.AST, inner: ast.AST) -> bool:
    return (outer.lineno, outer.col_offset) <= (inner.lineno, inner.col_offset) and \
        (inner.end_lineno or 0, inner.end_col_offset or 0) <= (outer.end_lineno or 0, outer.end_col_offset or 0)
