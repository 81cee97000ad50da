"""Optimising a function of its input with Adam inside a tf.function, the input a plain tensor.

Source: tensorflow/tensorflow#31273 "[TF2.0] Use Adam and GradientTape() to optimize own function
wrt to input (no keras model)" (https://github.com/tensorflow/tensorflow/issues/31273):
`opt.apply_gradients(zip(gradients, input))` fails. The answer (WindQAQ): the optimizer needs
(gradient, variable) pairs, and `input` is a tensor, not a list of variables.
"""
import tensorflow as tf


@tf.function
def train(opt, input):
    with tf.GradientTape() as tape:
        tape.watch(input)
        loss = tf.reduce_mean(input)
    gradients = tape.gradient(loss, input)
    opt.apply_gradients(zip(gradients, input))


opt = tf.keras.optimizers.Adam(learning_rate=1.0)  # the report had 1 (Keras 3 wants a float)
input = tf.random.normal((1, 1))

if __name__ == "__main__":
    try:
        train(opt, input)
        print("ORACLE: bug=False error=none")
    except (TypeError, ValueError, AttributeError) as exc:
        print(f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1][:300]}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")
