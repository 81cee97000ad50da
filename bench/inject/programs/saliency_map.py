"""Vanilla-gradient saliency: the input is a constant, so the tape watches it."""
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(8, 8, 1)), tf.keras.layers.Conv2D(4, 3, activation="relu"),
                             tf.keras.layers.Flatten(), tf.keras.layers.Dense(3)])


def saliency(images, class_index):
    images = tf.convert_to_tensor(images)
    with tf.GradientTape() as tape:
        tape.watch(images)
        logits = model(images)
        score = logits[:, class_index]
    grads = tape.gradient(score, images)
    return tf.reduce_max(tf.abs(grads), axis=-1)


batch = np.random.default_rng(7).uniform(size=(4, 8, 8, 1)).astype("float32")
smap = saliency(batch, 1)
print("saliency", smap.shape, float(tf.reduce_sum(smap)))
