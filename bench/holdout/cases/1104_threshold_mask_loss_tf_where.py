"""Segmentation model trained with a loss that first thresholds the predicted mask to 0/1.

Source: Q&A "不可微损失函数keras" (non-differentiable loss function keras), a translated
Stack Overflow question, http://xiaobeizi.cn/x/6JuuQQjucd . The asker wanted a 0/1 mask
and wrote `tf.where(y_pred >= 0.5, 1.0, 0.0)` inside the loss; fit() fails with
"No gradients provided for any variable": tf.where with constant branches has no
gradient with respect to y_pred. The answer: keep the output continuous (sigmoid) and
only round at prediction time. Changed: images and masks are random, the model is a
tiny conv net.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers


def loss(y_true, y_pred):
    tresholded_pred = tf.where(y_pred >= 0.5, 1.0, 0.0)
    return tf.reduce_mean(tf.square(y_true - tresholded_pred), axis=-1)


def build_model(size=16):
    inp = keras.Input(shape=(size, size, 3))
    x = layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
    x = layers.Conv2D(8, 3, padding="same", activation="relu")(x)
    mask = layers.Conv2D(1, 1, padding="same", activation="sigmoid")(x)
    return keras.Model(inp, mask)


def main():
    rng = np.random.default_rng(0)
    images = rng.random((32, 16, 16, 3)).astype("float32")
    masks = (rng.random((32, 16, 16, 1)) > 0.5).astype("float32")

    model = build_model()
    model.compile(optimizer="adam", loss=loss)
    try:
        model.fit(images, masks, batch_size=8, epochs=1, verbose=0)
        err = None
    except ValueError as e:
        err = e
    print("error:", type(err).__name__ if err else None, str(err).splitlines()[0] if err else "")
    no_grads = err is not None and "No gradients provided" in str(err)
    print(f"ORACLE: bug={no_grads} exception={type(err).__name__ if err else None}")


if __name__ == "__main__":
    main()
