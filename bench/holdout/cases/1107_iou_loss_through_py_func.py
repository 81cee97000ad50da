"""A Python/NumPy IoU used as the Keras loss through py_func.

Source: keras-team/keras#11137 "Using tensorflow.py_func in keras loss function !"
(https://github.com/keras-team/keras/issues/11137). The reporter defines
`loss_fn(label, pred)` returning `tensorflow.py_func(IoU, (label, pred), tf.float64)`.
A py_func (like tf.numpy_function) runs opaque Python: TensorFlow records no gradient
for it, so the loss is disconnected from every weight and fit() stops with
"No gradients provided for any variable". The reporter's first error ("'NoneType' object
cannot be interpreted as an integer") came from the unknown shape of the py_func output;
TF 2.21 stops on that too ("Cannot iterate over a shape with unknown rank"), so the case
gives the output its scalar shape (one added line) to reach the gradient failure.
Changed: `tf.py_func` is only reachable as `tf.compat.v1.py_func` in TF 2; the IoU is a
short NumPy function of my own on binary masks; the segmentation network is a tiny conv
net on random data.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers


def IoU(label, pred):
    pred_mask = pred > 0.5
    true_mask = label > 0.5
    inter = np.logical_and(pred_mask, true_mask).sum()
    union = np.logical_or(pred_mask, true_mask).sum()
    return np.float64(1.0 - (inter + 1.0) / (union + 1.0))


def loss_fn(label, pred):
    iou_loss = tf.compat.v1.py_func(IoU, (label, pred), tf.float64)
    iou_loss.set_shape(())  # the reporter's first error was this unknown shape
    return iou_loss


def main():
    rng = np.random.default_rng(0)
    images = rng.random((32, 16, 16, 1)).astype("float32")
    masks = (images > 0.6).astype("float32")

    inp = keras.Input(shape=(16, 16, 1))
    x = layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
    out = layers.Conv2D(1, 1, activation="sigmoid")(x)
    model = keras.Model(inp, out)
    model.compile(optimizer="adam", loss=loss_fn)
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
