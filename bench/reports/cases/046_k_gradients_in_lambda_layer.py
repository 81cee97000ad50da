"""A Keras model whose output is the gradient of an expression, computed in a Lambda layer.

Source: tensorflow/tensorflow#31719 "keras.backend.gradients shows error as tf.gradients"
(https://github.com/tensorflow/tensorflow/issues/31719): building the model works, calling it
on a tensor raises "tf.gradients is not supported when eager execution is enabled".
tf.keras is Keras 2 (tf_keras), as in the report.
"""
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import tensorflow as tf
import tensorflow.keras as keras
import tensorflow.keras.backend as K
import tensorflow.keras.layers as layers

tf.keras.backend.set_floatx('float64')


def grad(y, x):
    V = tf.keras.layers.Lambda(lambda z: K.gradients(z[0], z[1]), output_shape=[1])([y, x])
    return V


fixed_input = keras.Input(shape=(2,))

a = fixed_input * fixed_input

b = grad(a, fixed_input)


model = keras.Model(inputs=[fixed_input], outputs=[b])


if __name__ == "__main__":
    try:
        c = model(tf.constant([[2.0, 3.0]], dtype=tf.float64))
        print(c)
        print("ORACLE: bug=False error=none")
    except RuntimeError as exc:
        print("RuntimeError:", str(exc)[:600])
        print("ORACLE: bug=True error=RuntimeError")
