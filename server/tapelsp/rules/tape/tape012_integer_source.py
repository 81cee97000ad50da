from __future__ import annotations

import ast

from ...model import Applicability, Severity
from ...versions import VersionRange
from ._fixes import unfixed
from ...analysis.gradcalls import GradCall, gradient_calls, watch_position
from ...analysis.sources import INT_DTYPES, Kind, lookup_for, source_kind
from ..base import Context, Proof, Rule, invalid, valid

WATCH_WARNING = "The dtype of the watched tensor must be floating"


class IntegerSource(Rule):
    """
    ## What it does
    Finds gradients asked with respect to a tensor or variable of an integer dtype:
    `tf.constant(3)`, `tf.Variable(0)`, `tf.range(5)`, `dtype=tf.int32`, a cast to an
    integer type, or an image decoded as `uint8` and never cast.

    ## Why is this bad?
    Gradients exist only for floating-point (and complex) tensors. A tape never records
    operations on integer sources, so `tape.gradient` silently returns `None`. Watching
    one explicitly does not help: TensorFlow 2.21 only logs
    "The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.int32"
    and still returns `None`.

    ## Example
    ```python
    x = tf.constant(3)  # int32
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)  # None
    ```

    ## Use instead
    ```python
    x = tf.constant(3.0)  # or tf.cast(image, tf.float32) before watching
    ```
    """

    code = "TAPE012"
    name = "integer-gradient-source"
    summary = "The gradient source has an integer dtype"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    triggers = ("GradientTape",)
    fixable = True
    examples = (
        invalid("""
            import tensorflow as tf

            x = tf.constant(3)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = x * x
            g = tape.gradient(y, x)
        """, 3, "an integer literal, watched: TensorFlow logs a warning and returns None",
            proof=Proof(check="""
                assert g is None
                assert any("The dtype of the watched tensor must be floating" in line for line in __tapelsp_logs__)
            """),
            fixed="""
            import tensorflow as tf

            x = tf.constant(3.0)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = x * x
            g = tape.gradient(y, x)
        """, fixed_proof=Proof(check="assert float(g) == 6.0")),
        invalid("""
            import tensorflow as tf

            offset = tf.Variable(0)
            with tf.GradientTape() as tape:
                y = tf.cast(offset * 2, tf.float32)
            g = tape.gradient(y, offset)
        """, 3, "an integer variable is never watched",
            proof=Proof(check="assert g is None"),
            fixed="""
            import tensorflow as tf

            offset = tf.Variable(0.0)
            with tf.GradientTape() as tape:
                y = tf.cast(offset * 2, tf.float32)
            g = tape.gradient(y, offset)
        """, fixed_proof=Proof(check="assert float(g) == 2.0")),
        unfixed(invalid("""
            import tensorflow as tf

            png = tf.io.encode_png(tf.fill([4, 4, 1], tf.constant(200, tf.uint8)))
            image = tf.io.decode_png(png)
            w = tf.Variable(0.5)
            with tf.GradientTape() as tape:
                tape.watch(image)
                score = tf.reduce_sum(tf.cast(image, tf.float32) * w)
            saliency = tape.gradient(score, image)
        """, 4, "a uint8 image, never cast before watching: no fix (casting a decoded image changes what "
                "every later use gets)",
            proof=Proof(check="""
                assert saliency is None
                assert any("got tf.uint8" in line for line in __tapelsp_logs__)
            """))),
        invalid("""
            import tensorflow as tf

            counts = tf.constant([1, 2, 3], dtype=tf.int64)
            with tf.GradientTape() as tape:
                tape.watch(counts)
                total = tf.reduce_sum(tf.cast(counts, tf.float32) ** 2)
            g = tape.gradient(total, counts)
        """, 3, "an explicit integer dtype: made float32 (unsafe: other uses may need the integers)",
            proof=Proof(check="assert g is None"),
            fixed="""
            import tensorflow as tf

            counts = tf.constant([1, 2, 3], dtype=tf.float32)
            with tf.GradientTape() as tape:
                tape.watch(counts)
                total = tf.reduce_sum(tf.cast(counts, tf.float32) ** 2)
            g = tape.gradient(total, counts)
        """, fixed_proof=Proof(check="assert g.numpy().tolist() == [2.0, 4.0, 6.0]")),
        invalid("""
            import numpy as np
            import tensorflow as tf

            pixels = np.full((2, 2), 200, dtype=np.uint8)
            image = tf.convert_to_tensor(pixels)
            with tf.GradientTape() as tape:
                tape.watch(image)
                score = tf.reduce_sum(tf.cast(image, tf.float32) ** 2)
            g = tape.gradient(score, image)
        """, 5, "NumPy uint8 pixels converted as they are: converted to float32 instead (unsafe)",
            proof=Proof(check="assert g is None"),
            fixed="""
            import numpy as np
            import tensorflow as tf

            pixels = np.full((2, 2), 200, dtype=np.uint8)
            image = tf.convert_to_tensor(pixels, dtype=tf.float32)
            with tf.GradientTape() as tape:
                tape.watch(image)
                score = tf.reduce_sum(tf.cast(image, tf.float32) ** 2)
            g = tape.gradient(score, image)
        """, fixed_proof=Proof(check="assert g.numpy().tolist() == [[400.0, 400.0], [400.0, 400.0]]")),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(
                [[1, -2], [3, 0x10]],  # initial weights
                name="w",
            )
            with tf.GradientTape() as tape:
                y = tf.reduce_sum(tf.cast(w, tf.float32) ** 2)
            g = tape.gradient(y, w)
        """, 3, "integer literals in a nested list become float literals; the rest of the call is kept",
            proof=Proof(check="assert g is None"),
            fixed="""
            import tensorflow as tf

            w = tf.Variable(
                [[1.0, -2.0], [3.0, 16.0]],  # initial weights
                name="w",
            )
            with tf.GradientTape() as tape:
                y = tf.reduce_sum(tf.cast(w, tf.float32) ** 2)
            g = tape.gradient(y, w)
        """, fixed_proof=Proof(check="assert g.numpy().tolist() == [[2.0, -4.0], [6.0, 32.0]]")),
        valid("""
            import tensorflow as tf

            x = tf.constant(3.0)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = x * x
            g = tape.gradient(y, x)
        """, "a float literal",
            proof=Proof(check="assert float(g) == 6.0")),
        valid("""
            import tensorflow as tf

            png = tf.io.encode_png(tf.fill([4, 4, 1], tf.constant(200, tf.uint8)))
            image = tf.cast(tf.io.decode_png(png), tf.float32) / 255.0
            with tf.GradientTape() as tape:
                tape.watch(image)
                score = tf.reduce_sum(image * image)
            saliency = tape.gradient(score, image)
        """, "the image cast to float before watching",
            proof=Proof(check="assert saliency is not None")),
        valid("""
            import tensorflow as tf

            steps = tf.range(4, dtype=tf.float32)
            with tf.GradientTape() as tape:
                tape.watch(steps)
                y = tf.reduce_sum(steps ** 2)
            g = tape.gradient(y, steps)
        """, "tf.range with a float dtype",
            proof=Proof(check="assert g.numpy().tolist() == [0.0, 2.0, 4.0, 6.0]")),
    )

    def check(self, ctx: Context) -> None:
        reported: set[int] = set()
        for call in gradient_calls(ctx.facts):
            if call.sources is None or call.asks_zeros:
                continue
            lookup = lookup_for(ctx.facts, call.flow, ctx.project, ctx.path)
            elements = call.sources.elts if isinstance(call.sources, (ast.List, ast.Tuple)) else [call.sources]
            for element in elements:
                if not isinstance(element, ast.Name):
                    continue
                kind = source_kind(lookup, element, call.node)
                if kind is None or not kind.integer or kind.kind not in ("constant", "variable"):
                    continue
                where = kind.node if kind.remote is None and kind.node is not None else element
                if id(where) in reported:
                    continue
                reported.add(id(where))
                self._report(ctx, call, element, kind, where)

    def _report(self, ctx: Context, call: GradCall, element: ast.Name, kind: Kind, where: ast.AST) -> None:
        dtype = _dtype_name(kind)
        what = "tf.Variable" if kind.kind == "variable" else "tensor"
        watched = watch_position(ctx.facts, call, element.id)
        made = f", made in {kind.remote}" if kind.remote else ""
        if watched:
            effect = (f"TensorFlow logs \"{WATCH_WARNING} (e.g. tf.float32), got tf.{dtype}\" at the watch and "
                      f"`{call.label()}` on {ctx.where(call.node)} returns None for it")
        else:
            effect = (f"the tape never records it, so `{call.label()}` on {ctx.where(call.node)} returns None "
                      "for it")
        literal = _int_literal_in(kind.node)
        explicit = isinstance(kind.detail, ast.Attribute) or (
            isinstance(kind.detail, ast.Constant) and isinstance(kind.detail.value, str))
        fix = (f"Use a float literal (`{literal}.0`)" if literal is not None and not explicit
               else "Use a float dtype such as tf.float32")
        if dtype == "uint8":
            fix = "Cast it first, e.g. `tf.cast(image, tf.float32)`, and watch the float tensor"
        related = [ctx.related(call.node, "the gradient call that gets None")]
        if where is not element:
            related.append(ctx.related(element, f"`{element.id}` used as a gradient source"))
        ctx.report(
            where,
            f"`{element.id}` is an integer {what} ({dtype}{made}); gradients exist only for floating "
            f"dtypes: {effect}. {fix}.",
            related=related,
            fix=_float_offer(ctx, kind, explicit) if kind.remote is None else None,
        )


_LITERAL_MAKERS = {"tensorflow.constant": "value", "tensorflow.Variable": "initial_value",
                   "tensorflow.convert_to_tensor": "value"}
_DTYPE_MAKERS = frozenset({"tensorflow.constant", "tensorflow.Variable", "tensorflow.convert_to_tensor",
                           "tensorflow.zeros", "tensorflow.ones", "tensorflow.range"})


def _float_offer(ctx: Context, kind: Kind, explicit: bool):
    """Integer literals made float (safe), an integer dtype made float32 (unsafe), or
    `dtype=tf.float32` added to a conversion of integer NumPy data (unsafe)."""
    if not ctx.fixes:
        return None  # the offer is worked out only when fixes are wanted
    call = kind.node
    if not isinstance(call, ast.Call):
        return None
    qualname = ctx.facts.imports.resolve(call.func)
    text = ctx.facts.source.text
    if explicit:
        dtype = kind.detail
        if qualname not in _DTYPE_MAKERS or dtype is None:
            return None

        def build_dtype():
            from ...fixes.dtype import float_dtype_fix

            return float_dtype_fix(text, dtype, "Use the float32 dtype", Applicability.UNSAFE)  # type: ignore[arg-type]
        return build_dtype
    if qualname not in _LITERAL_MAKERS:
        return None
    value = call.args[0] if call.args else next(
        (k.value for k in call.keywords if k.arg == _LITERAL_MAKERS[qualname]), None)
    if value is None or any(k.arg == "dtype" for k in call.keywords) or len(call.args) > 1:
        return None
    literals = _int_literals(value)
    if literals:
        def build_literals():
            from ...fixes.dtype import float_literals_fix

            return float_literals_fix(text, literals, "Use float literals", Applicability.SAFE)
        return build_literals
    if kind.dtype is None or not isinstance(call.func, ast.Attribute) or \
            ctx.facts.imports.resolve(call.func.value) != "tensorflow":
        return None
    float32 = f"{ast.unparse(call.func.value)}.float32"

    def build_keyword():
        from ...fixes.dtype import dtype_keyword_fix

        return dtype_keyword_fix(text, call, float32, f"Convert to float32: add `dtype={float32}`",  # type: ignore[arg-type]
                                 Applicability.UNSAFE)
    return build_keyword


def _int_literals(value: ast.expr) -> list[ast.Constant] | None:
    """The integer literals of literal data (numbers, nested lists/tuples of them), or None
    when `value` is not literal data."""
    found: list[ast.Constant] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            if isinstance(node.value, int):
                found.append(node)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            stack.append(node.operand)
        elif isinstance(node, (ast.List, ast.Tuple)):
            stack.extend(node.elts)
        else:
            return None
    return found or None


def _dtype_name(kind: Kind) -> str:
    if kind.dtype in INT_DTYPES:
        return kind.dtype
    detail = kind.detail
    if isinstance(detail, ast.Constant) and isinstance(detail.value, str) and detail.value in INT_DTYPES:
        return detail.value
    if isinstance(detail, ast.Attribute) and detail.attr in INT_DTYPES:
        return detail.attr
    node = kind.node
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else ""
        if name.startswith("decode_"):
            return "uint8"
    return "int32"


def _int_literal_in(node: ast.AST | None) -> int | None:
    if not isinstance(node, ast.Call) or not node.args:
        return None
    for inner in ast.walk(node.args[0]):
        if isinstance(inner, ast.Constant) and isinstance(inner.value, int) and not isinstance(inner.value, bool):
            return inner.value
    return None
