"""NumPy / Python randomness -> `tf.random` ops (FUNC008).

`tf_random_call(qualname, call, alias)` decides on `ast`, without libcst, whether a call
draws numbers in a way a `tf.random` op draws them too, and writes that op with the
call's own argument texts in TensorFlow's order:

    np.random.uniform(low, high, size)   -> tf.random.uniform(shape, low, high)
    np.random.normal(loc, scale, size)   -> tf.random.normal(shape, loc, scale)
    np.random.randint(low, high, size)   -> tf.random.uniform(shape, low, high, dtype=tf.int32)
    np.random.rand(d0, d1) / randn(...)  -> tf.random.uniform([d0, d1]) / tf.random.normal([...])
    np.random.random(size)               -> tf.random.uniform(shape)
    np.random.choice(n, size)            -> tf.random.uniform(shape, 0, n, dtype=tf.int32)   (n an int literal)
    random.random()                      -> tf.random.uniform([])
    random.uniform(a, b)                 -> tf.random.uniform([], a, b)
    random.randint(a, b)                 -> tf.random.uniform([], a, b + 1, dtype=tf.int32)  (b inclusive)
    random.randrange(a, b)               -> tf.random.uniform([], a, b, dtype=tf.int32)
    random.gauss(mu, sigma)              -> tf.random.normal([], mu, sigma)

`size=` becomes a shape: absent or None -> `[]`, an int literal `n` -> `[n]`, a tuple or
list literal kept as it is; any other size (a name: an int or a tuple?) gives no fix, and
so do `dtype=`, `p=`, `replace=False`, `*args` and a call with a comment inside.
`random_call_fix` replaces the call with libcst, keeping the parentheses around it.

A NumPy method called on the draw stays NumPy's: `chained(call, root, alias, imports)` finds
it. `np.random.normal(0.0, 0.2, size=(1, 2)).astype("float32")` is rewritten whole, as
`tf.random.normal((1, 2), 0.0, 0.2, dtype=tf.float32)` (a float dtype for a float draw, an
integer one for an integer draw); `.shape`, `.dtype` and `.ndim` are a tensor's too; any
other method gives no fix (a tf.Tensor has no `.tolist()`, `.reshape()`, ...).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..model import Applicability, Fix

# qualname -> (tf.random op, parameter names in order, integer draw)
_SIGNATURES: dict[str, tuple[str, tuple[str, ...], bool]] = {
    "numpy.random.uniform": ("uniform", ("low", "high", "size"), False),
    "numpy.random.normal": ("normal", ("loc", "scale", "size"), False),
    "numpy.random.randint": ("uniform", ("low", "high", "size"), True),
    "numpy.random.random": ("uniform", ("size",), False),
    "numpy.random.random_sample": ("uniform", ("size",), False),
    "numpy.random.ranf": ("uniform", ("size",), False),
    "numpy.random.sample": ("uniform", ("size",), False),
    "numpy.random.choice": ("uniform", ("a", "size", "replace"), True),
    "random.random": ("uniform", (), False),
    "random.uniform": ("uniform", ("a", "b"), False),
    "random.randint": ("uniform", ("a", "b"), True),
    "random.randrange": ("uniform", ("start", "stop"), True),
    "random.gauss": ("normal", ("mu", "sigma"), False),
    "random.normalvariate": ("normal", ("mu", "sigma"), False),
}
_DIMENSIONS = {"numpy.random.rand": "uniform", "numpy.random.randn": "normal"}


@dataclass
class RandomCall:
    text: str       # the replacement call
    literal: bool   # every bound, shape and size is a literal
    op: str         # "uniform" or "normal"


def _literal_number(node: ast.AST | None) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _int_literal(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def tf_random_call(qualname: str | None, call: ast.Call, alias: str, source: str) -> RandomCall | None:
    """The `tf.random` call drawing what `call` draws, or None."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    segment = ast.get_source_segment(source, call)
    if segment is None or ("#" in segment and "\n" in segment):
        return None

    def text(node: ast.AST) -> str:
        found = ast.get_source_segment(source, node)
        if found is None:
            raise LookupError
        return found

    try:
        if qualname in _DIMENSIONS:
            if call.keywords:
                return None
            dims = ", ".join(text(a) for a in call.args)
            return RandomCall(f"{alias}.random.{_DIMENSIONS[qualname]}([{dims}])",
                              all(_int_literal(a) for a in call.args), _DIMENSIONS[qualname])
        signature = _SIGNATURES.get(qualname or "")
        if signature is None:
            return None
        op, params, integer = signature
        if len(call.args) > len(params):
            return None
        bound: dict[str, ast.expr] = dict(zip(params, call.args))
        for keyword in call.keywords:
            if keyword.arg not in params or keyword.arg in bound:
                return None
            bound[keyword.arg] = keyword.value
        return _write(qualname or "", op, integer, bound, alias, text)
    except LookupError:
        return None


def _write(qualname: str, op: str, integer: bool, bound: dict[str, ast.expr], alias: str, text) -> RandomCall | None:
    literal = True
    size = bound.pop("size", None)
    if size is None or (isinstance(size, ast.Constant) and size.value is None):
        shape = "[]"
    elif _int_literal(size):
        shape = f"[{text(size)}]"
    elif isinstance(size, (ast.Tuple, ast.List)) and all(_int_literal(e) for e in size.elts):
        shape = text(size)
    else:
        return None
    if qualname == "numpy.random.choice":
        replace = bound.pop("replace", None)
        if replace is not None and not (isinstance(replace, ast.Constant) and replace.value is True):
            return None
        population = bound.get("a")
        if not _int_literal(population):
            return None  # an array to choose from: tf.gather of a uniform index, not written here
        low, high = "0", text(population)
    elif qualname.startswith("numpy.random.") or qualname in ("random.uniform", "random.randint", "random.randrange",
                                                              "random.gauss", "random.normalvariate"):
        names = [n for n in ("low", "high", "loc", "scale", "a", "b", "mu", "sigma", "start", "stop") if n in bound]
        values = [bound[n] for n in names]
        literal = all(_literal_number(v) for v in values)
        first_name, second_name = {
            "uniform": ("low", "high"), "normal": ("loc", "scale"), "randint": ("low", "high"),
        }.get(qualname.rsplit(".", 1)[-1], ("a", "b")) if qualname.startswith("numpy.") else {
            "random.uniform": ("a", "b"), "random.randint": ("a", "b"), "random.randrange": ("start", "stop"),
            "random.gauss": ("mu", "sigma"), "random.normalvariate": ("mu", "sigma"),
        }[qualname]
        first, second = bound.get(first_name), bound.get(second_name)
        if qualname in ("random.uniform", "random.randint", "random.gauss", "random.normalvariate") \
                and (first is None or second is None):
            return None  # required arguments missing: the call fails anyway
        if integer and second is None:
            if first is None:
                return None
            # randint(n) / randrange(n): from 0 up to n (exclusive)
            first, second = None, first
            low, high = "0", text(second)
        else:
            low = text(first) if first is not None else None
            high = text(second) if second is not None else None
        if qualname == "random.randint":
            assert second is not None
            high = str(second.value + 1) if _int_literal(second) else f"{_wrapped(text(second), second)} + 1"
        if integer and (not all(_int_literal(v) or not _literal_number(v) for v in values)):
            return None  # float bounds for an integer draw
        if op == "uniform" and not integer and low is None and high is not None:
            low = "0.0"
        if op == "normal" and low is None and high is not None:
            low = "0.0"
    else:
        low = high = None
    parts = [shape]
    if low is not None:
        parts.append(low)
    if high is not None:
        parts.append(high)
    if integer:
        parts.append(f"dtype={alias}.int32")
    return RandomCall(f"{alias}.random.{op}({', '.join(parts)})", literal, op)


def _wrapped(text: str, node: ast.expr) -> str:
    return text if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.Constant)) else f"({text})"


def random_call_fix(text: str, call: ast.Call, replacement: str, title: str,
                    applicability: Applicability) -> Fix | None:
    """Replace `call` by the expression `replacement` (parentheses around the call kept)."""
    from .blocks import or_none

    return or_none(_build)(text, call, replacement, title, applicability)


def _build(text: str, call: ast.Call, replacement: str, title: str, applicability: Applicability) -> Fix | None:
    import libcst as cst

    from .blocks import Rewrite

    rewrite = Rewrite(text)
    node = rewrite.node(call, cst.Call)
    new = cst.parse_expression(replacement)

    def change(updated):
        return new.with_changes(lpar=updated.lpar, rpar=updated.rpar)
    rewrite.change(node, change)
    return rewrite.fix(title, applicability)


_TENSOR_ATTRIBUTES = frozenset({"shape", "dtype", "ndim"})
_DTYPES = {"float16": "float16", "half": "float16", "float32": "float32", "single": "float32",
           "float64": "float64", "double": "float64", "float": "float64", "float_": "float64",
           "int32": "int32", "intc": "int32", "int64": "int64", "int": "int64", "int_": "int64"}


@dataclass
class Chained:
    node: ast.Call | None  # the whole `draw.astype(...)` call, to replace instead of the draw
    dtype: str | None  # the dtype asked for, by its TensorFlow name


def chained(call: ast.Call, root: ast.AST, imports) -> Chained | None:
    """What is done with the draw `call` right where it is made: nothing (`Chained(None, None)`),
    `.astype(dtype)` (the call to replace, the dtype), a tensor's attribute; None for a NumPy
    method that a tensor does not have (no fix)."""
    for node in ast.walk(root):
        if isinstance(node, ast.Attribute) and node.value is call:
            if node.attr in _TENSOR_ATTRIBUTES:
                return Chained(None, None)
            if node.attr != "astype":
                return None
            outer = next((c for c in ast.walk(root) if isinstance(c, ast.Call) and c.func is node), None)
            if outer is None or len(outer.args) + len(outer.keywords) != 1:
                return None
            given = outer.args[0] if outer.args else outer.keywords[0].value
            if outer.keywords and outer.keywords[0].arg != "dtype":
                return None
            dtype = _dtype_name(given, imports)
            return Chained(outer, dtype) if dtype is not None else None
    return Chained(None, None)


def _dtype_name(expr: ast.expr, imports) -> str | None:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return _DTYPES.get(expr.value)
    if isinstance(expr, ast.Name) and expr.id in ("float", "int") and expr.id not in imports.names:
        return _DTYPES[expr.id]
    qualname = imports.resolve(expr) or ""
    module, _, name = qualname.rpartition(".")
    if module in ("numpy", "tensorflow", "tensorflow.dtypes"):
        return _DTYPES.get(name)
    return None


def with_dtype(found: RandomCall, dtype: str, integer: bool, alias: str) -> str | None:
    """The replacement call drawing in `dtype`, or None when the draw's kind differs (a float
    draw cast to an integer rounds, an integer draw cast to a float is not uniform on floats)."""
    wanted_integer = dtype.startswith("int")
    if wanted_integer != integer:
        return None
    if integer:
        return found.text.replace(f"dtype={alias}.int32", f"dtype={alias}.{dtype}")
    return f"{found.text[:-1]}, dtype={alias}.{dtype})"


def integer_draw(qualname: str | None) -> bool:
    return bool(_SIGNATURES.get(qualname or "", ("", (), False))[2])
