"""Names a fix may introduce without clashing: what a file already binds or uses (on `ast`)."""

from __future__ import annotations

import ast
import contextlib
import contextvars
from collections import Counter
from typing import AbstractSet, Iterable, Iterator

from .per_source import attribute_names as _attribute_names, parents, survey


def bindings(node: ast.AST) -> list[str]:
    """Names a node binds in the scope it sits in."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        return [node.id]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name.split(".")[0]) for alias in node.names if alias.name != "*"]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names)
    for kind, attribute in (("MatchAs", "name"), ("MatchStar", "name"), ("MatchMapping", "rest")):
        cls = getattr(ast, kind, None)
        if cls is not None and isinstance(node, cls) and getattr(node, attribute, None):
            return [getattr(node, attribute)]
    return []


# The node types `bindings` can name something for (most nodes of a tree are none of these).
_BINDERS = frozenset(
    [ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom,
     ast.ExceptHandler, ast.Global, ast.Nonlocal]
    + [getattr(ast, kind) for kind in ("MatchAs", "MatchStar", "MatchMapping") if hasattr(ast, kind)])


def names_of(node: ast.AST) -> list[str] | tuple[str, ...]:
    """The names one node uses or binds (its own, not its children's)."""
    kind = type(node)
    if kind is ast.Name:
        return (node.id,)
    if kind is ast.arg:
        return (node.arg,)
    if kind not in _BINDERS:  # trees come from ast.parse: its node types exactly
        return ()
    return bindings(node)


def _count(root: ast.AST) -> Counter[str]:
    """How many nodes of `root` (itself included) use or bind each name."""
    counts: Counter[str] = Counter()
    stack = [root]
    while stack:
        node = stack.pop()
        counts.update(names_of(node))
        stack.extend(ast.iter_child_nodes(node))
    return counts


def _counted(tree: ast.AST) -> tuple[Counter[str], frozenset[str]]:
    found = survey(tree)
    return found.name_counts, found.names


class _Without(AbstractSet[str]):
    """The names of a tree but those found only in a subtree left out (a view: no copy)."""

    def __init__(self, names: frozenset[str], gone: frozenset[str]) -> None:
        self._names, self._gone = names, gone

    def __contains__(self, name: object) -> bool:
        return name in self._names and name not in self._gone

    def __iter__(self) -> Iterator[str]:
        return (name for name in self._names if name not in self._gone)

    def __len__(self) -> int:
        return len(self._names) - len(self._gone)


# Names taken in the file outside the tree a fix is built on: an incremental analysis parses
# only some of a file's statements (see tapelsp.incremental), and sets the words of the others.
_RESERVED: contextvars.ContextVar[tuple[AbstractSet[str], AbstractSet[str]]] = contextvars.ContextVar(
    "tapelsp_reserved_names", default=(frozenset(), frozenset()))


@contextlib.contextmanager
def reserved_names(names: AbstractSet[str], attributes: AbstractSet[str] | None = None) -> Iterator[None]:
    """Within this block, `identifiers` also counts `names` as taken, and `attribute_names`
    counts `attributes` (`names` when not given)."""
    token = _RESERVED.set((names, names if attributes is None else attributes))
    try:
        yield
    finally:
        _RESERVED.reset(token)


class _Also(AbstractSet[str]):
    """Two sets seen as one (a view: no copy)."""

    def __init__(self, first: AbstractSet[str], second: AbstractSet[str]) -> None:
        self._first, self._second = first, second

    def __contains__(self, name: object) -> bool:
        return name in self._first or name in self._second

    def __iter__(self) -> Iterator[str]:
        yield from self._first
        yield from (name for name in self._second if name not in self._first)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def identifiers(tree: ast.AST, skip: ast.AST | None = None) -> AbstractSet[str]:
    """Every name the code uses or binds (leaving out the subtree `skip`), and the names
    `reserved_names` sets.

    Counted once per tree (a file's fixes each ask): leaving out `skip` costs the size
    of `skip`, not of the tree."""
    found = _identifiers(tree, skip)
    reserved = _RESERVED.get()[0]
    return _Also(found, reserved) if reserved else found


def _identifiers(tree: ast.AST, skip: ast.AST | None) -> AbstractSet[str]:
    counts, names = _counted(tree)
    if skip is None or (skip is not tree and skip not in parents(tree)):
        return names  # nothing of the tree is left out
    if skip is tree:
        return frozenset()
    left_out = _count(skip)
    return _Without(names, frozenset(name for name, count in left_out.items() if counts[name] <= count))


def attribute_names(tree: ast.AST) -> AbstractSet[str]:
    """Every `.name` that appears after a dot anywhere in the code (found once per tree), and
    the names `reserved_names` sets."""
    found = _attribute_names(tree)
    reserved = _RESERVED.get()[1]
    return _Also(found, reserved) if reserved else found


def fresh(candidates: Iterable[str], stem: str, taken: AbstractSet[str], *more_taken: AbstractSet[str]) -> str:
    """The first candidate not taken (in `taken` or any of `more_taken`), else `stem_2`, `stem_3`, ..."""
    def is_taken(name: str) -> bool:
        return name in taken or any(name in other for other in more_taken)

    for candidate in candidates:
        if not is_taken(candidate) and not candidate.startswith("__"):
            return candidate
    number = 2
    while is_taken(f"{stem}_{number}"):
        number += 1
    return f"{stem}_{number}"
