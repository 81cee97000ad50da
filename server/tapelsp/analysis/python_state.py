"""Where Python names live, for the rules about Python state and tf.function (FUNC007-FUNC012).

A tf.function runs its Python body only while TensorFlow traces it. These rules ask
the same questions about a name used in a traced body: is it local to the trace, or
bound outside it (module, closure, `self.attr`)? What is it bound to there (a Python
list, an int, an iterator)? Which statements rebind it? The answers are computed
once per file and kept for as long as the file's facts live.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from ..facts.model import Facts, Scope, TfFunction
from ..facts.walk import children as child_nodes

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)

# Python containers and what builds them.
CONTAINER_BUILDERS = frozenset({"list", "dict", "set", "collections.defaultdict", "collections.OrderedDict",
                                "collections.deque", "collections.Counter"})


def own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Every node of a def/lambda/module body that runs in its own scope (not nested defs, classes)."""
    if isinstance(node, ast.Lambda):
        stack: list[ast.AST] = [node.body]
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module, ast.ClassDef)):
        stack = list(reversed(node.body))
    else:
        stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, NESTED):
            # Decorators and defaults run in the enclosing scope; the body does not.
            if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)):
                stack.extend(reversed(current.decorator_list))
                stack.extend(d for d in current.args.defaults + current.args.kw_defaults if d is not None)
            elif isinstance(current, ast.ClassDef):
                stack.extend(reversed(current.decorator_list + current.bases))
            continue
        stack.extend(reversed(child_nodes(current)))


def parameters(node: ast.AST) -> list[ast.arg]:
    if not isinstance(node, FUNCTIONS):
        return []
    args = node.args
    found = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if args.vararg:
        found.append(args.vararg)
    if args.kwarg:
        found.append(args.kwarg)
    return found


def parameter_defaults(node: ast.AST) -> dict[str, ast.expr]:
    if not isinstance(node, FUNCTIONS):
        return {}
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    out = {}
    for arg, default in zip(positional[len(positional) - len(args.defaults):], args.defaults):
        out[arg.arg] = default
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        if default is not None:
            out[arg.arg] = default
    return out


@dataclass
class Assignment:
    """One statement that binds a name: `stmt` is the statement, `value` what it binds (if known)."""

    stmt: ast.AST
    value: ast.expr | None
    kind: str  # "assign", "augassign", "for", "with", "import", "def", "param", "walrus", "other"
    target: ast.expr | None = None


@dataclass
class ScopeNames:
    """Names bound in one scope (its own code only), with every binding."""

    node: ast.AST
    bindings: dict[str, list[Assignment]] = field(default_factory=dict)
    declared_global: set[str] = field(default_factory=set)
    declared_nonlocal: set[str] = field(default_factory=set)

    def binds(self, name: str) -> bool:
        return name in self.bindings and name not in self.declared_global \
            and name not in self.declared_nonlocal


def _add(names: ScopeNames, name: str, assignment: Assignment) -> None:
    names.bindings.setdefault(name, []).append(assignment)


def _bind_target(names: ScopeNames, target: ast.expr, stmt: ast.AST, value: ast.expr | None, kind: str) -> None:
    if isinstance(target, ast.Name):
        _add(names, target.id, Assignment(stmt, value, kind, target))
    elif isinstance(target, (ast.Tuple, ast.List)):
        values = value.elts if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) \
            else [None] * len(target.elts)
        for element, element_value in zip(target.elts, values):
            keep = kind if element_value is not None or kind in ("for", "with") else "other"
            _bind_target(names, element, stmt, element_value, keep)
    elif isinstance(target, ast.Starred):
        _bind_target(names, target.value, stmt, None, "other")


def scope_names(node: ast.AST, nodes: Iterable[ast.AST] | None = None) -> ScopeNames:
    """The names `node`'s scope binds; `nodes` is `own_nodes(node)` when the caller has it."""
    names = ScopeNames(node)
    for param in parameters(node):
        _add(names, param.arg, Assignment(node, None, "param"))
    for current in own_nodes(node) if nodes is None else nodes:
        if current is node:
            continue
        if isinstance(current, ast.Assign):
            for target in current.targets:
                _bind_target(names, target, current, current.value, "assign")
        elif isinstance(current, ast.AnnAssign):
            if current.value is not None:
                _bind_target(names, current.target, current, current.value, "assign")
        elif isinstance(current, ast.AugAssign):
            if isinstance(current.target, ast.Name):
                _add(names, current.target.id, Assignment(current, current.value, "augassign", current.target))
        elif isinstance(current, (ast.For, ast.AsyncFor)):
            _bind_target(names, current.target, current, None, "for")
        elif isinstance(current, (ast.With, ast.AsyncWith)):
            for item in current.items:
                if item.optional_vars is not None:
                    _bind_target(names, item.optional_vars, current, item.context_expr, "with")
        elif isinstance(current, ast.NamedExpr):
            _add(names, current.target.id, Assignment(current, current.value, "walrus", current.target))
        elif isinstance(current, (ast.Import, ast.ImportFrom)):
            for alias in current.names:
                if alias.name != "*":
                    local = alias.asname or alias.name.split(".")[0]
                    _add(names, local, Assignment(current, None, "import"))
        elif isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            _add(names, current.name, Assignment(current, None, "def"))
        elif isinstance(current, ast.ExceptHandler) and current.name:
            _add(names, current.name, Assignment(current, None, "other"))
        elif isinstance(current, ast.comprehension):
            # Comprehension variables are local to the comprehension; record them apart.
            pass
        elif isinstance(current, ast.Global):
            names.declared_global.update(current.names)
        elif isinstance(current, ast.Nonlocal):
            names.declared_nonlocal.update(current.names)
    return names


# The nodes `scope_names` reads (every other node it passes over).
_BINDERS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.NamedExpr,
            ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler,
            ast.comprehension, ast.Global, ast.Nonlocal)


class FileState:
    """Per-file answers shared by the FUNC007-FUNC012 rules."""

    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self._names: dict[int, ScopeNames] = {}
        self._own: dict[tuple[int, tuple[type, ...]], list[ast.AST]] = {}
        self._class_attrs: dict[int, dict[str, list[Assignment]]] = {}
        self._scope_of_node = {id(scope.node): scope for scope in facts.scopes}

    def names(self, scope: Scope | ast.AST) -> ScopeNames:
        node = scope.node if isinstance(scope, Scope) else scope
        found = self._names.get(id(node))
        if found is None:
            found = self._names[id(node)] = scope_names(node, self.own(node, _BINDERS))
        return found

    def own(self, node: ast.AST, types: tuple[type, ...] = ()) -> list[ast.AST]:
        """`own_nodes(node)` as a list, walked once per file; with `types`, only those nodes, in order."""
        key = (id(node), types)
        found = self._own.get(key)
        if found is None:
            found = [n for n in self.own(node) if isinstance(n, types)] if types else list(own_nodes(node))
            self._own[key] = found
        return found

    def scope_for(self, node: ast.AST) -> Scope | None:
        return self._scope_of_node.get(id(node))

    def defining_scope(self, scope: Scope, name: str) -> Scope | None:
        """The scope whose binding of `name` a load in `scope` sees (Python's LEGB, minus builtins)."""
        current: Scope | None = scope
        first = True
        while current is not None:
            if current.kind == "class" and not first:
                current = current.parent
                continue
            names = self.names(current)
            if name in names.declared_global:
                return self.facts.module
            if current.kind == "module":
                return current if name in names.bindings else None
            if names.binds(name):
                return current
            first = False
            current = current.parent
        return None

    def is_builtin(self, scope: Scope, name: str) -> bool:
        """`name` in this scope means the builtin (not imported, not bound anywhere visible)."""
        if self.defining_scope(scope, name) is not None:
            return False
        return name not in self.facts.imports.names or name in self.facts.imports.assumed

    def class_attrs(self, cls: ast.ClassDef) -> dict[str, list[Assignment]]:
        """`self.attr = value` (and `self.attr += v`) in the methods of a class."""
        found = self._class_attrs.get(id(cls))
        if found is not None:
            return found
        found = {}
        for stmt in cls.body:
            if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) or not stmt.args.args:
                continue
            me = stmt.args.args[0].arg
            for node in statements(stmt.body):
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        attr = self_attribute(target, me)
                        if attr:
                            found.setdefault(attr, []).append(Assignment(node, node.value, "assign", target))
                elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                    attr = self_attribute(node.target, me)
                    if attr:
                        kind = "augassign" if isinstance(node, ast.AugAssign) else "assign"
                        found.setdefault(attr, []).append(Assignment(node, node.value, kind, node.target))
        self._class_attrs[id(cls)] = found
        return found

    def class_of(self, scope: Scope) -> ast.ClassDef | None:
        """The class whose method (possibly through nested defs) this scope is."""
        current: Scope | None = scope
        while current is not None:
            if current.kind == "class":
                return current.node  # type: ignore[return-value]
            current = current.parent
        return None


def statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement in `body`, nested blocks included, without looking into expressions."""
    stack = list(reversed(body))
    while stack:
        stmt = stack.pop()
        yield stmt
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(stmt, name, None)
            if block:
                stack.extend(reversed(block))


def file_state(facts: Facts) -> FileState:
    # Kept on the Facts itself, so it lives exactly as long as the file's facts
    # (a module-level weak map whose values refer back to their keys never frees them).
    state = facts.__dict__.get("_python_state")
    if state is None:
        state = facts.__dict__["_python_state"] = FileState(facts)
    return state


def self_attribute(target: ast.AST, me: str = "self") -> str | None:
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == me:
        return target.attr
    return None


def traced_scopes(facts: Facts) -> list[Scope]:
    """Function and lambda scopes whose code runs while a tf.function traces."""
    return [s for s in facts.scopes if s.kind in ("function", "lambda") and s.traced_by is not None]


def function_label(tf_function: TfFunction) -> str:
    node = tf_function.node
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return f"`{node.name}`"
    target = tf_function.target
    if target is not None and isinstance(target, (ast.Name, ast.Attribute)):
        return f"`{ast.unparse(target)}`"
    return "this tf.function"


def is_container(value: ast.expr | None, facts: Facts) -> bool:
    if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    if isinstance(value, ast.Call):
        if isinstance(value.func, ast.Name) and value.func.id in ("list", "dict", "set") \
                and value.func.id not in facts.imports.names:
            return True
        resolved = facts.imports.resolve(value.func)
        return resolved in CONTAINER_BUILDERS
    return False


def is_number(value: ast.expr | None) -> bool:
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        value = value.operand
    return isinstance(value, ast.Constant) and type(value.value) in (int, float)


def position(node: ast.AST) -> tuple[int, int]:
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def inside(node: ast.AST, outer: ast.AST) -> bool:
    start, end = position(outer), (getattr(outer, "end_lineno", 0) or 0, getattr(outer, "end_col_offset", 0) or 0)
    return start <= position(node) and (getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0) <= end
