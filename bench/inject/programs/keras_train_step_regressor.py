"""Keras Model subclass with its own train_step, trained with fit()."""
import numpy as np
import tensorflow as tf


class Regressor(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(16, activation="relu")
        self.out = tf.keras.layers.Dense(1)

    def call(self, x, training=False):
        return self.out(self.hidden(x))

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            pred = self(x, training=True)
            loss = tf.reduce_mean(tf.square(pred - y))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}


rng = np.random.default_rng(3)
x = rng.normal(size=(128, 5)).astype("float32")
y = (x @ np.arange(1, 6, dtype="float32")[:, None]).astype("float32")
model = Regressor()
model.compile(optimizer=tf.keras.optimizers.Adam(1e-2))
history = model.fit(x, y, batch_size=32, epochs=3, verbose=0)
print("loss", history.history["loss"][-1])
