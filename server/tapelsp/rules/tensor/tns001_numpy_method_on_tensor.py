from __future__ import annotations

import ast

from ...analysis import library
from ...analysis.values import LAYER, MODEL, TENSOR, values_for
from ...facts.dataflow import inside
from ...facts.walk import assigned_calls
from ...model import Severity
from ...versions import VersionRange
from ..base import Context, Proof, Rule, invalid, valid
from ..function.func005_numpy_in_function import _TF_EQUIVALENT

# The NumPy array methods a tf.Tensor does not have (the table's numpy_only rows).
_METHODS = frozenset(row.name.split(".", 1)[1] for row in library.rows()
                     if row.name.startswith("@tensor.") and row.has("numpy_only") and not row.attribute)
# What TensorFlow 2.21 says: the methods NumPy behaviour would add name it in the message.
_WITH_HINT = frozenset({"tolist", "astype", "reshape", "transpose", "clip", "ravel"})
# Methods whose NumPy result the code can get from the tensor's `.numpy()`, in eager code.
_VIA_NUMPY = frozenset({"tolist", "item"})


class NumpyMethodOnTensor(Rule):
    """
    ## What it does
    Finds a NumPy array method (`.tolist()`, `.astype(...)`, `.reshape(...)`, `.mean()`,
    `.item()`, `.flatten()`...) called on a tf.Tensor in eager code: the result of a
    TensorFlow op, of calling a Keras model or layer, or arithmetic on one. (In code a
    tf.function traces, FUNC005 reports it.)

    ## Why is this bad?
    A tf.Tensor is not a NumPy array. TensorFlow 2.21 raises
    `AttributeError: EagerTensor object has no attribute 'tolist'` (for `.mean()`, `.item()`,
    `.flatten()`: `'tensorflow.python.framework.ops.EagerTensor' object has no attribute
    'mean'`), unless the program enables NumPy behaviour with
    `tf.experimental.numpy.experimental_enable_numpy_behavior()`.

    ## Example
    ```python
    ids = tf.argmax(model(batch), axis=-1)
    labels = [LABELS[i] for i in ids.tolist()]
    ```

    ## Use instead
    ```python
    labels = [LABELS[i] for i in ids.numpy().tolist()]
    ```
    and the TensorFlow op for the others: `tf.cast`, `tf.reshape`, `tf.reduce_mean`.
    """

    code = "TNS001"
    name = "numpy-method-on-tensor"
    summary = "a NumPy array method called on an eager tf.Tensor"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    triggers = tuple(f".{name}(" for name in sorted(_METHODS))
    examples = (
        invalid("""
            import numpy as np
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
            ids = tf.argmax(model(np.ones((2, 4), np.float32)), axis=-1)
            labels = [["a", "b", "c"][i] for i in ids.tolist()]
        """, 6, "`.tolist()` on the result of tf.argmax",
            proof=Proof(raises=("AttributeError", "EagerTensor object has no attribute 'tolist'"))),
        invalid("""
            import numpy as np
            import tensorflow as tf

            conv = tf.keras.Sequential([tf.keras.Input((4, 4, 1)), tf.keras.layers.Conv2D(2, 3, padding="same")])

            def classify(images):
                features = conv(images)
                return features.reshape(-1, 4 * 4 * 2)

            flat = classify(np.ones((3, 4, 4, 1), np.float32))
        """, 8, "`.reshape` on a Keras model's output in a function called eagerly",
            proof=Proof(raises=("AttributeError", "EagerTensor object has no attribute 'reshape'"))),
        invalid("""
            import tensorflow as tf

            scores = tf.nn.softmax(tf.constant([[1.0, 2.0, 3.0]]))
            average = scores.mean()
        """, 4, "`.mean()` on a tensor",
            proof=Proof(raises=("AttributeError", "object has no attribute 'mean'"))),
        valid("""
            import numpy as np
            import tensorflow as tf

            ids = tf.argmax(tf.constant([[1.0, 2.0], [3.0, 0.0]]), axis=-1)
            listed = ids.numpy().tolist()
            arr = np.ones((2, 2)).reshape(-1)
        """, "NumPy's methods on NumPy arrays",
            proof=Proof(check="assert listed == [1, 0] and arr.shape == (4,)")),
        valid("""
            import tensorflow as tf

            tf.experimental.numpy.experimental_enable_numpy_behavior()
            t = tf.constant([[1.0, 2.0]])
            flat = t.reshape(-1)
        """, "NumPy behaviour enabled: tensors have NumPy's methods",
            proof=Proof(check="assert flat.shape == (2,)", isolated=True)),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        if facts.calls_to("tensorflow.experimental.numpy.experimental_enable_numpy_behavior"):
            return
        values = None
        for site in facts.calls:
            method = site.method
            call = site.node
            if method not in _METHODS or not isinstance(call.func, ast.Attribute):
                continue
            receiver = call.func.value
            if not isinstance(receiver, ast.Name) or not any(
                    _may_make_a_tensor(ctx, made) for made in assigned_calls(facts, site.scope.node, receiver.id)):
                continue  # nothing here makes it with TensorFlow or a model call: not asked further
            if facts.graph_mode(call, site.scope):
                continue
            if values is None:
                values = values_for(ctx)
            if values.traced(site.scope) is not False:
                continue  # traced code is FUNC005's; unknown stays silent
            value = values.value(receiver, site.scope)
            if not value.is_(TENSOR) or value.symbolic or value.remote is not None \
                    or not _made_by_tensorflow(ctx, values, value.origin, site.scope):
                continue
            if any(inside(call, tape.node) for tape in facts.tapes_in(site.scope)):
                continue  # inside a tape: TAPE007 says what it does to the gradient
            self._report(ctx, call, receiver, method, value)

    def _report(self, ctx: Context, call: ast.Call, receiver: ast.expr, method: str, value) -> None:
        text = ast.unparse(receiver)
        if len(text) > 40:
            text = text[:37] + "..."
        error = (f"EagerTensor object has no attribute '{method}'" if method in _WITH_HINT
                 else f"'tensorflow.python.framework.ops.EagerTensor' object has no attribute '{method}'")
        made = f" (made on {ctx.where(value.origin)})" if value.origin is not None and hasattr(value.origin, "lineno") \
            and value.origin is not receiver else ""
        if method in _VIA_NUMPY:
            advice = f"Convert it first: `{text}.numpy().{method}()`."
        elif method in _TF_EQUIVALENT:
            advice = f"Use the TensorFlow op: `{_TF_EQUIVALENT[method]}`."
        else:
            advice = f"Use the TensorFlow op, or `{text}.numpy().{method}(...)` for a NumPy result."
        ctx.report(
            call,
            f"`.{method}()` is a NumPy array method, and `{text}` is a tf.Tensor{made}: TensorFlow raises "
            f"AttributeError \"{error}\" (unless the program enables NumPy behaviour). {advice}",
        )



def _may_make_a_tensor(ctx: Context, made: ast.Call) -> bool:
    """Syntactically: a TensorFlow function, or a call of something that is no library's."""
    qualname = ctx.facts.imports.resolve(made.func)
    if qualname is None:
        return isinstance(made.func, (ast.Name, ast.Attribute))
    return qualname.startswith("tensorflow.")


def _made_by_tensorflow(ctx: Context, values, origin: ast.AST | None, scope) -> bool:
    """Was the tensor made where the code says so plainly: a TensorFlow op that returns a
    tensor (`tf.argmax(...)`), or a call of a Keras model or layer in a file without TFP (whose
    probabilistic layers return distributions, which have `.mean()`)? What the value model
    infers through arithmetic, indexing and unpacking is not enough here: NumPy arrays and
    tensors mix freely in such code."""
    if not isinstance(origin, ast.Call):
        return False
    qualname = ctx.facts.imports.resolve(origin.func) or ""
    if qualname.startswith("tensorflow."):
        api = library.api(qualname)
        return api is not None and api.kind == "tensor"
    if _imports_tfp(ctx.facts.tree):
        return False
    callee = values.value(origin.func, values.scope_at(origin))
    return callee.is_(MODEL, LAYER)


def _imports_tfp(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Import) and any(a.name.startswith("tensorflow_probability") for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tensorflow_probability"):
            return True
    return False
