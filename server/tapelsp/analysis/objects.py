"""What names and expressions hold, for the rules about tf.function bodies (FUNC002-FUNC006).

`Values(facts, targets)` answers, conservatively and from this file alone:

- `object_kind(expr, scope)`: is this a Keras model, layer or optimizer, a `tf.Variable`
  or a TFP `TransformedVariable`? From a constructor call, a name every binding of which
  is one (`model = keras.Sequential(...)`), `self.attr` assigned one in the class, or a
  parameter every caller in the file passes one for.
- `symbolic(expr, scope)`: inside a traced body, is this a symbolic tensor (or a
  variable, which is no better for NumPy)? From TensorFlow ops, Keras model and layer
  calls, arithmetic, comparison and indexing involving one, names every local binding of
  which is one, and parameters with evidence: the tf.function's `input_signature`, a
  `tf.Tensor` annotation, or every caller passing a tensor or NumPy array. Tensors made
  outside the trace (module-level `tf.constant`) are eager and not symbolic.
- `callers(def)`: the calls of a function in this file with their arguments mapped to
  parameters: `f(...)` for a def or `step = tf.function(f)`, `self.m(...)` in the class,
  `obj.m(...)` for `obj = Class(...)`.
- `keras_major(...)`: Keras 2 (tf_keras, or `tf.keras` before TensorFlow 2.16) or Keras 3.

Everything unknown is None, and rules stay silent on None.
"""

from __future__ import annotations

import ast
import threading
from dataclasses import dataclass

from ..facts.build import binding_kind
from ..facts.model import Facts, Scope
from ..settings import Targets
from ..versions import Version
from .python_state import own_nodes

FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
NESTED = FUNCTION_NODES + (ast.ClassDef,)

# A binding whose value is unknown: loop and `with` targets, imports, defs, `except ... as`.
OTHER = "other"

# Namespaces whose lowercase functions return tensors (or structures of tensors).
_OP_NAMESPACES = (
    "tensorflow.", "tensorflow.math.", "tensorflow.nn.", "tensorflow.linalg.", "tensorflow.random.",
    "tensorflow.signal.", "tensorflow.image.", "tensorflow.strings.", "tensorflow.bitwise.",
    "tensorflow.sparse.", "tensorflow.ragged.", "tensorflow.experimental.numpy.", "keras.ops.",
)
# Lowercase functions in those namespaces that return something other than a tensor.
_NOT_OPS = frozenset("""
    function print name_scope device control_dependencies get_static_value is_tensor
    is_symbolic_tensor executing_eagerly executing_eagerly_outside_functions inside_function
    get_logger set_seed custom_gradient recompute_grad init_scope no_op group make_ndarray
    make_tensor_proto get_variable variable_scope get_seed dimension_value as_dtype
    register_tensor_conversion_function get_current_name_scope type_spec_from_value
    no_gradient get_global_generator set_global_generator create_rng_state convert_to_numpy
    shape_list is_sparse is_ragged dtype ndim
""".split())
# `keras.ops.shape` is a tuple in Keras 3; `tf.shape` is a tensor.
_NOT_OPS_BY_NAME = frozenset({"keras.ops.shape", "keras.ops.size", "keras.ops.is_tensor"})
_TENSOR_SPECS = frozenset({"tensorflow.TensorSpec", "tensorflow.RaggedTensorSpec", "tensorflow.SparseTensorSpec"})
# Functions that trace a Python function of tensors inside a trace: its parameters are tensors.
_TRACING_COMBINATORS = {
    "tensorflow.map_fn": ("fn", 0), "tensorflow.scan": ("fn", 0), "tensorflow.foldl": ("fn", 0),
    "tensorflow.foldr": ("fn", 0), "tensorflow.vectorized_map": ("fn", 0),
    "tensorflow.while_loop": ("body", 1),
}
_NUMPY_ARRAYS = frozenset(f"numpy.{name}" for name in """
    array asarray zeros ones empty full arange linspace eye identity stack vstack hstack
    concatenate zeros_like ones_like full_like
""".split())
_MODEL_LOADERS = frozenset({
    "keras.models.load_model", "keras.saving.load_model", "keras.models.clone_model",
    "keras.models.model_from_json", "keras.models.model_from_config",
})
TFP_VARIABLES = frozenset({"tensorflow_probability.util.TransformedVariable"})
_LEGACY_KERAS = Version.parse("2.16")


def op_returns_tensor(qualname: str | None) -> bool:
    """`tf.reduce_sum`, `tf.nn.relu`, `tf.shape`... but not `tf.print` or `tf.nest.map_structure`."""
    if not qualname or qualname in _NOT_OPS_BY_NAME:
        return False
    for namespace in _OP_NAMESPACES:
        if qualname.startswith(namespace):
            rest = qualname[len(namespace):]
            if not rest or "." in rest or not rest[0].islower():
                continue
            return rest not in _NOT_OPS and not rest.endswith("initializer") \
                and not rest.startswith(("assert", "experimental_"))
    return False


def positional_params(node: ast.AST) -> list[str]:
    if not isinstance(node, FUNCTION_NODES):
        return []
    args = node.args
    return [a.arg for a in (*args.posonlyargs, *args.args)]


def all_params(node: ast.AST) -> list[ast.arg]:
    if not isinstance(node, FUNCTION_NODES):
        return []
    args = node.args
    found = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if args.vararg:
        found.append(args.vararg)
    if args.kwarg:
        found.append(args.kwarg)
    return found


def is_method(node: ast.AST, facts: Facts) -> bool:
    """A def directly in a class body that receives the instance (not a staticmethod)."""
    scope = facts.function_scopes.get(node)
    if scope is None or scope.parent is None or scope.parent.kind != "class":
        return False
    decorators = getattr(node, "decorator_list", [])
    return not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in decorators)


def function_label(node: ast.AST | None) -> str:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return f"`{node.name}`"
    return "(a lambda)" if node is not None else "this tf.function"


@dataclass(frozen=True)
class Caller:
    call: ast.Call
    scope: Scope
    # parameter name -> the argument expression passed for it
    arguments: dict[str, ast.expr]


def _binding_values(node: ast.AST) -> dict[str, list]:
    """name -> the values bound to it in this scope (OTHER when unknown); parameters are "param"."""
    found: dict[str, list] = {}
    for arg in all_params(node):
        found.setdefault(arg.arg, []).append("param")

    def bind(target: ast.expr, value) -> None:
        if isinstance(target, ast.Name):
            found.setdefault(target.id, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) \
                and len(value.elts) == len(target.elts) else None
            for index, element in enumerate(target.elts):
                bind(element, values[index] if values is not None else OTHER)
        elif isinstance(target, ast.Starred):
            bind(target.value, OTHER)

    for current in own_nodes(node):
        if current is node:
            continue
        if isinstance(current, ast.Assign):
            for target in current.targets:
                bind(target, current.value)
        elif isinstance(current, ast.AnnAssign):
            if current.value is not None:
                bind(current.target, current.value)
        elif isinstance(current, ast.AugAssign):
            if isinstance(current.target, ast.Name):
                found.setdefault(current.target.id, []).append(
                    ast.BinOp(left=ast.Name(id=current.target.id, ctx=ast.Load()), op=current.op,
                              right=current.value))
        elif isinstance(current, ast.NamedExpr):
            bind(current.target, current.value)
        elif isinstance(current, (ast.For, ast.AsyncFor, ast.comprehension)):
            bind(current.target, OTHER)
        elif isinstance(current, (ast.With, ast.AsyncWith)):
            for item in current.items:
                if item.optional_vars is not None:
                    bind(item.optional_vars, OTHER)
        elif isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.setdefault(current.name, []).append(OTHER)
        elif isinstance(current, (ast.Import, ast.ImportFrom)):
            for alias in current.names:
                found.setdefault((alias.asname or alias.name).split(".")[0], []).append(OTHER)
        elif isinstance(current, ast.ExceptHandler) and current.name:
            found.setdefault(current.name, []).append(OTHER)
        elif isinstance(current, (ast.Global, ast.Nonlocal)):
            for name in current.names:
                found.setdefault(name, []).append(OTHER)
    return found


class Values:
    def __init__(self, facts: Facts, targets: Targets) -> None:
        self.facts = facts
        self.targets = targets
        self._bindings: dict[ast.AST, dict[str, list]] = {}
        self._class_attrs: dict[tuple[str, str], tuple[str | None, ast.expr | None]] = {}
        self._callers: dict[ast.AST, list[Caller]] = {}
        self._combinators: dict[ast.AST, bool] = {}
        self._names: dict[tuple[str, int], str | None] = {}
        self._names_in_progress: set[tuple[str, int]] = set()
        self._in_progress: set = set()
        self._call_index: dict[tuple, list] | None = None
        self._scope_of_node = {scope.node: scope for scope in facts.scopes}

    # --- names ------------------------------------------------------------------------

    def bindings(self, node: ast.AST) -> dict[str, list]:
        found = self._bindings.get(node)
        if found is None:
            found = self._bindings[node] = _binding_values(node)
        return found

    def lookup(self, name: str, scope: Scope) -> tuple[list, Scope] | None:
        """The values bound to `name` in the scope that owns it, seen from `scope`."""
        current: Scope | None = scope
        first = True
        while current is not None:
            if current.kind == "class" and not first:
                current = current.parent
                continue
            if name in current.globals and current.kind != "module":
                current = self.facts.module
                continue
            values = self.bindings(current.node).get(name)
            if values is not None:
                return values, current
            current = current.parent
            first = False
        return None

    def enclosing_class(self, scope: Scope) -> ast.ClassDef | None:
        """The class whose method (or a function nested in one) `scope` is."""
        current: Scope | None = scope
        while current is not None:
            if current.kind in ("function", "lambda") and current.parent is not None \
                    and current.parent.kind == "class":
                return current.parent.node  # type: ignore[return-value]
            current = current.parent
        return None

    # --- objects ------------------------------------------------------------------------

    def constructed(self, call: ast.Call) -> str | None:
        """What kind of object a constructor call makes (model, layer, optimizer, variable,
        tfp_variable), or None. Functional helpers (`keras.layers.add(...)`) are not layers."""
        qualname = self.facts.imports.resolve(call.func)
        if qualname is not None:
            if qualname in TFP_VARIABLES:
                return "tfp_variable"
            if qualname in _MODEL_LOADERS:
                return "model"
            if qualname == "keras.optimizers.get":
                return "optimizer"
            if _is_optimizer_class(qualname):
                return "optimizer"
            kind = binding_kind(qualname)
            if kind in ("layer", "optimizer", "metric") and not qualname.rsplit(".", 1)[-1][:1].isupper():
                return None
            if kind in ("model", "layer", "optimizer", "variable"):
                return kind
            return None
        if isinstance(call.func, ast.Name):
            kind = self.facts.class_kinds.get(call.func.id)
            if kind in ("model", "layer"):
                return kind
        return None

    def object_kind(self, expr: ast.expr, scope: Scope) -> str | None:
        return self.object_origin(expr, scope)[0]

    def object_origin(self, expr: ast.expr, scope: Scope) -> tuple[str | None, ast.expr | None]:
        """(kind, the constructor call that made it) for `expr` seen from `scope`."""
        key = ("object", id(expr), id(scope))
        if key in self._in_progress:
            return None, None
        self._in_progress.add(key)
        try:
            return self._object_origin(expr, scope)
        finally:
            self._in_progress.discard(key)

    def _object_origin(self, expr: ast.expr, scope: Scope) -> tuple[str | None, ast.expr | None]:
        if isinstance(expr, ast.Call):
            kind = self.constructed(expr)
            return (kind, expr) if kind else (None, None)
        if isinstance(expr, ast.Name):
            found = self.lookup(expr.id, scope)
            if found is None:
                return None, None
            values, owner = found
            return self._common_origin(values, owner, expr.id)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
            owner_class = self.enclosing_class(scope)
            if owner_class is None:
                return None, None
            return self.class_attribute(owner_class, expr.attr)
        return None, None

    def _common_origin(self, values: list, owner: Scope, name: str) -> tuple[str | None, ast.expr | None]:
        kinds: set[str] = set()
        origin: ast.expr | None = None
        for value in values:
            if value == "param":
                kind, param_origin = self.param_object(owner, name)
                if kind is None:
                    return None, None
                kinds.add(kind)
                origin = origin or param_origin
                continue
            if value == OTHER:
                return None, None
            if isinstance(value, ast.Constant) and value.value is None:
                continue
            kind, value_origin = self.object_origin(value, owner)
            if kind is None:
                return None, None
            kinds.add(kind)
            origin = origin or value_origin
        if len(kinds) == 1:
            return kinds.pop(), origin
        return None, None

    def class_attribute(self, cls: ast.ClassDef, attr: str) -> tuple[str | None, ast.expr | None]:
        """The kind of `self.attr` when every assignment to it in the class agrees (None ignored)."""
        key = (f"{cls.name}@{cls.lineno}", attr)
        if key in self._class_attrs:
            return self._class_attrs[key]
        self._class_attrs[key] = (None, None)  # recursion guard
        assignments: list[tuple[ast.expr, Scope]] = []
        for node in ast.walk(cls):
            targets: list[ast.expr] = []
            value = None
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            elif isinstance(node, ast.AugAssign):
                targets, value = [node.target], None
            for target in targets:
                if isinstance(target, ast.Attribute) and target.attr == attr \
                        and isinstance(target.value, ast.Name) and target.value.id == "self":
                    if value is None:
                        self._class_attrs[key] = (None, None)
                        return None, None
                    assignments.append((value, self._scope_containing(node)))
                elif isinstance(target, (ast.Tuple, ast.List)) and any(
                        isinstance(e, ast.Attribute) and e.attr == attr for e in target.elts):
                    self._class_attrs[key] = (None, None)
                    return None, None
        kinds: set[str] = set()
        origin: ast.expr | None = None
        for value, scope in assignments:
            if isinstance(value, ast.Constant) and value.value is None:
                continue
            if scope is None:
                self._class_attrs[key] = (None, None)
                return None, None
            kind, value_origin = self.object_origin(value, scope)
            if kind is None:
                self._class_attrs[key] = (None, None)
                return None, None
            kinds.add(kind)
            origin = origin or value_origin
        result = (kinds.pop(), origin) if len(kinds) == 1 else (None, None)
        self._class_attrs[key] = result
        return result

    def _scope_containing(self, node: ast.AST) -> Scope | None:
        from .guards import ancestors

        for _child, parent in ancestors(node, self.facts):
            scope = self._scope_of_node.get(parent)
            if scope is not None:
                return scope
        return None

    def param_object(self, scope: Scope, name: str) -> tuple[str | None, ast.expr | None]:
        """The kind of object every caller passes for parameter `name` of the function `scope`."""
        node = scope.node
        if not isinstance(node, FUNCTION_NODES):
            return None, None
        annotated = _annotation(node, name)
        if annotated is not None:
            qualname = self.facts.imports.resolve(annotated)
            kind = binding_kind(qualname) if qualname else None
            if kind == "model" or (kind == "optimizer" and qualname and qualname.endswith("Optimizer")):
                return kind, None
        passed = [c.arguments[name] for c in self.callers(node) if name in c.arguments]
        scopes = [c.scope for c in self.callers(node) if name in c.arguments]
        if not passed:
            return None, None
        kinds: set[str] = set()
        origin: ast.expr | None = None
        for expr, caller_scope in zip(passed, scopes):
            kind, value_origin = self.object_origin(expr, caller_scope)
            if kind is None:
                return None, None
            kinds.add(kind)
            origin = origin or value_origin
        return (kinds.pop(), origin) if len(kinds) == 1 else (None, None)

    def defines_method(self, class_name: str, method: str) -> bool:
        """Does this module's class (or a base class defined in this module) define `method`?"""
        seen: set[str] = set()
        pending = [class_name]
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen.add(name)
            cls = self.facts.classes.get(name)
            if cls is None:
                continue
            for stmt in cls.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == method:
                    return True
                if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                    if any(isinstance(t, ast.Name) and t.id == method for t in targets):
                        return True
            pending.extend(base.id for base in cls.bases if isinstance(base, ast.Name))
        return False

    # --- callers ------------------------------------------------------------------------

    def _index(self) -> dict[tuple, list]:
        if self._call_index is None:
            index: dict[tuple, list] = {}
            for site in self.facts.calls:
                func = site.node.func
                if isinstance(func, ast.Name):
                    index.setdefault(("name", func.id), []).append(site)
                elif isinstance(func, ast.Attribute):
                    index.setdefault(("attr", func.attr), []).append(site)
            self._call_index = index
        return self._call_index

    def callers(self, node: ast.AST) -> list[Caller]:
        """The calls of the def `node` in this file, with arguments mapped to parameters."""
        found = self._callers.get(node)
        if found is not None:
            return found
        self._callers[node] = []  # recursion guard
        found = self._find_callers(node)
        self._callers[node] = found
        return found

    def _find_callers(self, node: ast.AST) -> list[Caller]:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return []
        scope = self.facts.function_scopes.get(node)
        if scope is None or scope.parent is None:
            return []
        params = positional_params(node)
        keyword_params = {a.arg for a in all_params(node)}
        method = is_method(node, self.facts)
        if method:
            params = params[1:]
        owner = scope.parent
        found: list[Caller] = []
        # Names bound to this def, directly or through `name = tf.function(def)`.
        names: list[tuple[str, Scope]] = []
        attrs: list[str] = []
        if owner.kind == "class":
            attrs.append(node.name)
        else:
            names.append((node.name, owner))
        for binding in self.facts.bindings:
            if binding.kind != "tf_function" or not isinstance(binding.value, ast.Call) or not binding.value.args:
                continue
            target = binding.value.args[0]
            wraps = (isinstance(target, ast.Name) and target.id == node.name and owner.kind != "class") or (
                isinstance(target, ast.Attribute) and target.attr == node.name and owner.kind == "class"
                and isinstance(target.value, ast.Name) and target.value.id == "self")
            if not wraps:
                continue
            if binding.name.startswith("self.") and binding.name.count(".") == 1:
                attrs.append(binding.name.split(".", 1)[1])
            elif "." not in binding.name:
                names.append((binding.name, binding.scope))
        index = self._index()
        for name, bound_in in names:
            for site in index.get(("name", name), ()):
                resolved = self.lookup(name, site.scope)
                if resolved is None or resolved[1] is not bound_in:
                    continue
                mapped = _map_arguments(site.node, params, keyword_params)
                if mapped is not None:
                    found.append(Caller(site.node, site.scope, mapped))
        if owner.kind == "class":
            cls: ast.ClassDef = owner.node  # type: ignore[assignment]
            for attr in attrs:
                for site in index.get(("attr", attr), ()):
                    receiver = site.node.func.value  # type: ignore[attr-defined]
                    if not self._is_instance_of(receiver, site.scope, cls):
                        continue
                    mapped = _map_arguments(site.node, params, keyword_params)
                    if mapped is not None:
                        found.append(Caller(site.node, site.scope, mapped))
        return found

    def _is_instance_of(self, receiver: ast.expr, scope: Scope, cls: ast.ClassDef) -> bool:
        if isinstance(receiver, ast.Name) and receiver.id == "self":
            return self.enclosing_class(scope) is cls
        if isinstance(receiver, ast.Name):
            found = self.lookup(receiver.id, scope)
            if found is None:
                return False
            values = [v for v in found[0] if not (isinstance(v, ast.Constant) and v.value is None)]
            return bool(values) and all(
                isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == cls.name for v in values)
        return False

    # --- tensors --------------------------------------------------------------------------

    def symbolic(self, expr: ast.expr, scope: Scope) -> str | None:
        """"tensor" when `expr` is a symbolic tensor while `scope` is traced, "variable" for a
        tf.Variable, else None."""
        key = ("symbolic", id(expr), id(scope))
        if key in self._in_progress:
            return None
        self._in_progress.add(key)
        try:
            return self._symbolic(expr, scope)
        finally:
            self._in_progress.discard(key)

    def _symbolic(self, expr: ast.expr, scope: Scope) -> str | None:
        if isinstance(expr, ast.Call):
            qualname = self.facts.imports.resolve(expr.func)
            if qualname in ("tensorflow.Variable",):
                return "variable"
            if op_returns_tensor(qualname):
                return "tensor"
            if qualname is None and self._calls_model(expr.func, scope):
                return "tensor"
            return None
        if isinstance(expr, ast.Name):
            return self._name_symbolic(expr.id, scope)
        if isinstance(expr, ast.NamedExpr):
            return self.symbolic(expr.value, scope)
        if isinstance(expr, ast.Attribute):
            if isinstance(expr.value, ast.Name) and expr.value.id == "self":
                cls = self.enclosing_class(scope)
                if cls is not None and self.class_attribute(cls, expr.attr)[0] == "variable":
                    return "variable"
            return None
        if isinstance(expr, ast.BinOp):
            if isinstance(expr.left, (ast.Constant, ast.JoinedStr)) and isinstance(getattr(expr.left, "value", None), str):
                return None
            if self.symbolic(expr.left, scope) or self.symbolic(expr.right, scope):
                return "tensor"
            return None
        if isinstance(expr, ast.UnaryOp) and not isinstance(expr.op, ast.Not):
            return "tensor" if self.symbolic(expr.operand, scope) else None
        if isinstance(expr, ast.Compare):
            if len(expr.ops) == 1 and isinstance(expr.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
                if self.symbolic(expr.left, scope) or self.symbolic(expr.comparators[0], scope):
                    return "tensor"
            return None
        if isinstance(expr, ast.Subscript):
            return "tensor" if self.symbolic(expr.value, scope) else None
        if isinstance(expr, ast.IfExp):
            if self.symbolic(expr.body, scope) and self.symbolic(expr.orelse, scope):
                return "tensor"
            return None
        return None

    def _calls_model(self, func: ast.expr, scope: Scope) -> bool:
        """`model(x)`, `self.encoder(x)`, `self(x)` in a Keras Model/Layer: a tensor result."""
        if isinstance(func, ast.Name) and func.id == "self":
            cls = self.enclosing_class(scope)
            return cls is not None and self.facts.class_kinds.get(cls.name) in ("model", "layer")
        if isinstance(func, ast.Call):
            return self.constructed(func) in ("model", "layer")
        return self.object_kind(func, scope) in ("model", "layer")

    def _name_symbolic(self, name: str, scope: Scope) -> str | None:
        found = self.lookup(name, scope)
        if found is None:
            return None
        values, owner = found
        key = (name, id(owner))
        if key in self._names:
            return self._names[key]
        if key in self._names_in_progress:
            # `x = tf.zeros(3)` then `x = x * 2`: a name's own earlier value counts as what the
            # other bindings make it (every other binding must still be a tensor).
            return "tensor"
        self._names_in_progress.add(key)
        try:
            result = self._name_symbolic_uncached(name, values, owner)
        finally:
            self._names_in_progress.discard(key)
        self._names[key] = result
        return result

    def _name_symbolic_uncached(self, name: str, values: list, owner: Scope) -> str | None:
        if owner.traced_by is None:
            # Bound outside any trace: eager objects, except variables, which refuse NumPy in a trace.
            return "variable" if self._common_origin(values, owner, name)[0] == "variable" else None
        kinds: set[str] = set()
        for value in values:
            if value == "param":
                kind = self.param_symbolic(owner, name)
            elif value == OTHER:
                kind = None
            else:
                kind = self.symbolic(value, owner)
            if kind is None:
                return None
            kinds.add(kind)
        if not kinds:
            return None
        return "tensor" if "tensor" in kinds else kinds.pop()

    def param_symbolic(self, scope: Scope, name: str) -> str | None:
        """A parameter of a traced function: symbolic with evidence only."""
        node = scope.node
        if not isinstance(node, FUNCTION_NODES):
            return None
        if scope.tf_function is not None:
            params = positional_params(node)
            if is_method(node, self.facts):
                params = params[1:]
            signature = scope.tf_function.input_signature
            if isinstance(signature, (ast.List, ast.Tuple)):
                if name in params:
                    index = params.index(name)
                    if index < len(signature.elts):
                        element = signature.elts[index]
                        if isinstance(element, ast.Call) and \
                                self.facts.imports.resolve(element.func) in _TENSOR_SPECS:
                            return "tensor"
                return None
            annotation = _annotation(node, name)
            if annotation is not None and self.facts.imports.resolve(annotation) == "tensorflow.Tensor":
                return "tensor"
            callers = [c for c in self.callers(node) if name in c.arguments]
            if not callers or any(name not in c.arguments for c in self.callers(node)):
                return None
            kinds = {self.eager_kind(c.arguments[name], c.scope) for c in callers}
            if kinds <= {"tensor", "ndarray"}:
                return "tensor"
            if kinds == {"variable"}:
                return "variable"
            return None
        if self._traced_combinator_function(node):
            return "tensor"
        return None

    def _traced_combinator_function(self, node: ast.AST) -> bool:
        """A def or lambda in a traced body passed to tf.map_fn / tf.while_loop / ...: its
        parameters are tensors."""
        cached = self._combinators.get(node)
        if cached is None:
            cached = self._combinators[node] = self._find_combinator_use(node)
        return cached

    def _find_combinator_use(self, node: ast.AST) -> bool:
        from .guards import parents

        table = parents(self.facts)
        scope = self.facts.function_scopes.get(node)
        if scope is None or scope.parent is None or scope.parent.traced_by is None:
            return False
        if isinstance(node, ast.Lambda):
            call = table.get(node)
            candidates = [call] if isinstance(call, ast.Call) else []
            if isinstance(call, ast.keyword):
                parent = table.get(call)
                candidates = [parent] if isinstance(parent, ast.Call) else []
        else:
            candidates = [site.node for site in self.facts.calls
                          if site.scope is scope.parent and site.qualname in _TRACING_COMBINATORS]
        for call in candidates:
            qualname = self.facts.imports.resolve(call.func)
            spec = _TRACING_COMBINATORS.get(qualname or "")
            if spec is None:
                continue
            keyword, position = spec
            passed = call.args[position] if len(call.args) > position else next(
                (k.value for k in call.keywords if k.arg == keyword), None)
            if passed is node or (isinstance(passed, ast.Name) and isinstance(node, ast.FunctionDef)
                                  and passed.id == node.name):
                return True
        return False

    def eager_kind(self, expr: ast.expr, scope: Scope) -> str | None:
        """What a caller passes: "tensor" (a TensorFlow op result), "ndarray", "variable", None."""
        if scope.traced_by is not None and self.symbolic(expr, scope) == "tensor":
            return "tensor"
        if isinstance(expr, ast.Call):
            qualname = self.facts.imports.resolve(expr.func)
            if op_returns_tensor(qualname):
                return "tensor"
            if qualname in _NUMPY_ARRAYS:
                return "ndarray"
            kind = self.constructed(expr)
            return "variable" if kind in ("variable", "tfp_variable") else None
        if isinstance(expr, ast.Name):
            key = ("eager", expr.id, id(scope))
            if key in self._in_progress:
                return None
            found = self.lookup(expr.id, scope)
            if found is None:
                return None
            values, owner = found
            self._in_progress.add(key)
            try:
                kinds = {self.eager_kind(v, owner) if isinstance(v, ast.expr) else None for v in values}
            finally:
                self._in_progress.discard(key)
            return kinds.pop() if len(kinds) == 1 else None
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
            cls = self.enclosing_class(scope)
            if cls is not None and self.class_attribute(cls, expr.attr)[0] in ("variable", "tfp_variable"):
                return "variable"
        return None

    # --- Keras ----------------------------------------------------------------------------

    def keras_major(self, origin: ast.expr | None = None) -> int:
        """2 for tf_keras (and tf.keras before TensorFlow 2.16), else 3."""
        imports = self.facts.imports
        if isinstance(origin, ast.Call):
            raw = imports.raw(origin.func) or ""
            if raw.startswith("tf_keras"):
                return 2
            if raw.startswith("keras") and self.targets.keras is not None:
                return 2 if self.targets.keras < Version.parse("3") else 3
            if raw.startswith(("tensorflow", "keras")):
                return self._tf_keras_major()
        raws = set(imports.names.values())
        if any(r.startswith("tf_keras") for r in raws) and not any(
                r == "keras" or r.startswith("keras.") for r in raws):
            return 2
        return self._tf_keras_major()

    def _tf_keras_major(self) -> int:
        if self.targets.tensorflow < _LEGACY_KERAS:
            return 2
        if self.targets.keras is not None and self.targets.keras < Version.parse("3"):
            return 2
        return 3


def _is_optimizer_class(qualname: str) -> bool:
    """`tf.optimizers.Adam` (an alias of the Keras optimizers) and TF1 `tf.train.AdamOptimizer`."""
    if qualname.startswith("tensorflow.optimizers."):
        last = qualname.rsplit(".", 1)[-1]
        return last[:1].isupper() and "schedules" not in qualname
    if qualname.startswith("tensorflow.train.") and qualname.endswith("Optimizer"):
        return qualname != "tensorflow.train.Optimizer"
    return False


def _annotation(node: ast.AST, name: str) -> ast.expr | None:
    for arg in all_params(node):
        if arg.arg == name:
            return arg.annotation
    return None


def _map_arguments(call: ast.Call, params: list[str], keyword_params: set[str]) -> dict[str, ast.expr] | None:
    mapped: dict[str, ast.expr] = {}
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if index < len(params):
            mapped[params[index]] = arg
    for keyword in call.keywords:
        if keyword.arg is not None and keyword.arg in keyword_params:
            mapped[keyword.arg] = keyword.value
    return mapped


# --- one Values per file ------------------------------------------------------------------

_cache = threading.local()


def values_for(facts: Facts, targets: Targets) -> Values:
    cached = getattr(_cache, "entry", None)
    if cached is not None and cached[0] is facts.tree and cached[1] == targets:
        return cached[2]
    values = Values(facts, targets)
    _cache.entry = (facts.tree, targets, values)
    return values
