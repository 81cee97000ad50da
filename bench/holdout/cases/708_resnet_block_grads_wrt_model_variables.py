"""The train step differentiates the loss with respect to `model.variables`, which include the
BatchNormalization moving mean/variance. The loss does not depend on those (they are updated by
assignment), so their gradients are None and are then handed to `apply_gradients`.

Source: tensorflow/tensorflow#26404 "Returned None Values when computing Gradients"
(https://github.com/tensorflow/tensorflow/issues/26404). The reporter's eager ResNet50 train step
used `tape.gradient(loss, model.variables)` and got None for the BatchNormalization entries;
the answer: use `model.trainable_variables` (BatchNormalization holds non-trainable variables).
Changed: a two-block conv/BN classifier replaces ResNet50, random images replace the dataset, the
loss is computed inside the tape (the posted snippet's indentation was lost), and Keras 3's
`apply_gradients` takes no `global_step`.
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
    grads = tape.gradient(loss, model.variables)

    none_for = [v.path for g, v in zip(grads, model.variables) if g is None]
    print("None gradients for:", none_for)
    err = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            optimizer.apply_gradients(zip(grads, model.variables))
        except Exception as e:  # Keras 3 may refuse the non-trainable variables
            err = e
    warned = any("Gradients do not exist" in str(w.message) for w in caught)
    print("apply_gradients:", type(err).__name__ if err else "ok", str(err)[:100] if err else "")
    bug = len(none_for) > 0
    print(f"ORACLE: bug={bug} none_grads={len(none_for)} of={len(grads)} "
          f"apply_error={type(err).__name__ if err else None} warned_grads_do_not_exist={warned}")


if __name__ == "__main__":
    main()
