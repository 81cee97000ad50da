from __future__ import annotations

import ast
from dataclasses import dataclass

from ...analysis.values import (FUNCTION, LIST, NUMBER, TF_FUNCTION, TF_VALUES, TUPLE, Value, ValueModel,
                                dtype_name, is_integer_dtype, values_for)
from ...facts.model import Facts, Scope, TfFunction
from ...model import Severity
from ...versions import VersionRange
from ..base import Context, Proof, Rule, invalid, valid

# Calls whose result has the shape of their first argument, written out (`tf.zeros((2, 3))`).
_SHAPED_MAKERS = frozenset({
    "tensorflow.zeros", "tensorflow.ones", "tensorflow.fill", "tensorflow.random.normal",
    "tensorflow.random.uniform", "tensorflow.random.truncated_normal",
})
_TENSOR_SPEC = frozenset({"tensorflow.TensorSpec", "tensorflow.type_spec.TensorSpec"})
_TENSOR_SHAPE = "tensorflow.TensorShape"


@dataclass(frozen=True)
class _Spec:
    """What one parameter accepts: a TensorSpec (dtype, shape; None where any), or, for a
    concrete function, the Python value it was traced with."""

    dtype: str | None
    shape: tuple[int | None, ...] | None
    literal: ast.Constant | None = None
    origin: ast.AST | None = None


class CallOutsideSignature(Rule):
    """
    ## What it does
    Finds a call of a `tf.function` with an `input_signature`, or of a concrete function
    (`f.get_concrete_function(...)`), with an argument that the signature does not accept:
    a tensor of another dtype, a Python float where the signature says an integer dtype,
    a value of another rank or with another size on a fixed dimension, or a Python value
    other than the one the concrete function was traced with.

    Only arguments whose dtype or shape the code makes plain are checked: literals,
    `tf.constant(...)`, `tf.zeros(shape, dtype)`, `tf.cast(..., dtype)` and the like.
    NumPy arrays and Python ints are converted to the signature's dtype, so they pass.

    ## Why is this bad?
    An `input_signature` fixes the one trace the function has: TensorFlow does not trace
    again for a call that does not fit it, it raises `TypeError: Binding inputs to
    tf.function failed due to Can not cast TensorSpec(...) to TensorSpec(...)`. A concrete
    function is one graph: a tensor of another dtype raises `InvalidArgumentError`, and
    another Python value `TypeError: ... Can not cast 3 to Literal[2]`.

    ## Example
    ```python
    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
    def next_collatz(x):
        return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

    next_collatz(tf.constant([1.0, 2.0]))     # TypeError: float32 is not int32
    ```

    ## Use instead
    ```python
    next_collatz(tf.constant([1, 2]))         # or tf.cast(x, tf.int32)
    ```
    or widen the signature (`tf.TensorSpec(None, tf.int32)` accepts any shape), or drop it
    and let TensorFlow trace once per dtype and shape.
    """

    code = "FUNC018"
    name = "call-outside-input-signature"
    summary = "A tf.function with an input_signature, or a concrete function, called with an argument it does not accept"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("input_signature", "get_concrete_function")
    examples = (
        invalid("""
            import tensorflow as tf

            @tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.int32)])
            def next_collatz(x):
                return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

            ok = next_collatz(tf.constant([1, 2]))
            bad = next_collatz(tf.constant([1.0, 2.0]))
        """, 8, "a float32 tensor for an int32 signature",
            proof=Proof(raises=("TypeError", "Binding inputs to tf.function failed"))),
        invalid("""
            import tensorflow as tf

            @tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
            def next_collatz(x):
                return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

            ok = next_collatz(tf.constant([1, 2]))
            bad = next_collatz(tf.constant([[1, 2], [3, 4]]))
        """, 8, "a matrix for a 1-D signature",
            proof=Proof(raises=("TypeError", "Can not cast TensorSpec(shape=(2, 2)"))),
        invalid("""
            import tensorflow as tf

            def total(x):
                return tf.reduce_sum(x)

            total_fn = tf.function(total, input_signature=[tf.TensorSpec([None, 3], tf.float32)])
            ok = total_fn(tf.zeros([4, 3]))
            bad = total_fn(tf.zeros([4, 3], dtype=tf.float64))
        """, 8, "tf.function(...) called with a signature, a float64 tensor",
            proof=Proof(raises=("TypeError", "dtype=tf.float64"))),
        invalid("""
            import tensorflow as tf

            @tf.function
            def power(a, b):
                return a ** b

            square = power.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
            ok = square(tf.constant(10.0))
            bad = square(tf.constant(10.0), b=3)
        """, 9, "a concrete function called with another Python value",
            proof=Proof(raises=("TypeError", "Literal[2]"))),
        invalid("""
            import tensorflow as tf

            @tf.function
            def double(a):
                return a + a

            double_floats = double.get_concrete_function(tf.constant(1.0))
            ok = double_floats(tf.constant(2.0))
            bad = double_floats(tf.constant(1))
        """, 9, "a concrete function called with an int32 tensor",
            proof=Proof(raises=("InvalidArgumentError", "expected to be a float tensor"))),
        valid("""
            import numpy as np
            import tensorflow as tf

            @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
            def total(x):
                return tf.reduce_sum(x)

            values = [total(np.zeros((2, 3))), total([[1, 2, 3]]), total(x=tf.ones([5, 3])),
                      total(tf.cast(tf.ones([1, 3], tf.int32), tf.float32))]
        """, "NumPy float64 and Python ints are converted; a cast tensor fits",
            proof=Proof(check="assert [float(v) for v in values] == [0.0, 6.0, 15.0, 3.0], values")),
        valid("""
            import tensorflow as tf

            @tf.function(input_signature=[tf.TensorSpec(None, tf.int32)])
            def count(x):
                return tf.size(x)

            sizes = [int(count(tf.constant(3))), int(count(tf.constant([[1, 2], [3, 4]])))]
        """, "a signature of unknown rank accepts any shape",
            proof=Proof(check="assert sizes == [1, 4], sizes")),
        valid("""
            import tensorflow as tf

            @tf.function
            def power(a, b):
                return a ** b

            square = power.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
            cube = power.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=3)
            values = [float(square(tf.constant(10.0))), float(cube(tf.constant(2.0), b=3))]
        """, "each concrete function called with the value it was traced with",
            proof=Proof(check="assert values == [100.0, 8.0], values")),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        signed = _signed_functions(facts)
        concrete = _concrete_bindings(facts)
        if not signed and not concrete:
            return
        values = values_for(ctx)
        for site in facts.calls:
            call = site.node
            if not isinstance(call.func, ast.Name):
                continue
            name = call.func.id
            if name in signed:
                found = _signature_of(values, call, site.scope, signed[name])
            elif name in concrete:
                found = _concrete_signature(values, call, site.scope)
            else:
                continue
            if found is None:
                continue
            params, specs, what, where = found
            for arg, spec in _bound(call, params, specs):
                problem = _mismatch(values, arg, site.scope, spec)
                if problem is None:
                    continue
                ctx.report(
                    arg,
                    f"{what[0].upper()}{what[1:]} does not accept `{ast.unparse(arg)}`: it {problem}. TensorFlow does not trace "
                    f"again for a call outside the signature, this call raises {_raised(what, spec)}. Pass a "
                    "value that fits (`tf.cast`, another literal), or widen or drop the signature.",
                    related=[ctx.related(where, "the signature is set here")],
                )


def _raised(what: str, spec: _Spec) -> str:
    if what.startswith("the concrete"):
        return "`TypeError` (`Can not cast ... to Literal[...]`)" if spec.literal is not None \
            else "`InvalidArgumentError` (`expected to be a ... tensor`)"
    return "`TypeError` (`Binding inputs to tf.function failed`)"


# --- where the signatures are ---------------------------------------------------------------------

def _signed_functions(facts: Facts) -> dict[str, TfFunction]:
    """Names that may be a tf.function with a literal input_signature: the decorated def's name,
    or the name `tf.function(f, input_signature=...)` is assigned to."""
    out: dict[str, TfFunction] = {}
    for tf_function in facts.tf_functions:
        if tf_function.input_signature is None or _specs(facts, tf_function.input_signature) is None:
            continue
        if tf_function.kind == "decorator" and isinstance(tf_function.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[tf_function.node.name] = tf_function
        elif tf_function.kind == "call":
            for binding in facts.bindings:
                if binding.value is tf_function.origin and "." not in binding.name:
                    out[binding.name] = tf_function
    return out


def _concrete_bindings(facts: Facts) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(facts.tree) if "get_concrete_function" in facts.source.text else ():
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and _is_concrete_call(node.value):
            names.add(node.targets[0].id)
    return names


def _is_concrete_call(expr: ast.expr | None) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
        and expr.func.attr == "get_concrete_function"


def _params(function: ast.AST) -> list[str] | None:
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return None
    args = function.args
    if args.vararg is not None or args.kwonlyargs:
        return None
    return [a.arg for a in args.posonlyargs + args.args]


def _traced_def(value: Value) -> ast.AST | None:
    """The def a certain tf.function value runs (a def of this file, not a method)."""
    if not value.is_(TF_FUNCTION) or value.home is not None:
        return None
    target = value.ref
    if not isinstance(target, Value) or target.kind != FUNCTION or target.home is not None:
        return None
    return target.ref


def _method(facts: Facts, function: ast.AST) -> bool:
    scope = facts.function_scopes.get(function)
    return scope is None or (scope.parent is not None and scope.parent.kind == "class")


def _signature_of(values: ValueModel, call: ast.Call, scope: Scope, tf_function: TfFunction):
    called = values.value(call.func, scope)
    function = _traced_def(called)
    if function is None or function is not tf_function.node or _method(values.facts, function):
        return None
    if tf_function.kind == "call" and called.origin is not tf_function.origin:
        return None
    params = _params(function)
    specs = _specs(values.facts, tf_function.input_signature)
    if params is None or specs is None or len(specs) != len(params):
        return None
    name = function.name if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) else "the function"
    return params, specs, f"the input_signature of `{name}`", tf_function.input_signature


def _concrete_signature(values: ValueModel, call: ast.Call, scope: Scope):
    """(params, specs, ...) of `name(...)` where `name` is bound only once, to
    `f.get_concrete_function(...)` of a tf.function of this file."""
    assert isinstance(call.func, ast.Name)
    defs, where = values.definitions(call.func.id, scope, call)
    if len(defs) != 1 or where is None or defs[0].kind != "assign" or not _is_concrete_call(defs[0].value):
        return None
    making = defs[0].value
    assert isinstance(making, ast.Call) and isinstance(making.func, ast.Attribute)
    function = _traced_def(values.value(making.func.value, where))
    if function is None or _method(values.facts, function):
        return None
    tf_function = values.facts.function_scopes[function].tf_function
    if tf_function is not None and tf_function.input_signature is not None:
        return None  # the signature decides, not the arguments
    params = _params(function)
    if params is None or any(isinstance(a, ast.Starred) for a in making.args) \
            or any(k.arg is None for k in making.keywords):
        return None
    traced: dict[str, ast.expr] = dict(zip(params, making.args))
    traced.update({k.arg: k.value for k in making.keywords if k.arg})
    if len(making.args) > len(params) or set(traced) != set(params):
        return None  # defaults, or more than the def takes: not read
    specs = []
    for param in params:
        spec = _traced_spec(values, traced[param], where)
        if spec is None:
            return None
        specs.append(spec)
    name = function.name if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) else "the function"
    return params, specs, f"the concrete function `{call.func.id}` of `{name}`", making


def _traced_spec(values: ValueModel, expr: ast.expr, scope: Scope) -> _Spec | None:
    """What the concrete function traced with `expr` accepts."""
    spec = _spec(values.facts, expr)
    if spec is not None:
        return spec
    if isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float, str)) \
            and not isinstance(expr.value, bool):
        return _Spec(None, None, literal=expr, origin=expr)
    value = values.value(expr, scope)
    dtype = _tensor_dtype(values, value)
    if dtype is not None:
        return _Spec(dtype, None, origin=expr)
    return _Spec(None, None, origin=expr)  # accepts what we cannot tell


def _tensor_dtype(values: ValueModel, value: Value) -> str | None:
    """The dtype of a certain tensor or variable; `tf.constant("a")` is a string tensor."""
    if not value.is_(*TF_VALUES):
        return None
    if value.dtype is not None:
        return value.dtype
    made = value.origin
    if isinstance(made, ast.Call) and made.args and isinstance(made.args[0], ast.Constant) \
            and isinstance(made.args[0].value, (str, bytes)) and not made.keywords \
            and values.facts.imports.resolve(made.func) == "tensorflow.constant":
        return "string"
    return None


def _specs(facts: Facts, signature: ast.expr) -> list[_Spec] | None:
    if not isinstance(signature, (ast.List, ast.Tuple)):
        return None
    out = []
    for element in signature.elts:
        spec = _spec(facts, element)
        if spec is None:
            return None
        out.append(spec)
    return out


def _spec(facts: Facts, expr: ast.expr) -> _Spec | None:
    """`tf.TensorSpec(shape, dtype)` written out (dtype float32 when not given)."""
    if not isinstance(expr, ast.Call) or facts.imports.resolve(expr.func) not in _TENSOR_SPEC:
        return None
    shape_arg = expr.args[0] if expr.args else _keyword(expr, "shape")
    dtype_arg = expr.args[1] if len(expr.args) > 1 else _keyword(expr, "dtype")
    dtype = "float32" if dtype_arg is None else _dtype(facts, dtype_arg)
    shape = _shape_literal(facts, shape_arg) if shape_arg is not None else None
    if shape_arg is not None and shape is None and not _is_none(shape_arg):
        shape = _UNREAD
    return _Spec(dtype, None if shape is _UNREAD else shape, origin=expr)


_UNREAD: tuple = ("unread",)


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


def _dtype(facts: Facts, expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return dtype_name(expr.value)
    qualname = facts.imports.resolve(expr) or ""
    for prefix in ("tensorflow.dtypes.", "tensorflow."):
        if qualname.startswith(prefix):
            return dtype_name(qualname[len(prefix):])
    return None


def _shape_literal(facts: Facts, expr: ast.expr) -> tuple[int | None, ...] | None:
    """`[None, 3]`, `(2, 3)`, `[]`, `tf.TensorShape([None])`: the dims, None for a dim of any size."""
    if isinstance(expr, ast.Call) and facts.imports.resolve(expr.func) == _TENSOR_SHAPE and len(expr.args) == 1:
        return _shape_literal(facts, expr.args[0])
    if not isinstance(expr, (ast.List, ast.Tuple)):
        return None
    dims: list[int | None] = []
    for element in expr.elts:
        if _is_none(element):
            dims.append(None)
        elif isinstance(element, ast.Constant) and type(element.value) is int:
            dims.append(element.value)
        else:
            return None
    return tuple(dims)


# --- the argument ------------------------------------------------------------------------------------

def _bound(call: ast.Call, params: list[str], specs: list[_Spec]):
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return
    by_name = dict(zip(params, specs))
    for param, arg in zip(params, call.args):
        yield arg, by_name[param]
    for keyword in call.keywords:
        if keyword.arg in by_name:
            yield keyword.value, by_name[keyword.arg]


def _mismatch(values: ValueModel, arg: ast.expr, scope: Scope, spec: _Spec) -> str | None:
    if spec.literal is not None:
        if isinstance(arg, ast.Constant) and type(arg.value) is type(spec.literal.value) \
                and arg.value != spec.literal.value:
            return f"is not `{spec.literal.value!r}`, the Python value it was traced with"
        return None
    value = values.value(arg, scope)
    if spec.dtype is not None:
        dtype = _tensor_dtype(values, value)
        if dtype is not None and dtype != spec.dtype:
            noun = "variable" if value.kind != "tensor" else "tensor"
            return f"is {_article(dtype)} {dtype} {noun}, and the signature asks for {spec.dtype}"
        if is_integer_dtype(spec.dtype) and _python_floats(value):
            return f"holds Python floats, which do not convert to the signature's {spec.dtype}"
    if spec.shape is not None:
        shape = _arg_shape(values, arg, value)
        if shape is not None and not _fits(shape, spec.shape):
            return f"has shape {_show(shape)}, and the signature says {_show(spec.shape)}"
    return None


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" or word.startswith(("int8", "int16")) else "a"


def _python_floats(value: Value) -> bool:
    if value.is_(NUMBER):
        return value.dtype == "float"
    if value.is_(LIST, TUPLE):
        item = value.item
        while item is not None and item.is_(LIST, TUPLE):
            item = item.item
        return item is not None and item.is_(NUMBER) and item.dtype == "float"
    return False


def _arg_shape(values: ValueModel, arg: ast.expr, value: Value) -> tuple[int, ...] | None:
    """The shape of a literal, a tf.constant of one, or a tf.zeros-like maker with a literal shape."""
    made = value.origin if value.certain and value.origin is not None else arg
    if isinstance(made, ast.Constant) and isinstance(made.value, (int, float)) and value.is_(NUMBER):
        return ()
    if isinstance(made, (ast.List, ast.Tuple)):
        return _nested_shape(made)
    if not isinstance(made, ast.Call) or not value.is_(*TF_VALUES):
        return None
    qualname = values.facts.imports.resolve(made.func)
    if qualname in ("tensorflow.constant", "tensorflow.convert_to_tensor") and made.args:
        data = made.args[0]
        if isinstance(data, ast.Constant) and isinstance(data.value, (int, float)) and not isinstance(data.value, bool):
            shape_kw = _keyword(made, "shape")
            return () if shape_kw is None else None
        if isinstance(data, (ast.List, ast.Tuple)) and _keyword(made, "shape") is None:
            return _nested_shape(data)
        return None
    if qualname in _SHAPED_MAKERS:
        shape_arg = made.args[0] if made.args else _keyword(made, "shape" if qualname != "tensorflow.fill" else "dims")
        dims = _shape_literal(values.facts, shape_arg) if shape_arg is not None else None
        if dims is not None and all(d is not None for d in dims):
            return dims  # type: ignore[return-value]
    return None


def _nested_shape(expr: ast.expr) -> tuple[int, ...] | None:
    """The shape of a rectangular nest of number literals."""
    if isinstance(expr, ast.Constant):
        return () if isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool) else None
    if not isinstance(expr, (ast.List, ast.Tuple)) or not expr.elts:
        return None
    inner = [_nested_shape(e) for e in expr.elts]
    if any(s is None for s in inner) or len(set(inner)) != 1:
        return None
    return (len(expr.elts),) + inner[0]  # type: ignore[operator]


def _fits(shape: tuple[int, ...], spec: tuple[int | None, ...]) -> bool:
    return len(shape) == len(spec) and all(s is None or s == d for d, s in zip(shape, spec))


def _show(shape: tuple) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
