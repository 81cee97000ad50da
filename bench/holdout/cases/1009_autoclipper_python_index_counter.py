"""AutoClip gradient transformer keeps its history index as a Python int incremented in __call__.

Source: tensorflow/tensorflow#44784 "gradient_transformers throw autograph errors when trying to
maintain state in tensorarray" (https://github.com/tensorflow/tensorflow/issues/44784). The
reporter's `AutoClipper` (AutoClip: clip each step's gradients at a percentile of the history
of gradient norms) stores the norm of step `self.i` in a history and then does `self.i += 1`.
The maintainer (omalleyt12) answered that besides the TensorArray error, "Python control flow
via `self.i += 1`" will mean only the first history element ever gets updated: the clipper runs
inside a tf.function, so the Python increment happens only when the function is traced, and
every later call writes the same history slot and takes the percentile of the same frozen
`history[:i]` slice; his demo calls the clipper twice through a tf.function and prints
`autoclipper.i`. (Here the step is traced twice on its first call, so the counter ends at 2.)
Changes: the history is a tf.Variable (the maintainer's fix for the TensorArray part) so that
the counter problem can be observed; Keras 3 optimizers have no `gradient_transformers`, so the
clipper is applied in a tf.function train step, as in the maintainer's demo; the model is a
small Dense network on random regression data, 6 steps. The norm helper `_get_grad_norm` is
written like the one in the reporter's later version (pseeth/autoclip autoclip_tf.py).
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
        self.i = 0
        self.history_size = history_size

    def __call__(self, grads_and_vars):
        grad_norms = [self._get_grad_norm(g) for g, _ in grads_and_vars]
        total_norm = tf.norm(grad_norms)
        self.grad_history[self.i % self.history_size].assign(total_norm)
        self.i += 1
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
    filled = int(np.count_nonzero(autoclipper.grad_history.numpy()))
    print(f"steps={steps} autoclipper.i={autoclipper.i} history entries written={filled}")
    print(f"ORACLE: bug={autoclipper.i != steps} counter={autoclipper.i} steps={steps} "
          f"history_filled={filled}")


if __name__ == "__main__":
    main()
