"""What kind of tensor a gradient source is, as far as the code says it plainly.

`source_kind(...)` follows a source name back through the def-use layer (and, for names
imported from another module of the project, into that module) to the expression that
made it, and says whether it is a `tf.Variable` (trainable or not), a plain constant
tensor (`tf.constant(3.0)`, `tf.zeros(...)`, NumPy data, arithmetic of those), and
whether its dtype is an integer one. Anything else is unknown (None): rules stay silent.

Also here: `may_reach(...)`, whether a call in recorded code might use a given model or
variable without naming it (a local function reading a global), for TAPE006.
"""

from __future__ import annotations

import ast
import os
import threading
from dataclasses import dataclass
from typing import ClassVar

from ..facts.dataflow import Flow
from ..facts.model import Facts
from ..facts.names import ImportTable

INT_DTYPES = frozenset(f"{p}int{b}" for p in ("", "u") for b in (8, 16, 32, 64))
FLOAT_DTYPES = frozenset({"float16", "float32", "float64", "bfloat16", "half", "double", "complex64", "complex128"})

# tf.* calls that make a new tensor from plain data (not differentiable w.r.t. anything).
_FROM_DATA = frozenset({"tensorflow.constant", "tensorflow.convert_to_tensor"})
_FILLED = frozenset({
    "tensorflow.zeros", "tensorflow.ones", "tensorflow.fill", "tensorflow.eye", "tensorflow.linspace",
    "tensorflow.random.normal", "tensorflow.random.uniform", "tensorflow.random.truncated_normal",
    "tensorflow.random.stateless_normal", "tensorflow.random.stateless_uniform", "tensorflow.lin_space",
})
_DECODE = frozenset({
    "tensorflow.io.decode_png", "tensorflow.io.decode_jpeg", "tensorflow.io.decode_image",
    "tensorflow.io.decode_bmp", "tensorflow.io.decode_gif", "tensorflow.image.decode_png",
    "tensorflow.image.decode_jpeg", "tensorflow.image.decode_image", "tensorflow.image.decode_bmp",
    "tensorflow.image.decode_gif",
})
_BUILTINS = frozenset({
    "len", "float", "int", "bool", "str", "print", "range", "enumerate", "zip", "list", "tuple", "dict",
    "set", "min", "max", "abs", "sum", "sorted", "reversed", "isinstance", "getattr", "hasattr", "map",
    "filter", "any", "all", "round", "repr", "type", "super", "iter", "next",
})
LIBRARIES = ("tensorflow", "keras", "numpy", "tensorflow_probability", "math", "scipy")


@dataclass(frozen=True)
class Kind:
    """What made a value: "variable", "constant" (a plain tensor) or "number"."""

    kind: str
    integer: bool = False
    trainable: bool = True
    node: ast.AST | None = None  # the expression that made it
    # Where `node` is, when it is not in this file: "path line N".
    remote: str | None = None
    # The `trainable=False` / integer `dtype=` keyword, when that decides.
    detail: ast.AST | None = None
    # The integer dtype's name when the code names it ("uint8"), else None.
    dtype: str | None = None


# --- looking names up --------------------------------------------------------------------

class _Lookup:
    """Name -> the expressions bound to it, in this file or in another module."""

    def __init__(self, imports: ImportTable, module_values: dict[str, list[ast.expr]],
                 flow: Flow | None, remote: str | None, resolver: RemoteResolver | None) -> None:
        self.imports = imports
        self.module_values = module_values
        self.flow = flow
        self.remote = remote
        self.resolver = resolver

    def values(self, name: str, at: ast.AST | None) -> tuple[list[ast.expr], _Lookup] | None:
        """The single kind of binding `name` has at `at`: the value expressions, and where to
        look names up inside them. None when it is a parameter, several kinds, or unknown."""
        if self.flow is not None and at is not None:
            defs = self.flow.reaching(name, at)
            if defs:
                if all(d.kind == "assign" and d.value is not None and not _is_container_write(d)
                       for d in defs):
                    return [d.value for d in defs], self  # type: ignore[misc]
                if len(defs) == 1 and defs[0].kind == "import" and self.resolver is not None:
                    return self.resolver.imported(defs[0].stmt, name)
                return None
            if self.flow.definitions(name):
                return None
        found = self.module_values.get(name)
        if found:
            return found, self.at_module()
        if self.resolver is not None and name in self.imports.names and not self.imports.raw(ast.Name(id=name)) \
                .startswith(LIBRARIES):
            return self.resolver.imported_name(self.imports.names[name])
        return None

    def at_module(self) -> _Lookup:
        return _Lookup(self.imports, self.module_values, None, self.remote, self.resolver)


def _is_container_write(d) -> bool:
    return d.kind == "augassign" or isinstance(d.stmt, ast.AugAssign)


def module_values(tree: ast.Module) -> dict[str, list[ast.expr]]:
    """Top-level `name = value` assignments of a module (also inside top-level if/try)."""
    out: dict[str, list[ast.expr]] = {}
    stack = list(tree.body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    out.setdefault(target.id, []).append(stmt.value)
                else:
                    for node in ast.walk(target):
                        if isinstance(node, ast.Name):
                            out.setdefault(node.id, []).append(ast.Constant(value=...))
        elif isinstance(stmt, (ast.AugAssign,)) and isinstance(stmt.target, ast.Name):
            out.setdefault(stmt.target.id, []).append(ast.Constant(value=...))
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.setdefault(stmt.name, []).append(ast.Constant(value=...))
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            for node in ast.walk(stmt.target if isinstance(stmt, (ast.For, ast.AsyncFor)) else stmt):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    out.setdefault(node.id, []).append(ast.Constant(value=...))
            if isinstance(stmt, (ast.For, ast.AsyncFor)):
                stack.extend(stmt.body)
        elif isinstance(stmt, (ast.If, ast.Try)):
            stack.extend(stmt.body)
            stack.extend(stmt.orelse)
            for handler in getattr(stmt, "handlers", ()):
                stack.extend(handler.body)
            stack.extend(getattr(stmt, "finalbody", ()))
    return out


def facts_module_values(facts: Facts) -> dict[str, list[ast.expr]]:
    found = facts.__dict__.get("_tape_module_values")
    if found is None:
        found = facts.__dict__["_tape_module_values"] = module_values(facts.tree)
    return found


# --- other modules of the project ------------------------------------------------------------

class RemoteResolver:
    """Finds what a name imported from another module of the project is bound to there."""

    # Shared by every resolver (one per check): parsed modules, keyed by path, checked by mtime and size.
    _cache: ClassVar[dict[str, tuple[tuple[int, int], tuple[ImportTable, dict[str, list[ast.expr]], dict] | None]]] \
        = {}
    MAX_BYTES = 500_000
    MAX_CACHE = 128
    # Modules one check may parse (cache misses); beyond that every answer is "unknown".
    MAX_PARSES = 16
    _lock = threading.Lock()

    def __init__(self, project, importer: str | None) -> None:
        self.project = project
        self.importer = importer
        self.parses = 0

    def imported(self, stmt: ast.stmt, name: str) -> tuple[list[ast.expr], _Lookup] | None:
        if not isinstance(stmt, ast.ImportFrom):
            return None
        for alias in stmt.names:
            if (alias.asname or alias.name) == name:
                path = self._module_file(stmt.module or "", stmt.level)
                return self._lookup(path, alias.name) if path else None
        return None

    def imported_name(self, qualname: str) -> tuple[list[ast.expr], _Lookup] | None:
        module, _, name = qualname.rpartition(".")
        if not module:
            return None
        path = self._module_file(module, 0)
        return self._lookup(path, name) if path else None

    def _module_file(self, module: str, level: int) -> str | None:
        try:
            return self.project.module_file(module, level, self.importer)
        except (OSError, ValueError, AttributeError, TypeError):  # the project index is best effort
            return None

    def _lookup(self, path: str, name: str) -> tuple[list[ast.expr], _Lookup] | None:
        parsed = self._parse(path)
        if parsed is None:
            return None
        imports, values, _defs = parsed
        found = values.get(name)
        if not found:
            return None
        label = os.path.basename(path)
        return found, _Lookup(imports, values, None, label, None)

    def function(self, stmt: ast.stmt | None, qualname: str | None, name: str):
        """The top-level def an imported name refers to in another module of the project:
        (def, that module's import table, its top-level defs, its path), or None."""
        path = None
        original = name
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                if (alias.asname or alias.name) == name:
                    path = self._module_file(stmt.module or "", stmt.level)
                    original = alias.name
        elif qualname:
            module, _, original = qualname.rpartition(".")
            path = self._module_file(module, 0) if module else None
        if path is None:
            return None
        parsed = self._parse(path)
        if parsed is None:
            return None
        imports, _values, defs = parsed
        fn = defs.get(original)
        return (fn, imports, defs, path) if fn is not None else None

    def _parse(self, path: str) -> tuple[ImportTable, dict[str, list[ast.expr]], dict] | None:
        try:
            stat = os.stat(path)
        except OSError:
            return None
        key = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            cached = self._cache.get(path)
        if cached is not None and cached[0] == key:
            return cached[1]
        if self.parses >= self.MAX_PARSES:
            return None
        self.parses += 1
        result = None
        if stat.st_size <= self.MAX_BYTES:
            try:
                with open(path, "rb") as handle:
                    tree = ast.parse(handle.read(), filename=path)
            except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
                tree = None
            if tree is not None:
                imports = ImportTable()
                imports.assume("tf", "tensorflow")
                imports.assume("np", "numpy")
                for stmt in tree.body:
                    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                        imports.add_import(stmt)
                defs = {stmt.name: stmt for stmt in tree.body
                        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))}
                result = (imports, module_values(tree), defs)
        with self._lock:
            if len(self._cache) >= self.MAX_CACHE:
                self._cache.pop(next(iter(self._cache)))
            self._cache[path] = (key, result)
        return result


def lookup_for(facts: Facts, flow: Flow | None, project=None, path: str | None = None) -> _Lookup:
    resolver = None
    if project is not None:
        resolver = facts.__dict__.get("_tape_resolver")
        if resolver is None or resolver.project is not project:
            resolver = facts.__dict__["_tape_resolver"] = RemoteResolver(project, path)
    return _Lookup(facts.imports, facts_module_values(facts), flow, None, resolver)


# --- classification --------------------------------------------------------------------------

def source_kind(lookup: _Lookup, expr: ast.expr, at: ast.AST | None, depth: int = 0) -> Kind | None:
    """The kind of tensor `expr` evaluates to at `at`, when the code makes it plain."""
    if depth > 12:
        return None
    if isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool):
        return Kind("number", integer=isinstance(expr.value, int), node=expr, remote=lookup.remote)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return source_kind(lookup, expr.operand, at, depth + 1)
    if isinstance(expr, ast.Name):
        found = lookup.values(expr.id, at)
        if found is None:
            return None
        values, where = found
        kinds = [source_kind(where, v, _at(v, where, at), depth + 1) for v in values]
        if not kinds or any(k is None for k in kinds):
            return None
        first = kinds[0]
        assert first is not None
        if any(k.kind != first.kind or k.integer != first.integer or k.trainable != first.trainable
               for k in kinds if k is not None):
            return None
        return kinds[-1]
    if isinstance(expr, ast.BinOp):
        left = source_kind(lookup, expr.left, at, depth + 1)
        right = source_kind(lookup, expr.right, at, depth + 1)
        if left is None or right is None or "variable" in (left.kind, right.kind):
            return None
        if left.kind == right.kind == "number":
            return None  # a Python number, not a tensor
        integer = left.integer and right.integer and isinstance(
            expr.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod))
        return Kind("constant", integer=integer, node=expr, remote=lookup.remote)
    if isinstance(expr, ast.Call):
        return _call_kind(lookup, expr, at, depth)
    return None


def _at(value: ast.expr, where: _Lookup, at: ast.AST | None) -> ast.AST | None:
    # Inside the same function, look further names up where the value was computed.
    return value if where.flow is not None else None


def _call_kind(lookup: _Lookup, call: ast.Call, at: ast.AST | None, depth: int) -> Kind | None:
    qualname = lookup.imports.resolve(call.func)
    if qualname is None:
        return None
    dtype = _keyword(call, "dtype")
    if qualname == "tensorflow.Variable":
        trainable_kw = _keyword(call, "trainable")
        trainable = not (isinstance(trainable_kw, ast.Constant) and trainable_kw.value is False)
        if trainable_kw is not None and not isinstance(trainable_kw, ast.Constant):
            return None
        initial = call.args[0] if call.args else _keyword(call, "initial_value")
        integer = _int_dtype(lookup, dtype) if dtype is not None else _int_literal(initial)
        if dtype is not None and integer is None:
            return None
        detail = dtype if integer and dtype is not None else (initial if integer else trainable_kw)
        return Kind("variable", integer=bool(integer), trainable=trainable, node=call, remote=lookup.remote,
                    detail=detail)
    if qualname in _FROM_DATA:
        value = call.args[0] if call.args else _keyword(call, "value")
        if dtype is None and len(call.args) > 1 and qualname == "tensorflow.constant":
            dtype = call.args[1]
        if value is None or not _plain_data(lookup, value, at, depth):
            return None
        numpy_dtype = _numpy_int(lookup, value, at, depth) if dtype is None else None
        integer = _int_dtype(lookup, dtype) if dtype is not None else (_int_literal(value) or bool(numpy_dtype))
        if integer is None and dtype is not None:
            return None
        return Kind("constant", integer=bool(integer), node=call, remote=lookup.remote,
                    detail=dtype if integer and dtype is not None else None,
                    dtype=numpy_dtype if isinstance(numpy_dtype, str) else None)
    if qualname in _FILLED:
        integer = _int_dtype(lookup, dtype) if dtype is not None else False
        if integer is None:
            return None
        return Kind("constant", integer=integer, node=call, remote=lookup.remote, detail=dtype if integer else None)
    if qualname == "tensorflow.range":
        if dtype is not None:
            integer = _int_dtype(lookup, dtype)
        else:
            integer = all(_int_literal(a) for a in call.args) if call.args else None
        if integer is None:
            return None
        return Kind("constant", integer=integer, node=call, remote=lookup.remote, detail=dtype if integer else None)
    if qualname in _DECODE:
        integer = _int_dtype(lookup, dtype) if dtype is not None else True
        if integer is None:
            return None
        return Kind("constant", integer=integer, node=call, remote=lookup.remote, detail=dtype)
    if qualname == "tensorflow.cast":
        target = call.args[1] if len(call.args) > 1 else dtype
        integer = _int_dtype(lookup, target) if target is not None else None
        if integer:
            return Kind("constant", integer=True, node=call, remote=lookup.remote, detail=target)
        inner = source_kind(lookup, call.args[0], at, depth + 1) if call.args else None
        if inner is not None and inner.kind == "constant" and integer is False:
            return Kind("constant", integer=False, node=call, remote=lookup.remote)
        return None
    if qualname.startswith("numpy."):
        return None  # NumPy arrays: gradient sources must be tensors; not our business here
    return None


def _plain_data(lookup: _Lookup, value: ast.expr, at: ast.AST | None, depth: int) -> bool:
    """Literal numbers, lists of them, or NumPy data: not an existing tensor (tf.constant of an
    eager tensor hands back the same tensor, so its gradient may well be recorded)."""
    if isinstance(value, ast.Constant):
        return isinstance(value.value, (int, float)) and not isinstance(value.value, bool)
    if isinstance(value, ast.UnaryOp):
        return _plain_data(lookup, value.operand, at, depth)
    if isinstance(value, (ast.List, ast.Tuple)):
        return bool(value.elts) and all(_plain_data(lookup, e, at, depth) for e in value.elts)
    if isinstance(value, ast.Call):
        qualname = lookup.imports.resolve(value.func)
        return qualname is not None and qualname.startswith("numpy.") and not qualname.endswith("_like")
    if isinstance(value, ast.Name) and depth < 8:
        found = lookup.values(value.id, at)
        if found is None:
            return False
        values, where = found
        return all(_plain_data(where, v, _at(v, where, at), depth + 1) for v in values)
    return False


def _numpy_int(lookup: _Lookup, value: ast.expr, at: ast.AST | None, depth: int) -> str | None:
    """The integer dtype of NumPy data: `np.array(..., dtype=np.uint8)`, `x.astype("uint8")`."""
    if isinstance(value, ast.Call):
        if isinstance(value.func, ast.Attribute) and value.func.attr == "astype" and value.args:
            return _dtype_text(lookup, value.args[0]) if _int_dtype(lookup, value.args[0]) else None
        qualname = lookup.imports.resolve(value.func)
        dtype = _keyword(value, "dtype")
        if qualname is not None and qualname.startswith("numpy.") and dtype is not None \
                and _int_dtype(lookup, dtype):
            return _dtype_text(lookup, dtype)
        return None
    if isinstance(value, ast.Name) and depth < 8:
        found = lookup.values(value.id, at)
        if found is None:
            return None
        values, where = found
        names = {_numpy_int(where, v, _at(v, where, at), depth + 1) for v in values}
        return names.pop() if len(names) == 1 else None
    return None


def _dtype_text(lookup: _Lookup, dtype: ast.expr) -> str | None:
    if isinstance(dtype, ast.Constant) and isinstance(dtype.value, str):
        return dtype.value
    qualname = lookup.imports.resolve(dtype)
    return qualname.rsplit(".", 1)[-1] if qualname else None


def _int_literal(value: ast.expr | None) -> bool:
    if value is None:
        return False
    if isinstance(value, ast.Constant):
        return isinstance(value.value, int) and not isinstance(value.value, bool)
    if isinstance(value, ast.UnaryOp):
        return _int_literal(value.operand)
    if isinstance(value, (ast.List, ast.Tuple)):
        return bool(value.elts) and all(_int_literal(e) for e in value.elts)
    return False


def _int_dtype(lookup: _Lookup, dtype: ast.expr | None) -> bool | None:
    """True for an integer dtype, False for a float one, None when it cannot be told."""
    if dtype is None:
        return None
    if isinstance(dtype, ast.Constant) and isinstance(dtype.value, str):
        name = dtype.value
    else:
        qualname = lookup.imports.resolve(dtype)
        if qualname is None or not qualname.startswith(("tensorflow.", "numpy.")):
            return None
        name = qualname.rsplit(".", 1)[-1]
    if name in INT_DTYPES:
        return True
    if name in FLOAT_DTYPES:
        return False
    return None


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return None


def describe(kind: Kind) -> str:
    if kind.kind == "variable":
        return "an integer tf.Variable" if kind.integer else "a tf.Variable"
    return "an integer tensor" if kind.integer else "a constant tensor"


# --- might a call use this name? ---------------------------------------------------------------

def may_reach(facts: Facts, lookup: _Lookup, expr: ast.AST, head: str, local: bool, depth: int = 0,
              scope=None) -> bool:
    """Could evaluating `expr` read `head` (a model or variable) without naming it?

    `local`: `head` is a local or parameter of the current function, so only code given it
    explicitly can read it. Otherwise a function defined in this file is looked into (its
    body names `head`, or calls something that might); library calls and builtins never
    do; anything else might.
    """
    if local:
        # Only a closure defined in the same function can read a local it is not given.
        for node in ast.walk(expr):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                body = _local_function(facts, node.func.id, scope)
                if body is not None and body.parent is scope and (
                        head in body.loads or any(k.startswith(head + ".") for k in body.loads)):
                    return True
        return False
    for node in ast.walk(expr):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in _BUILTINS:
            continue
        qualname = facts.imports.resolve(func)
        if qualname is not None and qualname.startswith(LIBRARIES):
            continue
        if isinstance(func, ast.Attribute):
            # A method of a value (`pred.numpy()`, `loss_obj.update_state(...)`): only when
            # the value is a library object bound at module level do we know better.
            base = func.value
            if isinstance(base, ast.Name) and _library_value(lookup, base.id):
                continue
            if isinstance(base, (ast.Call, ast.Subscript)):
                continue
            return True
        if isinstance(func, ast.Name):
            if _library_value(lookup, func.id):
                continue
            body = _local_function(facts, func.id, scope)
            if body is None:
                if _remote_may_reach(facts, lookup, func.id, head, scope):
                    return True
                continue
            if depth >= 3 or head in body.loads or any(k.startswith(head + ".") for k in body.loads):
                return True
            if may_reach(facts, lookup, body.node, head, False, depth + 1):
                return True
            continue
        return True
    return False


def _library_value(lookup: _Lookup, name: str) -> bool:
    """Is `name` bound (at module level) to a library object, e.g. a Keras loss instance?"""
    values = lookup.module_values.get(name)
    if not values or len(values) != 1:
        qualname = lookup.imports.raw(ast.Name(id=name)) if name in lookup.imports.names else None
        return qualname is not None and qualname.startswith(LIBRARIES)
    value = values[0]
    target = value.func if isinstance(value, ast.Call) else value
    qualname = lookup.imports.resolve(target)
    return qualname is not None and qualname.startswith(LIBRARIES)


def _local_function(facts: Facts, name: str, where=None):
    """The scope of the def `name` visible from `where`: nested in it first, else at module level."""
    index = facts.__dict__.get("_tape_defs_by_name")
    if index is None:
        index = {}
        for node, scope in facts.function_scopes.items():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                index.setdefault(node.name, []).append(scope)
        facts.__dict__["_tape_defs_by_name"] = index
    candidates = index.get(name, [])
    for scope in candidates:
        if where is not None and scope.parent is where:
            return scope
    for scope in candidates:
        if scope.parent is not None and scope.parent.kind == "module":
            return scope
    return None


def _remote_may_reach(facts: Facts, lookup: _Lookup, name: str, head: str, scope) -> bool:
    """A function imported from another module of the project: can it read our `head`?

    It can only when its module binds `head` itself (imports it, e.g. `from train import
    model`) and its body, or a function of its module it calls, names it; calls it makes to
    anything we cannot see count as "maybe". Without a project: maybe.
    """
    resolver = lookup.resolver
    if resolver is None:
        return True
    stmt = None
    if lookup.flow is not None:
        defs = lookup.flow.definitions(name)
        if len(defs) == 1 and defs[0].kind == "import":
            stmt = defs[0].stmt
    module_stmt = _module_import(facts, name)
    if stmt is None and module_stmt is None and name not in lookup.imports.names:
        return True
    found = resolver.function(stmt or module_stmt, lookup.imports.names.get(name), name)
    if found is None:
        return True
    fn, imports, defs, _path = found
    return _remote_body_may_reach(fn, imports, defs, head, 0)


def _module_import(facts: Facts, name: str) -> ast.stmt | None:
    for stmt in facts.tree.body:
        if isinstance(stmt, ast.ImportFrom) and any((a.asname or a.name) == name for a in stmt.names):
            return stmt
    return None


def _remote_body_may_reach(fn, imports: ImportTable, defs: dict, head: str, depth: int) -> bool:
    if depth > 3:
        return True
    bound_there = head in imports.names
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id == head and isinstance(node.ctx, ast.Load) and bound_there:
            return True
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in _BUILTINS:
                continue
            qualname = imports.resolve(func)
            if qualname is not None and qualname.startswith(LIBRARIES):
                continue
            if isinstance(func, ast.Name) and func.id in defs:
                if defs[func.id] is not fn and _remote_body_may_reach(defs[func.id], imports, defs, head, depth + 1):
                    return True
                continue
            if isinstance(func, ast.Attribute):
                base = func.value
                while isinstance(base, ast.Attribute):
                    base = base.value
                if isinstance(base, ast.Name) and base.id not in imports.names and base.id not in defs:
                    continue  # a method of a local value or a parameter of that function
            return True
    return False
