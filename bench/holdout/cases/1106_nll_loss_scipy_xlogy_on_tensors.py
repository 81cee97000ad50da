"""Negative log-likelihood loss for model.compile written with scipy.special.xlogy.

Source: keras-team/keras#15253 "Implementing cauchy-schwarz divergence and negative log
likelihood as custom loss functions in Keras"
(https://github.com/keras-team/keras/issues/15253). The reporter trains a VGG-16
classifier (one-hot labels) with custom losses written with SciPy: the NLL is
`-special.xlogy(y_true, y_pred) - special.xlogy(1-y_true, 1-y_pred)`. Inside fit() the
loss receives symbolic tensors, which a NumPy/SciPy ufunc cannot take: TensorFlow raises
instead of training (and even eagerly the result would be a NumPy array, cut off from
the tape). Changed: SciPy is not installed here, so `special` is a stand-in whose
`xlogy` is the same ufunc formula written with NumPy; VGG-16 and the images are replaced
by a small CNN on random data; SGD loses its `decay` argument (gone in Keras 3).
"""
import types

import numpy as np
import tensorflow as tf
from tensorflow.keras.layers import Conv2D, Dense, Flatten, Input, MaxPooling2D
from tensorflow.keras.models import Model
from tensorflow.keras.optimizers import SGD
from tensorflow.keras.utils import to_categorical


def _xlogy(x, y):
    # scipy.special.xlogy: x * log(y), with 0 where x == 0
    x = np.asarray(x)
    y = np.asarray(y)
    return np.where(x == 0, 0.0, x * np.log(y))


special = types.SimpleNamespace(xlogy=_xlogy)  # stand-in for `from scipy import special`


def nll(y_true, y_pred):
    loss = -special.xlogy(y_true, y_pred) - special.xlogy(1 - y_true, 1 - y_pred)
    return loss


def build_model(num_classes=4):
    inp = Input(shape=(32, 32, 3))
    x = Conv2D(8, 3, activation="relu", padding="same")(inp)
    x = MaxPooling2D()(x)
    x = Conv2D(16, 3, activation="relu", padding="same")(x)
    x = MaxPooling2D()(x)
    x = Flatten()(x)
    out = Dense(num_classes, activation="softmax")(x)
    return Model(inp, out)


def main():
    rng = np.random.default_rng(0)
    x_train = rng.random((32, 32, 32, 3)).astype("float32")
    y_train = to_categorical(rng.integers(0, 4, 32), 4)

    model = build_model()
    sgd = SGD(learning_rate=0.0001, momentum=0.9, nesterov=True)
    model.compile(optimizer=sgd, loss=[nll], metrics=["accuracy"])
    try:
        model.fit(x_train, y_train, batch_size=8, epochs=1, verbose=0)
        err = None
    except Exception as e:  # raised while fit traces the loss
        err = e
    msg = str(err).splitlines()[0] if err else ""
    print("error:", type(err).__name__ if err else None, msg[:160])
    numpy_on_tensor = err is not None and "numpy" in str(err).lower()
    print(f"ORACLE: bug={numpy_on_tensor} exception={type(err).__name__ if err else None}")


if __name__ == "__main__":
    main()
