from __future__ import annotations

import ast

from ...model import Severity
from ...versions import VersionRange
from ...analysis.paths import NONDIFF, cuts_of, detached_on_purpose, gradient_phrase, gradient_uses, no_gradient_op
from ..base import Context, Proof, Rule, invalid, shares_findings, valid
from . import _keras
from ._parts import part_cuts

_ALTERNATIVES = {
    "argmax": "a soft alternative such as `tf.nn.softmax` weights",
    "argmin": "a soft alternative such as `tf.nn.softmax(-x)` weights",
    "round": "a straight-through estimator `x + tf.stop_gradient(tf.round(x) - x)`",
    "floor": "a straight-through estimator `x + tf.stop_gradient(tf.floor(x) - x)`",
    "ceil": "a straight-through estimator `x + tf.stop_gradient(tf.math.ceil(x) - x)`",
    "stop_gradient": "the value without `tf.stop_gradient` on this path",
}


class NonDifferentiablePath(Rule):
    """
    ## What it does
    Finds an operation without a gradient (a cast to an integer or bool dtype,
    `tf.argmax` / `tf.argmin`, `tf.round` / `tf.floor` / `tf.math.ceil`, comparisons,
    `//`, `tf.stop_gradient`) inside a `tf.GradientTape` block when *every* route from the
    gradient's sources to its target goes through such an operation. Also where Keras runs
    the operation: in a layer of a model the file builds (a `Lambda(fn)` layer, a custom layer's
    `call`, a model used as a layer) with trainable layers before it, when a tape or
    `model.fit` trains them, and in a loss given to `model.compile` that `model.fit` uses.

    ## Why is this bad?
    These operations have no gradient (or, for `tf.stop_gradient`, deliberately block it).
    When nothing else connects the target to a source, `tape.gradient` silently returns
    `None` for it; in a model, every layer before the operation gets `None` (Keras's `fit`
    warns "Gradients do not exist for variables", or raises "No gradients provided for any
    variable" when no variable gets a gradient, as it does for a loss without one). Cutting one
    route on purpose is common and fine — a straight-through
    estimator `x + tf.stop_gradient(tf.round(x) - x)`, a mask built with a comparison, a
    target network's value under `tf.stop_gradient` — so the rule stays silent as long as
    some differentiable route remains, and its severity is a warning.

    ## Example
    ```python
    with tf.GradientTape() as tape:
        logits = model(x)
        choice = tf.cast(tf.argmax(logits, axis=-1), tf.float32)
        loss = tf.reduce_mean((choice - y) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)  # all None
    ```

    ## Use instead
    ```python
    with tf.GradientTape() as tape:
        logits = model(x)
        loss = tf.reduce_mean(
            tf.keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True))
    grads = tape.gradient(loss, model.trainable_variables)
    ```
    """

    code = "TAPE009"
    name = "non-differentiable-path"
    summary = "Every path from the gradient sources to the target goes through an op without a gradient"
    severity = Severity.WARNING
    tensorflow = VersionRange(">=2.0")
    triggers = ("GradientTape", "fit", "train_on_batch")
    examples = (
        invalid("""
            import tensorflow as tf


            class Scale(tf.keras.layers.Layer):
                def build(self, input_shape):
                    self.w = self.add_weight(shape=(input_shape[-1], 2), initializer="ones")

                def call(self, x):
                    return tf.matmul(x, self.w)


            layer = Scale()
            x = tf.ones((3, 4))
            with tf.GradientTape() as tape:
                loss = tf.round(tf.reduce_sum(layer(x)))
            grads = tape.gradient(loss, layer.trainable_variables)
        """, 15, "a custom Keras layer whose weight comes from add_weight, its output rounded",
            proof=Proof(check="assert all(g is None for g in grads)")),
        invalid("""
            import tensorflow as tf

            class QuantDense(tf.keras.layers.Layer):
                def build(self, input_shape):
                    self.kernel = self.add_weight(shape=(input_shape[-1], 2), initializer="ones")

                def call(self, x):
                    q_kernel = tf.round(self.kernel / 0.25) * 0.25
                    return x @ q_kernel

            layer = QuantDense()
            x = tf.ones((3, 4))
            layer(x)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(layer(x) ** 2)
            g = tape.gradient(loss, layer.kernel)
        """, 8, "rounding inside a custom layer's call: the layer's kernel gets None",
            proof=Proof(check="assert g is None")),
        invalid("""
            import tensorflow as tf

            class HardGate(tf.Module):
                def __init__(self):
                    self.gate = tf.keras.layers.Dense(1)
                    self.expert = tf.keras.layers.Dense(1)
                    self.gate.build((None, 3))
                    self.expert.build((None, 3))

                def __call__(self, x):
                    mask = tf.cast(tf.sigmoid(self.gate(x)) > 0.5, tf.float32)
                    return mask * self.expert(x)

            moe = HardGate()
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(moe(tf.ones((4, 3))) ** 2)
            g = tape.gradient(loss, moe.gate.kernel)
        """, 11, "a hard gate (a comparison) in a module's `__call__`: the gate's kernel gets None",
            proof=Proof(check="assert g is None")),
        valid("""
            import tensorflow as tf

            class QuantDense(tf.keras.layers.Layer):
                def build(self, input_shape):
                    self.kernel = self.add_weight(shape=(input_shape[-1], 2), initializer="ones")

                def call(self, x):
                    w = self.kernel / 0.25
                    q = w + tf.stop_gradient(tf.round(w) - w)
                    return x @ (q * 0.25)

            layer = QuantDense()
            x = tf.ones((3, 4))
            layer(x)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(layer(x) ** 2)
            g = tape.gradient(loss, layer.kernel)
        """, "a straight-through estimator in a custom layer: rounding forward, identity backward",
            proof=Proof(check="assert g is not None")),
        invalid("""
            import tensorflow as tf

            w = tf.Variable([[0.5, -0.2], [0.1, 0.4]])
            x = tf.constant([[1.0, 2.0]])
            y = tf.constant([1.0])
            with tf.GradientTape() as tape:
                logits = tf.matmul(x, w)
                choice = tf.cast(tf.argmax(logits, axis=-1), tf.float32)
                loss = tf.reduce_mean((choice - y) ** 2)
            g = tape.gradient(loss, w)
        """, 8, "argmax of the logits",
            proof=Proof(check="assert g is None")),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(2.7)
            with tf.GradientTape() as tape:
                q = tf.round(w * 3.0)
                loss = q * q
            g = tape.gradient(loss, w)
        """, 5, "rounding without a straight-through estimator",
            proof=Proof(check="assert g is None")),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            with tf.GradientTape() as tape:
                steps = tf.cast(w * 10.0, tf.int32)
                loss = tf.cast(steps, tf.float32) * 0.1
            g = tape.gradient(loss, w)
        """, 5, "cast to an integer dtype",
            proof=Proof(check="assert g is None")),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            b = tf.Variable(1.0)
            with tf.GradientTape() as tape:
                frozen = tf.stop_gradient(w * 3.0)
                loss = frozen * b
            gw, gb = tape.gradient(loss, [w, b])
        """, 6, "stop_gradient cuts the only route from `w` (the gradient for `b` is fine)",
            proof=Proof(check="assert gw is None and float(gb) == 6.0")),
        invalid("""
            import tensorflow as tf

            w = tf.Variable([0.5, -1.0, 2.0])
            with tf.GradientTape() as tape:
                active = tf.cast(w > 0.0, tf.float32)
                loss = tf.reduce_sum(active)
            g = tape.gradient(loss, w)
        """, 5, "a comparison",
            proof=Proof(check="assert g is None")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(2.7)
            with tf.GradientTape() as tape:
                q = w + tf.stop_gradient(tf.round(w) - w)
                loss = q * q
            g = tape.gradient(loss, w)
        """, "a straight-through estimator keeps a differentiable route",
            proof=Proof(check="assert g is not None and abs(float(g) - 6.0) < 1e-6")),
        valid("""
            import tensorflow as tf

            w = tf.Variable([0.5, -1.0, 2.0])
            with tf.GradientTape() as tape:
                mask = tf.cast(w > 0.0, tf.float32)
                loss = tf.reduce_sum(mask * w * w)
            g = tape.gradient(loss, w)
        """, "a mask from a comparison, multiplied with a differentiable value",
            proof=Proof(check="assert g.numpy().tolist() == [1.0, 0.0, 4.0]")),
        valid("""
            import tensorflow as tf

            w = tf.Variable([[0.5, -0.2], [0.1, 0.4]])
            x = tf.constant([[1.0, 2.0]])
            labels = tf.constant([1])
            with tf.GradientTape() as tape:
                logits = tf.matmul(x, w)
                accuracy = tf.reduce_mean(tf.cast(tf.argmax(logits, axis=-1) == 1, tf.float32))
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
            g = tape.gradient(loss, w)
        """, "argmax for a metric that the loss does not use",
            proof=Proof(check="assert g is not None")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            with tf.GradientTape() as tape:
                y = tf.cast(w * 3.0, tf.float64)
                loss = y * y
            g = tape.gradient(loss, w)
        """, "a cast between float dtypes keeps the gradient",
            proof=Proof(check="assert float(g) == 36.0")),
        invalid("""
            import tensorflow as tf
            from tensorflow import keras

            inputs = keras.Input((4,))
            hidden = keras.layers.Dense(3)(inputs)
            token = keras.layers.Lambda(lambda t: tf.cast(tf.argmax(t, axis=-1), tf.float32)[:, None])(hidden)
            model = keras.Model(inputs, keras.layers.Dense(1)(token))

            x = tf.ones((2, 4))
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x) ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
        """, 6, "argmax in a Lambda layer between trainable layers: the layer before it gets None",
            proof=Proof(check="assert grads[0] is None and grads[1] is None and grads[2] is not None")),
        invalid("""
            import numpy as np
            import tensorflow as tf
            from tensorflow import keras

            def binarize(x):
                return tf.floor(x + 0.5)

            model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, activation="sigmoid"),
                                      keras.layers.Lambda(binarize)])
            model.compile(optimizer="sgd", loss="mse")
            model.fit(np.ones((4, 3), "float32"), np.ones((4, 2), "float32"), verbose=0)
        """, 6, "a Sequential model's last layer floors its input: fit has no gradient for any variable",
            proof=Proof(raises=("ValueError", "No gradients provided for any variable"))),
        invalid("""
            import numpy as np
            import tensorflow as tf
            from tensorflow import keras

            def rounded_error(y_true, y_pred):
                return tf.reduce_mean(tf.abs(y_true - tf.round(y_pred)))

            model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, activation="sigmoid")])
            model.compile(optimizer="sgd", loss=rounded_error)
            model.fit(np.ones((4, 3), "float32"), np.ones((4, 1), "float32"), verbose=0)
        """, 6, "a loss given to compile that rounds the prediction",
            proof=Proof(raises=("ValueError", "No gradients provided for any variable"))),
        valid("""
            import numpy as np
            import tensorflow as tf
            from tensorflow import keras

            base = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
            base.compile(optimizer="sgd", loss="mse")
            history = base.fit(np.ones((4, 3), "float32"), np.ones((4, 2), "float32"), verbose=0)
            inputs = keras.Input((3,))
            classes = keras.layers.Lambda(lambda t: tf.argmax(t, axis=-1))(base(inputs))
            classifier = keras.Model(inputs, classes)
            predicted = classifier.predict(np.ones((4, 3), "float32"), verbose=0)
        """, "argmax at the output of a model used only for inference; its base model is trained",
            proof=Proof(check="assert predicted.dtype.kind == 'i' and len(history.history['loss']) == 1")),
        valid("""
            import numpy as np
            import tensorflow as tf
            from tensorflow import keras

            def binarize(x):
                return x + tf.stop_gradient(tf.floor(x + 0.5) - x)

            model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, activation="sigmoid"),
                                      keras.layers.Lambda(binarize)])
            model.compile(optimizer="sgd", loss="mse")
            before = model.get_weights()[0].copy()
            model.fit(np.ones((4, 3), "float32"), np.full((4, 2), 3.0, "float32"), verbose=0)
        """, "a straight-through estimator in a Lambda layer keeps the gradient",
            proof=Proof(check="assert not np.array_equal(before, model.get_weights()[0])")),
        valid("""
            import numpy as np
            import tensorflow as tf
            from tensorflow import keras

            def rounded_accuracy(y_true, y_pred):
                return tf.reduce_mean(tf.cast(tf.equal(y_true, tf.round(y_pred)), tf.float32))

            model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, activation="sigmoid")])
            model.compile(optimizer="sgd", loss="binary_crossentropy", metrics=[rounded_accuracy])
            history = model.fit(np.ones((4, 3), "float32"), np.ones((4, 1), "float32"), verbose=0)
        """, "rounding in a metric: metrics are not differentiated",
            proof=Proof(check="assert 'rounded_accuracy' in history.history")),
        valid("""
            import numpy as np
            import tensorflow as tf
            from tensorflow import keras

            model = keras.Sequential([keras.Input((3,)),
                                      keras.layers.Lambda(lambda t: tf.cast(tf.argmax(t, axis=-1), tf.float32)[:, None]),
                                      keras.layers.Dense(1)])
            model.compile(optimizer="sgd", loss="mse")
            before = model.get_weights()[0].copy()
            model.fit(np.eye(3, dtype="float32"), np.ones((3, 1), "float32"), verbose=0)
        """, "argmax of the inputs, before any trainable layer: the layers after it learn",
            proof=Proof(check="assert not np.array_equal(before, model.get_weights()[0])")),
        invalid("""
            import tensorflow as tf

            t = tf.range(4, dtype=tf.float32)
            with tf.GradientTape() as tape:
                tape.watch(t)
                total = tf.round(tf.reduce_sum(tf.sin(t)))
            g = tape.gradient(total, t)
        """, 6, "a watched tensor made by a TensorFlow op (`tf.range`) is the source: the rounding cuts it",
            proof=Proof(check="assert g is None")),
        invalid("""
            import tensorflow as tf

            params = {"w": tf.Variable(1.0), "b": tf.Variable(0.5)}
            with tf.GradientTape() as tape:
                loss = tf.round(params["w"] * 2.0 + params["b"])
            grads = tape.gradient(loss, list(params.values()))
        """, 5, "the sources are the variables of a dict: every one of them is read through the rounding",
            proof=Proof(check="assert all(g is None for g in grads)")),
        valid("""
            import tensorflow as tf

            params = {"w": tf.Variable([0.5, -1.0]), "b": tf.Variable(0.5)}
            with tf.GradientTape() as tape:
                mask = tf.cast(params["w"] > 0.0, tf.float32)
                loss = tf.reduce_sum(mask * params["w"]) + params["b"]
            grads = tape.gradient(loss, list(params.values()))
        """, "a dict of variables, a comparison used only as a mask of a differentiable value",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        invalid("""
            import numpy as np
            import tensorflow as tf
            from tensorflow import keras

            class Regressor(keras.Model):
                def __init__(self):
                    super().__init__()
                    self.out = keras.layers.Dense(1)
                    self.huber = keras.losses.Huber()

                def call(self, x):
                    return self.out(x)

                def train_step(self, data):
                    x, y = data
                    with tf.GradientTape() as tape:
                        pred = tf.round(self(x, training=True))
                        loss = self.huber(y, pred)
                    grads = tape.gradient(loss, self.trainable_variables)
                    self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                    return {"loss": loss}

            model = Regressor()
            model.compile(optimizer="sgd")
            model.fit(np.ones((4, 3), "float32"), np.ones((4, 1), "float32"), verbose=0)
        """, 17, "a train_step that rounds the prediction before the model's own loss object: "
                 "a library loss holds no variables, so the only route is through the rounding",
            proof=Proof(raises=("ValueError", "No gradients provided for any variable"))),
        valid("""
            import numpy as np
            import tensorflow as tf
            from tensorflow import keras

            class Regressor(keras.Model):
                def __init__(self):
                    super().__init__()
                    self.out = keras.layers.Dense(1)
                    self.huber = keras.losses.Huber()

                def call(self, x):
                    return self.out(x)

                def train_step(self, data):
                    x, y = data
                    with tf.GradientTape() as tape:
                        pred = self(x, training=True)
                        loss = self.huber(y, pred)
                        rounded = tf.round(pred)
                    grads = tape.gradient(loss, self.trainable_variables)
                    self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                    return {"loss": loss, "rounded": tf.reduce_mean(rounded)}

            model = Regressor()
            model.compile(optimizer="sgd")
            model.fit(np.ones((4, 3), "float32"), np.ones((4, 1), "float32"), verbose=0)
            before = model.get_weights()[0].copy()
            model.fit(np.ones((4, 3), "float32"), np.full((4, 1), 3.0, "float32"), verbose=0)
        """, "the loss object gets the prediction itself; the rounded value is only reported",
            proof=Proof(check="assert not np.array_equal(before, model.get_weights()[0])")),
        invalid("""
            import tensorflow as tf
            from tensorflow import keras

            inp = keras.Input((5,))
            h = keras.layers.Dense(4, activation="relu")(inp)
            model = keras.Model(inp, [keras.layers.Dense(1)(h), keras.layers.Dense(1)(h)])
            x = tf.ones((3, 5))
            with tf.GradientTape() as tape:
                reg, cls = model(x)
                loss = tf.round(tf.reduce_mean(reg ** 2)) + tf.reduce_mean(cls ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
        """, 10, "one output of a two-headed model is rounded: its head gets None (the shared layer and "
                 "the other head still learn)",
            proof=Proof(check="assert grads[2] is None and grads[3] is None and "
                              "all(g is not None for g in grads[:2] + grads[4:])")),
        valid("""
            import tensorflow as tf
            from tensorflow import keras

            inp = keras.Input((5,))
            h = keras.layers.Dense(4, activation="relu")(inp)
            model = keras.Model(inp, [keras.layers.Dense(1)(h), keras.layers.Dense(1)(h)])
            x = tf.ones((3, 5))
            with tf.GradientTape() as tape:
                reg, cls = model(x)
                loss = tf.round(tf.reduce_mean(reg ** 2)) + tf.reduce_mean(reg) + tf.reduce_mean(cls ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
        """, "the rounded output is also used as it is: every head gets a gradient",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        invalid("""
            import numpy as np
            import tensorflow as tf
            from tensorflow import keras

            class AuxClassifier(keras.Model):
                def __init__(self):
                    super().__init__()
                    self.body = keras.layers.Dense(8, activation="relu")
                    self.cls = keras.layers.Dense(3)
                    self.decoder = keras.layers.Dense(4)

                def call(self, x):
                    return self.cls(self.body(x))

                def train_step(self, data):
                    x, y = data
                    with tf.GradientTape() as tape:
                        h = self.body(x)
                        ce = tf.round(tf.reduce_mean(
                            keras.losses.sparse_categorical_crossentropy(y, self.cls(h), from_logits=True)))
                        loss = ce + tf.reduce_mean((self.decoder(h) - x) ** 2)
                    grads = tape.gradient(loss, self.trainable_variables)
                    self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                    return {"loss": loss}

            model = AuxClassifier()
            x = np.ones((4, 4), "float32")
            model.decoder(model.body(x))
            model(x)
            model.compile(optimizer="sgd")
            before = model.cls.kernel.numpy().copy()
            body = model.body.kernel.numpy().copy()
            model.fit(x, np.array([0, 1, 2, 0]), verbose=0)
        """, 19, "the classification loss is rounded, the reconstruction loss is not: the classifier "
                 "head `self.cls` gets None and never learns",
            proof=Proof(check="assert np.array_equal(before, model.cls.kernel.numpy()) and "
                              "not np.array_equal(body, model.body.kernel.numpy())")),
        valid("""
            import numpy as np
            import tensorflow as tf
            from tensorflow import keras

            class AuxClassifier(keras.Model):
                def __init__(self):
                    super().__init__()
                    self.body = keras.layers.Dense(8, activation="relu")
                    self.cls = keras.layers.Dense(3)
                    self.decoder = keras.layers.Dense(4)

                def call(self, x):
                    return self.cls(self.body(x))

                def train_step(self, data):
                    x, y = data
                    with tf.GradientTape() as tape:
                        h = self.body(x)
                        logits = self.cls(h)
                        ce = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True))
                        hits = tf.round(tf.nn.softmax(logits))
                        loss = ce + tf.reduce_mean((self.decoder(h) - x) ** 2)
                    grads = tape.gradient(loss, self.trainable_variables)
                    self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                    return {"loss": loss, "hits": tf.reduce_mean(hits)}

            model = AuxClassifier()
            x = np.ones((4, 4), "float32")
            model.decoder(model.body(x))
            model(x)
            model.compile(optimizer="sgd")
            before = model.cls.kernel.numpy().copy()
            model.fit(x, np.array([0, 1, 2, 0]), verbose=0)
        """, "rounding for a reported value only; both losses reach the classifier head",
            proof=Proof(check="assert not np.array_equal(before, model.cls.kernel.numpy())")),
        invalid("""
            import tensorflow as tf
            import tf_keras

            main_network = tf_keras.Sequential([tf_keras.Input((3,)), tf_keras.layers.Dense(1, use_bias=False)])
            hypernetwork = tf_keras.Sequential([tf_keras.Input((3,)), tf_keras.layers.Dense(3)])
            x = tf.ones((1, 3))
            with tf.GradientTape() as tape:
                main_network.layers[0].kernel = tf.reshape(hypernetwork(x), (3, 1))
                loss = tf.round(tf.reduce_sum(main_network(x)))
            grads = tape.gradient(loss, hypernetwork.trainable_weights)
        """, 9, "a hypernetwork sets the other model's kernel inside the tape (tf_keras), then the output is "
                "rounded: the hypernetwork's variables get None",
            proof=Proof(check="assert all(g is None for g in grads)")),
        invalid("""
            import tensorflow as tf
            from tensorflow import keras

            policy = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
            value = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
            obs = tf.ones((3, 4))
            returns = tf.ones((3,))
            with tf.GradientTape(persistent=True) as tape:
                pg_loss = -tf.reduce_mean(tf.nn.log_softmax(policy(obs))[:, 0] * returns)
                v_loss = tf.reduce_mean((returns - tf.round(tf.squeeze(value(obs), 1))) ** 2)
            found = {}
            for name, loss, net in (("policy", pg_loss, policy), ("value", v_loss, value)):
                found[name] = tape.gradient(loss, net.trainable_variables)
        """, 10, "a loop over (loss, network) pairs: the value network's loss goes through the rounding",
            proof=Proof(check="assert all(g is None for g in found['value']) and "
                              "all(g is not None for g in found['policy'])")),
        invalid("""
            import tensorflow as tf

            def main():
                x = tf.ones((3, 4))
                w = tf.Variable(tf.ones((4,)))

                def score(row):
                    n = tf.cast(row[0], tf.int32)
                    return tf.reduce_sum(row[:n] * w[:n])

                with tf.GradientTape() as tape:
                    scores = tf.round(tf.map_fn(score, x))
                    loss = tf.reduce_mean(scores ** 2)
                return tape.gradient(loss, w)

            grad = main()
        """, 12, "`tf.map_fn` of a closure that reads the variable, its result rounded",
            proof=Proof(check="assert grad is None")),
        valid("""
            import tensorflow as tf

            def main():
                x = tf.ones((3, 4))
                w = tf.Variable(tf.ones((4,)))

                def score(row):
                    n = tf.cast(row[0], tf.int32)
                    return tf.reduce_sum(row[:n] * w[:n])

                with tf.GradientTape() as tape:
                    scores = tf.map_fn(score, tf.round(x))
                    loss = tf.reduce_mean(scores ** 2)
                return tape.gradient(loss, w)

            grad = main()
        """, "the rounding on the data `tf.map_fn` runs the closure on; the closure reads the variable",
            proof=Proof(check="assert grad is not None")),
        invalid("""
            import tensorflow as tf

            inputs = tf.keras.Input((4,))
            features = tf.keras.layers.Dense(3, activation="relu")(inputs)
            scores = tf.keras.layers.Dense(2)(features)
            explain = tf.keras.Model(inputs, [features, scores])

            with tf.GradientTape() as tape:
                feature_map, predictions = explain(tf.ones((1, 4)))
                predicted = tf.argmax(predictions, axis=-1)
            grads = tape.gradient(predicted, feature_map)
        """, 10, "the target is the argmax itself (Grad-CAM asking for the class index, not its score); "
                 "the source is an intermediate output the paths cannot relate to it",
            proof=Proof(check="assert grads is None")),
        invalid("""
            import numpy as np
            import tensorflow as tf


            class Quantized(tf.keras.layers.Layer):
                def build(self, input_shape):
                    self.w = self.add_weight(shape=(input_shape[-1], 3), name="w")

                def call(self, inputs):
                    return tf.round(tf.matmul(inputs, self.w))


            model = tf.keras.Sequential([tf.keras.Input((5,)), tf.keras.layers.Dense(5), Quantized()])
            x = np.ones((4, 5), np.float32)
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(model(x))
            grads = tape.gradient(loss, model.trainable_variables)
        """, 10, "in the call of a layer of the file inside a `keras.Sequential`, after a library layer: no variable of the model gets a gradient",
            proof=Proof(check="assert len(grads) == 3 and all(g is None for g in grads)")),
        valid("""
            import numpy as np
            import tensorflow as tf


            class Quantized(tf.keras.layers.Layer):
                def build(self, input_shape):
                    self.w = self.add_weight(shape=(input_shape[-1], 3), name="w")

                def call(self, inputs):
                    return tf.matmul(tf.round(inputs), self.w)


            model = tf.keras.Sequential([tf.keras.Input((5,)), Quantized(), tf.keras.layers.Dense(2)])
            x = np.ones((4, 5), np.float32)
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(model(x))
            grads = tape.gradient(loss, model.trainable_variables)
        """, "the rounding on the data a layer of a `keras.Sequential` gets: its weight still has a gradient",
            proof=Proof(check="assert len(grads) == 3 and all(g is not None for g in grads)")),
    )

    def _target_without_gradient(self, ctx: Context, reported: set[int]) -> None:
        """The target itself is the result of an op without a gradient, computed in the tape
        (`class_out = tf.argmax(predictions)`, then `tape.gradient(class_out, conv_out)`): None
        for every source but the target itself, whatever the sources are (the paths need not be
        known, as for an intermediate tensor unpacked from a model's outputs)."""
        facts = ctx.facts
        for use in gradient_uses(facts):
            target = use.target
            if not isinstance(target, ast.Name) or use.tape.node is None:
                continue
            defs = use.flow.reaching(target.id, use.call)
            if len(defs) != 1 or defs[0].kind != "assign" or defs[0].value is None \
                    or not any(t is use.tape for t in defs[0].tapes):
                continue
            made = defs[0].value
            what = no_gradient_op(made, facts)
            if what is None or id(made) in reported:
                continue
            if any(isinstance(n, ast.Name) and n.id == target.id for n in ast.walk(use.sources)):
                continue  # the gradient of a tensor with respect to itself is ones
            reported.add(id(made))
            ctx.report(
                made,
                f"{what} has no gradient, and its result `{target.id}` is the target: {use.describe()} on "
                f"{ctx.where(use.call)} returns None for every source. Differentiate a float value computed "
                f"before it (the score the op selects from, say) instead.",
                related=[ctx.related(use.call, f"this {use.method} call gets None")],
            )

    @shares_findings
    def check(self, ctx: Context) -> None:
        reported: set[int] = set()
        # A network detached on purpose and then asked for is TAPE015's wrong variable list.
        for result, found in cuts_of(ctx, NONDIFF, keep=lambda result: not detached_on_purpose(result)):
            reported.add(id(found.node))
            node = found.node
            name = ""
            if isinstance(node, ast.Call):
                name = ast.unparse(node.func).rsplit(".", 1)[-1]
            alternative = _ALTERNATIVES.get(name)
            if alternative is None:
                alternative = "a differentiable formulation"
            what = found.what
            if isinstance(node, ast.Compare):
                what = f"the comparison `{ast.unparse(node)}`"
            has = "blocks the gradient" if name == "stop_gradient" else "has no gradient"
            ctx.report(
                node,
                f"{what} {has}, and every route from `{result.root.label}` to the target goes through "
                f"it: {gradient_phrase(ctx, result)}. If that is intended, leave `{result.root.label}` out of "
                f"the sources; otherwise use {alternative}.",
                related=[ctx.related(result.use.call, f"this {result.use.method} call gets "
                                                      f"{result.none_for()}")],
            )
        for found in part_cuts(ctx):
            node = found.cut.node
            if id(node) in reported:
                continue
            reported.add(id(node))
            name = ast.unparse(node.func).rsplit(".", 1)[-1] if isinstance(node, ast.Call) else ""
            what = f"the comparison `{ast.unparse(node)}`" if isinstance(node, ast.Compare) else found.cut.what
            has = "blocks the gradient" if name == "stop_gradient" else "has no gradient"
            use = found.result.use
            ctx.report(
                node,
                f"{what} {has}, and every route from the variables of {found.part} to the target goes through "
                f"it: {use.describe()} on {ctx.where(use.call)} returns None for them (the other variables of "
                f"`{found.result.root.name}` still get a gradient). Use "
                f"{_ALTERNATIVES.get(name, 'a differentiable formulation')}.",
                related=[ctx.related(use.call, f"this {use.method} call gets None for the variables of {found.part}")],
            )
        self._target_without_gradient(ctx, reported)
        for finding in _keras.findings(ctx, NONDIFF, reported):
            found = finding.cut
            alternative = _ALTERNATIVES.get(_keras.short_name(found.node), "a differentiable formulation")
            has = "blocks the gradient" if _keras.short_name(found.node) == "stop_gradient" else "has no gradient"
            ctx.report(found.node, f"{found.what} {has}{finding.where}: {_keras.consequence(ctx, finding)}. "
                                   f"Use {alternative}.",
                       related=_keras.related(ctx, finding))
