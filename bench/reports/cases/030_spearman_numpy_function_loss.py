"""Multi-target regression trained with a Spearman-correlation loss built on scipy's rankdata.

Source: tensorflow/tensorflow#35713 "No gradient in custom loss function"
(https://github.com/tensorflow/tensorflow/issues/35713): the ranks come from
`tf.numpy_function(rankdata, ...)`, so fit() finds no gradient. Data is random; scipy's
`rankdata` is replaced by a NumPy one (scipy is not installed here).
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras

BATCH_SIZE = 4


def rankdata(a):
    return (np.argsort(np.argsort(a)) + 1).astype(np.float32)


def custom_loss(num_targets):
    def custom_rhos(y_true, y_pred):
        rhos = []
        for ind in range(num_targets):
            a = tf.squeeze(tf.slice(y_true, [0, ind], [-1, 1]))
            b = tf.squeeze(tf.slice(y_pred, [0, ind], [-1, 1]))
            rank_a, rank_b = tf.numpy_function(rankdata, [a], Tout=tf.float32), tf.numpy_function(rankdata, [b],  Tout=tf.float32)
            rho = 1 - 6 * tf.reduce_sum((rank_a - rank_b) ** 2) / (BATCH_SIZE ** 3 - BATCH_SIZE)
            rhos.append(rho)
        return -tf.reduce_sum(rhos)
    return custom_rhos


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 5)).astype(np.float32)
    y = rng.normal(size=(16, 3)).astype(np.float32)
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3)])
    model.compile(optimizer="adam", loss=custom_loss(3))
    model.fit(x, y, batch_size=BATCH_SIZE, epochs=1, verbose=0)


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except ValueError as exc:
        print("ValueError:", str(exc).strip().splitlines()[-1][:300])
        print("ORACLE: bug=True error=ValueError")
