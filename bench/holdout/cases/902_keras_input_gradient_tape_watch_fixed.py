"""Correct look-alike: gradient of a Keras model's output w.r.t. its input with GradientTape.

Source: the answer to Stack Overflow "How do I get the gradient of a keras model with respect to
its inputs?" (mirrored at https://www.whosebug.com/question/4868852/How-do-I-get-the-gradient-of-a-keras-model-with-respect-to-its-inputs
and https://qa.1r1g.com/sf/ask/4171353651). Instead of `K.gradients(model.output, model.input)`
the input data is converted to a float32 tensor, watched on a `tf.GradientTape`, the model is
called directly inside the tape and `t.gradient(output, x_tensor)` is taken. Same model as case
901; the gradient is a tensor of the input's shape.
Changes: small random input; TF_USE_LEGACY_KERAS=1 kept so the model is the Keras 2 one of the
thread (the fix works the same under Keras 3).
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf

cols = 4


def build_model():
    inputs = tf.keras.Input((cols,), name='input')
    layer_1 = tf.keras.layers.Dense(
        10,
        name='layer_1',
        input_dim=cols,
        use_bias=True,
        kernel_initializer=tf.constant_initializer(0.5),
        bias_initializer=tf.constant_initializer(0.1))(inputs)
    outputs = tf.keras.layers.Dense(
        1,
        name='alpha',
        use_bias=True,
        kernel_initializer=tf.constant_initializer(0.1),
        bias_initializer=tf.constant_initializer(0))(layer_1)
    return tf.keras.Model(inputs=inputs, outputs=outputs)


def main():
    input_data = np.random.default_rng(0).normal(size=(8, cols)).astype(np.float32)
    model = build_model()
    x_tensor = tf.convert_to_tensor(input_data, dtype=tf.float32)
    with tf.GradientTape() as t:
        t.watch(x_tensor)
        output = model(x_tensor)
    result = output
    gradients = t.gradient(output, x_tensor)
    print("result shape", result.shape, "gradients", gradients[:2])
    ok = gradients is not None and gradients.shape == x_tensor.shape
    print(f"ORACLE: bug={not ok} grad_is_none={gradients is None}")


if __name__ == "__main__":
    main()
