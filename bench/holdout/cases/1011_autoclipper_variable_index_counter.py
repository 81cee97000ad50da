"""AutoClip gradient transformer with its history index kept in a tf.Variable (the fix).

Source: tensorflow/tensorflow#44784 "gradient_transformers throw autograph errors when trying to
maintain state in tensorarray" (https://github.com/tensorflow/tensorflow/issues/44784): the
maintainer advised keeping the state in tf.Variables; the reporter confirmed it "fixed it" and
contributed that version as pseeth/autoclip#2 "tensorflow implementation of autoclip"
(https://github.com/pseeth/autoclip/pull/2, file autoclip_tf.py). There the history is a
`tf.Variable`, the index is `self.i = tf.Variable(0, trainable=False)` advanced with
`self.i.assign_add(1)` (the file rebinds `self.i` and `self.grad_history` to the results of
`assign_add` / slice `assign`, kept here as written), and the slot is
`tf.math.mod(self.i, self.history_size)`, so every call of the traced function advances the
counter and writes a new history slot.
Changes: Keras 3 optimizers have no `gradient_transformers`, so the clipper is applied in a
tf.function train step; the model is a small Dense network on random regression data, 6 steps,
history size 100.
"""
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp


class AutoClipper:
    def __init__(self, clip_percentile, history_size=10000):
        self.clip_percentile = clip_percentile
        self.grad_history = tf.Variable(tf.zeros(history_size), trainable=False)
        self.i = tf.Variable(0, trainable=False)
        self.history_size = history_size

    def __call__(self, grads_and_vars):
        grad_norms = [self._get_grad_norm(g) for g, _ in grads_and_vars]
        total_norm = tf.norm(grad_norms)
        assign_idx = tf.math.mod(self.i, self.history_size)
        self.grad_history = self.grad_history[assign_idx].assign(total_norm)
        self.i = self.i.assign_add(1)
        clip_value = tfp.stats.percentile(self.grad_history[: self.i], q=self.clip_percentile)
        return [(tf.clip_by_norm(g, clip_value), v) for g, v in grads_and_vars]

    def _get_grad_norm(self, t, axes=None, name=None):
        values = tf.convert_to_tensor(t.values if isinstance(t, tf.IndexedSlices) else t, name="t")
        l2sum = tf.math.reduce_sum(values * values, axes, keepdims=True)
        pred = l2sum > 0
        l2sum_safe = tf.where(pred, l2sum, tf.ones_like(l2sum))
        return tf.squeeze(tf.where(pred, tf.math.sqrt(l2sum_safe), l2sum))


model = tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(16, activation="relu"),
                             tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adam(learning_rate=0.001)
autoclipper = AutoClipper(10, history_size=100)
loss_fn = tf.keras.losses.MeanAbsoluteError()


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    clipped = autoclipper(list(zip(grads, model.trainable_variables)))
    optimizer.apply_gradients(clipped)
    return loss


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(48, 8)).astype(np.float32)
    y = rng.normal(size=(48, 1)).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
    steps = 0
    for xb, yb in ds:
        train_step(xb, yb)
        steps += 1
    counter = int(autoclipper.i.numpy())
    filled = int(np.count_nonzero(autoclipper.grad_history.numpy()))
    print(f"steps={steps} autoclipper.i={counter} history entries written={filled}")
    print(f"ORACLE: bug={counter != steps} counter={counter} steps={steps} history_filled={filled}")


if __name__ == "__main__":
    main()
