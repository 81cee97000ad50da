"""Elastic weight consolidation: Fisher information from K.gradients of the log-output.

Source: King-Of-Knights/overcoming-catastrophic#1 "gradients problem"
(https://github.com/King-Of-Knights/overcoming-catastrophic/issues/1): on TensorFlow 2 the line
`grads = K.gradients(K.log(model.output), model.weights)[m]` raises "tf.gradients is not
supported when eager execution is enabled". MNIST is replaced by random images; tf.keras is
Keras 2 (tf_keras), as in the repository.
"""
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K
from tensorflow.keras.layers import Dense, Input
from tensorflow.keras.models import Model

inp = Input((16,))
model = Model(inp, Dense(4, activation="softmax")(Dense(8, activation="relu")(inp)))


def computer_fisher(model, imgset, num_sample=5):
    f_accum = []
    for i in range(len(model.weights)):
        f_accum.append(np.zeros(K.int_shape(model.weights[i])))
    f_accum = np.array(f_accum, dtype=object)
    for j in range(num_sample):
        img_index = np.random.randint(imgset.shape[0])
        for m in range(len(model.weights)):
            grads = K.gradients(K.log(model.output), model.weights)[m]
            result = K.function([model.input], [grads])
            f_accum[m] += np.square(result([np.expand_dims(imgset[img_index], 0)])[0])
    f_accum /= num_sample
    return f_accum


if __name__ == "__main__":
    np.random.seed(0)
    imgset = np.random.rand(20, 16).astype(np.float32)
    try:
        fisher = computer_fisher(model, imgset)
        print("ORACLE: bug=False error=none")
    except (RuntimeError, ValueError, TypeError) as exc:
        print(f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:300]}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")
