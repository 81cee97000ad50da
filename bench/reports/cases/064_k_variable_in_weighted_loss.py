"""Segmentation loss that wraps its class weights in K.variable inside the loss function.

Source: dhirajmaji7/Attention-Res-UNet-with-Guided-Decoder-for-Semantic-Segmentation-of-Brain-tumors#1
"ValueError: tf.function only supports singleton tf.Variables created on the first call..."
(https://github.com/dhirajmaji7/Attention-Res-UNet-with-Guided-Decoder-for-Semantic-Segmentation-of-Brain-tumors/issues/1):
the traceback ends in `weights = K.variable(weights)` inside `weighted_log_loss`, called from
Keras's train function. A tiny conv net and random masks replace the Res-UNet and BraTS.
"""
import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K
from tensorflow.keras import layers, models


def weighted_log_loss(y_true, y_pred):
    y_pred /= K.sum(y_pred, axis=-1, keepdims=True)
    y_pred = K.clip(y_pred, K.epsilon(), 1 - K.epsilon())
    weights = np.array([1, 5, 2, 4])
    weights = K.variable(weights)
    loss = y_true * K.log(y_pred) * weights
    return K.mean(-K.sum(loss, -1))


def weighted_dice_loss(y_true, y_pred):
    inter = K.sum(y_true * y_pred)
    return 1 - (2 * inter + 1) / (K.sum(y_true) + K.sum(y_pred) + 1)


def gen_dice_loss(y_true, y_pred):
    return weighted_dice_loss(y_true, y_pred) + weighted_log_loss(y_true, y_pred)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = rng.random((8, 16, 16, 2)).astype(np.float32)
    y = np.eye(4, dtype=np.float32)[rng.integers(0, 4, size=(8, 16, 16))]
    inp = layers.Input((16, 16, 2))
    model = models.Model(inp, layers.Conv2D(4, 3, padding="same", activation="softmax")(inp))
    model.compile(optimizer="adam", loss=gen_dice_loss)
    try:
        model.fit(x, y, batch_size=4, epochs=2, verbose=0)
        print("ORACLE: bug=False error=none")
    except ValueError as exc:
        print("ValueError:", str(exc).strip().splitlines()[-1][:300])
        print("ORACLE: bug=True error=ValueError")
