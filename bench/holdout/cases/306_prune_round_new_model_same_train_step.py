"""One tf.function train step reused for the next pruning round's new model: the optimizer must
create its slot variables for the new weights while the function traces again.

Source: tensorflow/tensorflow#36574 "TensorFlow 2.0 - ValueError: tf.function-decorated"
(https://github.com/tensorflow/tensorflow/issues/36574). The user trains a model with a masked
GradientTape step `train_one_step(model, mask_model, optimizer, x, y)`, prunes it, builds a new
model for the next round and calls the same @tf.function step again; the second round fails with
"tf.function-decorated function tried to create variables on non-first call".

Changed from the posted code: tensorflow_model_optimization is not installed, so "pruning" zeroes
the smallest half of the kernel and the mask model holds the 0/1 masks; a small dense net on random
data, two rounds of two batches. The losses/metrics are the user's (`loss_fn`, `train_loss`,
`train_accuracy`). TF_USE_LEGACY_KERAS=1 (tf_keras, the Keras 2 of the report): a Keras 3 optimizer
refuses any variable it was not built with, even eagerly ("Unknown variable ... recreate a new
optimizer instance"), and so does tf_keras's current Adam, which hides the tf.function behaviour the
user met; the optimizer is `tf.keras.optimizers.legacy.Adam`, the class the user's TF 2.0
`tf.keras.optimizers.Adam` now is (it makes slot variables for new weights on first use).
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf

loss_fn = tf.keras.losses.SparseCategoricalCrossentropy()
train_loss = tf.keras.metrics.Mean(name='train_loss')
train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name='train_accuracy')


def make_model():
    return tf.keras.Sequential([tf.keras.Input((20,)),
                                tf.keras.layers.Dense(16, activation='relu'),
                                tf.keras.layers.Dense(10, activation='softmax')])


def make_mask(model):
    mask_model = make_model()
    masks = []
    for w in model.get_weights():
        thresh = np.quantile(np.abs(w), 0.5)
        masks.append((np.abs(w) >= thresh).astype(np.float32))
    mask_model.set_weights(masks)
    return mask_model


@tf.function
def train_one_step(model, mask_model, optimizer, x, y):
    with tf.GradientTape() as tape:
        y_pred = model(x)
        loss = loss_fn(y, y_pred)
    grads = tape.gradient(loss, model.trainable_variables)
    grad_mask_mul = [g * m for g, m in zip(grads, mask_model.trainable_weights)]
    optimizer.apply_gradients(zip(grad_mask_mul, model.trainable_variables))
    train_loss(loss)
    train_accuracy(y, y_pred)
    return None


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 20)).astype("float32")
    y = rng.integers(0, 10, size=32)
    train_dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)

    optimizer = tf.keras.optimizers.legacy.Adam(0.001)
    model = make_model()
    mask_model = make_mask(model)
    err = None
    rounds_done = 0
    try:
        for pruning_round in range(2):
            for x_b, y_b in train_dataset:
                train_one_step(model, mask_model, optimizer, x_b, y_b)
            rounds_done += 1
            # prune, then rebuild a fresh model with the surviving weights for the next round
            pruned = [w * m for w, m in zip(model.get_weights(), mask_model.get_weights())]
            model = make_model()
            model.set_weights(pruned)
            mask_model = make_mask(model)
    except Exception as e:
        err = e
        print(type(e).__name__, [l for l in str(e).splitlines() if "Error" in l or "variable" in l][-3:])
    name = type(err).__name__ if err is not None else "None"
    creates = err is not None and ("singleton tf.Variables" in str(err) or "non-first call" in str(err))
    print(f"ORACLE: bug={creates} exception={name} rounds_done={rounds_done}")


if __name__ == "__main__":
    main()
