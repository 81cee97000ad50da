"""A custom Keras metric that returns `dcount.numpy()`: under fit() the metric runs in the traced step.

Source: tensorflow/tensorflow#39817 "AttributeError: 'Tensor' object has no attribute 'numpy'"
(https://github.com/tensorflow/tensorflow/issues/39817): "I wrote a small error metrics but could
not succeed to transform the result to numpy array ... I thought I could transform my tensor to
numpy array with a .numpy() call". fit() compiles the train step, so inside the metric `dcount`
is a symbolic tensor.

Changed from the posted code: a small dense model on random data (20 features, 12 classes, 64
samples, one epoch) in place of the user's Colab model and data.
"""
import numpy as np
import tensorflow as tf


def custom__error(y_true, y_pred):
    # ---- y_pred
    yp = tf.nn.softmax(y_pred)
    bp = tf.argsort(yp, axis=-1, direction='DESCENDING', stable=False, name=None)
    xcp = bp[None, :10]
    # ---- y_true
    yt = tf.nn.softmax(y_true)
    bt = tf.argsort(yt, axis=-1, direction='DESCENDING', stable=False, name=None)
    xct = bt[None, :10]
    # ---- common
    count = tf.sets.intersection(xcp, xct)
    dcount = tf.sparse.to_dense(count)
    return dcount.numpy()


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 20)).astype("float32")
    y = tf.keras.utils.to_categorical(rng.integers(0, 12, size=64), num_classes=12)

    model = tf.keras.Sequential([tf.keras.Input((20,)),
                                 tf.keras.layers.Dense(32, activation="relu"),
                                 tf.keras.layers.Dense(12)])
    model.compile(optimizer="adam", loss=tf.keras.losses.CategoricalCrossentropy(from_logits=True),
                  metrics=[custom__error])
    err = None
    try:
        model.fit(x, y, epochs=1, batch_size=16, verbose=0)
    except Exception as e:
        err = e
        print(type(e).__name__, str(e).strip().splitlines()[-1][:200])
    no_numpy = err is not None and "numpy" in str(err)
    name = type(err).__name__ if err is not None else "None"
    print(f"ORACLE: bug={no_numpy} exception={name}")


if __name__ == "__main__":
    main()
