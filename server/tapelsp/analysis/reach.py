"""Could evaluating an expression read a given model or variable without naming it?

TAPE006 (the forward pass ran before the tape) must not blame a computation when
something inside the block may run the model again through a function: `loss =
compute_loss(x)` where `compute_loss` reads the global `model`. `may_reach(...)` answers,
with the value model telling what each called name is:

- a library function, a builtin, a library object (a Keras loss, another model made by a
  library constructor) never reads our name;
- a def of this file (or of another module of the project) does when its body names it,
  or calls something that might (followed a few levels deep);
- a method of a value we cannot see, or anything unknown, might.
"""

from __future__ import annotations

import ast
import builtins

from ..facts.model import Facts, Scope
from .values import BUILTIN, FUNCTION, LIBRARY, TF_FUNCTION, Value, ValueModel

_BUILTINS = frozenset(dir(builtins))
_MAX_DEPTH = 3


def may_reach(values: ValueModel, expr: ast.AST, head: str, local: bool, scope: Scope, depth: int = 0) -> bool:
    """Could evaluating `expr` (in `scope`) read `head` without naming it?

    `local`: `head` is a local or parameter of `scope`, so only a closure defined in the same
    function can read it without being given it."""
    facts = values.facts
    if local:
        for node in ast.walk(expr):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                body = _nested_function(facts, node.func.id, scope)
                if body is not None and _names(body, head):
                    return True
        return False
    for node in ast.walk(expr):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in _BUILTINS and not _shadowed(values, func, scope):
            continue
        if isinstance(func, ast.Attribute) and isinstance(func.value, (ast.Call, ast.Subscript)):
            continue  # a method of a fresh result: `pred.numpy()`, `x[0].mean()`
        called = values.value(func, scope)
        if _library(called):
            continue
        if isinstance(func, ast.Attribute):
            receiver = values.value(func.value, scope) if not isinstance(func.value, ast.Name) or \
                func.value.id != head else None
            if receiver is not None and _library(receiver):
                continue
            return True
        if called.kind in (FUNCTION, TF_FUNCTION):
            function = called.ref.ref if called.kind == TF_FUNCTION and isinstance(called.ref, Value) else called.ref
            owner: ValueModel = (called.ref.home if called.kind == TF_FUNCTION and isinstance(called.ref, Value)
                                 else called.home) or values
            if owner is not values:
                if _remote_reaches(owner, function, head, depth):
                    return True
                continue
            body = facts.function_scopes.get(function)
            if body is None or depth >= _MAX_DEPTH or _names(body, head):
                return True
            if may_reach(values, function, head, False, body, depth + 1):
                return True
            continue
        if isinstance(func, ast.Name) and called.kind == "unknown" and not values.project \
                and func.id in facts.imports.names:
            return True
        return True
    return False


def _library(value: Value) -> bool:
    """A library function or module, or an object a library constructor made."""
    if not value.certain:
        return False
    if value.kind in (LIBRARY, BUILTIN):
        return value.home is None
    return isinstance(value.ref, str)


def _shadowed(values: ValueModel, func: ast.Name, scope: Scope) -> bool:
    return values.value(func, scope).kind != BUILTIN


def _names(scope: Scope, head: str) -> bool:
    return head in scope.loads or any(key.startswith(head + ".") for key in scope.loads)


def _nested_function(facts: Facts, name: str, where: Scope) -> Scope | None:
    for node, scope in facts.function_scopes.items():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name and scope.parent is where:
            return scope
    return None


def _remote_reaches(owner: ValueModel, function: ast.AST, head: str, depth: int) -> bool:
    """A function of another module of the project: it can read our `head` only when its module
    binds `head` itself (imports it, e.g. `from train import model`) and its body, or a function
    there it calls, names it; calls it makes to anything unknown count as "maybe"."""
    if depth > _MAX_DEPTH:
        return True
    scope = owner.facts.function_scopes.get(function)
    if scope is None:
        return True
    if head in owner.facts.imports.names and _names(scope, head):
        return True
    if head in owner.facts.imports.names:
        return may_reach(owner, function, head, False, scope, depth + 1)
    # `head` is not bound there: only its parameters could carry it, and those are given.
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            called = owner.value(node.func, scope)
            if called.kind in (FUNCTION,) and called.home not in (None, owner):
                if _remote_reaches(called.home, called.ref, head, depth + 1):
                    return True
    return False
