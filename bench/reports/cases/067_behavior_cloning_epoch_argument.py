"""Behaviour-cloning trainer that passes the Python epoch number into its tf.function step.

Source: microsoft/AirSim-Drone-Racing-VAE-Imitation#10 "Performance issues about tf.function"
(https://github.com/microsoft/AirSim-Drone-Racing-VAE-Imitation/issues/10): in
imitation_learning/train_bc.py `epoch` is passed to `train` inside the epoch loop, so every
epoch traces a new graph. The drone images are replaced by random features.
"""
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((10,)), tf.keras.layers.Dense(32, activation="relu"),
                             tf.keras.layers.Dense(4)])
optimizer = tf.keras.optimizers.Adam(1e-3)
train_loss_rec = tf.keras.metrics.Mean(name='train_loss_rec')


@tf.function
def train(images, labels, epoch, mode):
    with tf.GradientTape() as tape:
        predictions = model(images)
        recon_loss = tf.reduce_mean(tf.keras.losses.mse(labels, predictions))
    gradients = tape.gradient(recon_loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    train_loss_rec.update_state(recon_loss)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    train_ds = tf.data.Dataset.from_tensor_slices(
        (rng.normal(size=(64, 10)).astype(np.float32), rng.normal(size=(64, 4)).astype(np.float32))).batch(16)
    epochs = 6
    for epoch in range(epochs):
        for train_images, train_labels in train_ds:
            train(train_images, train_labels, epoch, 0)
    traces = train.experimental_get_tracing_count()
    print(f"ORACLE: bug={traces >= epochs} traces={traces} epochs={epochs}")
