"""Three-layer MLP written from scratch whose biases are plain tensors, not variables.

Source: dragen1860/Deep-Learning-with-TensorFlow-book#156 "p.assign_sub(lr * g)报错"
(https://github.com/dragen1860/Deep-Learning-with-TensorFlow-book/issues/156). The reporter
found that the bias was created as `tf.zeros([512])` instead of `tf.Variable(tf.zeros([512]))`:
a tensor has no `assign_sub`. MNIST is replaced by random data.
"""
import numpy as np
import tensorflow as tf


def main():
    rng = np.random.default_rng(0)
    x = tf.constant(rng.random((64, 784), dtype=np.float32))
    y = tf.one_hot(rng.integers(0, 10, size=64), depth=10)

    w1 = tf.Variable(tf.random.truncated_normal([784, 512], stddev=0.1))
    b1 = tf.zeros([512])
    w2 = tf.Variable(tf.random.truncated_normal([512, 128], stddev=0.1))
    b2 = tf.Variable(tf.zeros([128]))
    w3 = tf.Variable(tf.random.truncated_normal([128, 10], stddev=0.1))
    b3 = tf.Variable(tf.zeros([10]))
    lr = 1e-3

    for step in range(2):
        with tf.GradientTape() as tape:
            h1 = tf.nn.relu(x @ w1 + b1)
            h2 = tf.nn.relu(h1 @ w2 + b2)
            out = h2 @ w3 + b3
            loss = tf.reduce_mean(tf.square(y - out))
        grads = tape.gradient(loss, [w1, b1, w2, b2, w3, b3])   # derivative
        for p, g in zip([w1, b1, w2, b2, w3, b3], grads):
            p.assign_sub(lr * g)    # update the parameters
        print(step, float(loss))


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except (TypeError, AttributeError) as exc:
        print(f"{type(exc).__name__}: {exc}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")
