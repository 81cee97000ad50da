"""Classifier overriding train_step and test_step, with a loss tracker."""
import numpy as np
import tensorflow as tf


class Classifier(tf.keras.Model):
    def __init__(self, classes=3):
        super().__init__()
        self.body = tf.keras.layers.Dense(32, activation="relu")
        self.head = tf.keras.layers.Dense(classes)
        self.loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        self.tracker = tf.keras.metrics.Mean(name="loss")

    def call(self, x, training=False):
        return self.head(self.body(x))

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            logits = self(x, training=True)
            loss = self.loss_fn(y, logits)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.tracker.update_state(loss)
        return {"loss": self.tracker.result()}

    def test_step(self, data):
        x, y = data
        logits = self(x, training=False)
        self.tracker.update_state(self.loss_fn(y, logits))
        return {"loss": self.tracker.result()}

    @property
    def metrics(self):
        return [self.tracker]


rng = np.random.default_rng(4)
x = rng.normal(size=(150, 4)).astype("float32")
y = np.argmax(x[:, :3], axis=1).astype("int32")
model = Classifier()
model.compile(optimizer=tf.keras.optimizers.Adam(1e-2))
model.fit(x, y, batch_size=30, epochs=3, verbose=0)
print(model.evaluate(x, y, verbose=0))
