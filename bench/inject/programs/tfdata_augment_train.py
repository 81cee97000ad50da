"""Input pipeline with a tf.data map function for augmentation, then an eager training loop."""
import numpy as np
import tensorflow as tf


def augment(image, label):
    flipped = tf.image.flip_left_right(image)
    scaled = flipped * 0.5 + 0.25
    return scaled, label


rng = np.random.default_rng(9)
images = rng.uniform(size=(64, 6, 6, 1)).astype("float32")
labels = rng.integers(0, 2, size=64).astype("int32")
dataset = tf.data.Dataset.from_tensor_slices((images, labels)).map(augment).batch(16)

model = tf.keras.Sequential([tf.keras.Input(shape=(6, 6, 1)), tf.keras.layers.Flatten(), tf.keras.layers.Dense(2)])
optimizer = tf.keras.optimizers.SGD(0.05)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
for epoch in range(2):
    for x, y in dataset:
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = loss_fn(y, logits)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
print("loss", float(loss))
