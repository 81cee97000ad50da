"""Custom loss that rounds the predictions before comparing them with the labels.

Source: keras-team/keras#4175 "Error using K.round() in custom loss function"
(https://github.com/keras-team/keras/issues/4175): with `K.round(y_pred)` fit() fails, without
it training works. Data is random.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import backend as K


def rounded_error(y_true, y_pred):
    y_pred_rounded = K.round(y_pred)
    return K.mean(K.abs(y_true - y_pred_rounded) * (1.0 + y_true), axis=-1)


def main():
    rng = np.random.default_rng(0)
    x_train = rng.normal(size=(64, 10)).astype(np.float32)
    y_train = (rng.random((64, 1)) > 0.5).astype(np.float32)
    model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer="sgd", loss=rounded_error)
    before = [w.copy() for w in model.get_weights()]
    model.fit(x_train, y_train, epochs=2, batch_size=16, verbose=0)
    changed = any(not np.array_equal(a, b) for a, b in zip(before, model.get_weights()))
    return changed


if __name__ == "__main__":
    try:
        changed = main()
        print(f"ORACLE: bug={not changed} weights_changed={changed}")
    except ValueError as exc:
        print("ValueError:", str(exc).strip().splitlines()[-1][:300])
        print("ORACLE: bug=True error=ValueError")
