"""Walks over a tree that visit less than `ast.walk` but meet what they yield in its order."""

from __future__ import annotations

import ast
from collections import deque
from typing import Iterator

_STATEMENT_FIELDS = ("body", "handlers", "orelse", "finalbody", "cases")


def statements_breadth_first(root: ast.AST) -> Iterator[ast.AST]:
    """`root` and the statements under it (with except handlers and match cases, nested defs'
    bodies included) in `ast.walk`'s order, without visiting any expression.

    A statement's parent is always a statement, a handler, a case or the module, so this walk
    meets them at the same depths, and in the same order, as `ast.walk` does."""
    queue = deque([root])
    while queue:
        node = queue.popleft()
        yield node
        for name in node._fields:
            if name in _STATEMENT_FIELDS:
                value = getattr(node, name, None)
                if isinstance(value, list):
                    queue.extend(value)


def children(node: ast.AST) -> list[ast.AST]:
    """`list(ast.iter_child_nodes(node))`, same nodes in the same order, without its two
    generators (the walks of the facts pass and the rules spend much of their time there)."""
    out: list[ast.AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST):
                    out.append(item)
        elif isinstance(value, ast.AST):
            out.append(value)
    return out
