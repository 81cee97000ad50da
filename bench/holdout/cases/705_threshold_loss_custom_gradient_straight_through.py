"""Correct look-alike of 704: the same thresholding loss, but the threshold is wrapped in
`@tf.custom_gradient` with a straight-through gradient, so `fit` gets gradients and the weights move.

Source: "Custom Gradients in TensorFlow 2.13: How to Implement Non-Differentiable Losses"
(https://markaicode.com/custom-gradients-non-differentiable-losses): the post's fix is a
`tf.custom_gradient` function returning the forward result and a `grad(upstream)` function.
Changed: the post gives the pattern; the straight-through `grad` (identity) and the small
classifier/data are written here.
"""
import numpy as np
import tensorflow as tf


@tf.custom_gradient
def binarize(x):
    result = tf.cast(x > 0.5, tf.float32)

    def grad(upstream):
        return upstream

    return result, grad


def fixed_loss(y_true, y_pred):
    y_pred_binary = binarize(y_pred)
    return tf.reduce_mean(tf.square(y_true - y_pred_binary))


def build_classifier():
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(10,)),
        tf.keras.layers.Dense(16, activation="relu"),
        tf.keras.layers.Dense(1, activation="sigmoid"),
    ])
    model.compile(optimizer="adam", loss=fixed_loss)
    return model


def main():
    x = np.random.rand(64, 10).astype("float32")
    y = (np.random.rand(64, 1) > 0.5).astype("float32")
    model = build_classifier()
    before = [w.numpy().copy() for w in model.trainable_weights]
    err = None
    try:
        model.fit(x, y, epochs=1, batch_size=16, verbose=0)
    except ValueError as e:
        err = e
    moved = any(not np.allclose(b, w.numpy()) for b, w in zip(before, model.trainable_weights))
    print("error:", err, "weights moved:", moved)
    bug = err is not None or not moved
    print(f"ORACLE: bug={bug} exception={type(err).__name__ if err else None} weights_moved={moved}")


if __name__ == "__main__":
    main()
