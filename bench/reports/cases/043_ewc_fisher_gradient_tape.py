"""The TensorFlow 2 rewrite posted in the same thread: a GradientTape per sample and weight.

Source: King-Of-Knights/overcoming-catastrophic#1 (https://github.com/King-Of-Knights/overcoming-catastrophic/issues/1),
comment by Zhongzheng-hl / QiaoZhongzheng replacing K.gradients with tf.GradientTape.
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
            with tf.GradientTape() as tape:
                output = model(np.expand_dims(imgset[img_index], 0))
                tape.watch(model.weights[m])
                gradients = tape.gradient(K.log(output), model.weights[m])
                f_accum[m] += np.square(gradients)
    f_accum /= num_sample
    return f_accum


if __name__ == "__main__":
    np.random.seed(0)
    imgset = np.random.rand(20, 16).astype(np.float32)
    fisher = computer_fisher(model, imgset)
    nonzero = all(np.any(f != 0) for f in fisher)
    print(f"ORACLE: bug={not nonzero} fisher_nonzero={nonzero}")
