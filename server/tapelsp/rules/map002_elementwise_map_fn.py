from __future__ import annotations

import ast

from ..facts.model import Facts
from ..facts.names import ImportTable
from ..model import Severity
from .base import Context, Proof, Rule, invalid, valid

# Functions that act on each element independently (the same op on a whole tensor
# gives the per-element results), under tensorflow., tensorflow.math., tensorflow.nn.
# or keras.activations.
_ELEMENTWISE = frozenset("""
    abs absolute acos acosh add asin asinh atan atan2 atanh cast ceil clip_by_value cos cosh
    digamma divide divide_no_nan elu erf erfc exp expm1 floor floordiv floormod gelu identity
    is_finite is_inf is_nan lgamma leaky_relu log log1p log_sigmoid logical_and logical_not
    logical_or maximum minimum mod multiply negative pow reciprocal relu relu6 rint round rsqrt
    selu sigmoid sign silu sin sinh softplus softsign sqrt square squared_difference subtract
    swish tan tanh truediv where hard_sigmoid exponential linear
""".split())
_NAMESPACES = ("tensorflow.", "tensorflow.math.", "tensorflow.nn.", "keras.activations.", "keras.ops.")
_MATMUL = ("tensorflow.matmul", "tensorflow.linalg.matmul")
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


class ElementwiseMapFn(Rule):
    """
    ## What it does
    Finds `tf.map_fn(fn, elems)` where `fn` is elementwise or broadcastable: plain
    arithmetic and TensorFlow elementwise ops on its argument, or a row times a fixed
    matrix.

    ## Why is this bad?
    `tf.map_fn` runs `fn` once per element in a `while_loop`: one small op per element
    instead of one large op for the whole tensor. The result is the same, and the
    vectorized op is commonly 100x faster or more (on 20,000 floats here, 7.4 s against
    1 ms eagerly). Under TensorFlow 1 graph mode a GradientTape over `map_fn` also
    returned `None` gradients.

    ## Example
    ```python
    y = tf.map_fn(lambda a: a ** 2, x)
    h = tf.map_fn(lambda r: tf.nn.relu(r @ W + b), rows)
    ```

    ## Use instead
    ```python
    y = x ** 2
    h = tf.nn.relu(rows @ W + b)
    ```
    When the function is not elementwise but has no data-dependent control flow,
    `tf.vectorized_map(fn, elems)` is the honest replacement.
    """

    code = "MAP002"
    name = "elementwise-map-fn"
    summary = "tf.map_fn over an elementwise function instead of the vectorized op"
    severity = Severity.WARNING
    triggers = ("map_fn",)
    examples = (
        invalid("""
            import tensorflow as tf

            x = tf.constant([1.0, 2.0, 3.0])
            y = tf.map_fn(lambda a: a ** 2, x)
        """, 4, "the seed report's map_fn",
            proof=Proof(check="""
                import numpy as np
                assert np.allclose(y.numpy(), (x ** 2).numpy())
                graph = tf.function(lambda t: tf.map_fn(lambda a: a ** 2, t)).get_concrete_function(x).graph
                assert "While" in {op.type for op in graph.get_operations()}, "map_fn should loop per element"
            """)),
        invalid("""
            import tensorflow as tf

            W = tf.ones([3, 2])
            b = tf.zeros([2])
            rows = tf.ones([4, 1, 3])
            h = tf.map_fn(lambda r: tf.nn.relu(r @ W + b), rows)
        """, 6, "a row times a fixed matrix",
            proof=Proof(check="""
                import numpy as np
                assert np.allclose(h.numpy(), tf.nn.relu(rows @ W + b).numpy())
            """)),
        invalid("""
            import tensorflow as tf

            def activate(v):
                return tf.sigmoid(2.0 * v) - 0.5

            x = tf.linspace(-1.0, 1.0, 5)
            y = tf.map_fn(activate, x)
        """, 7, "a named function that is elementwise",
            proof=Proof(check="""
                import numpy as np
                assert np.allclose(y.numpy(), activate(x).numpy())
            """)),
        valid("""
            import tensorflow as tf

            sentences = tf.constant(["a b a", "c c d e"])
            counts = tf.map_fn(lambda s: tf.size(tf.unique(tf.strings.split(s)).y), sentences,
                               fn_output_signature=tf.int32)
        """, "variable-length work per element cannot be vectorized",
            proof=Proof(check="assert counts.numpy().tolist() == [2, 3]")),
        valid("""
            import tensorflow as tf

            x = tf.constant([[3.0, 1.0, 2.0], [1.0, 5.0, 9.0]])
            firsts = tf.map_fn(lambda r: tf.reduce_sum(r[: tf.cast(r[1], tf.int32)]), x)
        """, "data-dependent slicing per row",
            proof=Proof(check="assert firsts.numpy().tolist() == [3.0, 15.0]")),
        valid("""
            import tensorflow as tf

            x = tf.constant([1.0, 2.0, 3.0])
            y = x ** 2
        """, "already vectorized"),
    )

    def check(self, ctx: Context) -> None:
        for site in ctx.facts.calls_to("tensorflow.map_fn"):
            call = site.node
            fn = call.args[0] if call.args else _keyword(call, "fn")
            elems = call.args[1] if len(call.args) > 1 else _keyword(call, "elems")
            if fn is None or elems is None or _ragged(call):
                continue
            resolved = _function_expr(fn, ctx.facts)
            if resolved is None:
                continue
            param, body = resolved
            if not _elementwise(body, param, ctx.facts.imports) or not _mentions(body, param):
                continue
            if isinstance(fn, ast.Name):
                suggestion = f"{fn.id}({ast.unparse(elems)})"
            else:
                suggestion = _suggest(body, param, elems)
            ctx.report(
                call,
                "tf.map_fn runs this elementwise function once per element in a while_loop; "
                "applying it to the whole tensor gives the same result in one vectorized op, "
                f"typically 100x faster. Use `{suggestion}` instead.",
            )


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _ragged(call: ast.Call) -> bool:
    for keyword in call.keywords:
        if keyword.arg in ("fn_output_signature", "dtype") and "Ragged" in ast.dump(keyword.value):
            return True
    return False


def _function_expr(fn: ast.expr, facts: Facts) -> tuple[str, ast.expr] | None:
    """The single parameter and the returned expression of a lambda or a one-line def."""
    if isinstance(fn, ast.Lambda):
        return _single_param(fn.args), fn.body if _single_param(fn.args) else None  # type: ignore[return-value]
    if isinstance(fn, ast.Name):
        for node in facts.function_scopes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == fn.id \
                    and not node.decorator_list:
                param = _single_param(node.args)
                body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
                if param and len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
                    return param, body[0].value
                return None
    return None


def _single_param(args: ast.arguments) -> str | None:
    if len(args.args) + len(args.posonlyargs) != 1 or args.vararg or args.kwarg or args.kwonlyargs:
        return None
    return (args.posonlyargs or args.args)[0].arg


def _mentions(expr: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(expr))


def _elementwise(expr: ast.expr, param: str, imports: ImportTable) -> bool:
    if isinstance(expr, ast.Name):
        return True
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, (int, float))
    if isinstance(expr, ast.UnaryOp):
        return isinstance(expr.op, (ast.USub, ast.UAdd, ast.Invert)) and _elementwise(expr.operand, param, imports)
    if isinstance(expr, ast.BinOp):
        if isinstance(expr.op, ast.MatMult):
            return _row_times_fixed(expr.left, expr.right, param, imports)
        return isinstance(expr.op, _ARITHMETIC) and _elementwise(expr.left, param, imports) \
            and _elementwise(expr.right, param, imports)
    if isinstance(expr, ast.Compare):
        return all(_elementwise(e, param, imports) for e in (expr.left, *expr.comparators)) \
            and all(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in expr.ops)
    if isinstance(expr, ast.Call):
        qualname = imports.resolve(expr.func)
        if qualname is None:
            return False
        if qualname in _MATMUL and len(expr.args) == 2 and not expr.keywords:
            return _row_times_fixed(expr.args[0], expr.args[1], param, imports)
        if not any(qualname.startswith(ns) and qualname[len(ns):] in _ELEMENTWISE for ns in _NAMESPACES):
            return False
        if any(k.arg not in ("name", "dtype", "alpha", "approximate") for k in expr.keywords):
            return False
        return all(_elementwise(a, param, imports) for a in expr.args) \
            and all(_elementwise(k.value, param, imports) or isinstance(k.value, ast.Constant) for k in expr.keywords)
    return False


def _row_times_fixed(left: ast.expr, right: ast.expr, param: str, imports: ImportTable) -> bool:
    return _elementwise(left, param, imports) and _mentions(left, param) and not _mentions(right, param) \
        and isinstance(right, (ast.Name, ast.Attribute))


def _suggest(body: ast.expr, param: str, elems: ast.expr) -> str:
    class Substitute(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return elems if node.id == param else node

    if isinstance(body, ast.Name) and body.id == param:
        return ast.unparse(elems)
    replaced = Substitute().visit(ast.parse(ast.unparse(body), mode="eval").body)
    return ast.unparse(replaced)
