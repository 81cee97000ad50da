"""Gradient accumulation in a custom train_step driven by Python attributes of the model.

Source: keras-team/keras#14483 "Unable to know batch number from within custom
train_step" (https://github.com/keras-team/keras/issues/14483). The reporter's
GradAccumModel keeps `self.apply_gradients` / `self.accumulated_gradients` as plain
attributes and "tried setting attributes of the class, but they don't seem to be getting
updated during training"; they later suspected "the train_function is cached" and had to
move the flag into a tf.Variable. fit() traces train_step once: the attribute update runs
only while tracing, so the batch counter stops at 1 and the `if self.apply_gradients:`
branch is decided for good on the first batch (here: never apply). Changed: the MNIST
data of the issue is random, the model is a small Dense net built functionally, and the
batch counting the reporter wanted is written out as a counter attribute.
"""
import numpy as np
import tensorflow as tf


class GradAccumModel(tf.keras.Model):
    def __init__(self, n_gradients, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.n_gradients = n_gradients
        self.batch_number = 0
        self.apply_gradients = True
        self.accumulated_gradients = [tf.Variable(tf.zeros_like(v), trainable=False)
                                      for v in self.trainable_variables]

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)

        gradients = tape.gradient(loss, self.trainable_variables)
        for acc, g in zip(self.accumulated_gradients, gradients):
            acc.assign_add(g)

        self.batch_number += 1
        self.apply_gradients = self.batch_number % self.n_gradients == 0
        if self.apply_gradients:
            self.optimizer.apply_gradients(
                zip([acc / self.n_gradients for acc in self.accumulated_gradients],
                    self.trainable_variables))
            for acc in self.accumulated_gradients:
                acc.assign(tf.zeros_like(acc))

        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def main():
    rng = np.random.default_rng(0)
    x = rng.random((256, 20)).astype("float32")
    y = rng.integers(0, 10, 256)

    inputs = tf.keras.Input(shape=(20,))
    h = tf.keras.layers.Dense(32, activation="relu")(inputs)
    outputs = tf.keras.layers.Dense(10)(h)
    model = GradAccumModel(n_gradients=2, inputs=inputs, outputs=outputs)
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-2),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))

    start = [w.copy() for w in model.get_weights()]
    model.fit(x, y, batch_size=32, epochs=2, verbose=0)
    steps = 2 * (256 // 32)
    changed = any(not np.array_equal(a, b) for a, b in zip(start, model.get_weights()))
    print(f"batches run: {steps}, model.batch_number: {model.batch_number}, weights changed: {changed}")
    bug = model.batch_number != steps or not changed
    print(f"ORACLE: bug={bug} batch_number={model.batch_number} steps={steps} weights_changed={changed}")


if __name__ == "__main__":
    main()
