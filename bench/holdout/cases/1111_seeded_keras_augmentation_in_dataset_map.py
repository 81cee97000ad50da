"""Keras preprocessing layers with a fixed seed, wrapped in a Layer and mapped over tf.data.

Source: keras-team/keras#15358 "`keras` augmentation layers into `tf.data.API` with random
seed." (https://github.com/keras-team/keras/issues/15358). The reporter wraps
RandomFlip / RandomRotation (each built with a fixed `seed`) in a custom Layer, maps it
over a tf.data pipeline and worries that, the seed being fixed, "batch 1, 2, 3 .. will go
through the same type of augmentation". The maintainer's answer: the seed only makes the
layer produce the same deterministic *sequence* of random numbers; successive batches
still get different transforms. Unlike Python or NumPy randomness inside a map function
(evaluated once, when the function is traced), these layers draw from TensorFlow random
ops with state, so this is a correct look-alike: NEGATIVE.
Changed: seeds are ints (Keras 3), images are four copies of one small ramp image.
"""
import numpy as np
import tensorflow as tf
from tensorflow.keras import layers


class KerasAugmentation(tf.keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.layer1 = layers.RandomFlip("horizontal", seed=1)
        self.layer2 = layers.RandomRotation(0.1, seed=1)

    def call(self, inputs):
        x = self.layer1(inputs)
        x = self.layer2(x)
        return x


def main():
    image = np.arange(16, dtype="float32").reshape(1, 4, 4, 1)
    images = np.repeat(image, 4, axis=0)
    labels = np.zeros(4, dtype="int32")

    augment = KerasAugmentation()
    ds = tf.data.Dataset.from_tensor_slices((images, labels)).batch(1)
    ds = ds.map(lambda x, y: (augment(x), y))

    outs = [x.numpy() for x, _ in ds]
    distinct = len({o.round(4).tobytes() for o in outs})
    print("distinct augmented batches (same input image):", distinct, "of", len(outs))
    print(f"ORACLE: bug={distinct == 1} distinct_batches={distinct} batches={len(outs)}")


if __name__ == "__main__":
    main()
