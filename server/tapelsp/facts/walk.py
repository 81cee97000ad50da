"""Walks over a tree that visit less than `ast.walk` but meet what they yield in its order."""

from __future__ import annotations

import ast
from collections import deque
from typing import Iterable, Iterator

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


def body_statements(owner: ast.AST) -> list[ast.AST]:
    """The statements of `owner`'s own code (in compound statements, except handlers and match
    cases too), not those inside nested defs and classes (listed themselves): the statements
    `walk_body(owner.body)` meets, found without visiting any expression."""
    out: list[ast.AST] = []
    body = getattr(owner, "body", None)
    if not isinstance(body, list):
        return out
    stack = body[::-1]
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, _NESTED):
            continue
        for name in _STATEMENT_FIELDS:
            value = getattr(node, name, None)
            if isinstance(value, list):
                stack.extend(reversed(value))
    return out


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


# Fields that never hold a node under which an expression or a statement can sit:
# identifiers, flags, and the context / operator / alias nodes (which have no children).
_LEAF_FIELDS = frozenset({
    "ctx", "op", "ops", "id", "attr", "name", "asname", "arg", "module", "level", "kind",
    "type_comment", "conversion", "is_async", "simple", "tag", "lineno", "names", "kwd_attrs",
    "type_ignores",
})
REVERSED_FIELDS: dict[type, tuple[str, ...]] = {}


def reversed_fields(kind: type) -> tuple[str, ...]:
    """The fields of node type `kind` that may hold expressions or statements, last first
    (() for anything that is not a node type)."""
    fields = REVERSED_FIELDS.get(kind)
    if fields is None:
        fields = tuple(name for name in reversed(getattr(kind, "_fields", ())) if name not in _LEAF_FIELDS)
        REVERSED_FIELDS[kind] = fields
    return fields


def inner_children(node: ast.AST) -> list[ast.AST]:
    """`children(node)` without the nodes that can hold no expression or statement
    (`ctx`, operators, import aliases): the same order otherwise."""
    out: list[ast.AST] = []
    for name in reversed_fields(type(node)):
        value = getattr(node, name, None)
        if isinstance(value, list):
            for item in reversed(value):
                if isinstance(item, ast.AST):
                    out.append(item)
        elif isinstance(value, ast.AST):
            out.append(value)
    out.reverse()
    return out


_FORWARD_FIELDS: dict[type, tuple[str, ...]] = {}


def breadth_first(root: ast.AST) -> list[ast.AST]:
    """`list(ast.walk(root))` without the nodes that can hold no expression or statement (`ctx`,
    operators, import aliases): every other node, in the same order, built without generators.

    Leaving out nodes that have no children moves no other node in a breadth-first walk."""
    out = [root]
    append = out.append
    node_type = ast.AST
    index = 0
    while index < len(out):
        node = out[index]
        index += 1
        kind = type(node)
        fields = _FORWARD_FIELDS.get(kind)
        if fields is None:
            fields = _FORWARD_FIELDS[kind] = tuple(name for name in kind._fields if name not in _LEAF_FIELDS)
        for name in fields:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, node_type):
                        append(item)
            elif isinstance(value, node_type):
                append(value)
    return out


# Fields that hold identifiers, numbers or flags, never a node.
_SCALAR_FIELDS = frozenset({
    "id", "attr", "name", "asname", "arg", "module", "level", "kind", "type_comment", "conversion",
    "is_async", "simple", "tag", "lineno", "kwd_attrs",
})
_ALL_REVERSED_FIELDS: dict[type, tuple[str, ...]] = {}


def nodes_under(nodes: list[ast.AST], stop: tuple[type, ...]) -> list[ast.AST]:
    """`nodes` and every node under them, depth first in the order of `children`, not going
    under a node of a `stop` type (it is listed itself): a list, built without generators."""
    out: list[ast.AST] = []
    stack = nodes[::-1]
    pop, push, append = stack.pop, stack.append, out.append
    node_type = ast.AST
    while stack:
        node = pop()
        append(node)
        if isinstance(node, stop):
            continue
        kind = type(node)
        fields = _ALL_REVERSED_FIELDS.get(kind)
        if fields is None:
            fields = _ALL_REVERSED_FIELDS[kind] = tuple(
                name for name in reversed(kind._fields) if name not in _SCALAR_FIELDS)
        for name in fields:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in reversed(value):
                    if isinstance(item, node_type):
                        push(item)
            elif isinstance(value, node_type):
                push(value)
    return out


_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def walk_body(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Every node under `nodes`, depth first, not entering nested defs, lambdas or classes
    (they are yielded themselves)."""
    stack = list(nodes)[::-1]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _NESTED):
            continue
        stack.extend(reversed(children(node)))


def body_nodes(facts, owner: ast.AST, types: tuple[type, ...] = ()) -> list[ast.AST]:
    """`walk_body(owner.body)` as a list (empty when `owner` has no statement body), walked
    once per file and kept on the facts; with `types`, only the nodes of those types, in
    the same order. Several rules walk every traced function's body: they share it."""
    cache = facts.__dict__.setdefault("_body_nodes", {})
    key = (id(owner), types)
    found = cache.get(key)
    if found is None:
        if types:
            found = [node for node in body_nodes(facts, owner) if isinstance(node, types)]
        else:
            body = getattr(owner, "body", None)
            found = nodes_under(body, _NESTED) if isinstance(body, list) else []  # = list(walk_body(body))
        cache[key] = found
    return found


def assigned_calls(facts, owner: ast.AST, name: str) -> list[ast.Call]:
    """The calls `name = f(...)` assigns in `owner`'s own body (a cheap look before the value
    model is asked what `name` holds)."""
    return [node.value for node in body_nodes(facts, owner, (ast.Assign,))
            if isinstance(node.value, ast.Call)
            and any(isinstance(target, ast.Name) and target.id == name for target in node.targets)]
