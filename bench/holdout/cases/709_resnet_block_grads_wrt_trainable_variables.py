"""Correct look-alike of 708: the train step differentiates the loss with respect to
`model.trainable_variables`, so the BatchNormalization moving statistics (updated by assignment,
not by the optimizer) are left out and every gradient exists.

Source: tensorflow/tensorflow#26404 "Returned None Values when computing Gradients"
(https://github.com/tensorflow/tensorflow/issues/26404): the answer "You should use
`model.trainable_variables` instead of `model.variables`", confirmed by the reporter.
Changed: as in 708 (small conv/BN classifier, random images, loss inside the tape).
"""
import warnings

import numpy as np
import tensorflow as tf


def conv_bn_block(filters):
    return [
        tf.keras.layers.Conv2D(filters, 3, padding="same", use_bias=False),
        tf.keras.layers.BatchNormalization(),
        tf.keras.layers.ReLU(),
    ]


def build_model():
    return tf.keras.Sequential(
        [tf.keras.Input(shape=(16, 16, 3))]
        + conv_bn_block(8)
        + conv_bn_block(16)
        + [tf.keras.layers.GlobalAveragePooling2D(), tf.keras.layers.Dense(4)]
    )


def compute_loss(prediction, label):
    return tf.reduce_mean(tf.square(prediction - label))


def main():
    model = build_model()
    optimizer = tf.keras.optimizers.SGD(0.01)
    x = np.random.rand(8, 16, 16, 3).astype("float32")
    label = np.random.rand(8, 4).astype("float32")

    with tf.GradientTape() as tape:
        prediction = model(x, training=True)
        loss = compute_loss(prediction, label)
    grads = tape.gradient(loss, model.trainable_variables)

    none_for = [v.path for g, v in zip(grads, model.trainable_variables) if g is None]
    print("None gradients for:", none_for)
    err = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        except Exception as e:  # Keras 3 may refuse the non-trainable variables
            err = e
    warned = any("Gradients do not exist" in str(w.message) for w in caught)
    print("apply_gradients:", type(err).__name__ if err else "ok", str(err)[:100] if err else "")
    bug = len(none_for) > 0
    print(f"ORACLE: bug={bug} none_grads={len(none_for)} of={len(grads)} "
          f"apply_error={type(err).__name__ if err else None} warned_grads_do_not_exist={warned}")


if __name__ == "__main__":
    main()
