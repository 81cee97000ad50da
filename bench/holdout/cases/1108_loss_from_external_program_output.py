"""Custom loss computed from files written by an external program, not from y_pred.

Source: keras-team/keras#10556 "Custom loss function which can save model weights,
support subprocess calls and numpy operations"
(https://github.com/keras-team/keras/issues/10556). The reporter's `process()` saves the
model, rebuilds a C program with the new weights, runs it on a PCM file and reads the
program output and a reference back with np.memmap; `myloss(y_true, y_pred)` returns
`K.mean(K.square(d - c))` of those two arrays. The loss ignores y_true and y_pred and is
a constant as far as TensorFlow can see: no path from the loss to any weight, so fit()
stops with "No gradients provided for any variable" (and `process()` itself runs once,
while the loss is traced). Changed: the save / subprocess / make chain is replaced by two
PCM files written with NumPy before training; the audio model is a small Dense net on
random frames. Keras 2 backend functions (K.mean on arrays) need TF_USE_LEGACY_KERAS.
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import tempfile

import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K
from tensorflow.keras.layers import Dense, Input
from tensorflow.keras.models import Model

WORKDIR = tempfile.mkdtemp()
OUTPUT_PCM = os.path.join(WORKDIR, "output.pcm")
REFERENCE_PCM = os.path.join(WORKDIR, "reference.pcm")


def write_pcm_files(n=1024):
    rng = np.random.default_rng(1)
    rng.integers(-3000, 3000, n).astype("h").tofile(OUTPUT_PCM)
    rng.integers(-3000, 3000, n).astype("h").tofile(REFERENCE_PCM)


def process():
    # (issue: model.save + subprocess calls that rebuild and run the C implementation)
    data1 = np.memmap(OUTPUT_PCM, dtype='h', mode='r')
    data2 = np.memmap(REFERENCE_PCM, dtype='h', mode='r')
    return data1, data2


def myloss(y_true, y_pred):
    d, c = process()
    return K.mean(K.square(d - c))


def main():
    write_pcm_files()
    rng = np.random.default_rng(0)
    frames = rng.normal(size=(64, 32)).astype("float32")
    targets = rng.normal(size=(64, 32)).astype("float32")

    inp = Input(shape=(32,))
    out = Dense(32)(Dense(64, activation="tanh")(inp))
    model = Model(inp, out)
    model.compile(optimizer="adam", loss=myloss)
    try:
        model.fit(frames, targets, batch_size=16, epochs=1, verbose=0)
        err = None
    except ValueError as e:
        err = e
    print("error:", type(err).__name__ if err else None, str(err).splitlines()[0][:120] if err else "")
    no_grads = err is not None and "No gradients provided" in str(err)
    print(f"ORACLE: bug={no_grads} exception={type(err).__name__ if err else None}")


if __name__ == "__main__":
    main()
