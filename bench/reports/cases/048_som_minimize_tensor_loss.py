"""Self-organising map migrated from TF 1.14: the loss tensor goes to optimizer.minimize.

Source: tensorflow/tensorflow#37933 "TypeError: 'tensorflow.python.framework.ops.EagerTensor'
object is not callable" (https://github.com/tensorflow/tensorflow/issues/37933).
tf.keras is Keras 2 (tf_keras), whose optimizers have minimize. Inputs are random.
"""
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf


class SOM:
    def __init__(self, m, n, dim):
        self.m, self.n = m, n
        self.weightage_vects = tf.Variable(tf.random.normal([m * n, dim]))

    def train_step(self, vect, alpha_op):
        self.output = -tf.reduce_sum(tf.square(self.weightage_vects - vect), axis=1)[None, :]
        self.winner_loc = divmod(int(tf.argmax(self.output[0])), self.n)
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(logits=self.output, labels=[
            self.winner_loc[0] + self.winner_loc[1]])
        optimizer = tf.keras.optimizers.SGD(learning_rate=alpha_op)
        optimizer.minimize(loss, self.weightage_vects)


def main():
    som = SOM(3, 3, 5)
    for vect in np.random.default_rng(0).normal(size=(4, 5)).astype(np.float32):
        som.train_step(vect, 0.3)


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except (TypeError, ValueError) as exc:
        print(f"{type(exc).__name__}: {exc}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")
