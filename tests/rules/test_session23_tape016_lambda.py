"""TAPE016 in the function of a Keras Lambda layer: reported when the file calls the layer, or a
model whose graph applies it, on eager inputs outside any tf.function. The reported form (tf_keras
and Keras 3) and the model.predict / tf.function look-alikes have TensorFlow proofs among the
rule's examples; these are the near variants, each run under TensorFlow 2.21 (the reported ones
raise "tf.gradients is not supported when eager execution is enabled", the silent ones run)."""

from __future__ import annotations

import inspect

import tapelsp
from tapelsp import Settings


def lines(source: str) -> list[int]:
    text = inspect.cleandoc(source) + "\n"
    found = tapelsp.check_source(text, "t.py", Settings(tensorflow_version="2.21", select=("TAPE016",)))
    return sorted(v.range.start.line + 1 for v in found if v.code == "TAPE016")


def test_a_lambda_made_in_a_helper_model_called_from_an_eager_function_is_reported() -> None:
    assert lines("""
    import os
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    import tensorflow as tf
    import tensorflow.keras.backend as K


    def grad(y, x):
        return tf.keras.layers.Lambda(lambda z: K.gradients(z[0], z[1]))([y, x])


    inputs = tf.keras.Input(shape=(2,))
    model = tf.keras.Model(inputs, grad(inputs * inputs, inputs))


    def run(x):
        return model(x)


    out = run(tf.constant([[2.0, 3.0]]))
    """) == [8]


def test_a_def_given_to_lambda_in_a_sequential_called_eagerly_is_reported() -> None:
    assert lines("""
    import tensorflow as tf
    import keras


    def slope(z):
        return tf.gradients(tf.reduce_sum(z * z), z)[0]


    model = keras.Sequential([keras.Input((2,)), keras.layers.Lambda(slope, output_shape=(2,))])
    out = model(tf.ones((1, 2)))
    """) == [6]


def test_the_lambda_layer_itself_called_on_eager_tensors_is_reported() -> None:
    assert lines("""
    import tensorflow as tf
    import keras

    layer = keras.layers.Lambda(lambda z: tf.gradients(z[0] * z[0], z[1]), output_shape=(1,))
    x = tf.constant([3.0])
    out = layer([x, x])
    """) == [4]


def test_a_model_only_fit_and_evaluated_is_silent() -> None:
    assert lines("""
    import tensorflow as tf
    import keras

    inputs = keras.Input((2,))
    slopes = keras.layers.Lambda(lambda z: tf.gradients(z[0], z[1]), output_shape=(2,))([inputs * inputs, inputs])
    model = keras.Model(inputs, keras.layers.Dense(1)(slopes))
    model.compile(loss="mse")
    model.fit(tf.ones((4, 2)), tf.ones((4, 1)), verbose=0)
    out = model.evaluate(tf.ones((4, 2)), tf.ones((4, 1)), verbose=0)
    """) == []


def test_a_model_applied_to_keras_inputs_and_predicted_is_silent() -> None:
    assert lines("""
    import tensorflow as tf
    import keras

    inputs = keras.Input((2,))
    slopes = keras.layers.Lambda(lambda z: tf.gradients(z[0], z[1]), output_shape=(2,))([inputs * inputs, inputs])
    inner = keras.Model(inputs, slopes)
    outer_in = keras.Input((2,))
    outer = keras.Model(outer_in, inner(outer_in))
    out = outer.predict(tf.ones((1, 2)), verbose=0)
    """) == []


def test_an_outer_model_using_the_model_as_a_layer_called_eagerly_is_reported() -> None:
    assert lines("""
    import tensorflow as tf
    import keras

    inputs = keras.Input((2,))
    slopes = keras.layers.Lambda(lambda z: tf.gradients(z[0], z[1]), output_shape=(2,))([inputs * inputs, inputs])
    inner = keras.Model(inputs, slopes)
    outer_in = keras.Input((2,))
    outer = keras.Model(outer_in, keras.layers.Dense(1)(inner(outer_in)))
    out = outer(tf.ones((1, 2)))
    """) == [5]
