"""Names a fix may introduce without clashing: what a file already binds or uses (on `ast`)."""

from __future__ import annotations

import ast
from typing import Iterable


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


def identifiers(tree: ast.AST, skip: ast.AST | None = None) -> set[str]:
    """Every name the code uses or binds (leaving out the subtree `skip`)."""
    names: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if node is skip:
            continue
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        else:
            names.update(bindings(node))
        stack.extend(ast.iter_child_nodes(node))
    return names


def attribute_names(tree: ast.AST) -> set[str]:
    """Every `.name` that appears after a dot anywhere in the code."""
    return {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}


def fresh(candidates: Iterable[str], stem: str, taken: set[str]) -> str:
    """The first candidate not taken, else `stem_2`, `stem_3`, ..."""
    for candidate in candidates:
        if candidate not in taken and not candidate.startswith("__"):
            return candidate
    number = 2
    while f"{stem}_{number}" in taken:
        number += 1
    return f"{stem}_{number}"
