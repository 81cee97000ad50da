"""Hand-written embedding layer whose weight variable is rebound to `w + w` before being returned for training.

Source: tensorflow/tensorflow#26922 "AttributeError: 'tensorflow.python.framework.ops.EagerTensor'
object has no attribute 'swapaxes'" (https://github.com/tensorflow/tensorflow/issues/26922),
comment by hegman12 (2019-06-01). The layer function `l(x)` creates `w` and `b` as
`tf.Variable`s and returns them for the optimizer; the working version trains, while the version
with the extra line `w = w + w` "gives same error" (the issue's AttributeError on TF 2.0): the
name `w` now holds an EagerTensor, not the variable, and that tensor is what
`opt.apply_gradients(zip(gradients, v))` is asked to update (on TF 2.21 Keras 3 raises
`AttributeError: ... '_unique_id'` there). The reporter's random data, 5-step loop and accuracy
print are kept; the label constant is given an explicit int32 dtype for NumPy 2.
"""
import numpy as np
import tensorflow as tf


def l(x):
    x = tf.cast(x, tf.float32)
    w = tf.Variable(tf.random.normal((64, 8), name="embed_w"))
    w = w + w
    b = tf.Variable(tf.random.normal((8,), name="embed_w"))
    return tf.matmul(x, w) + b, (w, b)


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 64))
    y = rng.integers(low=0, high=8, size=100)

    opt = tf.keras.optimizers.Adam()
    try:
        for i in range(5):
            with tf.GradientTape() as tape:
                logits, v = l(x)
                loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=np.array(y), logits=logits)

            if i % 2 == 0:
                probs = tf.nn.softmax(logits)
                accuracy = tf.reduce_sum(tf.cast(tf.equal(tf.cast(tf.math.argmax(probs, axis=-1), tf.int32),
                                                          tf.constant(y, tf.int32)), tf.int8)) / len(probs)
                print("accuracy at step: ", i, " is: ", float(accuracy))
            gradients = tape.gradient(loss, v)
            opt.apply_gradients(zip(gradients, v))
        print("ORACLE: bug=False error=none")
    except (AttributeError, TypeError, ValueError) as exc:
        print(f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")


if __name__ == "__main__":
    main()
