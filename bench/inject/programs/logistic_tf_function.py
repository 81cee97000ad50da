"""Binary classifier with a compiled training step and a tensor learning-rate scale."""
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(1)
features = rng.normal(size=(256, 4)).astype("float32")
labels = (features[:, :1] + features[:, 1:2] > 0).astype("float32")

model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(8, activation="relu"),
                             tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.SGD(0.1)
loss_fn = tf.keras.losses.BinaryCrossentropy(from_logits=True)


@tf.function
def train_step(x, y, scale):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_fn(y, logits) * scale
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


x_all = tf.constant(features)
y_all = tf.constant(labels)
for epoch in range(6):
    loss = train_step(x_all, y_all, tf.constant(1.0 / (1 + epoch)))
print("final loss", float(loss))
