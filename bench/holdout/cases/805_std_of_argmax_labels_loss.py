"""Custom loss = standard deviation of the predicted class indices: K.argmax of y_pred cast to
float. argmax has no gradient, so the loss is disconnected from every weight and fit fails.

Source: keras-team/keras#7567 "Encounter "ValueError: None values not supported" when using
custom loss function" (https://github.com/keras-team/keras/issues/7567). The reporter's
StdLoss(y_true, y_pred) is K.std(K.cast(K.argmax(y_pred, axis=1), 'float32'), axis=0,
keepdims=True), used to fine-tune a discriminative network without ground-truth labels;
fit raised inside the optimizer's get_updates because the gradients were None.
Changed from the posted code: the fine-tuned representation network is a two-layer Dense
classifier on random features; dummy targets are passed since y_true is unused. K.argmax /
K.cast / K.std are Keras 2 backend functions, so TF_USE_LEGACY_KERAS=1 selects tf_keras.
"""
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K


def StdLoss(y_true, y_pred):
    label = K.cast(K.argmax(y_pred, axis=1), dtype="float32")
    return K.std(label, axis=0, keepdims=True)


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 10)).astype("float32")
    dummy = np.zeros((64, 4), dtype="float32")

    model = tf.keras.Sequential([
        tf.keras.layers.Dense(16, activation="relu", input_shape=(10,)),
        tf.keras.layers.Dense(4, activation="softmax"),
    ])
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-3), loss=StdLoss)

    with tf.GradientTape() as tape:
        loss = StdLoss(dummy, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    n_none = sum(g is None for g in grads)
    print("loss:", float(loss[0]), "None grads:", n_none, "of", len(grads))

    error = None
    try:
        model.fit(x, dummy, epochs=1, batch_size=16, verbose=0, shuffle=True)
    except ValueError as exc:
        error = type(exc).__name__
        print(f"fit: {error}: {str(exc)[:160]}")
    print(f"ORACLE: bug={n_none == len(grads)} none_grads={n_none}/{len(grads)} fit_error={error}")


if __name__ == "__main__":
    main()
