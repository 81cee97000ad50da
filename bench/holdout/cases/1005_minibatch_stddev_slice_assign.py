"""Minibatch-stddev feature map built by slice-assigning per-pixel stddevs into tf.Variables.

Source: tensorflow/tensorflow#14755 "Problem with assigning values to matrix indices in
tensorflow" (https://github.com/tensorflow/tensorflow/issues/14755). `MinibatchStdDev` creates
three zero `tf.Variable`s f1, f2, f3 of size n x n and fills them pixel by pixel with
`f1[i, j].assign(sqrtR)` (likewise G and B) from `AcrossBatchSD(batch, i, j)`, then averages
them into the output. The reporter found that the gradient of the output with respect to the
batch is None ("assign in tensorflow is not differentiable"), so the network could not train.
Changes: the reporter used TF1 graph mode and `tf.gradients`; here the same functions run in TF2
eager mode under a `tf.GradientTape` that watches the batch (TF2's `batch[0].shape[0]` replaces
TF1's `batch[0].shape[0].value`); the batch is a random 3 x 4 x 4 x 3 image tensor.
"""
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import numpy as np
import tensorflow as tf


def AcrossBatchSD(batch, i, j):

    _, varR = tf.nn.moments(batch[:, i, j, 0], axes=[0])
    _, varG = tf.nn.moments(batch[:, i, j, 1], axes=[0])
    _, varB = tf.nn.moments(batch[:, i, j, 2], axes=[0])

    return tf.sqrt(varR), tf.sqrt(varG), tf.sqrt(varB)


def MinibatchStdDev(batch, window, mb_size):

    n = batch[0].shape[0]
    f1 = tf.Variable(tf.zeros([n, n]))
    f2 = tf.Variable(tf.zeros([n, n]))
    f3 = tf.Variable(tf.zeros([n, n]))

    for i in range(n):
        for j in range(n):

            sqrtR, sqrtG, sqrtB = AcrossBatchSD(batch, i, j)
            f1[i, j].assign(sqrtR)
            f2[i, j].assign(sqrtG)
            f3[i, j].assign(sqrtB)

    f = tf.divide(tf.add(tf.add(f1, f2), f3), 3)
    F = tf.reduce_mean(f)

    return tf.multiply(F, tf.ones(([mb_size, window, window])))


def main():
    mb_size = 3
    window = 4
    batch = tf.constant(np.random.default_rng(0).uniform(size=(mb_size, window, window, 3)),
                        dtype=tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(batch)
        out = MinibatchStdDev(batch, window, mb_size)
        loss = tf.reduce_sum(out)
    grad = tape.gradient(loss, batch)
    print("feature value:", float(out[0, 0, 0]))
    print(f"ORACLE: bug={grad is None} grad_is_none={grad is None}")


if __name__ == "__main__":
    main()
