"""Custom Keras loss that reads `y_pred.numpy()` to post-process the prediction outside TF.

Source: keras-team/keras#12057 "does it only keras or backend function can be used in custom
loss function?" (https://github.com/keras-team/keras/issues/12057). Keras traces the loss into
its train function, where y_pred is symbolic. The external evaluation binary is replaced by
a NumPy score.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import backend as K


def readresult(signal):
    return float(np.mean(np.abs(signal)))


def mse_my_loss(y_true, y_pred):
    Q1 = K.mean(K.square(y_pred - y_true), axis=-1)
    y_in = y_pred.numpy()
    loss = readresult(y_in)
    return Q1 + loss


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 16)).astype(np.float32)
    y = rng.normal(size=(32, 16)).astype(np.float32)
    model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(16)])
    model.compile(optimizer="adam", loss=mse_my_loss)
    model.fit(x, y, epochs=1, batch_size=16, verbose=0)


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except (AttributeError, NotImplementedError, TypeError) as exc:
        print(f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1][:300]}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")
