"""Which names and expressions in one function (or module) body hold TensorFlow tensors.

Shared by the FUNC013-FUNC016, MAP and OPT rules of issue 4. The inference is local and
deliberately conservative: a value is a tensor when it comes from a TensorFlow op
(`tf.reduce_sum(...)`, `tf.range(...)`), from a Keras model or layer call, from
arithmetic, comparison or indexing involving a tensor, or from a name every assignment
of which is one of those. Parameters count as tensors only with evidence: the
tf.function's `input_signature`, or every call of the function in the file passing a
tensor at that position. `x.shape[0]`, `len(x)`, `x.dtype`, `x.numpy()` are not tensors.
"""

from __future__ import annotations

import ast
from typing import Iterable, Iterator

from ..facts.model import Facts, Scope, TfFunction
from ..facts.names import dotted
from ..facts.walk import children as child_nodes
from ..facts.walk import nodes_under, statements_breadth_first

# Namespaces whose lowercase functions return tensors (or structures of tensors).
_OP_NAMESPACES = (
    "tensorflow.", "tensorflow.math.", "tensorflow.nn.", "tensorflow.linalg.", "tensorflow.random.",
    "tensorflow.signal.", "tensorflow.image.", "tensorflow.strings.", "tensorflow.bitwise.",
    "tensorflow.raw_ops.", "tensorflow.dtypes.", "tensorflow.experimental.numpy.", "keras.ops.",
)
# Lowercase functions in those namespaces that do not return a tensor.
_NOT_TENSOR = frozenset("""
    function print name_scope device control_dependencies get_static_value is_tensor
    is_symbolic_tensor executing_eagerly get_logger set_seed custom_gradient recompute_grad
    init_scope no_op group make_ndarray make_tensor_proto get_variable variable_scope
    get_seed dimension_value as_dtype register_tensor_conversion_function autograph
    executing_eagerly_outside_functions get_global_generator numpy_function_deprecated
    experimental_run_functions_eagerly run_functions_eagerly config
""".split())
# Attributes of a tensor that are Python values.
_STATIC_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "name", "graph", "op", "device", "rank"})
# Methods of a tensor that return Python values.
_PYTHON_METHODS = frozenset({"numpy", "item", "tolist", "get_shape", "as_list", "__len__"})
# Methods of a tensor or variable that return tensors.
_TENSOR_METHODS = frozenset({"read_value", "value", "assign", "assign_add", "assign_sub", "__getitem__"})

_COMPARE = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)


def op_returns_tensor(qualname: str | None) -> bool:
    if not qualname:
        return False
    for namespace in _OP_NAMESPACES:
        if qualname.startswith(namespace):
            rest = qualname[len(namespace):]
            if "." in rest or not rest or not rest[0].islower():
                continue
            return rest not in _NOT_TENSOR and not rest.endswith("initializer") \
                and not rest.startswith("assert")
    return False


_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def walk_body(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Every node under `nodes`, not entering nested defs, lambdas or classes."""
    stack = list(nodes)[::-1]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(reversed(child_nodes(node)))


def body_nodes(facts: Facts, owner: ast.AST, types: tuple[type, ...] = ()) -> list[ast.AST]:
    """`walk_body(owner.body)` as a list (empty when `owner` has no statement body), walked
    once per file and kept on the facts; with `types`, only the nodes of those types, in
    the same order. Several rules walk every traced function's body: now they share it."""
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


def function_params(node: ast.AST) -> list[ast.arg]:
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return []
    args = node.args
    return [*args.posonlyargs, *args.args]


def is_method(facts: Facts, node: ast.AST) -> bool:
    scope = facts.function_scopes.get(node)
    return scope is not None and scope.parent is not None and scope.parent.kind == "class"


_INFER_TYPES = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith,
                ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)


class Tensors:
    """The tensor-valued names of one body (a function's or the module's)."""

    def __init__(self, facts: Facts, scope: Scope, params: Iterable[str] = (),
                 outer: "Tensors | None" = None) -> None:
        self.facts = facts
        self.scope = scope
        self.outer = outer
        self.names: set[str] = set(params)
        self.variables: set[str] = set()
        self._model_like = _model_like_names(facts)
        self._infer(scope.node)

    # --- building -----------------------------------------------------------------

    def _infer(self, owner: ast.AST) -> None:
        assigned: dict[str, list[ast.expr | None]] = {}
        for node in body_nodes(self.facts, owner, _INFER_TYPES):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._collect(target, node.value, assigned)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self._collect(node.target, node.value, assigned)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                # `s += t` makes s a tensor when t is one; `t += 1` keeps a tensor a tensor.
                assigned.setdefault(node.target.id, []).append(("aug", node.value))  # type: ignore[arg-type]
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                self._collect(node.target, ("iter", node.iter), assigned)  # type: ignore[arg-type]
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if item.optional_vars is not None:
                        self._collect(item.optional_vars, None, assigned)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                assigned.setdefault(node.name, []).append(None)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    assigned.setdefault((alias.asname or alias.name).split(".")[0], []).append(None)
        for name, values in assigned.items():
            if values and all(self._is_variable_call(v) for v in values):
                self.variables.add(name)
        params = set(self.names)
        self._assigned = set(assigned)
        self._params = {a.arg for a in function_params(self.scope.node)} | params
        # Fixpoint: a name is a tensor when every value it is given is a tensor (a tensor
        # parameter counts as one such value); `s += t` alone makes s one when t is.
        changed = True
        while changed:
            changed = False
            for name, values in assigned.items():
                if name in self.names:
                    continue
                plain = [v for v in values if not (isinstance(v, tuple) and v[0] == "aug")]
                augs = [v[1] for v in values if isinstance(v, tuple) and v[0] == "aug"]
                if (plain and all(self._value_is_tensor(v) for v in plain)) \
                        or (not plain and any(self.is_tensor(a) for a in augs)):
                    self.names.add(name)
                    changed = True
        for name in params & set(assigned):
            plain = [v for v in assigned[name] if not (isinstance(v, tuple) and v[0] == "aug")]
            if not all(self._value_is_tensor(v) for v in plain):
                self.names.discard(name)

    def _collect(self, target: ast.AST, value, assigned: dict) -> None:
        if isinstance(target, ast.Name):
            assigned.setdefault(target.id, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            # Unpacking: each element is a tensor when the whole is a structure of tensors.
            for element in target.elts:
                self._collect(element.value if isinstance(element, ast.Starred) else element,
                              ("unpack", value), assigned)

    def _value_is_tensor(self, value) -> bool:
        if value is None:
            return False
        if isinstance(value, tuple):
            kind, expr = value
            if kind in ("iter", "aug"):
                return self.is_tensor(expr)
            if kind == "unpack":
                inner = expr[1] if isinstance(expr, tuple) else expr
                if isinstance(inner, ast.Call):
                    return op_returns_tensor(self.facts.imports.resolve(inner.func))
                if isinstance(inner, (ast.Tuple, ast.List)):
                    return all(self.is_tensor(e) for e in inner.elts)
            return False
        return self.is_tensor(value)

    def _is_variable_call(self, value) -> bool:
        return isinstance(value, ast.Call) and self.facts.imports.resolve(value.func) == "tensorflow.Variable"

    # --- queries ------------------------------------------------------------------

    def local(self, name: str) -> bool:
        """Is `name` bound in this body (so an outer binding does not apply)?"""
        return name in self._assigned or name in self._params

    def is_variable(self, expr: ast.expr) -> bool:
        """Is `expr` a name (or `self.attr`) bound to a tf.Variable?"""
        if isinstance(expr, ast.Name):
            if expr.id in self.variables:
                return True
            if self.local(expr.id):
                return False
            return self.outer.is_variable(expr) if self.outer is not None else False
        if isinstance(expr, ast.Attribute):
            name = dotted(expr)
            return name is not None and name in _variable_attributes(self.facts)
        return False

    def is_tensor(self, expr: ast.expr | None) -> bool:
        """Is `expr` a tensor (never a tf.Variable itself, never a Python value)?"""
        if expr is None:
            return False
        if isinstance(expr, ast.Name):
            if expr.id in self.names:
                return True
            if self.local(expr.id) or self.outer is None:
                return False
            return self.outer.is_tensor(expr)
        if isinstance(expr, ast.Call):
            func = expr.func
            if op_returns_tensor(self.facts.imports.resolve(func)):
                return True
            if isinstance(func, ast.Attribute):
                if func.attr in _PYTHON_METHODS:
                    return False
                if func.attr in _TENSOR_METHODS and (self.is_tensor(func.value) or self.is_variable(func.value)):
                    return True
            name = dotted(func)
            if name is not None and name in _model_like_names(self.facts):
                return True
            # `tf.keras.layers.Dense(3)(x)`: a layer built and called at once.
            if isinstance(func, ast.Call):
                qualname = self.facts.imports.resolve(func.func) or ""
                return qualname.startswith("keras.layers.") and qualname.rsplit(".", 1)[-1][:1].isupper()
            return False
        if isinstance(expr, ast.BinOp):
            return self._operand(expr.left) or self._operand(expr.right)
        if isinstance(expr, ast.UnaryOp):
            return not isinstance(expr.op, ast.Not) and self._operand(expr.operand)
        if isinstance(expr, ast.Compare):
            return all(isinstance(op, _COMPARE) for op in expr.ops) \
                and any(self._operand(e) for e in (expr.left, *expr.comparators))
        if isinstance(expr, ast.Subscript):
            return self._operand(expr.value)
        if isinstance(expr, ast.Attribute):
            key = dotted(expr)
            return key is not None and key in _tensor_attributes(self.facts)
        if isinstance(expr, ast.IfExp):
            return self.is_tensor(expr.body) and self.is_tensor(expr.orelse)
        return False

    def _operand(self, expr: ast.expr) -> bool:
        return self.is_tensor(expr) or self.is_variable(expr)



def _model_like_names(facts: Facts) -> set[str]:
    cache = facts.__dict__.get("_issue4_model_like")
    if cache is None:
        cache = {b.name for b in facts.bindings if b.kind in ("model", "layer")}
        facts.__dict__["_issue4_model_like"] = cache
    return cache


def _tensor_attributes(facts: Facts) -> set[str]:
    """`self.x` keys whose assignments in the file include a TensorFlow op result and no
    plainly non-tensor value (a literal, None, a container, a tf.Variable)."""
    cache = facts.__dict__.get("_issue4_tensor_attributes")
    if cache is None:
        values: dict[str, list[ast.expr]] = {}
        for node in assignments(facts):
            if node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                            and target.value.id == "self":
                        values.setdefault(f"self.{target.attr}", []).append(node.value)
        cache = set()
        for key, assigned in values.items():
            ops = [v for v in assigned if isinstance(v, ast.Call) and op_returns_tensor(facts.imports.resolve(v.func))]
            plain = [v for v in assigned if isinstance(v, (ast.Constant, ast.List, ast.Dict, ast.Tuple, ast.Set,
                                                           ast.ListComp, ast.DictComp, ast.Lambda))
                     or (isinstance(v, ast.Call) and facts.imports.resolve(v.func) == "tensorflow.Variable")]
            if ops and not plain:
                cache.add(key)
        facts.__dict__["_issue4_tensor_attributes"] = cache
    return cache


def assignments(facts: Facts) -> list[ast.Assign | ast.AnnAssign]:
    """Every `=` and annotated assignment of the file, in one walk shared by the rules."""
    cache = facts.__dict__.get("_issue4_assignments")
    if cache is None:
        cache = [node for node in statements_breadth_first(facts.tree)
                 if isinstance(node, (ast.Assign, ast.AnnAssign))]
        facts.__dict__["_issue4_assignments"] = cache
    return cache


def _variable_attributes(facts: Facts) -> set[str]:
    cache = facts.__dict__.get("_issue4_variable_attributes")
    if cache is None:
        cache = {b.name for b in facts.bindings if b.kind == "variable" and "." in b.name}
        facts.__dict__["_issue4_variable_attributes"] = cache
    return cache


# --- per-function entry points -----------------------------------------------------------

def module_tensors(facts: Facts) -> Tensors:
    cache = facts.__dict__.get("_issue4_module_tensors")
    if cache is None:
        cache = Tensors(facts, facts.module)
        facts.__dict__["_issue4_module_tensors"] = cache
    return cache


def function_tensors(facts: Facts, node: ast.AST, tf_function: TfFunction | None = None) -> Tensors | None:
    """The tensors of a def or lambda body, with its parameters judged by the evidence."""
    scope = facts.function_scopes.get(node)
    if scope is None:
        return None
    cache = facts.__dict__.setdefault("_issue4_function_tensors", {})
    if id(node) in cache:
        return cache[id(node)]  # None while it is being computed (recursive calls)
    cache[id(node)] = None
    params = tensor_params(facts, node, tf_function if tf_function is not None else scope.tf_function)
    outer = _outer_tensors(facts, scope)
    tensors = Tensors(facts, scope, params, outer)
    cache[id(node)] = tensors
    return tensors


def tensors_at(facts: Facts, scope: Scope) -> Tensors | None:
    """The tensors of the function (or module) body that `scope` belongs to."""
    function = scope.function
    if function is None:
        return module_tensors(facts)
    return function_tensors(facts, function.node, function.tf_function)


def _outer_tensors(facts: Facts, scope: Scope) -> Tensors | None:
    parent = scope.parent
    while parent is not None and parent.kind == "class":
        parent = parent.parent
    if parent is None:
        return None
    if parent.kind == "module":
        return module_tensors(facts)
    return function_tensors(facts, parent.node, parent.tf_function)


def tensor_params(facts: Facts, node: ast.AST, tf_function: TfFunction | None) -> set[str]:
    """Parameters that certainly receive tensors: an input_signature, or every call passes one."""
    params = function_params(node)
    if is_method(facts, node) and params and params[0].arg in ("self", "cls"):
        params = params[1:]
    if not params:
        return set()
    if tf_function is not None and isinstance(tf_function.input_signature, (ast.List, ast.Tuple)):
        count = len(tf_function.input_signature.elts)
        return {p.arg for p in params[:count]}
    calls = calls_of(facts, node)
    if not calls:
        return set()
    return {param.arg for index, param in enumerate(params)
            if all(_passes_tensor(facts, call, index, param.arg) for call in calls)}


def _passes_tensor(facts: Facts, site, index: int, name: str) -> bool:
    call = site.node
    arg: ast.expr | None = None
    if any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
        return False
    if index < len(call.args):
        arg = call.args[index]
    else:
        arg = next((k.value for k in call.keywords if k.arg == name), None)
    if arg is None:
        return False
    tensors = tensors_at(facts, site.scope)
    return tensors is not None and tensors.is_tensor(arg)


def calls_of(facts: Facts, node: ast.AST) -> list:
    """Calls in this file of the def `node`: by its name, through `self.name`, or through
    the name that `tf.function(name)` was bound to."""
    names: set[str] = set()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        names.add(node.name)
    names.update(_wrapped_names(facts).get(id(node), ()))
    if not names:
        return []
    index = calls_by_callee(facts)
    if not is_method(facts, node):
        return [site for name in names for site in index.get(("name", name), ())]
    owner = facts.function_scopes[node].parent.node  # type: ignore[union-attr]
    owner_name = getattr(owner, "name", "")
    instances = _instances(facts).get(owner_name, set())
    unique = all(_method_owners(facts).get(name, set()) <= {owner_name} for name in names)
    out = []
    for name in names:
        if unique:
            candidates = index.get(("attr", name), ())
        else:
            candidates = [site for receiver in ("self", "cls", *instances)
                          for site in index.get(("dotted", f"{receiver}.{name}"), ())]
        for site in candidates:
            if site.receiver in ("self", "cls") and site.scope.enclosing_class is not owner:
                continue
            out.append(site)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in ("__call__", "call"):
        # `obj(x)` calls `__call__` (and, for Keras layers, `call`) of obj's class.
        for instance in instances:
            out.extend(index.get(("dotted", instance), ()))
    return out


def instances_of(facts: Facts, class_name: str) -> set[str]:
    """Names assigned an instance of the class `class_name` in this file (`agent = Agent()`)."""
    return _instances(facts).get(class_name, set())


def _wrapped_names(facts: Facts) -> dict[int, set[str]]:
    """A def (by id) -> the names `step = tf.function(f)` bound its tf.function to."""
    cache = facts.__dict__.get("_issue4_wrapped_names")
    if cache is None:
        cache = {}
        origins = {id(b.value): b.name.rsplit(".", 1)[-1] for b in facts.bindings if b.kind == "tf_function"}
        for tf_fn in facts.tf_functions:
            if tf_fn.kind == "call" and tf_fn.node is not None and id(tf_fn.origin) in origins:
                cache.setdefault(id(tf_fn.node), set()).add(origins[id(tf_fn.origin)])
        facts.__dict__["_issue4_wrapped_names"] = cache
    return cache


def _instances(facts: Facts) -> dict[str, set[str]]:
    """Class name -> the names (`agent`, `self.model`) assigned an instance of it in this file."""
    cache = facts.__dict__.get("_issue4_instances")
    if cache is None:
        cache = {}
        for stmt in assignments(facts):
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) \
                    and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id in facts.classes:
                for target in stmt.targets:
                    name = dotted(target)
                    if name is not None:
                        cache.setdefault(stmt.value.func.id, set()).add(name)
        facts.__dict__["_issue4_instances"] = cache
    return cache


def _method_owners(facts: Facts) -> dict[str, set[str]]:
    """Method name -> the classes of this file that define it."""
    cache = facts.__dict__.get("_issue4_method_owners")
    if cache is None:
        cache = {}
        for name, cls in facts.classes.items():
            for stmt in cls.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    cache.setdefault(stmt.name, set()).add(name)
        facts.__dict__["_issue4_method_owners"] = cache
    return cache


def calls_by_callee(facts: Facts) -> dict[tuple[str, str], list]:
    """Calls by `("name", f)` for `f(...)`, `("attr", m)` for `x.m(...)`, `("dotted", "a.b")` for `a.b(...)`."""
    cache = facts.__dict__.get("_issue4_calls_by_callee")
    if cache is None:
        cache = {}
        for site in facts.calls:
            func = site.node.func
            if isinstance(func, ast.Name):
                cache.setdefault(("name", func.id), []).append(site)
                cache.setdefault(("dotted", func.id), []).append(site)
            elif isinstance(func, ast.Attribute):
                cache.setdefault(("attr", func.attr), []).append(site)
                name = dotted(func)
                if name is not None:
                    cache.setdefault(("dotted", name), []).append(site)
        facts.__dict__["_issue4_calls_by_callee"] = cache
    return cache
