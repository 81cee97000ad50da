"""What a model, loss function or variable is, in this file or another module of the project.

The GradientTape rules ask two questions that depend on code elsewhere:

- "is `critic` a different object from `actor`, sharing none of its variables?"
  (`distinct`), answered when both are built by constructors we can see through: a
  class (defined here or in a project module), a factory function that builds fresh
  layers, `keras.Sequential([...fresh layers...])`, `keras.applications.*`, or
  `tf.Variable(...)`;
- "does calling this imported function add anything of its own?" (`pure_function`),
  true for a function that only uses its parameters, library calls and constants.

Other modules are found through `ctx.project` (`Project.module_file`) and parsed here
with the stdlib `ast`, cached by path, modification time and size, with a size limit and
a time budget. Without a project, or when anything is unclear, the answer is "unknown"
and the rules stay silent.
"""

from __future__ import annotations

import ast
import builtins
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from ..facts.dataflow import Flow, flow_of
from ..facts.model import Facts, Scope
from ..facts.names import ImportTable, dotted

_BUILTINS = frozenset(dir(builtins))
_MAX_BYTES = 1_000_000
_BUDGET_SECONDS = 1.0
_CACHE_SIZE = 64


@dataclass(eq=False)
class ModuleView:
    """One module's top level: imports, defs, classes and assignments."""

    tree: ast.Module
    imports: ImportTable
    path: str | None
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    assigned: dict[str, list[ast.expr]] = field(default_factory=dict)
    # `from X import Y as Z` at top level: Z -> (X, Y, level)
    imported: dict[str, tuple[str, str, int]] = field(default_factory=dict)


def _view(tree: ast.Module, imports: ImportTable, path: str | None) -> ModuleView:
    view = ModuleView(tree, imports, path)
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            view.functions[stmt.name] = stmt  # type: ignore[assignment]
        elif isinstance(stmt, ast.ClassDef):
            view.classes[stmt.name] = stmt
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    view.assigned.setdefault(target.id, []).append(stmt.value)
        elif isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                if alias.name != "*":
                    view.imported[alias.asname or alias.name] = (stmt.module or "", alias.name, stmt.level)
    return view


def local_view(facts: Facts, path: str | None) -> ModuleView:
    cached = facts.__dict__.get("_tape_module_view")
    if cached is None:
        cached = _view(facts.tree, facts.imports, path)
        facts.__dict__["_tape_module_view"] = cached
    return cached


_REMOTE: OrderedDict[str, tuple[int, int, ModuleView | None]] = OrderedDict()
_spent = [0.0]
_LOCK = threading.Lock()


def _remote_view(path: str) -> ModuleView | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    key = (stat.st_mtime_ns, stat.st_size)
    from ..project import note_read

    note_read(path, stat)
    with _LOCK:
        cached = _REMOTE.get(path)
        if cached is not None and cached[:2] == key:
            _REMOTE.move_to_end(path)
            return cached[2]
        if stat.st_size > _MAX_BYTES or _spent[0] > _BUDGET_SECONDS:
            return None
    start = time.perf_counter()
    view: ModuleView | None
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read(), filename=path)
        imports = ImportTable()
        for stmt in tree.body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                imports.add_import(stmt)
        imports.assume("tf", "tensorflow")
        imports.assume("np", "numpy")
        view = _view(tree, imports, path)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        view = None
    with _LOCK:
        _spent[0] += time.perf_counter() - start
        _REMOTE[path] = (*key, view)
        while len(_REMOTE) > _CACHE_SIZE:
            _REMOTE.popitem(last=False)
    return view


def reset_budget() -> None:
    """Each checked file gets its own parsing budget for the modules it imports."""
    with _LOCK:
        _spent[0] = 0.0


def resolve_import(view: ModuleView, name: str, project, depth: int = 0) -> tuple[ModuleView, str] | None:
    """The module (and name there) that `name`, imported by `view`, comes from."""
    if project is None or depth > 3 or name not in view.imported:
        return None
    module, attr, level = view.imported[name]
    from .modules import module_path

    path = module_path(project, view.path, module, level)
    if path is None:
        return None
    remote = _remote_view(path)
    if remote is None:
        return None
    if attr in remote.functions or attr in remote.classes or attr in remote.assigned:
        return remote, attr
    return resolve_import(remote, attr, project, depth + 1)


# --- definitions behind a name ----------------------------------------------------------

def definition(view: ModuleView, name: str, project) -> tuple[ModuleView, ast.AST] | None:
    """The top-level def or class `name` means in `view` (following project imports)."""
    if name in view.functions:
        return view, view.functions[name]
    if name in view.classes:
        return view, view.classes[name]
    found = resolve_import(view, name, project)
    if found is None:
        return None
    remote, attr = found
    if attr in remote.functions:
        return remote, remote.functions[attr]
    if attr in remote.classes:
        return remote, remote.classes[attr]
    return None


def pure_function(view: ModuleView, node: ast.FunctionDef, depth: int = 0) -> bool:
    """Uses only its parameters, its locals, imports, constants and other pure functions."""
    if depth > 2 or node.decorator_list:
        return False
    local = _local_names(node)
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
            name = child.id
            if name in local or name in _BUILTINS or name in view.imports.names:
                continue
            if name in view.functions:
                if view.functions[name] is node or pure_function(view, view.functions[name], depth + 1):
                    continue
                return False
            values = view.assigned.get(name)
            if values and all(isinstance(v, ast.Constant) for v in values):
                continue
            return False
        if isinstance(child, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom)):
            return False
    return True


def _local_names(node: ast.AST) -> set[str]:
    names: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.arg):
            names.add(child.arg)
        elif isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            names.add(child.id)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and child is not node:
            names.add(child.name)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            for alias in child.names:
                names.add((alias.asname or alias.name).split(".")[0])
    return names


# --- constructions: is this object built fresh? --------------------------------------------

@dataclass(frozen=True)
class Construction:
    call: ast.Call
    kind: str  # "class", "factory", "keras", "variable"
    mentions: frozenset[str]  # names used in the constructor arguments


def _fresh_body(view: ModuleView, node: ast.AST) -> bool:
    """A class or factory body that uses no module-level objects (shared layers, models)."""
    local = _local_names(node)
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
            name = child.id
            if name in local or name in _BUILTINS or name in view.imports.names or name in view.classes \
                    or name in view.functions or name in view.imported:
                continue
            values = view.assigned.get(name)
            if values and all(isinstance(v, ast.Constant) for v in values):
                continue
            return False
    return True


def _plain_args(call: ast.Call, view: ModuleView) -> frozenset[str] | None:
    """Names in the arguments; None when an argument could carry another model or layer."""
    names: set[str] = set()
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        for child in ast.walk(arg):
            if isinstance(child, ast.Name):
                names.add(child.id)
            elif isinstance(child, ast.Call):
                qualname = view.imports.resolve(child.func)
                if qualname is None or qualname.startswith(("keras.", "tensorflow.keras.")):
                    return None
            elif isinstance(child, ast.Lambda):
                return None
    return frozenset(names)


def _keras_fresh(call: ast.Call, qualname: str, view: ModuleView) -> bool:
    if qualname.startswith("keras.applications."):
        return all(isinstance(a, ast.Constant) for a in call.args)
    if qualname in ("keras.Sequential", "keras.models.Sequential"):
        layers = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "layers"), None)
        if layers is None:
            return not call.args
        if not isinstance(layers, (ast.List, ast.Tuple)):
            return False
        for element in layers.elts:
            if not isinstance(element, ast.Call):
                return False
            inner = view.imports.resolve(element.func) or ""
            if not inner.startswith(("keras.layers.", "keras.Input")):
                return False
            for part in ast.walk(element):
                if isinstance(part, ast.Name) and part is not element.func and part.id not in view.imports.names \
                        and not _is_func_part(part, element):
                    return False
        return True
    return False


def _is_func_part(node: ast.AST, call: ast.Call) -> bool:
    return any(node is part for part in ast.walk(call.func))


def construction(view: ModuleView, value: ast.expr, project, depth: int = 0) -> Construction | None:
    """How `value` builds an object, when it is certainly a fresh one."""
    if not isinstance(value, ast.Call) or depth > 2:
        return None
    qualname = view.imports.resolve(value.func)
    if qualname is not None and not view.imports.is_tracked_module(qualname):
        qualname = None  # a name imported from the user's own modules
    if qualname == "tensorflow.Variable":
        return Construction(value, "variable", _plain_args(value, view) or frozenset())
    if qualname is not None:
        if qualname.startswith("keras.") and _keras_fresh(value, qualname, view):
            return Construction(value, "keras", frozenset())
        return None
    if not isinstance(value.func, ast.Name):
        return None
    mentions = _plain_args(value, view)
    if mentions is None:
        return None
    found = definition(view, value.func.id, project)
    if found is None:
        return None
    where, node = found
    if isinstance(node, ast.ClassDef):
        return Construction(value, "class", mentions) if _fresh_body(where, node) else None
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.decorator_list:
        return Construction(value, "factory", mentions) if _fresh_body(where, node) else None
    return None


def bound_value(facts: Facts, view: ModuleView, flow: Flow, name: str, at: ast.AST,
                project) -> tuple[ModuleView, ast.expr] | None:
    """The one expression `name` (a plain name or `self.attr`) is bound to."""
    if name.startswith("self.") and name.count(".") == 1:
        cls = flow.scope.enclosing_class
        if cls is None:
            return None
        from .paths import self_assignments
        values = self_assignments(facts, cls, name.split(".", 1)[1])
        return (view, values[0]) if len(values) == 1 else None
    if "." in name:
        return None
    defs = flow.reaching(name, at)
    if defs:
        if len(defs) == 1 and defs[0].kind == "assign" and defs[0].value is not None \
                and isinstance(defs[0].stmt, ast.Assign) and len(defs[0].stmt.targets) == 1 \
                and isinstance(defs[0].stmt.targets[0], ast.Name):
            return view, defs[0].value
        return None
    if flow.definitions(name):
        return None
    if flow.scope.kind != "module":
        module_defs = flow_of(facts, facts.module).definitions(name)
        if module_defs:
            if len(module_defs) == 1 and module_defs[0].kind == "assign" and module_defs[0].value is not None \
                    and isinstance(module_defs[0].stmt, ast.Assign) \
                    and len(module_defs[0].stmt.targets) == 1:
                return view, module_defs[0].value
            return None
    found = resolve_import(view, name, project)
    if found is not None:
        remote, attr = found
        values = remote.assigned.get(attr, [])
        if len(values) == 1:
            return remote, values[0]
    return None


def distinct(facts: Facts, flow: Flow, name: str, other: str, at: ast.AST, other_at: ast.AST,
             project, path: str | None) -> bool:
    """Are `name` and `other` certainly different objects that share no variables?"""
    if name == other or name.startswith(other + ".") or other.startswith(name + "."):
        return False
    view = local_view(facts, path)
    first = bound_value(facts, view, flow, name, at, project)
    second = bound_value(facts, view, flow, other, other_at, project)
    if first is None or second is None:
        return False
    a = construction(first[0], first[1], project)
    b = construction(second[0], second[1], project)
    if a is None or b is None or a.call is b.call:
        return False
    base_a, base_b = name.split(".")[-1], other.split(".")[-1]
    if base_b in a.mentions or base_a in b.mentions or other in a.mentions or name in b.mentions:
        return False
    if a.kind == "variable" and b.kind == "variable":
        return True
    return True


def function_scope_of(facts: Facts, node: ast.AST) -> Scope | None:
    return facts.function_scopes.get(node)
