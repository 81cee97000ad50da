"""A small trainer class: the model and optimizer live on the instance, the step is compiled."""
import numpy as np
import tensorflow as tf


class Trainer:
    def __init__(self, width=16):
        self.model = tf.keras.Sequential([
            tf.keras.Input(shape=(3,)),
            tf.keras.layers.Dense(width, activation="tanh"),
            tf.keras.layers.Dense(1),
        ])
        self.optimizer = tf.keras.optimizers.Adam(1e-2)

    @tf.function
    def train_step(self, x, y):
        with tf.GradientTape() as tape:
            pred = self.model(x, training=True)
            loss = tf.reduce_mean(tf.square(pred - y))
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    def evaluate(self, x, y):
        pred = self.model(x, training=False)
        return float(tf.reduce_mean(tf.abs(pred - y)))


def main():
    rng = np.random.default_rng(2)
    x = tf.constant(rng.normal(size=(200, 3)).astype("float32"))
    y = tf.reduce_sum(x, axis=1, keepdims=True)
    trainer = Trainer()
    for step in range(8):
        loss = trainer.train_step(x, y)
    print("loss", float(loss), "mae", trainer.evaluate(x, y))


if __name__ == "__main__":
    main()
