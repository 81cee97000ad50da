from __future__ import annotations

import ast

from ...facts.names import dotted
from ...model import Applicability, Severity
from ...versions import VersionRange
from ._fixes import unfixed
from ...analysis.gradcalls import GradCall, gradient_calls, watch_position
from ...analysis.values import LAYER, LIST, MODEL, NUMPY_VALUES, TENSOR, TUPLE, VARIABLE, Value, is_integer_dtype, values_for
from ..base import Context, Proof, Rule, invalid, valid
from ..optimizer._optimizers import minimize_calls

WATCH_WARNING = "The dtype of the watched tensor must be floating"
NO_GRADIENTS = "No gradients provided for any variable"


class IntegerSource(Rule):
    """
    ## What it does
    Finds gradients asked with respect to a tensor or variable of an integer dtype
    (reported where the gradient is asked for a tensor, where it is created for a variable),
    by `tape.gradient` or by an optimizer's `minimize(loss, var_list)`:
    `tf.constant(3)`, `tf.Variable(0)`, `tf.range(5)`, `dtype=tf.int32`, a cast to an
    integer type, or an image decoded as `uint8` and never cast. Also an integer weight of a
    Keras layer or model (`self.add_weight(..., dtype="int32")`) left trainable: Keras lists it
    in `trainable_variables` and training asks for its gradient.

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
    cheap_without_triggers = True
    triggers = ("GradientTape", "minimize", "compute_gradients", "add_weight", "add_variable")
    fixable = True
    examples = (
        unfixed(invalid("""
            import tensorflow as tf

            params = [tf.Variable(1), tf.Variable(2)]
            with tf.GradientTape() as tape:
                loss = (params[0] * params[1] - 6) ** 2
            grads = tape.gradient(loss, params)
        """, 3, "a list of integer variables as the sources",
            proof=Proof(check="assert grads == [None, None]"))),
        unfixed(invalid("""
            import keras
            import numpy as np


            class Scale(keras.layers.Layer):
                def build(self, input_shape):
                    self.factor = self.add_weight(shape=(1,), initializer="ones", dtype="int32")

                def call(self, x):
                    return x * keras.ops.cast(self.factor, "float32")


            model = keras.Sequential([keras.Input((1,)), Scale()])
            model.compile(optimizer="sgd", loss="mse")
            model.fit(np.ones((4, 1), "float32"), np.ones((4, 1), "float32"), verbose=0)
        """, 7, "an integer weight of a Keras layer, trainable by default, trained by fit",
            proof=Proof(raises=("ValueError", NO_GRADIENTS)))),
        valid("""
            import keras
            import numpy as np


            class Scale(keras.layers.Layer):
                def build(self, input_shape):
                    self.kernel = self.add_weight(shape=(1,), initializer="ones")
                    self.calls = self.add_weight(shape=(), initializer="zeros", dtype="int32", trainable=False)

                def call(self, x):
                    self.calls.assign_add(1)
                    return x * self.kernel


            model = keras.Sequential([keras.Input((1,)), Scale()])
            model.compile(optimizer="sgd", loss="mse")
            history = model.fit(np.ones((4, 1), "float32"), np.ones((4, 1), "float32"), verbose=0)
        """, "an integer counter weight with trainable=False",
            proof=Proof(check="assert int(model.layers[0].calls.numpy()) > 0")),
        invalid("""
            import tensorflow as tf

            class Calibration(tf.Module):
                def __init__(self):
                    self.gain = tf.Variable(1.0)
                    self.offset = tf.Variable(0)

                def __call__(self, raw):
                    return self.gain * raw + tf.cast(self.offset, tf.float32)

            cal = Calibration()
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(cal(tf.ones(3)) ** 2)
            g_gain, g_offset = tape.gradient(loss, [cal.gain, cal.offset])
        """, 6, "an integer variable of a module, asked for through the instance",
            proof=Proof(check="assert g_gain is not None and g_offset is None"),
            fixed="""
            import tensorflow as tf

            class Calibration(tf.Module):
                def __init__(self):
                    self.gain = tf.Variable(1.0)
                    self.offset = tf.Variable(0.0)

                def __call__(self, raw):
                    return self.gain * raw + tf.cast(self.offset, tf.float32)

            cal = Calibration()
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(cal(tf.ones(3)) ** 2)
            g_gain, g_offset = tape.gradient(loss, [cal.gain, cal.offset])
        """, fixed_proof=Proof(check="assert g_gain is not None and g_offset is not None")),
        invalid("""
            import tensorflow as tf

            x = tf.constant(3)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = x * x
            g = tape.gradient(y, x)
        """, 7, "an integer literal, watched: TensorFlow logs a warning and returns None",
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
        """, 9, "a uint8 image, never cast before watching: no fix (casting a decoded image changes what "
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
        """, 7, "an explicit integer dtype: made float32 (unsafe: other uses may need the integers)",
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
        """, 9, "NumPy uint8 pixels converted as they are: converted to float32 instead (unsafe)",
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
        invalid("""
            import tensorflow as tf

            x = tf.Variable(3, name="x")
            opt = tf.compat.v1.train.GradientDescentOptimizer(learning_rate=0.1)
            for _ in range(5):
                opt.minimize(lambda: (x - 1) ** 2, var_list=[x])
        """, 3, "an integer variable minimised by a tf.compat.v1 optimizer",
            proof=Proof(raises=("ValueError", NO_GRADIENTS)),
            fixed="""
            import tensorflow as tf

            x = tf.Variable(3.0, name="x")
            opt = tf.compat.v1.train.GradientDescentOptimizer(learning_rate=0.1)
            for _ in range(5):
                opt.minimize(lambda: (x - 1) ** 2, var_list=[x])
        """, fixed_proof=Proof(check="assert float(x) < 3.0")),
        invalid("""
            import tensorflow as tf
            import tf_keras

            scale = tf.Variable(2.0)
            shift = tf.Variable(1)
            opt = tf_keras.optimizers.SGD(0.1)
            opt.minimize(lambda: (scale * 3.0 + tf.cast(shift, tf.float32) - 1.0) ** 2, [scale, shift])
        """, 5, "one integer variable among float ones: left untrained",
            proof=Proof(check="assert float(scale) != 2.0 and int(shift) == 1"),
            fixed="""
            import tensorflow as tf
            import tf_keras

            scale = tf.Variable(2.0)
            shift = tf.Variable(1.0)
            opt = tf_keras.optimizers.SGD(0.1)
            opt.minimize(lambda: (scale * 3.0 + tf.cast(shift, tf.float32) - 1.0) ** 2, [scale, shift])
        """, fixed_proof=Proof(check="assert float(scale) != 2.0 and float(shift) != 1.0")),
        valid("""
            import tensorflow as tf

            x = tf.Variable(3.0, name="x")
            opt = tf.compat.v1.train.GradientDescentOptimizer(learning_rate=0.1)
            for _ in range(5):
                opt.minimize(lambda: (x - 1) ** 2, var_list=[x])
        """, "a float variable minimised",
            proof=Proof(check="assert float(x) < 3.0")),
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
        values = values_for(ctx)
        reported: set[int] = set()
        for call in gradient_calls(ctx.facts):
            if call.sources is None or call.asks_zeros:
                continue
            elements = call.sources.elts if isinstance(call.sources, (ast.List, ast.Tuple)) else [call.sources]
            for element in elements:
                if not isinstance(element, (ast.Name, ast.Attribute)) or dotted(element) is None:
                    continue
                value = values.value(element, call.site.scope)
                if value.is_(LIST, TUPLE) and isinstance(element, ast.Name):
                    self._integer_list(ctx, call, element, value, values, reported)
                    continue
                if not value.is_(TENSOR, VARIABLE) or not is_integer_dtype(value.dtype):
                    continue
                source = _Source(value, values)
                # A variable is declared integer where it is created; a tensor gives None
                # where it is asked for, and the related location shows where it was made.
                where = source.made if source.made is not None and value.kind == VARIABLE else element
                if id(where) in reported:
                    continue
                reported.add(id(where))
                self._report(ctx, call, element, source, where)
        self._keras_weights(ctx, values, reported)
        for found in minimize_calls(ctx):
            if found.var_list is None or found.family == "keras3":
                continue  # Keras 3 optimizers have no minimize (OPT002)
            var_list = found.var_list
            elements = var_list.elts if isinstance(var_list, (ast.List, ast.Tuple)) else [var_list]
            integers = []
            for element in elements:
                if not isinstance(element, (ast.Name, ast.Attribute)) or dotted(element) is None:
                    integers = []
                    break
                value = values.value(element, found.site.scope)
                if value.is_(VARIABLE) and is_integer_dtype(value.dtype):
                    integers.append((element, _Source(value, values)))
                elif not value.is_(VARIABLE):
                    integers = []
                    break  # not a list of variables the value model knows
            every = len(integers) == len(elements)
            for element, source in integers:
                where = source.made if source.made is not None else element
                if id(where) in reported:
                    continue
                reported.add(id(where))
                self._report_minimize(ctx, found, element, source, where, every)

    def _integer_list(self, ctx: Context, call: GradCall, element: ast.Name, value: Value, values,
                      reported: set[int]) -> None:
        """`params = [tf.Variable(1), tf.Variable(2)]`, then `tape.gradient(loss, params)`: a list
        written out in the file whose every element is an integer variable or tensor."""
        made = value.origin
        if not value.certain or value.remote is not None or not isinstance(made, (ast.List, ast.Tuple)) \
                or not made.elts or id(made) in reported:
            return
        scope = values.scope_at(made)
        items = [values.value(item, scope) for item in made.elts]
        if not all(item.certain and item.is_(TENSOR, VARIABLE) and is_integer_dtype(item.dtype) for item in items):
            return
        reported.add(id(made))
        kinds = {("tf.Variable" if item.kind == VARIABLE else "tensor") for item in items}
        what = "integer tf.Variables" if kinds == {"tf.Variable"} else "integer tensors"
        dtypes = ", ".join(sorted({str(item.dtype) for item in items}))
        ctx.report(
            made,
            f"`{element.id}` holds {what} ({dtypes}); gradients exist only for floating dtypes: "
            f"`{call.label()}` on {ctx.where(call.node)} returns None for every one of them. Use float "
            "literals (`tf.Variable(1.0)`) or `dtype=tf.float32`.",
            related=[ctx.related(call.node, "the gradient call that gets None"),
                     ctx.related(element, f"`{element.id}` used as the gradient sources")],
        )

    def _keras_weights(self, ctx: Context, values, reported: set[int]) -> None:
        """`self.add_weight(..., dtype="int32")` in a Keras layer or model, trainable (the
        default): Keras lists it among the trainable variables, and training asks a gradient
        for it that never exists."""
        facts = ctx.facts
        for site in facts.calls:
            if site.method not in ("add_weight", "add_variable") or site.receiver != "self":
                continue
            cls = site.scope.enclosing_class
            if cls is None or values.class_kind(cls) not in (LAYER, MODEL):
                continue
            trainable = next((k.value for k in site.node.keywords if k.arg == "trainable"), None)
            if trainable is not None and not (isinstance(trainable, ast.Constant) and trainable.value is True):
                continue  # trainable=False (a counter, a step), or decided at run time
            value = values.value(site.node, site.scope)
            if not value.is_(VARIABLE) or not value.certain or not is_integer_dtype(value.dtype) \
                    or id(site.node) in reported:
                continue
            reported.add(id(site.node))
            ctx.report(
                site.node,
                f"This weight is {value.dtype} and trainable (the default), so Keras lists it in "
                "`trainable_variables`, but gradients exist only for floating dtypes: training (`fit`, or a tape "
                "asked for `trainable_variables`) gets None for it; the optimizer raises ValueError "
                f"\"{NO_GRADIENTS}\" when it is the only weight and warns \"Gradients do not exist for variables\" "
                "otherwise. Pass `trainable=False` for a counter or index, or use a float dtype for a parameter.",
            )

    def _report_minimize(self, ctx: Context, found, element: ast.expr, source: "_Source", where: ast.AST,
                         every: bool) -> None:
        dtype = source.value.dtype
        name = dotted(element) or ast.unparse(element)
        site = found.site
        if every:
            effect = (f"`minimize` on {ctx.where(site.node)} gets no gradient for any variable and raises "
                      f"ValueError \"{NO_GRADIENTS}\"")
        else:
            effect = (f"`minimize` on {ctx.where(site.node)} gets no gradient for it and leaves it untrained "
                      "(Keras 2 optimizers log \"Gradients do not exist for variables\")")
        literal = _int_literal_in(source.made)
        fix = (f"Use a float literal (`{literal}.0`)" if literal is not None and not source.explicit
               else "Use a float dtype such as tf.float32")
        made = f", made in {source.value.remote}" if source.value.remote else ""
        related = [ctx.related(site.node, "the minimize call that differentiates it")]
        if where is not element:
            related.append(ctx.related(element, f"`{name}` in the variables minimize updates"))
        ctx.report(
            where,
            f"`{name}` is an integer tf.Variable ({dtype}{made}); gradients exist only for floating dtypes: "
            f"{effect}. {fix}.",
            related=related,
            # Unsafe: the variable's dtype changes where the code lists it (var_list), which the
            # fix check cannot see through.
            fix=_float_offer(ctx, source, Applicability.UNSAFE) if source.value.remote is None else None,
        )

    def _report(self, ctx: Context, call: GradCall, element: ast.expr, source: "_Source", where: ast.AST) -> None:
        dtype = source.value.dtype
        what = "tf.Variable" if source.value.kind == VARIABLE else "tensor"
        name = dotted(element) or ast.unparse(element)
        watched = watch_position(ctx.facts, call, name)
        made = f", made in {source.value.remote}" if source.value.remote else ""
        if watched:
            effect = (f"TensorFlow logs \"{WATCH_WARNING} (e.g. tf.float32), got tf.{dtype}\" at the watch and "
                      f"`{call.label()}` on {ctx.where(call.node)} returns None for it")
        else:
            effect = (f"the tape never records it, so `{call.label()}` on {ctx.where(call.node)} returns None "
                      "for it")
        literal = _int_literal_in(source.made)
        explicit = source.explicit
        fix = (f"Use a float literal (`{literal}.0`)" if literal is not None and not explicit
               else "Use a float dtype such as tf.float32")
        if dtype == "uint8":
            fix = "Cast it first, e.g. `tf.cast(image, tf.float32)`, and watch the float tensor"
        related = [ctx.related(call.node, "the gradient call that gets None")]
        if where is not element:
            related.append(ctx.related(element, f"`{name}` used as a gradient source"))
        elif source.made is not None:
            related.append(ctx.related(source.made, f"`{name}` is made {dtype} here"))
        ctx.report(
            where,
            f"`{name}` is an integer {what} ({dtype}{made}); gradients exist only for floating "
            f"dtypes: {effect}. {fix}.",
            related=related,
            fix=_float_offer(ctx, source) if source.value.remote is None else None,
        )


class _Source:
    """An integer gradient source: its value, the call that made it in this file, and the
    `dtype=` argument that made it integer (when written out)."""

    def __init__(self, value: Value, values) -> None:
        self.value = value
        origin = value.origin if value.remote is None else None
        self.made: ast.Call | None = origin if isinstance(origin, ast.Call) else None
        self.dtype_arg: ast.expr | None = None
        self.numpy = False
        call = self.made
        if call is not None:
            self.dtype_arg = next((k.value for k in call.keywords if k.arg == "dtype"), None)
            qualname = values.facts.imports.resolve(call.func)
            if self.dtype_arg is None and qualname == "tensorflow.constant" and len(call.args) > 1:
                self.dtype_arg = call.args[1]
            if qualname in ("tensorflow.constant", "tensorflow.convert_to_tensor") and call.args:
                self.numpy = values.value(call.args[0]).kind in NUMPY_VALUES

    @property
    def explicit(self) -> bool:
        detail = self.dtype_arg
        return isinstance(detail, ast.Attribute) or (isinstance(detail, ast.Constant) and isinstance(detail.value, str))


_LITERAL_MAKERS = {"tensorflow.constant": "value", "tensorflow.Variable": "initial_value",
                   "tensorflow.convert_to_tensor": "value"}
_DTYPE_MAKERS = frozenset({"tensorflow.constant", "tensorflow.Variable", "tensorflow.convert_to_tensor",
                           "tensorflow.zeros", "tensorflow.ones", "tensorflow.range"})


def _float_offer(ctx: Context, source: _Source, literal_fix: Applicability = Applicability.SAFE):
    """Integer literals made float (safe unless `literal_fix` says otherwise), an integer dtype
    made float32 (unsafe), or `dtype=tf.float32` added to a conversion of integer NumPy data
    (unsafe)."""
    if not ctx.fixes:
        return None  # the offer is worked out only when fixes are wanted
    call = source.made
    if call is None:
        return None
    qualname = ctx.facts.imports.resolve(call.func)
    text = ctx.facts.source.text
    if source.explicit:
        dtype = source.dtype_arg
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

            return float_literals_fix(text, literals, "Use float literals", literal_fix)
        return build_literals
    if not source.numpy or not isinstance(call.func, ast.Attribute) or \
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


def _int_literal_in(node: ast.AST | None) -> int | None:
    if not isinstance(node, ast.Call) or not node.args:
        return None
    for inner in ast.walk(node.args[0]):
        if isinstance(inner, ast.Constant) and isinstance(inner.value, int) and not isinstance(inner.value, bool):
            return inner.value
    return None
