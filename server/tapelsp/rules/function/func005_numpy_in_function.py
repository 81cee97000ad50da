from __future__ import annotations

import ast

from ...facts.model import CallSite, Scope
from ...model import Applicability, Severity
from ...versions import Version, VersionRange
from ...analysis.guards import eager_context, runs_functions_eagerly
from ...analysis import library
from ...analysis.keras_graph import KerasTrace, keras_trace_of, keras_traces
from ...analysis.traced import Trace, function_name, trace_of
from ...analysis.traced_bodies import stepped_directly_only
from ...analysis.values import DATASET, DICT, METHOD, TENSOR, TUPLE, VARIABLE, Value, ValueModel, values_for
from ...facts.dataflow import flow_of
from ..tape._fixes import unfixed
from ._fixes import tensor_context, tf_alias
from ..base import Context, Proof, Rule, invalid, valid

# TensorFlow 2.14 split tf.Tensor into EagerTensor and SymbolicTensor; before, the class in
# the message was `Tensor`, and the other two messages were worded slightly differently.
_SYMBOLIC_TENSOR_SINCE = Version.parse("2.14")
_VARIABLE_NUMPY = "NotImplementedError \"numpy() is only available when eager execution is enabled.\""
# How the `.numpy()` message ends for a tf.function, and for a loss or metric Keras traces.
_OUTSIDE = " and call `.numpy()` on the returned result outside the tf.function (use `tf.print` to log)"
_KERAS_EAGER = (" (`compile(..., run_eagerly=True)` runs the loss and metrics eagerly, with `.numpy()`, "
                "at the cost of speed)")

# NumPy functions that look at a tensor without converting it (they answer in the trace).
_NUMPY_SAFE = frozenset({"shape", "ndim", "isscalar", "iterable", "result_type", "dtype"})
_TF_EQUIVALENT = {
    "mean": "tf.reduce_mean", "sum": "tf.reduce_sum", "max": "tf.reduce_max", "amax": "tf.reduce_max",
    "min": "tf.reduce_min", "amin": "tf.reduce_min", "prod": "tf.reduce_prod", "std": "tf.math.reduce_std",
    "var": "tf.math.reduce_variance", "argmax": "tf.argmax", "argmin": "tf.argmin", "square": "tf.square",
    "sqrt": "tf.sqrt", "exp": "tf.exp", "log": "tf.math.log", "abs": "tf.abs", "where": "tf.where",
    "clip": "tf.clip_by_value", "concatenate": "tf.concat", "stack": "tf.stack", "reshape": "tf.reshape",
    "transpose": "tf.transpose", "maximum": "tf.maximum", "minimum": "tf.minimum", "matmul": "tf.matmul",
    "dot": "tf.tensordot", "cumsum": "tf.cumsum", "sign": "tf.sign", "tanh": "tf.tanh",
    "zeros_like": "tf.zeros_like", "ones_like": "tf.ones_like", "isnan": "tf.math.is_nan",
    "round": "tf.round", "floor": "tf.floor", "ceil": "tf.math.ceil", "expand_dims": "tf.expand_dims",
    "squeeze": "tf.squeeze", "float32": "tf.cast(..., tf.float32)", "float64": "tf.cast(..., tf.float64)",
    "int32": "tf.cast(..., tf.int32)", "int64": "tf.cast(..., tf.int64)",
    "asarray": "the tensor itself (or tf.convert_to_tensor)", "array": "the tensor itself (or tf.convert_to_tensor)",
    "power": "tf.pow", "log1p": "tf.math.log1p", "all": "tf.reduce_all", "any": "tf.reduce_any",
    "equal": "tf.equal", "logical_and": "tf.logical_and", "logical_or": "tf.logical_or",
    "sort": "tf.sort", "argsort": "tf.argsort", "unique": "tf.unique", "tile": "tf.tile",
    "astype": "tf.cast", "flatten": "tf.reshape(x, [-1])", "copy": "tf.identity",
}


_NUMPY_METHOD_CALLS = tuple(f".{row.name.split('.', 1)[1]}(" for row in library.rows()
                            if row.name.startswith("@tensor.") and row.has("numpy_only") and not row.attribute)


class NumpyInFunction(Rule):
    """
    ## What it does
    Finds eager-only calls on symbolic tensors inside a `tf.function` body (or a helper its
    trace calls, a Keras `train_step`, a function `Dataset.map` traces, a loss or metric given
    to `model.compile` when `model.fit` or `evaluate` traces it): `.numpy()`, NumPy's
    array methods (`.astype`, `.reshape`, `.mean`...; unless the file enables NumPy behavior),
    NumPy functions applied to a tensor (`np.max(q, axis=1)`), and `tf.constant(t)` of a
    tensor. A value counts as a tensor when it comes from a TensorFlow op, a Keras model or
    layer call, arithmetic or indexing on one, a `tf.Variable`, or a parameter that the
    `input_signature` or every caller in the file makes a tensor. A Keras `train_step` (or
    `test_step`, `predict_step`) is traced only when `fit` and the like run it: one the file
    calls directly (`model.train_step(batch)`) and never through them runs eagerly, and is
    left alone.

    ## Why is this bad?
    While TensorFlow traces the body, tensors are symbolic: they have a shape and a dtype
    but no value yet. So the trace fails:
    `AttributeError: 'SymbolicTensor' object has no attribute 'numpy'`,
    `NotImplementedError: Cannot convert a symbolic tf.Tensor (...) to a numpy array`, or
    `TypeError: Expected any non-tensor type, but got a tensor instead.` for `tf.constant`.
    On a variable: `numpy() is only available when eager execution is enabled.`
    `float()`, `int()` and `len()` of tensors are fine (AutoGraph converts them), and so is
    NumPy on Python values, shapes (`np.prod(x.shape)`) and tensors captured from outside.

    ## Example
    ```python
    @tf.function
    def train_step(states, rewards):
        best = np.max(target_model(states), axis=1)
        return rewards + 0.99 * best
    ```

    ## Use instead
    ```python
    @tf.function
    def train_step(states, rewards):
        best = tf.reduce_max(target_model(states), axis=1)
        return rewards + 0.99 * best
    ```
    Return tensors from the tf.function and call `.numpy()` on the result outside it;
    `tf.convert_to_tensor(t)` instead of `tf.constant(t)`; `tf.print` for logging.
    """

    code = "FUNC005"
    name = "eager-call-on-symbolic-tensor"
    summary = "`.numpy()`, NumPy or `tf.constant` applied to a symbolic tensor inside a tf.function"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    # `.astype(`, `.reshape(`... : the NumPy array methods a tf.Tensor does not have (the table's numpy_only).
    cheap_without_triggers = True
    triggers = ("numpy", "np.", "constant", *_NUMPY_METHOD_CALLS)
    fixable = True
    examples = (
        unfixed(invalid("""
            import keras
            import numpy as np
            import tensorflow as tf


            def top_overlap(y_true, y_pred):
                ranked = tf.argsort(y_pred, axis=-1, direction="DESCENDING")
                top = ranked[:, :2]
                truth = tf.argsort(y_true, axis=-1, direction="DESCENDING")[:, :2]
                common = tf.sets.intersection(top, truth)
                return tf.sparse.to_dense(common).numpy()


            model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
            model.compile(optimizer="sgd", loss="mse", metrics=[top_overlap])
            model.fit(np.ones((8, 4), "float32"), np.ones((8, 3), "float32"), verbose=0)
        """, 11, "a Keras metric: a tensor computed from the traced arguments through several ops, slices and a sparse result",
            proof=Proof(raises=("AttributeError", "'SymbolicTensor' object has no attribute 'numpy'")))),
        invalid("""
            import numpy as np
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(4)])
            target_model = tf.keras.Sequential([tf.keras.layers.Dense(4)])
            optimizer = tf.keras.optimizers.Adam(1e-3)

            @tf.function
            def train_step(states, actions, rewards, next_states):
                best_next = np.max(target_model(next_states), axis=1)
                targets = rewards + 0.99 * best_next
                with tf.GradientTape() as tape:
                    q = tf.reduce_sum(model(states) * tf.one_hot(actions, 4), axis=1)
                    loss = tf.reduce_mean(tf.square(targets - q))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            states = np.random.rand(8, 3).astype("float32")
            loss = train_step(states, np.zeros(8, "int32"), np.ones(8, "float32"), states)
        """, 10, "a DQN step: NumPy's max of the target network's symbolic output",
            proof=Proof(raises=("NotImplementedError", "Cannot convert a symbolic tf.Tensor")),
            fixed="""
            import numpy as np
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(4)])
            target_model = tf.keras.Sequential([tf.keras.layers.Dense(4)])
            optimizer = tf.keras.optimizers.Adam(1e-3)

            @tf.function
            def train_step(states, actions, rewards, next_states):
                best_next = tf.reduce_max(target_model(next_states), axis=1)
                targets = rewards + 0.99 * best_next
                with tf.GradientTape() as tape:
                    q = tf.reduce_sum(model(states) * tf.one_hot(actions, 4), axis=1)
                    loss = tf.reduce_mean(tf.square(targets - q))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            states = np.random.rand(8, 3).astype("float32")
            loss = train_step(states, np.zeros(8, "int32"), np.ones(8, "float32"), states)
        """, fixed_proof=Proof(check="""
                second = train_step(states, np.zeros(8, "int32"), np.ones(8, "float32"), states)
                assert np.isfinite(float(loss)) and float(second) < float(loss)
            """)),
        invalid("""
            import tensorflow as tf

            @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
            def normalize(x):
                total = tf.reduce_sum(x)
                tf.print("total", total.numpy())
                return x / total

            y = normalize(tf.constant([1.0, 3.0]))
        """, 6, "`.numpy()` for logging inside the trace: tf.print takes the tensor itself",
            proof=Proof(raises=("AttributeError", "'SymbolicTensor' object has no attribute 'numpy'")),
            fixed="""
            import tensorflow as tf

            @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
            def normalize(x):
                total = tf.reduce_sum(x)
                tf.print("total", total)
                return x / total

            y = normalize(tf.constant([1.0, 3.0]))
        """, fixed_proof=Proof(check="assert y.numpy().tolist() == [0.25, 0.75]")),
        invalid("""
            import tensorflow as tf

            @tf.function
            def scale(x):
                doubled = x * 2.0
                return tf.constant(doubled) + 1.0

            y = scale(tf.constant([1.0, 2.0]))
        """, 6, "`tf.constant` of a tensor made in the trace",
            proof=Proof(raises=("TypeError", "Expected any non-tensor type, but got a tensor instead.")),
            fixed="""
            import tensorflow as tf

            @tf.function
            def scale(x):
                doubled = x * 2.0
                return tf.convert_to_tensor(doubled) + 1.0

            y = scale(tf.constant([1.0, 2.0]))
        """, fixed_proof=Proof(check="assert y.numpy().tolist() == [3.0, 5.0]")),
        invalid("""
            import numpy as np
            import tensorflow as tf

            @tf.function
            def per_row_error(pred, target):
                # mean squared error of each row
                return np.mean(np.square(pred - target), axis=-1)

            err = per_row_error(tf.ones([2, 3]), tf.zeros([2, 3]))
        """, 7, "NumPy calls with TensorFlow twins: both become TensorFlow ops (unsafe: tf.reduce_mean of an "
                "integer tensor stays integer)",
            proof=Proof(raises=("NotImplementedError", "Cannot convert a symbolic tf.Tensor")),
            fixed="""
            import numpy as np
            import tensorflow as tf

            @tf.function
            def per_row_error(pred, target):
                # mean squared error of each row
                return tf.reduce_mean(tf.square(pred - target), axis=-1)

            err = per_row_error(tf.ones([2, 3]), tf.zeros([2, 3]))
        """, fixed_proof=Proof(check="assert err.numpy().tolist() == [1.0, 1.0]")),
        unfixed(invalid("""
            import numpy as np
            import tensorflow as tf

            w = tf.Variable([1.0, -2.0])

            @tf.function
            def penalty():
                return tf.constant(np.abs(w).sum())

            p = penalty()
        """, 8, "NumPy on a captured tf.Variable; no fix: the NumPy array's `.sum()` is called on the result",
            proof=Proof(raises=("NotImplementedError", "numpy() is only available when eager execution is enabled")))),
        invalid("""
            import tensorflow as tf

            @tf.function
            def normalize(x):
                total = tf.reduce_sum(x)
                tf.print("total", total.numpy())
                return x / total
        """, 6, "before TensorFlow 2.14 the class in the message is `Tensor`", tensorflow_version="2.12", fixed="""
            import tensorflow as tf

            @tf.function
            def normalize(x):
                total = tf.reduce_sum(x)
                tf.print("total", total)
                return x / total
        """),
        valid("""
            import numpy as np
            import tensorflow as tf

            @tf.function
            def step(x, n):
                scale = np.sqrt(n) * np.ones(x.shape[-1], np.float32)
                offset = np.full((2,), 0.5).astype(np.float32)
                size = len(x) + int(n)
                tf.print("size", size)
                return x * scale + offset + float(n)

            out = step(tf.ones([2, 2]), 4)
            again = step(tf.ones([2, 2]), 4)
        """, "NumPy on Python values and static shapes; len() and int() of tensors",
            proof=Proof(check="assert out.shape == (2, 2) and float(out[0, 0]) == 6.5")),
        valid("""
            import numpy as np
            import tensorflow as tf

            offset = tf.constant([1.0, 2.0])

            @tf.function
            def shift(x):
                as_numpy = offset.numpy()
                return x + np.sum(as_numpy)

            y = shift(tf.constant([0.0, 0.0]))
            first = y.numpy()
        """, "an eager tensor captured from outside the trace, and .numpy() on the result outside",
            proof=Proof(check="assert first.tolist() == [3.0, 3.0]")),
        valid("""
            import numpy as np
            import tensorflow as tf

            @tf.function
            def clipped_log(x):
                def host_log(v):
                    return np.log(np.maximum(v.numpy(), 1e-6))
                y = tf.py_function(host_log, [x], tf.float32)
                if tf.executing_eagerly():
                    print(x.numpy())
                return y

            r = clipped_log(tf.constant([1.0, 0.0]))
        """, "py_function bodies and executing_eagerly branches run eagerly",
            proof=Proof(check="import numpy as np; assert np.allclose(r.numpy(), np.log([1.0, 1e-6]))")),
        valid("""
            import tensorflow as tf

            x = tf.constant([1.0, 2.0])
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.constant(x) * 2.0
            values = y.numpy()
        """, "tf.constant of an eager tensor and .numpy() outside any tf.function",
            proof=Proof(check="assert values.tolist() == [2.0, 4.0]")),
        valid("""
            import tensorflow as tf

            class Logged(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.dense = tf.keras.layers.Dense(2)
                    self.opt = tf.keras.optimizers.SGD(0.1)
                    self.seen = []

                def call(self, x):
                    return self.dense(x)

                def train_step(self, data):
                    x, y = data
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean((self(x) - y) ** 2)
                    grads = tape.gradient(loss, self.trainable_weights)
                    self.seen.append(loss.numpy())
                    self.opt.apply_gradients(zip(grads, self.trainable_weights))

            model = Logged()
            for _ in range(3):
                model.train_step((tf.ones((4, 3)), tf.zeros((4, 2))))
        """, "a train_step the file calls directly and never through fit: plain eager Python, where `.numpy()` "
             "has a value",
            proof=Proof(check="""
                assert len(model.seen) == 3 and model.seen[2] < model.seen[0], model.seen
            """)),
        unfixed(invalid("""
            import tensorflow as tf

            class Warmup(tf.Module):
                def __init__(self):
                    super().__init__()
                    self.step = tf.Variable(0, dtype=tf.int64, trainable=False)

                @tf.function
                def rate(self):
                    self.step.assign_add(1)
                    return tf.minimum(1.0, self.step.astype("float32") / 4.0)

            warmup = Warmup()
            warmup.rate()
        """, 11, "a NumPy array method on a tf.Variable the tf.function's method reads",
            proof=Proof(raises=("AttributeError", "'ResourceVariable' object has no attribute 'astype'")))),
        unfixed(invalid("""
            import numpy as np
            import tensorflow as tf

            def preprocess(image):
                return image.astype(np.float32) / 255.0

            images = np.zeros((4, 2, 2), np.uint8)
            ds = tf.data.Dataset.from_tensor_slices(images).map(preprocess)
        """, 5, "a NumPy array method in a function Dataset.map traces (always a graph, eager or not)",
            proof=Proof(raises=("AttributeError", "SymbolicTensor object has no attribute 'astype'")))),
        unfixed(invalid("""
            import tensorflow as tf

            @tf.function
            def flatten(x):
                return x.reshape(-1)

            y = flatten(tf.ones([2, 3]))
        """, 5, "`.reshape` is NumPy's: a tf.Tensor has tf.reshape instead",
            proof=Proof(raises=("AttributeError", "SymbolicTensor object has no attribute 'reshape'")))),
        invalid("""
            import numpy as np
            import tensorflow as tf

            tf.config.run_functions_eagerly(True)


            def preprocess(example):
                mask = example["mask"]
                return mask.numpy() - 1


            ds = tf.data.Dataset.from_tensor_slices({"mask": np.ones((4, 2, 2), np.uint8)})
            ds = ds.map(preprocess)
        """, 9, "an item of a `ds.map` function's dict element; run_functions_eagerly does not reach tf.data",
            proof=Proof(raises=("AttributeError", "object has no attribute 'numpy'"), isolated=True),
            fixed="""
            import numpy as np
            import tensorflow as tf

            tf.config.run_functions_eagerly(True)


            def preprocess(example):
                mask = example["mask"]
                return mask.numpy() - 1


            ds = tf.data.Dataset.from_tensor_slices({"mask": np.ones((4, 2, 2), np.uint8)})
            ds = ds.map(preprocess)
        """),
        invalid("""
            import tensorflow as tf

            log_b = tf.Variable(0.3)


            @tf.function
            def forcing_matrix():
                b = -tf.exp(log_b)
                return tf.constant([[0.0], [1.0 / b]])


            forcing_matrix()
        """, 9, "a symbolic tensor nested in the list `tf.constant` is given",
            proof=Proof(raises=("TypeError", "Expected any non-tensor type, but got a tensor instead.")),
            fixed="""
            import tensorflow as tf

            log_b = tf.Variable(0.3)


            @tf.function
            def forcing_matrix():
                b = -tf.exp(log_b)
                return tf.convert_to_tensor([[0.0], [1.0 / b]])


            forcing_matrix()
        """, fixed_proof=Proof(check="""
            matrix = forcing_matrix()
            assert matrix.shape == (2, 1) and float(matrix[1, 0]) < 0.0
        """)),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        # `tf.config.run_functions_eagerly(True)` runs tf.functions (and Keras's) eagerly, but not
        # the functions tf.data traces: those stay graphs.
        data_only = runs_functions_eagerly(facts)
        values = values_for(ctx)
        modern = ctx.targets.tensorflow >= _SYMBOLIC_TENSOR_SINCE
        # tf.experimental.numpy.experimental_enable_numpy_behavior() gives tf.Tensor NumPy's methods.
        numpy_behavior = bool(facts.calls_to("tensorflow.experimental.numpy.experimental_enable_numpy_behavior"))
        methods: dict[str, bool] = {}  # method name -> is it one `_problem` reports
        traces: dict[int, Trace | KerasTrace | None] = {}  # id(scope) -> what traces its code
        for site in facts.calls:
            method = site.method
            if method is not None:
                eager_only = methods.get(method)
                if eager_only is None:
                    eager_only = methods[method] = _eager_only_method(method, numpy_behavior)
            else:
                eager_only = False
            if not eager_only and not _eager_only_function(site):
                continue
            key = id(site.scope)
            if key in traces:
                traced = traces[key]
            else:
                traced = traces[key] = _trace(site, values)
            if traced is None or (data_only and (isinstance(traced, KerasTrace) or traced.caller is None)):
                continue
            found = _problem(site, values, modern)
            if found is None:
                continue
            culprit, kind, message = found
            if eager_context(site.node, facts) is not None:
                continue
            function = site.scope.function
            where = traced.how if function is None or function.node is traced.node else \
                f"{function_name(function.node)}, which {traced.how} calls"
            related = [traced.related(ctx)]
            origin = _origin(culprit, site.scope, values)
            if origin is not None:
                what = "a tf.Variable" if kind == "variable" else "a symbolic tensor"
                related.append(ctx.related(origin, f"`{ast.unparse(culprit)}` is {what} from here"))
            if isinstance(traced, KerasTrace):
                message = message.replace(_OUTSIDE, _KERAS_EAGER)
            ctx.report(site.node, f"In {where}, {message}.", related=related,
                       fix=_offer(ctx, site, traced.node) if traced.tf_function is not None else None)


def _eager_only_method(name: str, numpy_behavior: bool) -> bool:
    """Could a call of this method be one `_problem` reports (a method of NumPy arrays, or
    `.numpy()`)? A cheap test, with `_eager_only_function`, before the value model is asked."""
    method = library.method(TENSOR, name)
    return method is not None and (method.has("eager_only") or method.has("numpy_only") and not numpy_behavior)


def _eager_only_function(site: CallSite) -> bool:
    """A NumPy function, or `tf.constant`."""
    qualname = site.qualname or ""
    return qualname.startswith("numpy.") or qualname == "tensorflow.constant"


def _trace(site: CallSite, values: ValueModel) -> Trace | KerasTrace | None:
    """What traces the code of this call: a tf.function (or a helper its trace calls), a Keras
    train_step, a tf.data method (`ds.map(fn)`: always a graph, eager mode or not), or
    `model.fit` / `evaluate` for a loss or metric given to `compile` (and what it calls)."""
    traced = trace_of(values, site.scope, combinators=True)
    if traced is None:
        return keras_trace_of(values, site.scope)
    if traced.keras and stepped_directly_only(traced.node, values):
        return None
    if traced.caller is None:
        return traced
    method = values.value(traced.caller.func)
    return traced if method.kind == METHOD and isinstance(method.ref, Value) \
        and method.ref.kind == DATASET else None


# NumPy reductions whose TensorFlow twin keeps an integer dtype (NumPy averages in floating
# point): the same call on an integer tensor gives another value.
_INTEGER_SENSITIVE = frozenset({"numpy.mean", "numpy.std", "numpy.var"})
# tf.constant keywords tf.convert_to_tensor takes with the same meaning (dtype= converts
# instead of casting there: unsafe).
_CONSTANT_SAME = frozenset({"value", "name"})


def _offer(ctx: Context, site: CallSite, function: ast.AST | None):
    """The fix for a finding: `.numpy()` dropped (safe when the value only feeds TensorFlow ops,
    as in `tf.print(t.numpy())`; unsafe otherwise: what follows may want an array);
    a NumPy function with a TensorFlow twin taking the same arguments -> the twin
    (fixes/numpy_ops.py; safe, unsafe for mean/std/var, none when a NumPy method is called on
    its result); `tf.constant(t)` -> `tf.convert_to_tensor(t)` (safe; unsafe with dtype=)."""
    node = site.node
    func = node.func
    text = ctx.facts.source.text
    if site.method == "numpy" and isinstance(func, ast.Attribute) and not node.args and not node.keywords:
        receiver = func.value
        feeds_tensorflow = function is not None and tensor_context(node, function, ctx.facts)

        def build_unwrap():
            from ...fixes.blocks import replace_by_part

            return replace_by_part(text, node, receiver, "Keep the tensor: remove `.numpy()`",
                                   Applicability.SAFE if feeds_tensorflow else Applicability.UNSAFE)
        return build_unwrap
    alias = tf_alias(ctx.facts)
    if alias is None:
        return None
    qualname = site.qualname or ""
    if qualname.startswith("numpy."):
        from ...fixes.numpy_ops import tf_equivalent

        twin = tf_equivalent(qualname, node)
        if twin is None or _method_called_on(node, function):
            return None
        short = ast.unparse(func)
        safe = qualname not in _INTEGER_SENSITIVE
        facts = ctx.facts

        def build_twin():
            from ...fixes.numpy_ops import enclosing_twins, numpy_call_fix

            calls = [(node, twin)] + [(call, found) for call, found in
                                      enclosing_twins(facts.tree, node, facts.imports.resolve)
                                      if not _method_called_on(call, function)]
            sensitive = any(facts.imports.resolve(call.func) in _INTEGER_SENSITIVE for call, _ in calls)
            return numpy_call_fix(text, calls, alias, False, f"Use `{alias}.{twin.path}` instead of `{short}`",
                                  Applicability.SAFE if safe and not sensitive else Applicability.UNSAFE)
        return build_twin
    if qualname == "tensorflow.constant" and isinstance(func, ast.Attribute) \
            and not any(isinstance(a, ast.Starred) for a in node.args) and len(node.args) <= 1:
        keywords = {k.arg for k in node.keywords}
        if None in keywords or keywords - _CONSTANT_SAME - {"dtype"}:
            return None
        receiver = ast.unparse(func.value)
        applicability = Applicability.UNSAFE if "dtype" in keywords else Applicability.SAFE

        def build_convert():
            from ...fixes.callee import callee_fix

            return callee_fix(text, node, f"{receiver}.convert_to_tensor",
                              f"Use `{receiver}.convert_to_tensor(...)`, which takes tensors", applicability)
        return build_convert
    return None


def _method_called_on(call: ast.Call, function: ast.AST | None) -> bool:
    """Is a method or attribute of the call's result used (`np.abs(w).sum()`): a NumPy array's,
    which a tensor may not have?"""
    if function is None:
        return True
    return any(isinstance(node, ast.Attribute) and node.value is call for node in ast.walk(function))


def _problem(site: CallSite, values: ValueModel, modern: bool) -> tuple[ast.expr, str, str] | None:
    node = site.node
    scope = site.scope
    func = node.func
    if site.method in ("numpy", "item", "tolist") and not node.args and not node.keywords \
            and isinstance(func, ast.Attribute):
        receiver = func.value
        kind = _symbolic(receiver, scope, values)
        if kind is None and site.method == "numpy":
            kind = _derived(receiver, scope, values) or _component(receiver, scope, values)
        if kind is None:
            return None
        text = _short(receiver)
        if kind == "variable":
            if site.method != "numpy":
                return None
            return receiver, kind, (f"`{text}.numpy()` on a tf.Variable raises {_VARIABLE_NUMPY} Use the variable "
                              "itself in TensorFlow ops")
        cls = "SymbolicTensor" if modern else "Tensor"
        error = f"AttributeError \"'{cls}' object has no attribute '{site.method}'\""
        return receiver, kind, (f"`{text}.{site.method}()` raises {error}: `{text}` is symbolic and has no "
                                "value while TensorFlow traces. "
                          f"Keep the computation in TensorFlow ops{_OUTSIDE}")
    method = library.method(TENSOR, site.method or "") if isinstance(func, ast.Attribute) else None
    if method is not None and method.has("numpy_only") and not method.attribute:
        receiver = func.value  # type: ignore[union-attr]
        kind = _symbolic(receiver, scope, values)
        if kind is not None:
            text = _short(receiver)
            twin = _TF_EQUIVALENT.get(site.method or "")
            instead = f"`{twin}`" if twin and twin.startswith("tf.") else "the TensorFlow op that does the same"
            if kind == "variable":  # a variable the function captures is a ResourceVariable while it traces
                return receiver, kind, (f"`{text}.{site.method}(...)` raises AttributeError \"'ResourceVariable' "
                                        f"object has no attribute '{site.method}'\": `{site.method}` is a NumPy "
                                        f"array method, which a tf.Variable does not have. Use {instead} instead")
            cls = "SymbolicTensor" if modern else "Tensor"
            return receiver, "tensor", (f"`{text}.{site.method}(...)` raises AttributeError \"{cls} object has no "
                                        f"attribute '{site.method}'\": `{site.method}` is a NumPy array method, "
                                        f"which a tf.Tensor does not have. Use {instead} instead")
    qualname = site.qualname
    if qualname is not None and qualname.startswith("numpy."):
        function = qualname[len("numpy."):]
        if function in _NUMPY_SAFE or function.startswith(("random.seed", "testing.")):
            return None
        culprit = _first_symbolic(_arguments(node), scope, values)
        if culprit is None:
            return None
        expr, kind = culprit
        text = _short(expr)
        if kind == "variable":
            return expr, kind, (f"`np.{function}` converts the tf.Variable `{text}` to NumPy, which raises "
                          f"{_VARIABLE_NUMPY} Use TensorFlow ops on the variable")
        error = ("NotImplementedError \"Cannot convert a symbolic tf.Tensor (...) to a numpy array.\"" if modern
                 else "NotImplementedError \"Cannot convert a symbolic Tensor (...) to a numpy array.\"")
        equivalent = _TF_EQUIVALENT.get(function.rsplit(".", 1)[-1]) or "the TensorFlow op that does the same " \
            "(`tf.experimental.numpy` mirrors the NumPy API)"
        if equivalent.startswith("tf."):
            equivalent = f"`{equivalent}`"
        return expr, kind, (f"`np.{function}` on the symbolic tensor `{text}` raises {error} Use {equivalent} instead")
    if qualname == "tensorflow.constant":
        value = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "value"), None)
        if value is None:
            return None
        culprit = _first_symbolic([value], scope, values)
        if culprit is None:
            return None
        expr, kind = culprit
        text = _short(expr)
        if kind == "variable":
            return expr, kind, (f"`tf.constant({text})` of a tf.Variable reads it through NumPy, which raises "
                          f"{_VARIABLE_NUMPY} Use `tf.convert_to_tensor({text})` or the variable itself")
        error = ("TypeError \"Expected any non-tensor type, but got a tensor instead.\"" if modern
                 else "TypeError \"Expected any non-tensor type, got a tensor instead.\"")
        return expr, kind, (f"`tf.constant` of the symbolic tensor `{text}` raises {error} `tf.constant` takes Python and "
                      f"NumPy values only; use `tf.convert_to_tensor({text})` or the tensor itself")
    return None


def _arguments(call: ast.Call) -> list[ast.expr]:
    found: list[ast.expr] = []
    for arg in call.args:
        found.append(arg.value if isinstance(arg, ast.Starred) else arg)
    for keyword in call.keywords:
        if keyword.arg not in ("dtype", "axis", "size", "out", "keepdims", "shape", "order"):
            found.append(keyword.value)
    return found


def _symbolic(expr: ast.expr, scope: Scope, values: ValueModel) -> str | None:
    """"variable" for a tf.Variable, "tensor" for a tensor made while TensorFlow traces, else None."""
    value = values.value(expr, scope)
    if value.is_(VARIABLE):
        return "variable"
    if value.is_(TENSOR) and value.symbolic:
        return "tensor"
    return None


def _component(expr: ast.expr, scope: Scope, values: ValueModel) -> str | None:
    """For `.numpy()` only: an item of a traced parameter that holds a structure of symbolic
    tensors (`datapoint['segmentation_mask']` in a `ds.map` function; also through one local
    name): a tensor, a sparse or ragged one, or a nested structure; none has a value while
    TensorFlow traces, and none but an eager tensor has `.numpy()`."""
    if isinstance(expr, ast.Name):
        flow = flow_of(values.facts, scope)
        defs = flow.reaching(expr.id, expr)
        if len(defs) != 1 or defs[0].kind != "assign" or not isinstance(defs[0].value, ast.Subscript):
            return None
        expr = defs[0].value
    base = expr
    while isinstance(base, ast.Subscript):
        base = base.value
    if base is expr or not isinstance(base, ast.Name):
        return None
    holder = values.value(base, scope)
    if holder.certain and holder.kind in (DICT, TUPLE) and holder.symbolic is not False \
            and holder.item is not None and holder.item.kind == TENSOR and holder.item.symbolic:
        return "tensor"
    return None


def _first_symbolic(exprs: list[ast.expr], scope: Scope, values: ValueModel, depth: int = 0) -> tuple[ast.expr, str] | None:
    """The first symbolic tensor or variable among `exprs`, also as an element of a list or tuple
    written out there, nested or not (`tf.constant([[0.0], [1.0 / b]])`)."""
    for expr in exprs:
        if isinstance(expr, (ast.List, ast.Tuple)):
            if depth < 4:
                found = _first_symbolic([e.value if isinstance(e, ast.Starred) else e for e in expr.elts],
                                        scope, values, depth + 1)
                if found is not None:
                    return found
            continue
        kind = _symbolic(expr, scope, values)
        if kind is not None:
            return expr, kind
    return None


def _derived(expr: ast.expr, scope: Scope, values: ValueModel, depth: int = 0,
             seen: set[int] | None = None) -> str | None:
    """For `.numpy()` only: a call computed from symbolic tensors or from the traced function's
    parameters (`loss = compute_loss(model(x), y)`) has no value during tracing either; so has a
    tensor computed from one in the function (`bp = tf.argsort(yp)`, `xcp = bp[:10]`,
    `count = tf.sets.intersection(xcp, ...)`, `tf.sparse.to_dense(count)`)."""
    if depth > 12:
        return None
    seen = set() if seen is None else seen
    if id(expr) in seen:
        return None
    seen.add(id(expr))
    if isinstance(expr, ast.Subscript):  # `bp[None, :10]`: a slice of a traced tensor
        return _derived(expr.value, scope, values, depth + 1, seen)
    if isinstance(expr, ast.Name):
        defs, owner = values.definitions(expr.id, scope, expr)
        if owner is None or not defs or (owner.traced_by is None and keras_trace_of(values, owner) is None):
            return None
        if _tensor_params(owner, values) and all(d.kind == "param" for d in defs) and expr.id not in ("self", "cls"):
            return "tensor"
        kinds = [_derived(d.value, owner, values, depth + 1, seen) if d.kind == "assign" and d.value is not None
                 else None for d in defs]
        return "tensor" if all(kinds) else None
    if isinstance(expr, ast.Call):
        arguments = [*expr.args, *(k.value for k in expr.keywords)]
        if any(_symbolic(a, scope, values) or _is_traced_param(a, scope, values) for a in arguments):
            return "tensor"
        # A TensorFlow op of a tensor the function computed from its traced parameters.
        if values.value(expr, scope).is_(TENSOR) and any(
                isinstance(a, (ast.Name, ast.Subscript)) and _derived(a, scope, values, depth + 1, seen)
                for a in arguments):
            return "tensor"
    return None


def _is_traced_param(expr: ast.expr, scope: Scope, values: ValueModel) -> bool:
    if not isinstance(expr, ast.Name) or expr.id in ("self", "cls"):
        return False
    defs, owner = values.definitions(expr.id, scope, expr)
    return bool(defs) and all(d.kind == "param" for d in defs) and owner is not None and _tensor_params(owner, values)


def _tensor_params(scope: Scope, values: ValueModel) -> bool:
    """Are the parameters of this function tensors while it is traced: a tf.function's, or a
    loss's or metric's that Keras calls with `(y_true, y_pred)`?"""
    if scope.tf_function is not None:
        return True
    trace = keras_traces(values).get(id(scope.node))
    return trace is not None and trace.node is scope.node


def _origin(expr: ast.expr, scope: Scope, values: ValueModel) -> ast.AST | None:
    """Where a tensor-valued name got its value, for a related location."""
    if not isinstance(expr, ast.Name):
        return None
    defs, _owner = values.definitions(expr.id, scope, expr)
    return next((d.value for d in defs if d.kind == "assign" and d.value is not None), None)


def _short(expr: ast.expr) -> str:
    text = ast.unparse(expr)
    return text if len(text) <= 40 else text[:37] + "..."
