from __future__ import annotations

import ast

from ...facts.dataflow import Def, flow_of, position
from ...facts.names import dotted
from ...model import Severity
from ...versions import VersionRange
from ...analysis.gradcalls import (
    GradCall,
    fast_slice,
    foreign_target,
    gradient_calls,
    mentions,
    recorded,
    tape_item_range_node,
    watch_position,
)
from ...analysis.paths import (DEAD, LIVE, MUTATORS, Evaluator, Root, calls_object as _calls, forward_handed_in,
                               function_resolver, gradient_uses_of, misapplied)
from ...analysis.reach import may_reach
from ...analysis.values import LAYER, MODEL, NUMBER, TENSOR, VARIABLE, is_integer_dtype, values_for
from ..base import Context, Proof, Rule, invalid, shares_findings, valid

NO_GRADIENTS = "No gradients provided for any variable"
_VARIABLE_LISTS = ("trainable_variables", "trainable_weights", "variables", "weights")


# A tf.function training step and the loop that calls it: what the loop hands it.
_STEP_AND_CALLER = """
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

@tf.function
def train_step({given}, labels):
    with tf.GradientTape() as tape:
        loss = {loss}
    return tape.gradient(loss, model.trainable_variables)

def train(batches):
    for images, labels in batches:
{forward}        grads = train_step({passed}, labels)
    return grads

grads = train([(tf.ones((4, 3)), tf.zeros((4,), tf.int32))])
"""


class ForwardBeforeTape(Rule):
    """
    ## What it does
    Finds the forward computation a gradient target depends on when it ran before the
    tape started recording: `pred = model(x)` before `with tf.GradientTape() as tape:`
    while the loss inside the block only uses `pred` and the gradient is taken with
    respect to `model.trainable_variables`; or a value computed from a variable (or a
    watched tensor) before the tape opened (or before the `tape.watch` call), also an
    object a function's tape reads that the module built once from a tensor computed from a
    module-level variable (`dist = tfd.Normal(loc, scale=tf.exp(log_scale))` at import,
    `dist.log_prob(x)` in the tape: `tf.exp` ran before any tape). Forward passes collected
    into a list before the tape count too (`values.append(model(s)[0, 0])` in a rollout loop),
    and so does a Keras layer whose `build` combines its variables into a tensor that `call`
    reads (`self.kernel = self.mu + self.sigma * eps`).

    It only reports when nothing inside the block uses the model or the source again,
    directly or through a function defined in the same file.

    ## Why is this bad?
    The tape records only what runs inside its block, on what it watches at that time.
    The model's forward pass happened before, so the tape has no path from the loss back
    to the variables: `tape.gradient` silently returns `None` for every one of them, and
    `optimizer.apply_gradients` then raises "No gradients provided for any variable".

    ## Example
    ```python
    pred = model(x, training=True)  # not recorded
    with tf.GradientTape() as tape:
        loss = loss_fn(y, pred)
    grads = tape.gradient(loss, model.trainable_variables)  # [None, ...]
    ```

    ## Use instead
    ```python
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
        loss = loss_fn(y, pred)
    grads = tape.gradient(loss, model.trainable_variables)
    ```
    """

    code = "TAPE006"
    name = "forward-pass-before-tape"
    summary = "The forward computation ran before the tape started recording"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    triggers = ("GradientTape", "def build")  # `build` combining variables (`_built_once`): also under fit
    examples = (
        invalid("""
            import tensorflow as tf


            class NoisyDense(tf.keras.layers.Layer):
                def __init__(self, units):
                    super().__init__()
                    self.units = units

                def build(self, input_shape):
                    self.mu = self.add_weight(shape=(input_shape[-1], self.units), initializer="ones")
                    self.sigma = self.add_weight(shape=(input_shape[-1], self.units), initializer="ones")
                    self.kernel = self.mu + self.sigma * tf.random.normal((input_shape[-1], self.units))

                def call(self, x):
                    return tf.matmul(x, self.kernel)


            layer = NoisyDense(2)
            x = tf.ones((3, 4))
            layer(x)
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(layer(x))
            grads = tape.gradient(loss, layer.trainable_variables)
        """, 12, "a layer's kernel combined from its weights once, in build",
            proof=Proof(check="assert all(g is None for g in grads)")),
        valid("""
            import tensorflow as tf


            class NoisyDense(tf.keras.layers.Layer):
                def __init__(self, units):
                    super().__init__()
                    self.units = units

                def build(self, input_shape):
                    self.mu = self.add_weight(shape=(input_shape[-1], self.units), initializer="ones")
                    self.sigma = self.add_weight(shape=(input_shape[-1], self.units), initializer="ones")

                def call(self, x):
                    kernel = self.mu + self.sigma * tf.random.normal(tf.shape(self.mu))
                    return tf.matmul(x, kernel)


            layer = NoisyDense(2)
            x = tf.ones((3, 4))
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(layer(x))
            grads = tape.gradient(loss, layer.trainable_variables)
        """, "the kernel combined in call, on every forward pass",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        invalid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(2)])
            values = []
            for _ in range(3):
                out = model(tf.ones((1, 4)))
                values.append(out[0, 0])
            with tf.GradientTape() as tape:
                loss = tf.add_n(values)
            grads = tape.gradient(loss, model.trainable_variables)
        """, 6, "forward passes collected in a list before the tape",
            proof=Proof(check="assert all(g is None for g in grads)")),
        valid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(2)])
            with tf.GradientTape() as tape:
                values = []
                for _ in range(3):
                    out = model(tf.ones((1, 4)))
                    values.append(out[0, 0])
                loss = tf.add_n(values)
            grads = tape.gradient(loss, model.trainable_variables)
        """, "the list is filled inside the tape",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        invalid(_STEP_AND_CALLER.format(given="logits", loss="loss_fn(labels, logits)",
                                        forward="        logits = model(images)\n", passed="logits"), 14,
                "the caller runs the model and hands its logits to the tf.function whose tape asks for its variables",
                proof=Proof(check="assert all(g is None for g in grads)")),
        valid(_STEP_AND_CALLER.format(given="images", loss="loss_fn(labels, model(images))", forward="",
                                      passed="images"),
              "the step is given the model's inputs and runs the model inside its tape",
              proof=Proof(check="assert all(g is not None for g in grads)")),
        valid("""
            import tensorflow as tf
            import tensorflow_probability as tfp

            loc = tf.Variable(0.5)
            dist = tfp.distributions.Normal(loc=loc, scale=1.0)
            with tf.GradientTape() as tape:
                loss = -tf.reduce_sum(dist.log_prob([0.0, 1.0]))
            g = tape.gradient(loss, loc)
        """, "a TFP distribution made from a variable before the tape keeps the variable and reads it inside",
            proof=Proof(check="assert g is not None")),
        invalid("""
            import tensorflow as tf
            import tensorflow_probability as tfp

            loc = tf.Variable(0.5)
            raw_scale = tf.Variable(0.0)
            q = tfp.distributions.Normal(loc=loc, scale=tf.nn.softplus(raw_scale))
            with tf.GradientTape() as tape:
                loss = -tf.reduce_sum(q.log_prob([0.0, 1.0]))
            g_loc, g_scale = tape.gradient(loss, [loc, raw_scale])
        """, 6, "but a tensor computed for it from another variable before the tape is a constant",
            proof=Proof(check="assert g_loc is not None and g_scale is None")),
        invalid("""
            import tensorflow as tf
            import tensorflow_probability as tfp

            loc = tf.Variable(0.5)
            log_scale = tf.Variable(0.0)
            dist = tfp.distributions.Normal(loc=loc, scale=tf.exp(log_scale))

            def neg_log_likelihood(data):
                with tf.GradientTape() as tape:
                    loss = -tf.reduce_sum(dist.log_prob(data))
                return tape.gradient(loss, [loc, log_scale])

            g_loc, g_log_scale = neg_log_likelihood(tf.constant([0.0, 1.0]))
        """, 6, "a module-level distribution whose scale tf.exp computed at import, read by a function's tape",
            proof=Proof(check="assert g_loc is not None and g_log_scale is None")),
        invalid("""
            import tensorflow as tf
            import tensorflow_probability as tfp


            def fit(data):
                loc = tf.Variable(0.5)
                log_scale = tf.Variable(0.0)
                dist = tfp.distributions.Normal(loc=loc, scale=tf.exp(log_scale))

                def loss():
                    return -tf.reduce_sum(dist.log_prob(data))

                with tf.GradientTape() as tape:
                    value = loss()
                return tape.gradient(value, [loc, log_scale])


            g_loc, g_log_scale = fit(tf.constant([0.0, 1.0]))
        """, 8, "a closure the tape calls reads a distribution whose scale was computed before the tape",
            proof=Proof(check="assert g_loc is not None and g_log_scale is None")),
        valid("""
            import tensorflow as tf
            import tensorflow_probability as tfp

            loc = tf.Variable(0.5)
            log_scale = tf.Variable(0.0)
            dist = tfp.distributions.Normal(loc=loc, scale=tfp.util.DeferredTensor(log_scale, tf.exp))

            def neg_log_likelihood(data):
                with tf.GradientTape() as tape:
                    loss = -tf.reduce_sum(dist.log_prob(data))
                return tape.gradient(loss, [loc, log_scale])

            g_loc, g_log_scale = neg_log_likelihood(tf.constant([0.0, 1.0]))
        """, "the same distribution given a DeferredTensor: tf.exp runs when log_prob reads the scale",
            proof=Proof(check="assert g_loc is not None and g_log_scale is not None")),
        valid("""
            import tensorflow as tf
            import tensorflow_probability as tfp

            loc = tf.Variable(0.5)
            scale = tfp.util.TransformedVariable(1.0, tfp.bijectors.Exp())
            dist = tfp.distributions.Normal(loc=loc, scale=scale)

            def neg_log_likelihood(data):
                with tf.GradientTape() as tape:
                    loss = -tf.reduce_sum(dist.log_prob(data))
                return tape.gradient(loss, [loc, *scale.trainable_variables])

            g_loc, g_log_scale = neg_log_likelihood(tf.constant([0.0, 1.0]))
        """, "a TransformedVariable scale: its variable is read through the bijector inside the tape",
            proof=Proof(check="assert g_loc is not None and g_log_scale is not None")),
        valid("""
            import tensorflow as tf
            import tensorflow_probability as tfp

            loc = tf.Variable(0.5)
            log_scale = tf.Variable(0.0)

            def neg_log_likelihood(data):
                with tf.GradientTape() as tape:
                    dist = tfp.distributions.Normal(loc=loc, scale=tf.exp(log_scale))
                    loss = -tf.reduce_sum(dist.log_prob(data))
                return tape.gradient(loss, [loc, log_scale])

            g_loc, g_log_scale = neg_log_likelihood(tf.constant([0.0, 1.0]))
        """, "the distribution built inside the tape",
            proof=Proof(check="assert g_loc is not None and g_log_scale is not None")),
        invalid("""
            import tensorflow as tf

            def predict_batch(net, images):
                return net(images, training=True)

            def train_step(model, images, labels):
                logits = predict_batch(model, images)
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((logits - labels) ** 2)
                return tape.gradient(loss, model.trainable_variables)

            model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
            grads = train_step(model, tf.ones((3, 2)), tf.zeros((3, 1)))
        """, 7, "the forward pass run by a helper given the model, before the tape",
            proof=Proof(check="assert all(g is None for g in grads)")),
        invalid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()
            mse = tf.keras.losses.MeanSquaredError()
            x = tf.ones([8, 3])
            y = tf.zeros([8, 1])
            pred = model(x, training=True)
            with tf.GradientTape() as tape:
                loss = mse(y, pred)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        """, 8, "the model called before the tape opened",
            proof=Proof(raises=("ValueError", NO_GRADIENTS))),
        invalid("""
            import tensorflow as tf

            class Regressor(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.dense = tf.keras.layers.Dense(1)

                def call(self, x):
                    return self.dense(x)

                def gradients(self, x, y):
                    y_pred = self(x, training=True)
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(tf.square(y - y_pred))
                    return tape.gradient(loss, self.trainable_variables)

            grads = Regressor().gradients(tf.ones([4, 2]), tf.zeros([4, 1]))
        """, 12, "in a Keras model method",
            proof=Proof(check="assert grads and all(g is None for g in grads)")),
        invalid("""
            import tensorflow as tf

            class Classifier(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.dense = tf.keras.layers.Dense(3)
                    self.loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

                def call(self, x):
                    return self.dense(x)

                def gradients(self, x, y):
                    logits = self(x, training=True)
                    with tf.GradientTape() as tape:
                        loss = self.loss_fn(y, logits)
                    return tape.gradient(loss, self.trainable_variables)

            grads = Classifier().gradients(tf.ones([4, 2]), tf.constant([0, 1, 2, 0]))
        """, 13, "the loss object held in an attribute of the model: the loss runs in the tape, not the model",
            proof=Proof(check="assert grads and all(g is None for g in grads)")),
        invalid("""
            import tensorflow as tf

            W = tf.Variable([[0.5], [-0.5]])
            b = tf.Variable([0.1])

            def predict(x):
                return x @ W + b

            x = tf.ones([3, 2])
            logits = predict(x)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.nn.sigmoid(logits))
            dW, db = tape.gradient(loss, [W, b])
        """, 10, "a local model function that reads the variables",
            proof=Proof(check="assert dW is None and db is None")),
        invalid("""
            import tensorflow as tf

            x = tf.constant([1.0, 2.0])
            with tf.GradientTape() as tape:
                y = x * x
                tape.watch(x)
                z = tf.reduce_sum(y)
            g = tape.gradient(z, x)
        """, 5, "a watched tensor whose dependents were computed before the watch",
            proof=Proof(check="assert g is None")),
        valid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            target_model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            states = tf.ones([4, 3])
            target_q = target_model.predict(states, verbose=0)
            with tf.GradientTape() as tape:
                q = model(states)
                loss = tf.reduce_mean(tf.square(target_q - q))
            grads = tape.gradient(loss, model.trainable_variables)
        """, "targets computed with model.predict outside the tape",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        valid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            x = tf.ones([4, 3])
            baseline = model(x)
            with tf.GradientTape() as tape:
                pred = model(x, training=True)
                loss = tf.reduce_mean(tf.square(pred - tf.stop_gradient(baseline)))
            grads = tape.gradient(loss, model.trainable_variables)
        """, "an earlier forward pass used as a constant, the model called again inside",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        valid("""
            import tensorflow as tf

            W = tf.Variable([[0.5], [-0.5]])

            def loss_of(x):
                return tf.reduce_sum(x @ W)

            x = tf.ones([3, 2])
            features = x * 2.0
            with tf.GradientTape() as tape:
                loss = loss_of(features)
            dW = tape.gradient(loss, W)
        """, "data prepared before the tape; the local function inside reads the variable",
            proof=Proof(check="assert dW is not None")),
        valid("""
            import tensorflow as tf

            x = tf.constant([1.0, 2.0])
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = x * x
                z = tf.reduce_sum(y)
            g = tape.gradient(z, x)
        """, "the watch comes first",
            proof=Proof(check="assert g.numpy().tolist() == [2.0, 4.0]")),
        invalid("""
            import tensorflow as tf

            class Agent:
                def __init__(self):
                    self.online = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
                    self.huber = tf.keras.losses.Huber()

                def grads(self, states, targets):
                    q = self.online(states)
                    with tf.GradientTape() as tape:
                        loss = self.huber(targets, q)
                    return tape.gradient(loss, self.online.trainable_variables)

            grads = Agent().grads(tf.ones([4, 3]), tf.zeros([4, 2]))
        """, 9, "a model held in an attribute; the tape only calls a Keras loss held in another attribute",
            proof=Proof(check="assert grads and all(g is None for g in grads)")),
        invalid("""
            import tensorflow as tf

            class Scorer(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.dense = tf.keras.layers.Dense(2)
                    self.temperature = 0.5

                def call(self, x):
                    return self.dense(x)

                def gradients(self, x):
                    z = self(x, training=True)
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(tf.matmul(z, z, transpose_b=True) / self.temperature)
                    return tape.gradient(loss, self.trainable_variables)

            grads = Scorer().gradients(tf.ones([4, 3]))
        """, 13, "the tape reads a number held in an attribute of the model, which runs nothing",
            proof=Proof(check="assert grads and all(g is None for g in grads)")),
        invalid("""
            import tensorflow as tf

            net = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])

            def residual(x):
                return net(x) - 1.0

            x = tf.ones([4, 2])
            r = residual(x)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(r))
            grads = tape.gradient(loss, net.trainable_variables)
        """, 9, "a function of the file that runs the module-level model itself, called before the tape",
            proof=Proof(check="assert all(g is None for g in grads)")),
        invalid("""
            import tensorflow as tf

            net = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(4, activation="tanh"),
                                       tf.keras.layers.Dense(1)])
            xs = tf.ones([5, 1])
            boundary = tf.reduce_sum(net(tf.constant([[0.0], [1.0]])) ** 2)
            with tf.GradientTape() as tape:
                with tf.GradientTape() as inner:
                    inner.watch(xs)
                    u = net(xs)
                du = inner.gradient(u, xs)
                loss = tf.reduce_mean(du ** 2) + boundary
            grads = tape.gradient(loss, net.trainable_variables)
        """, 6, "the model runs in the tape too, but one term of the loss is a forward pass before it: "
                "that term adds nothing (the output bias, which only it reaches, gets None)",
            proof=Proof(check="assert grads[0] is not None and grads[-1] is None")),
        valid("""
            import tensorflow as tf

            net = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(4, activation="tanh"),
                                       tf.keras.layers.Dense(1)])
            xs = tf.ones([5, 1])
            with tf.GradientTape() as tape:
                boundary = tf.reduce_sum(net(tf.constant([[0.0], [1.0]])) ** 2)
                with tf.GradientTape() as inner:
                    inner.watch(xs)
                    u = net(xs)
                du = inner.gradient(u, xs)
                loss = tf.reduce_mean(du ** 2) + boundary
            grads = tape.gradient(loss, net.trainable_variables)
        """, "the boundary term computed in the tape",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        valid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
            states = tf.ones([4, 3])
            next_q = model(states)
            with tf.GradientTape() as tape:
                q = model(states)
                loss = tf.reduce_mean(tf.square(q - (0.5 + 0.9 * next_q)))
            grads = tape.gradient(loss, model.trainable_variables)
        """, "a TD target from the same model before the tape, held fixed on purpose: not a term of the loss",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        invalid("""
            import tensorflow as tf

            actor = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
            critic = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            s, s_next, r = tf.ones([4, 3]), tf.zeros([4, 3]), tf.ones([4, 1])
            v = critic(s)
            with tf.GradientTape(persistent=True) as tape:
                td = r + 0.9 * tf.stop_gradient(critic(s_next)) - v
                actor_loss = -tf.reduce_mean(tf.nn.log_softmax(actor(s)) * tf.stop_gradient(td))
                critic_loss = tf.reduce_mean(td ** 2)
            actor_grads = tape.gradient(actor_loss, actor.trainable_variables)
            critic_grads = tape.gradient(critic_loss, critic.trainable_variables)
        """, 6, "the model runs in the block too, but only under `tf.stop_gradient`: the value the critic's "
                "loss is differentiated through ran before the tape",
            proof=Proof(check="assert all(g is not None for g in actor_grads) and all(g is None for g in critic_grads)")),
        invalid("""
            import tensorflow as tf

            encoder = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(2)])
            decoder = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(4)])
            optimizer = tf.keras.optimizers.Adam()
            x = tf.ones([8, 4])
            code = encoder(x)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(decoder(code) - x))
            variables = encoder.trainable_variables + decoder.trainable_variables
            grads = tape.gradient(loss, variables)
        """, 7, "two models differentiated together, the first one run before the tape: only its gradients are None",
            proof=Proof(check="assert grads[0] is None and grads[1] is None and grads[2] is not None")),
        invalid("""
            import tensorflow as tf

            class Classifier(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.body = tf.keras.layers.Dense(4, activation="relu")
                    self.head = tf.keras.layers.Dense(2)

                def call(self, x):
                    return self.head(self.body(x))

                def gradients(self, x):
                    h = self.body(x)
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(tf.square(self.head(h)))
                    return tape.gradient(loss, self.trainable_variables)

            model = Classifier()
            model(tf.ones([3, 2]))
            grads = model.gradients(tf.ones([3, 2]))
        """, 13, "a layer of the model called before the tape: its variables get None, the head's do not",
            proof=Proof(check="assert grads[0] is None and grads[1] is None and grads[2] is not None")),
        invalid("""
            import tensorflow as tf

            w = tf.Variable([0.5, -0.5])

            def score(row):
                return tf.reduce_sum(tf.tanh(row * w))

            x = tf.ones([3, 2])
            scores = tf.map_fn(score, x)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(scores - 1.0))
            g = tape.gradient(loss, w)
        """, 9, "a function mapped over the rows before the tape reads the variable",
            proof=Proof(check="assert g is None")),
        valid("""
            import tensorflow as tf

            policy = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
            value = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            obs, returns = tf.ones([4, 3]), tf.ones([4])
            baseline = tf.squeeze(value(obs), 1)
            with tf.GradientTape(persistent=True) as tape:
                pg_loss = -tf.reduce_mean(tf.nn.log_softmax(policy(obs))[:, 0] * (returns - baseline))
                v_loss = tf.reduce_mean((returns - tf.squeeze(value(obs), 1)) ** 2)
            for loss, net in ((pg_loss, policy), (v_loss, value)):
                grads = tape.gradient(loss, net.trainable_variables)
                assert all(g is not None for g in grads)
        """, "a baseline from before the tape used as a constant by one loss; each net runs in the tape for its own",
            proof=Proof(check="assert grads")),
    )

    @shares_findings
    def check(self, ctx: Context) -> None:
        for call in gradient_calls(ctx.facts):
            if call.entry is None or call.target is None or call.sources is None or call.asks_zeros:
                continue
            if foreign_target(call) is not None:
                continue  # the target itself was recorded by another tape: TAPE017
            if _misapplied(ctx, call):
                continue  # the gradients go to another object's variables: the list is the slip (TAPE015)
            found = self._models(ctx, call) or self._tensors(ctx, call) or self._unrecorded(ctx, call) \
                or self._passed_in(ctx, call)
            if found is not None:
                pre, message, related = found
                ctx.report(pre.stmt, message, related=related)
        self._built_once(ctx)

    # --- a layer's weights combined once, in `build` ------------------------------------

    def _built_once(self, ctx: Context) -> None:
        """`self.kernel = self.weight_mu + self.weight_sigma * self.eps` in a Keras layer's
        `build`, read by its `call`: `build` runs once, before any tape records, so every call
        uses the same constant tensor and the variables it was computed from get no gradient."""
        facts = ctx.facts
        if not facts.classes:
            return
        values = values_for(ctx)
        for cls in facts.classes.values():
            methods = {m.name: m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
            build, call = methods.get("build"), methods.get("call") or methods.get("__call__")
            if build is None or call is None or values.class_kind(cls) not in (LAYER, MODEL):
                continue
            scope = facts.function_scopes.get(build)
            if scope is None:
                continue
            for stmt in build.body:
                if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                        and isinstance(stmt.targets[0], ast.Attribute) and isinstance(stmt.targets[0].value, ast.Name)
                        and stmt.targets[0].value.id == "self"):
                    continue
                attr = stmt.targets[0].attr
                made = values.value(stmt.value, scope)
                if not made.certain or not made.is_(TENSOR):
                    continue
                weights = [node for node in ast.walk(stmt.value)
                           if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                           and node.value.id == "self" and isinstance(node.ctx, ast.Load)
                           and (held := values.value(node, scope)).is_(VARIABLE) and held.certain and held.trainable]
                if not weights or not _reads_attribute(call, attr) \
                        or any(_stores_attribute(method, attr) for name, method in methods.items()
                               if name not in ("build", "__init__")):
                    continue
                names = ", ".join(dict.fromkeys(f"`self.{w.attr}`" for w in weights))
                ctx.report(stmt, (
                    f"`self.{attr}` is computed in `build` from the variables {names}: `build` runs once, before "
                    f"any tape records, so every `{call.name}` uses the same constant tensor and a tape's gradient "
                    "for those variables is None (an optimizer given only them raises "
                    f"\"{NO_GRADIENTS}\"; Keras warns \"Gradients do not exist for variables\"). Compute "
                    f"`self.{attr}` in `{call.name}`."
                ), related=[ctx.related(call, f"`{call.name}` reads `self.{attr}`")])

    # --- models: `pred = model(x)` before the tape ------------------------------------

    def _models(self, ctx: Context, call: GradCall):
        entry = call.entry
        assert entry is not None and call.target is not None and call.sources is not None
        models = _model_refs(call, call.sources, call.node, 0)
        if not models:
            return None
        slice_ = call.target_slice()
        start = position(entry.node)
        lookup = values_for(ctx)
        for model in models:
            pre = [d for d in slice_ if d.position < start and not recorded(d, entry)
                   and not _deferred(lookup, d)
                   and (_calls(d.value, model) or _runs_through_helper(lookup, call, d, model))]
            if not pre:
                continue
            if _used_later(ctx, call, slice_, model, start, lookup):
                term = _lost_term(call, pre, start)
                if term is not None:
                    return self._lost(ctx, call, model, *term)
                continue
            first = pre[0]
            return first, (
                f"`{ast.unparse(first.stmt).splitlines()[0][:80]}` runs on {ctx.where(first.stmt)}, before the tape "
                f"`{call.name}` opened on {ctx.where(entry.node)}: the tape did not record the forward pass of "
                f"`{model}`, so `{call.label()}` on {ctx.where(call.node)} returns None for every variable of "
                f"`{model}` (an optimizer given them raises \"{NO_GRADIENTS}\"). Move this line into the `with` "
                "block."
            ), [ctx.related(tape_item_range_node(entry), "the tape opens after the forward pass"),
                ctx.related(call.node, "the gradient call that gets None")]
        return None

    # --- the caller ran the forward pass and handed its output in -----------------------

    def _passed_in(self, ctx: Context, call: GradCall):
        use = next(iter(gradient_uses_of(ctx.facts, call.node)), None)
        for root in (use.roots or ()) if use is not None else ():
            found = forward_handed_in(ctx, use, root)
            if found is None:
                continue
            first, function = found
            target = ast.unparse(call.target) if call.target is not None else "the target"
            return first, (
                f"`{ast.unparse(first.stmt).splitlines()[0][:80]}` runs the forward pass of `{root.name}` on "
                f"{ctx.where(first.stmt)}, where no tape records it, and hands its output to `{function.name}`: "
                f"the tape `{call.name}` there computes `{target}` from it as from a constant, so "
                f"`{call.label()}` on {ctx.where(call.node)} returns None for every variable of `{root.name}` (an "
                f"optimizer given them raises \"{NO_GRADIENTS}\"). Call `{root.name}` inside the tape: pass "
                f"`{function.name}` the model's inputs instead."
            ), [ctx.related(call.node, "the gradient call that gets None")]
        return None

    def _lost(self, ctx: Context, call: GradCall, model: str, pre: Def, use: ast.AST):
        entry = call.entry
        assert entry is not None
        return pre, (
            f"`{ast.unparse(pre.stmt).splitlines()[0][:80]}` runs on {ctx.where(pre.stmt)}, before the tape "
            f"`{call.name}` opened on {ctx.where(entry.node)}, and `{pre.name}` is added to the gradient target on "
            f"{ctx.where(use)}: the tape did not record this forward pass of `{model}`, so to `{call.label()}` on "
            f"{ctx.where(call.node)} `{pre.name}` is a constant and its term adds nothing to the gradients (a "
            f"variable of `{model}` that only this term reaches gets None). Move this line into the `with` block."
        ), [ctx.related(tape_item_range_node(entry), "the tape opens after this forward pass"),
            # Not the gradient call: it need not return None (OPT001 reads these ranges for that).
            ctx.related(use, f"`{pre.name}` added to the target")]

    # --- what the gradient paths say: the target is dead only for want of recording ---------

    def _unrecorded(self, ctx: Context, call: GradCall):
        """The gradient paths (analysis/paths.py) find the target certainly DEAD for a source
        root in what the tape recorded, and LIVE once the definitions before the block that
        compute from the root are taken as recorded: those forward passes are why the gradient is
        None, whatever else the block does with the model (calls it under `tf.stop_gradient`, or
        for another target; other terms that reach other variables of the sources). A variable
        of the sources that only such a forward pass reaches (a layer of `self` called before
        the tape, the rest of the model in it) is asked the same question on its own."""
        entry = call.entry
        assert entry is not None
        if call.binding.option("watch_accessed_variables") is False:
            return None
        lookup = values_for(ctx)
        resolver = function_resolver(ctx.facts, ctx.project, ctx.path)
        start = position(entry.node)
        for use in gradient_uses_of(ctx.facts, call.node):
            if not use.roots:
                continue
            for root in use.roots:
                if not root.owner:
                    held = lookup.value(root.node, call.site.scope)
                    if not (held.is_(VARIABLE) and held.trainable):
                        continue  # a tensor: whether it is watched is TAPE010's question
                found, part = _unrecorded_for(ctx, lookup, resolver, use, root, start), None
                if found is None and root.owner:
                    for candidate in _parts_called_before(lookup, use, root, start):
                        found = _unrecorded_for(ctx, lookup, resolver, use, candidate, start)
                        if found is not None:
                            part = candidate
                            break
                if found is None:
                    continue
                where = f"`{ast.unparse(found.stmt).splitlines()[0][:80]}` runs on {ctx.where(found.stmt)}, before " \
                        f"the tape `{call.name}` opened on {ctx.where(entry.node)}"
                gradient = f"`{call.label()}({ast.unparse(use.target)}, {ast.unparse(use.sources)})` on " \
                           f"{ctx.where(call.node)}"
                tape_range = ctx.related(tape_item_range_node(entry), "the tape opens after this computation")
                if part is not None:
                    # Not the gradient call as one that gets None: the rest of its gradients are fine.
                    return found, (
                        f"{where}: the tape did not record this call of `{part.name}`, and no route it recorded "
                        f"leads from `{part.name}` to `{ast.unparse(use.target)}`, so {gradient} returns None for "
                        f"every variable of `{part.name}` (Keras warns \"Gradients do not exist for variables\" and "
                        f"leaves them untrained) while the other variables of `{root.name}` get their gradients. "
                        "Move this line into the `with` block."
                    ), [tape_range]
                source = root.name if root.owner else root.label
                none_for = f"None for every variable of `{source}`" if root.owner else f"None for `{source}`"
                consequence = f" (an optimizer given them raises \"{NO_GRADIENTS}\")" \
                    if root.owner and len(use.roots) == 1 else ""
                return found, (
                    f"{where}: the tape did not record it, and no route it recorded leads from `{source}` to "
                    f"`{ast.unparse(use.target)}`, so {gradient} returns {none_for}{consequence}. Move this line "
                    "into the `with` block."
                ), [tape_range, ctx.related(call.node, "the gradient call that gets None")]
        return None

    # --- variables and watched tensors --------------------------------------------------

    def _tensors(self, ctx: Context, call: GradCall):
        entry = call.entry
        assert entry is not None and call.target is not None and call.sources is not None
        elements = call.sources.elts if isinstance(call.sources, (ast.List, ast.Tuple)) else [call.sources]
        names = [e.id for e in elements if isinstance(e, ast.Name)]
        if not names:
            return None
        slice_ = call.target_slice()
        lookup = values_for(ctx)
        watch_all = call.binding.option("watch_accessed_variables")
        closed = _closure_slice(ctx, call, slice_)
        if closed:
            slice_ = sorted([*slice_, *closed], key=lambda d: d.position)
        for name in names:
            element = next(e for e in elements if isinstance(e, ast.Name) and e.id == name)
            value = lookup.value(element, call.site.scope)
            if value.known and (is_integer_dtype(value.dtype) or value.kind == NUMBER):
                continue
            watched = watch_position(ctx.facts, call, name)
            if watched is None:
                continue
            if value.is_(VARIABLE) and value.trainable and watch_all is not False:
                threshold, after_watch = position(entry.node), False
            elif isinstance(watched, tuple):
                threshold, after_watch = watched, True
            elif value.is_(TENSOR):
                continue  # never watched at all: TAPE010
            else:
                threshold, after_watch = position(entry.node), False
            sources_at_call = _reaching_ids(call, name, call.node)
            if not sources_at_call:
                continue
            pre = [d for d in slice_ if d.position < threshold and mentions(d.value, name)
                   and not _deferred(lookup, d, name)
                   and _reaching_ids(call, name, d.stmt) == sources_at_call]
            if not pre:
                pre = [d for d in slice_ if d.position < threshold
                       and _reads_through_function(ctx, lookup, d, name, call)]
            from_module = False
            if not pre and not after_watch:
                pre = _global_objects(ctx, lookup, call, slice_, name)
                from_module = bool(pre)
            if not pre:
                continue
            if _used_later(ctx, call, slice_, name, threshold, lookup):
                continue
            first = pre[0]
            if after_watch:
                when = f"before `{call.name}.watch({name})` on the line after"
                where_watch = [s for s in call.flow.scope.method_calls.get((call.name, "watch"), ())
                               if position(s.node) == threshold]
                if where_watch:
                    when = f"before `{call.name}.watch({name})` on {ctx.where(where_watch[0].node)}"
                fix = f"Call `{call.name}.watch({name})` before this line."
            elif from_module:
                when = (f"once, when the module ran that line, before the tape `{call.name}` on "
                        f"{ctx.where(entry.node)} recorded anything")
                fix = (f"Build `{first.name}` inside the `with` block, or hand it a tensor that is computed "
                       f"when it is used (`tfp.util.DeferredTensor({name}, {_transform_of(lookup, first, name)})`, "
                       "a `tfp.util.TransformedVariable`).")
            else:
                when = f"before the tape `{call.name}` opened on {ctx.where(entry.node)}"
                fix = "Move this computation into the `with` block."
            return first, (
                f"`{first.name}` is computed from `{name}` on {ctx.where(first.stmt)}, {when}: the tape did not "
                f"record it, so `{call.label()}` on {ctx.where(call.node)} returns None for `{name}`. {fix}"
            ), [ctx.related(tape_item_range_node(entry), f"the tape `{call.name}`"),
                ctx.related(call.node, "the gradient call that gets None")]
        return None


def _lost_term(call: GradCall, pre: list[Def], start) -> tuple[Def, ast.AST] | None:
    """The model runs again in the block, but a forward pass before it is a term of the target
    itself: `loss = residual_loss + bc` (also `loss += bc`, `w * bc`, `-bc`) with `bc` bound
    only by one of the definitions `pre`. Returns that definition and the statement adding it."""
    assert call.target is not None
    pre_ids = {id(d) for d in pre}
    work: list[tuple[ast.expr, ast.AST, int]] = [(call.target, call.node, 0)]
    seen: set[int] = set()
    while work:
        expr, at, depth = work.pop()
        if depth > 8 or id(expr) in seen:
            continue
        seen.add(id(expr))
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
            work += [(expr.left, at, depth + 1), (expr.right, at, depth + 1)]
        elif isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Mult, ast.Div)):
            for factor, other in ((expr.left, expr.right), (expr.right, expr.left)):
                if isinstance(other, ast.Constant) and isinstance(other.value, (int, float)) \
                        and not isinstance(other.value, bool) and other.value != 0:
                    if factor is expr.left or isinstance(expr.op, ast.Mult):
                        work.append((factor, at, depth + 1))
        elif isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
            work.append((expr.operand, at, depth + 1))
        elif isinstance(expr, ast.Name):
            defs = call.flow.reaching(expr.id, at)
            if defs and all(id(d) in pre_ids for d in defs):
                if at is not call.node:
                    return defs[0], at
                continue  # the target itself: the whole loss before the tape, not one term of it
            for d in defs:
                if d.position >= start and d.value is not None and d.kind in ("assign", "augassign"):
                    work.append((d.value, d.stmt, depth + 1))
                    if d.kind == "augassign" and isinstance(d.stmt, ast.AugAssign) \
                            and isinstance(d.stmt.op, (ast.Add, ast.Sub)):
                        work.append((ast.Name(id=d.name, ctx=ast.Load()), d.stmt, depth + 1))
    return None


def _model_refs(call: GradCall, expr: ast.expr, at: ast.AST, depth: int) -> list[str]:
    """`model` for `model.trainable_variables` (also through a name bound to it, `+`, lists)."""
    if depth > 6:
        return []
    if isinstance(expr, ast.Attribute) and expr.attr in _VARIABLE_LISTS:
        base = dotted(expr.value)
        return [base] if base else []
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return _model_refs(call, expr.left, at, depth + 1) + _model_refs(call, expr.right, at, depth + 1)
    if isinstance(expr, (ast.List, ast.Tuple)):
        out: list[str] = []
        for element in expr.elts:
            out += _model_refs(call, element.value if isinstance(element, ast.Starred) else element, at, depth + 1)
        return out
    if isinstance(expr, ast.Name):
        defs = call.flow.reaching(expr.id, at)
        if len(defs) == 1 and defs[0].kind == "assign" and defs[0].value is not None:
            return _model_refs(call, defs[0].value, defs[0].stmt, depth + 1)
    return []


# What a definition can make that computes nothing yet: an object that keeps the variable and
# reads it when used inside the tape (a TFP distribution or bijector, a TransformedVariable, a
# linear operator, a model or layer), or a function defined before the tape and called in it.
_DEFERRED_KINDS = frozenset({"distribution", "bijector", "tfp_variable", "linear_operator", "model", "layer",
                             "module", "instance", "function", "tf_function"})


def _deferred(values, d: Def, name: str | None = None) -> bool:
    """Does the definition make such an object (holding `name` as it is, when given: a tensor
    computed from `name` for it, `tfd.Normal(scale=tf.nn.softplus(raw))`, is made right here)?"""
    if d.value is None:
        return False
    if isinstance(d.value, ast.Lambda):
        return True
    value = values.value(d.value, values.scope_at(d.value))
    if value.kind not in _DEFERRED_KINDS:
        return False
    if name is None or not isinstance(d.value, ast.Call):
        return True
    return _holds_as_is(values, d.value, name, 0)


def _holds_as_is(values, call: ast.Call, name: str, depth: int) -> bool:
    """Every argument of `call` that mentions `name` is `name` itself, or another such object
    holding it as it is (`Sample(Independent(Logistic(loc=loc)))`)."""
    for argument in [*call.args, *(k.value for k in call.keywords)]:
        if isinstance(argument, ast.Starred):
            argument = argument.value
        if not mentions(argument, name) or dotted(argument) == name:
            continue
        if isinstance(argument, (ast.List, ast.Tuple)) and depth < 4:
            wrapper = ast.Call(func=ast.Name(id="list", ctx=ast.Load()), args=list(argument.elts), keywords=[])
            if _holds_as_is(values, wrapper, name, depth + 1):
                continue
            return False
        if isinstance(argument, ast.Call) and depth < 4 \
                and values.value(argument, values.scope_at(argument)).kind in _DEFERRED_KINDS \
                and _holds_as_is(values, argument, name, depth + 1):
            continue
        return False
    return True


def _runs_through_helper(values, call: GradCall, d: Def, model: str) -> bool:
    """`logits = predict_batch(model, images)`: a function (of this file or of the project) that
    is given the model and runs it; or `r = residual(x, t)`, a function of this file that runs
    the module-level model it reads itself."""
    value = d.value
    if not isinstance(value, ast.Call):
        return False
    given = any(dotted(a) == model for a in (*value.args, *(k.value for k in value.keywords)))
    if not given and not _module_function_reads(values.facts, call, value, model):
        return False
    evaluator = Evaluator(values.facts, call.flow, call.entry, Root(model, True, value), "touch", values=values)
    return evaluator.call_user(value, [*value.args, *(k.value for k in value.keywords)], d.stmt) == LIVE and \
        not evaluator.maybe_cuts


def _module_function_reads(facts, call: GradCall, value: ast.Call, model: str) -> bool:
    """`value` calls, by its plain name, the one module-level function of that name, which
    reads the global `model` (a plain name that neither the gradient call's scope nor that
    function binds)."""
    if "." in model or _is_local(call, model) or not isinstance(value.func, ast.Name):
        return False
    found = [fn for fn, scope in facts.function_scopes.items()
             if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name == value.func.id
             and scope.parent is not None and scope.parent.kind == "module"]
    return len(found) == 1 and model in facts.function_scopes[found[0]].loads and not _binds(found[0], model)


def _used_later(ctx: Context, call: GradCall, slice_: list[Def], name: str, threshold, lookup) -> bool:
    """Does anything from `threshold` on, on the way to the target, read `name` (directly, or
    through a call that might)?"""
    local = _is_local(call, name)
    values: list[tuple[ast.AST, ast.AST]] = [(d.value, d.stmt) for d in slice_
                                            if d.position >= threshold and d.value is not None]
    if call.inside_entry() and call.target is not None:
        values.append((call.target, call.node))
    for d in slice_:
        if d.position >= threshold and d.kind in ("with", "import", "handler", "def"):
            return True  # bound by something we do not follow
    # Containers filled by `append` & co. are invisible to the def-use layer: whatever was put
    # in them inside the block may run the model too.
    mutated = _mutated_names(call)
    if any(d.name in mutated for d in slice_):
        return True
    head = name.split(".")[0]
    for value, _stmt in values:
        if _mentions_model(lookup, value, name, call.flow.scope) or may_reach(lookup, value, head, local,
                                                                               call.flow.scope):
            return True
        if "." in name and _calls_method_of(lookup, value, head, call.flow.scope):
            return True  # `self.compute_loss(...)` may call `self.actor` itself
    return False


def _mentions_model(lookup, value: ast.AST, name: str, scope) -> bool:
    """Does `value` name the model `name` other than to read an attribute of it that the value
    model knows as a library object (`self.loss_fn(y, pred)` with `self.loss_fn` a Keras loss:
    the loss runs, not the model)? A plain name only; a dotted one is `mentions`."""
    if "." in name:
        return mentions(value, name)
    library_reads: set[int] = set()
    for node in ast.walk(value):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name:
            held = lookup.value(node, scope)
            if _library_object(held) or (held.certain and held.kind in _PLAIN_KINDS):
                library_reads.add(id(node.value))
    return any(isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)
               and id(node) not in library_reads for node in ast.walk(value))


def _library_object(value) -> bool:
    """An object a library constructor made (a Keras loss or metric), known for certain."""
    return value.certain and isinstance(value.ref, str) and value.kind in _LIBRARY_OBJECT_KINDS


_LIBRARY_OBJECT_KINDS = frozenset({"loss", "metric"})

# What reading an attribute of the model can give that runs nothing (`self.temperature`, a
# number set in `__init__`): not a forward pass. A tensor or variable attribute is not one of
# these (the gradient for that variable would not be None).
_PLAIN_KINDS = frozenset({"number", "str", "none", "shape", "dtype"})


_MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "appendleft", "write",
                       "assign", "assign_add", "assign_sub", "scatter_update", "put"})


def _mutated_names(call: GradCall) -> set[str]:
    return {receiver for (receiver, method) in call.flow.scope.method_calls if method in _MUTATORS}


def _calls_method_of(lookup, value: ast.AST, head: str, scope) -> bool:
    """Does `value` call something reached through `head` (`self.compute_loss(...)`) that is not
    an object the value model knows a library constructor made (`self.huber(y, q)`, a Keras
    loss: the loss runs, not another attribute of `self`)?"""
    for node in ast.walk(value):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            chain = dotted(node.func)
            if chain is not None and chain.startswith(head + ".") \
                    and not _library_object(lookup.value(node.func, scope)):
                return True
    return False


def _is_local(call: GradCall, name: str) -> bool:
    head = name.split(".")[0]
    scope = call.flow.scope
    if scope.kind not in ("function", "lambda") or head in scope.globals:
        return False
    return bool(call.flow.definitions(head))


def _reaching_ids(call: GradCall, name: str, at: ast.AST) -> frozenset[int]:
    defs = call.flow.reaching(name, at)
    if not defs and not call.flow.definitions(name):
        return frozenset({0})  # a global or closure: the same object everywhere in this scope
    return frozenset(id(d) for d in defs)


def _closure_slice(ctx: Context, call: GradCall, slice_: list[Def]) -> list[Def]:
    """The definitions a closure of the gradient call's scope reads when the target's computation
    calls it (`value = loss()`, `def loss(): return -dist.log_prob(x)`): what its free names hold
    at that call, which the target's slice does not show."""
    flow = call.flow
    seen = {id(d) for d in slice_}
    out: list[Def] = []
    for d in slice_:
        if d.value is None or d.stmt not in _recorded_statements(call):
            continue
        for node in ast.walk(d.value):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            defs = flow.reaching(node.func.id, d.stmt)
            if len(defs) != 1 or defs[0].kind != "def" or not isinstance(defs[0].stmt, ast.FunctionDef):
                continue
            fn = defs[0].stmt
            if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(fn)):
                continue
            free = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                    and not _binds(fn, n.id)}
            for free_name in sorted(free):
                for found in fast_slice(flow, ast.Name(id=free_name, ctx=ast.Load()), d.stmt):
                    if id(found) not in seen:
                        seen.add(id(found))
                        out.append(found)
    return out


def _recorded_statements(call: GradCall) -> set[ast.stmt]:
    """The statements of the gradient call's tape block (not in nested functions)."""
    entry = call.entry
    found = call.__dict__.get("_block_statements")
    if found is None:
        found = call.__dict__["_block_statements"] = {n for n in ast.walk(entry.node) if isinstance(n, ast.stmt)} \
            if entry is not None else set()
    return found


def _reads_through_function(ctx: Context, lookup, d: Def, name: str, call: GradCall) -> bool:
    """`logits = predict(x)` where `predict` is a function of this file that reads the global `name`."""
    if d.value is None or _is_local(call, name):
        return False
    for node in ast.walk(d.value):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            for fn, scope in ctx.facts.function_scopes.items():
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name == node.func.id \
                        and scope.parent is not None and scope.parent.kind == "module" \
                        and name in scope.loads and not _binds(fn, name):
                    return True
    return False


def _binds(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    args = fn.args
    params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}
    if name in params:
        return True
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return True
    return False


def _global_objects(ctx: Context, lookup, call: GradCall, slice_: list[Def], name: str) -> list[Def]:
    """A function's tape reads a module-level object (a TFP distribution, a bijector, ...) that
    the module built once from a tensor it computed from the module-level source `name`:
    `joint = tfd.Normal(loc, scale=tf.exp(logscale))` at import, `joint.log_prob(x)` in the
    tape. The module ran that line before any call of the function could read `joint`, so
    `tf.exp` ran before the tape: its definition, when both names have one definition in the
    file and no function rebinds them (`global`)."""
    scope = call.flow.scope
    outer = scope.parent
    while outer is not None and outer.kind == "class":
        outer = outer.parent
    if scope.kind != "function" or outer is None or outer.kind != "module" or _is_local(call, name):
        return []
    facts = ctx.facts
    module_flow = flow_of(facts, facts.module)
    if any(name in s.globals for s in facts.scopes):
        return []
    sources = module_flow.definitions(name)
    if len(sources) != 1 or sources[0].kind != "assign":
        return []
    read: list[str] = []
    expressions = [d.value for d in slice_ if d.value is not None]
    if call.target is not None:
        expressions.append(call.target)
    for expr in expressions:
        for node in ast.walk(expr):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id != name \
                    and node.id not in read and not call.flow.definitions(node.id):
                read.append(node.id)
    found: list[Def] = []
    for global_name in read:
        if any(global_name in s.globals for s in facts.scopes):
            continue
        defs = module_flow.definitions(global_name)
        if len(defs) != 1:
            continue
        d = defs[0]
        if d.kind != "assign" or d.value is None or not mentions(d.value, name) \
                or d.position < sources[0].position:
            continue
        if _deferred(lookup, d) and not _deferred(lookup, d, name):
            found.append(d)
    return found


def _transform_of(lookup, d: Def, name: str) -> str:
    """How the definition computes its tensor from `name`: `tf.exp` for `scale=tf.exp(name)`."""
    for node in ast.walk(d.value):
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
                and dotted(node.args[0]) == name and dotted(node.func) is not None \
                and lookup.value(node, lookup.scope_at(node)).kind not in _DEFERRED_KINDS:
            return dotted(node.func)
    return "fn"


class _Moved(Evaluator):
    """The recorded-mode evaluator, with some definitions before the block taken as recorded:
    what the tape would see had those lines run inside it."""

    moved: frozenset[int] = frozenset()

    def _define(self, d: Def, name: str) -> int:
        if id(d) not in self.moved or self.all_recorded:
            return super()._define(d, name)
        self.all_recorded = True
        try:
            return super()._define(d, name)
        finally:
            self.all_recorded = False


def _unrecorded_for(ctx: Context, lookup, resolver, use, root: Root, start) -> Def | None:
    """The first definition before the block that computes, from `root`, a value the target
    reads, when the target is certainly DEAD for `root` as recorded and LIVE with those
    definitions recorded."""
    def evaluator(cls=Evaluator, **options):
        return cls(ctx.facts, use.flow, use.tape, root, "recorded", resolve_function=resolver, values=lookup,
                   **options)

    actual = evaluator()
    if actual.target(use.target, use.call, use.recorded) != DEAD or actual.maybe_cuts:
        return None
    slice_ = fast_slice(use.flow, use.target, use.call)
    before = [d for d in slice_ + _filled_before(use, slice_, start)
              if d.position < start and not d.recorded_by(use.tape) and d.value is not None
              and d.kind in ("assign", "augassign") and not _deferred(lookup, d)]
    if not before:
        return None
    everything = evaluator(all_recorded=True)
    pre = [d for d in before if everything.value(d.value, d.stmt) == LIVE]
    if not pre or not all(lookup.value(d.value, lookup.scope_at(d.value)).is_(TENSOR) for d in pre):
        # Only a tensor computed before the block is a constant to the tape for certain; an
        # object the value model does not know (`dist.copy()` of a TFP distribution) may keep
        # the variable and read it in the block.
        return None
    moved = evaluator(_Moved)
    moved.moved = frozenset(id(d) for d in pre)
    if moved.target(use.target, use.call, use.recorded) != LIVE:
        return None
    return min(pre, key=lambda d: d.position)


def _reads_attribute(function: ast.AST, attr: str) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.value, ast.Name)
               and n.value.id == "self" and isinstance(n.ctx, ast.Load) for n in ast.walk(function))


def _stores_attribute(function: ast.AST, attr: str) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.value, ast.Name)
               and n.value.id == "self" and isinstance(n.ctx, ast.Store) for n in ast.walk(function))


def _filled_before(use, slice_: list[Def], start) -> list[Def]:
    """The definitions that what went into the containers of the slice reads (`values.append(
    out[0, 0])` in the loop before the tape: `out = model(state)`; `losses.append(v * 2.0)` in
    the block, `v` from `for v in values`): the def-use layer sees a container's `values = []`,
    not what was put in it. Containers filled before the gradient call, followed through the
    containers they read in turn."""
    method_calls = use.flow.scope.method_calls
    until = position(use.call)
    seen = {id(d) for d in slice_}
    found: list[Def] = []
    pending = list(dict.fromkeys(d.name for d in slice_))
    names = set(pending)
    while pending:
        name = pending.pop()
        for method in MUTATORS:
            for site in method_calls.get((name, method), ()):
                if position(site.node) >= until:
                    continue
                for arg in [*site.node.args, *(k.value for k in site.node.keywords)]:
                    for d in fast_slice(use.flow, arg, site.node):
                        if id(d) in seen:
                            continue
                        seen.add(id(d))
                        found.append(d)
                        if d.name not in names:
                            names.add(d.name)
                            pending.append(d.name)
    found.sort(key=lambda d: d.position)
    return found


def _parts_called_before(lookup, use, root: Root, start) -> list[Root]:
    """`self.body(x)` before the block, the gradient asked for `self.trainable_variables`: the
    layers and models held in attributes of the (Keras) model `root` that a definition before
    the block calls; each holds some of the root's variables."""
    base = root.node.value if isinstance(root.node, ast.Attribute) and root.node.attr in _VARIABLE_LISTS \
        else root.node
    owner = lookup.value(base, use.site.scope)
    if not owner.certain or owner.kind not in (MODEL, LAYER):
        return []
    parts: list[Root] = []
    seen: set[str] = set()
    for d in fast_slice(use.flow, use.target, use.call):
        if d.position >= start or d.recorded_by(use.tape) or d.value is None:
            continue
        for node in ast.walk(d.value):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            name = dotted(node.func)
            if name is None or dotted(node.func.value) != root.name or name in seen:
                continue
            held = lookup.value(node.func, lookup.scope_at(node))
            if held.certain and held.kind in (MODEL, LAYER):
                seen.add(name)
                parts.append(Root(name, True, node.func))
    return parts


def _misapplied(ctx: Context, call: GradCall) -> bool:
    """Are this call's gradients applied to another object's variables, the one the tape computes
    the target with (analysis/paths.misapplied)?"""
    return any(misapplied(ctx, use, root) is not None for use in gradient_uses_of(ctx.facts, call.node)
               for root in use.roots or ())

