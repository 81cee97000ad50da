"""TAPE009 beyond its examples: sources the path analysis must read (a watched tensor made by a
TensorFlow op or by arithmetic, a dict of variables) and library loss objects held by the model."""

from __future__ import annotations

import textwrap

import tapelsp
from tapelsp import Settings


def _lines(source: str, code: str = "TAPE009") -> list[int]:
    found = tapelsp.check_source(textwrap.dedent(source), None, Settings(tensorflow_version="2.21"))
    return [v.range.start.line + 1 for v in found if v.code == code]


def test_watched_tensor_made_by_arithmetic_is_a_source():
    assert _lines("""
        import numpy as np
        import tensorflow as tf

        raw = np.ones((2, 3), np.uint8)
        images = tf.cast(tf.constant(raw), tf.float32) / 255.0
        with tf.GradientTape() as tape:
            tape.watch(images)
            top = tf.round(tf.reduce_max(images * 3.0, axis=1))
        sal = tape.gradient(top, images)
    """) == [9]


def test_watched_range_through_a_function_is_a_source():
    assert _lines("""
        import tensorflow as tf

        def forecast(t, level):
            return level + 0.1 * tf.sin(t)

        t = tf.range(12, dtype=tf.float32)
        level = tf.Variable(1.0)
        with tf.GradientTape() as tape:
            tape.watch(t)
            total = tf.round(tf.reduce_sum(forecast(t, level)))
        dt = tape.gradient(total, t)
    """) == [11]


def test_straight_through_on_a_watched_range_is_silent():
    assert _lines("""
        import tensorflow as tf

        t = tf.range(12, dtype=tf.float32)
        with tf.GradientTape() as tape:
            tape.watch(t)
            s = tf.reduce_sum(tf.sin(t))
            total = s + tf.stop_gradient(tf.round(s) - s)
        dt = tape.gradient(total, t)
    """) == []


def test_dict_of_variables_values_as_sources():
    assert _lines("""
        import tensorflow as tf

        params = {"w": tf.Variable(1.0, name="w")}
        with tf.GradientTape() as tape:
            loss = tf.round(params["w"] * 2.0)
        grads = tape.gradient(loss, list(params.values()))
    """) == [6]


def test_dict_of_variables_one_of_them_still_differentiable_is_silent():
    # The gradient of `b` is real; the container is one source as a whole: silent.
    assert _lines("""
        import tensorflow as tf

        params = {"w": tf.Variable(1.0), "b": tf.Variable(0.5)}
        with tf.GradientTape() as tape:
            loss = tf.round(params["w"] * 2.0) + params["b"]
        grads = tape.gradient(loss, list(params.values()))
    """) == []


def test_dict_holding_a_variable_made_elsewhere_is_not_a_source_of_its_own():
    # `params` holds `w`, read by the target by its own name: the dict is not a fresh container.
    assert _lines("""
        import tensorflow as tf

        w = tf.Variable(1.0)
        params = {"w": w, "b": tf.Variable(0.5)}
        with tf.GradientTape() as tape:
            loss = tf.round(w * 2.0) + w
        grads = tape.gradient(loss, list(params.values()))
    """) == []


TRAIN_STEP = """
import tensorflow as tf
import keras

class Classifier(keras.Model):
    def __init__(self):
        super().__init__()
        self.body = keras.layers.Dense(8, activation="relu")
        self.head = keras.layers.Dense(3)
        self.loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def call(self, x, training=False):
        return self.head(self.body(x))

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            logits = {logits}
            loss = self.loss_fn(y, logits)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {{"loss": loss}}
"""


def test_train_step_loss_object_attribute_holds_no_variables():
    assert _lines(TRAIN_STEP.format(logits="tf.cast(self(x, training=True) > 0, tf.float32)")) == [18]
    assert _lines(TRAIN_STEP.format(logits="tf.round(self(x, training=True))")) == [18]


def test_train_step_loss_object_on_the_prediction_is_silent():
    assert _lines(TRAIN_STEP.format(logits="self(x, training=True)")) == []


def test_loss_object_built_from_a_model_argument_is_not_assumed_empty():
    # A loss whose constructor is given something that is not plain data (here a layer) may hold
    # its variables: calling it stays a possible route.
    source = TRAIN_STEP.replace(
        "keras.losses.SparseCategoricalCrossentropy(from_logits=True)",
        "keras.losses.LossFunctionWrapper(self.head)")
    assert _lines(source.format(logits="tf.round(self(x, training=True))")) == []


TWO_HEADS = """
import tensorflow as tf
from tensorflow import keras

inp = keras.Input((5,))
h = keras.layers.Dense(4, activation="relu")(inp)
model = keras.Model(inp, [keras.layers.Dense(1)(h), keras.layers.Dense(1)(h)])
x = tf.ones((3, 5))
with tf.GradientTape() as tape:
{body}
grads = tape.gradient(loss, model.trainable_variables)
"""


def _two_heads(*lines: str) -> list[int]:
    return _lines(TWO_HEADS.format(body="\n".join("    " + line for line in lines)))


def test_one_head_of_a_functional_model_cut():
    assert _two_heads("reg, cls = model(x)",
                      "loss = tf.round(tf.reduce_mean(reg ** 2)) + tf.reduce_mean(cls ** 2)") == [11]
    assert _two_heads("reg = model(x)[0]",
                      "cls = model(x)[1]",
                      "loss = tf.cast(tf.argmax(reg, axis=-1), tf.float32) + tf.reduce_mean(cls)") == [12]


def test_heads_of_a_functional_model_both_reached_is_silent():
    assert _two_heads("reg, cls = model(x)",
                      "loss = tf.round(tf.reduce_mean(reg ** 2)) + tf.reduce_mean(reg + cls)") == []
    # The outputs as one list: which one is read is not followed, so silence.
    assert _two_heads("outs = model(x)",
                      "loss = tf.round(tf.reduce_mean(outs[0])) + tf.reduce_mean(outs[1])") == []


SUBCLASS = """
import tensorflow as tf
import keras

class AuxClassifier(keras.Model):
    def __init__(self):
        super().__init__()
        self.body = keras.layers.Dense(16, activation="relu")
        self.cls = keras.layers.Dense(3)
        self.decoder = keras.layers.Dense(6)
{extra}
    def call(self, x, training=False):
        return self.cls(self.body(x))

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            h = self.body(x, training=True)
            ce = tf.round(tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, self.cls(h))))
            rec = tf.reduce_mean((self.decoder(h) - x) ** 2)
            loss = {loss}
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {{"loss": loss}}
"""


def test_layer_of_a_subclassed_model_reached_only_through_the_cut():
    assert _lines(SUBCLASS.format(extra="", loss="ce + 0.1 * rec")) == [19]


def test_layer_of_a_subclassed_model_also_reached_otherwise_is_silent():
    assert _lines(SUBCLASS.format(extra="", loss="ce + 0.1 * rec + tf.reduce_mean(self(x))")) == []
    assert _lines(SUBCLASS.format(extra="", loss="ce + 0.1 * rec + tf.reduce_mean(self.call(x))")) == []


def test_frozen_layer_of_a_subclassed_model_is_silent():
    # Its variables are not among the trainable ones: nothing gets None.
    assert _lines(SUBCLASS.format(extra="        self.cls.trainable = False\n", loss="ce + 0.1 * rec")) == []


TEMPERATURE = """
import tensorflow as tf
import keras

class Contrastive(keras.Model):
    def __init__(self, temperature=0.5):
        super().__init__()
        self.encoder = keras.layers.Dense(8)
        self.temperature = temperature

    def call(self, x):
        return self.encoder(x)

    def train_step(self, data):
        with tf.GradientTape() as tape:
            z = {z}
            sim = tf.matmul(z, z, transpose_b=True) / self.temperature
            loss = tf.reduce_mean(sim)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {{"loss": loss}}

model = Contrastive()
"""


def test_number_attribute_of_the_model_holds_no_variable():
    assert _lines(TEMPERATURE.format(z="tf.cast(self(data) > 0, tf.float32)")) == [16]
    assert _lines(TEMPERATURE.format(z="self(data)")) == []


def test_attribute_of_the_model_given_a_variable_is_followed():
    source = TEMPERATURE.replace("model = Contrastive()", "model = Contrastive(tf.Variable(0.5))")
    assert _lines(source.format(z="tf.cast(self(data) > 0, tf.float32)")) == []


HYPER = """
import tensorflow as tf
import tf_keras

main_network = tf_keras.Sequential([tf_keras.Input((3,)), tf_keras.layers.Dense(1, use_bias=False)])
hypernetwork = tf_keras.Sequential([tf_keras.Input((3,)), tf_keras.layers.Dense(3)])
x = tf.ones((1, 3))
with tf.GradientTape() as tape:
{store}
    loss = tf.round(tf.reduce_sum(main_network(x)))
grads = tape.gradient(loss, hypernetwork.trainable_weights)
"""


def test_model_given_a_live_value_inside_the_tape_carries_it():
    assert _lines(HYPER.format(store="    main_network.layers[0].kernel = tf.reshape(hypernetwork(x), (3, 1))")) == [10]


def test_model_given_a_value_before_the_tape_is_not_assumed_live():
    """No route from the hypernetwork is claimed; what remains is that the target is a rounding
    itself, whose gradient is None for any source (TF 2.21), said without naming a route."""
    source = HYPER.replace("with tf.GradientTape() as tape:\n{store}\n",
                           "main_network.layers[0].kernel = tf.reshape(hypernetwork(x), (3, 1))\n"
                           "with tf.GradientTape() as tape:\n")
    found = [v for v in tapelsp.check_source(textwrap.dedent(source), None, Settings(tensorflow_version="2.21"))
             if v.code == "TAPE009"]
    assert [v.range.start.line + 1 for v in found] == [10]
    assert "its result `loss` is the target" in found[0].message and "every route" not in found[0].message


PAIRS = """
import tensorflow as tf
from tensorflow import keras

policy = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
value = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
obs = tf.ones((3, 4))
with tf.GradientTape(persistent=True) as tape:
    pg_loss = tf.reduce_mean(policy(obs))
    v_loss = tf.reduce_mean({v})
for loss, net in {pairs}:
    grads = tape.gradient(loss, net.trainable_variables)
"""


def test_loop_over_loss_and_network_pairs_is_unrolled():
    assert _lines(PAIRS.format(v="tf.round(value(obs))", pairs="((pg_loss, policy), (v_loss, value))")) == [10]
    assert _lines(PAIRS.format(v="value(obs)", pairs="((pg_loss, policy), (v_loss, value))")) == []


def test_loop_over_pairs_not_literal_is_not_unrolled():
    assert _lines(PAIRS.format(v="tf.round(value(obs))", pairs="zip([pg_loss, v_loss], [policy, value])")) == []


def test_closure_run_by_map_fn_carries_the_variable_it_reads():
    # tf.map_fn's result is what its function returns; the closure reads `w` of the scope
    # that defines it (TF 2.21: the gradient of the rounded result is None).
    assert _lines("""
        import tensorflow as tf

        def main():
            x = tf.ones((3, 4))
            w = tf.Variable(tf.ones((4,)))
            with tf.GradientTape() as tape:
                h = x * w
                def refine(row):
                    return tf.reduce_sum(row * h)
                scores = tf.round(tf.map_fn(refine, x))
                loss = tf.reduce_mean(scores ** 2)
            return tape.gradient(loss, w)
    """) == [11]


def test_non_differentiable_op_inside_a_map_fn_lambda():
    assert _lines("""
        import tensorflow as tf

        def main():
            x = tf.ones((3, 4))
            w = tf.Variable(tf.ones((4,)))
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.map_fn(lambda r: tf.round(tf.reduce_sum(r * w)), x))
            return tape.gradient(loss, w)
    """) == [8]


def test_closure_called_directly_reads_the_root_of_its_scope():
    assert _lines("""
        import tensorflow as tf

        def main():
            x = tf.ones((3, 4))
            w = tf.Variable(tf.zeros((4,)))

            def refine(row):
                return tf.reduce_sum(row * w)

            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.round(refine(x)) ** 2)
            return tape.gradient(loss, w)
    """) == [12]


def test_while_loop_whose_body_is_differentiable_stays_silent():
    assert _lines("""
        import tensorflow as tf

        def main():
            w = tf.Variable(2.0)
            x = tf.round(tf.constant(1.5))
            with tf.GradientTape() as tape:
                _, v = tf.while_loop(lambda k, v: k < 3, lambda k, v: (k + 1, tf.tanh(v * w)), [0, x])
                out = tf.map_fn(lambda r: r * w, tf.round(tf.ones((3,))))
                loss = v + tf.reduce_sum(out)
            return tape.gradient(loss, w)
    """) == []


def test_sources_kept_by_an_object_of_this_file_are_the_variables_it_was_given():
    # `opt.params` is `model.trainable_variables`, stored by the class's __init__
    # (bench/inject mutant of dev/pkg_195_built_mlp_params; TF 2.21 returns None for each).
    source = """
        import tensorflow as tf

        class MomentumSGD:
            def __init__(self, params, lr=0.05):
                self.params = params
                self.lr = lr

            def step(self, grads):
                for p, g in zip(self.params, grads):
                    p.assign_sub(self.lr * g)

        def fit(model, x, y):
            opt = MomentumSGD(model.trainable_variables)
            with tf.GradientTape() as tape:
                loss = tf.round(tf.reduce_mean((model(x) - y) ** 2))
            opt.step(tape.gradient(loss, opt.params))
    """
    assert _lines(source) == [16]
    # Without the rounding: nothing to report.
    assert _lines(source.replace("tf.round(", "(")) == []


def test_an_inner_tapes_jacobian_holds_no_variable_of_another_model():
    # bench/inject mutant of dev/059: `decoder.predict` in the outer tape; the Jacobian of the
    # encoder's code does not read the decoder, so the decoder's gradients are all None (TF 2.21).
    source = """
        import tensorflow as tf

        encoder = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(3)])
        decoder = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(8)])

        def train_step(x):
            params = encoder.trainable_variables + decoder.trainable_variables
            with tf.GradientTape() as param_tape:
                with tf.GradientTape() as jac_tape:
                    jac_tape.watch(x)
                    code = encoder(x)
                jac = jac_tape.batch_jacobian(code, x)
                recon = decoder.predict(code, verbose=0)
                loss = tf.reduce_mean((recon - x) ** 2) + tf.reduce_mean(jac ** 2)
            return param_tape.gradient(loss, params)
    """
    assert _lines(source, "TAPE008") == [14]
