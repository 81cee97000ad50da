"""The compiled step pulls its own batch from a tf.data iterator."""
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(11)
xs = rng.normal(size=(80, 2)).astype("float32")
ys = (xs[:, :1] * 2.0 - xs[:, 1:]).astype("float32")
dataset = tf.data.Dataset.from_tensor_slices((xs, ys)).batch(8)
iterator = iter(dataset)

w = tf.Variable(tf.zeros((2, 1)))
optimizer = tf.keras.optimizers.SGD(0.1)


@tf.function
def train_one_batch():
    x, y = next(iterator)
    with tf.GradientTape() as tape:
        pred = x @ w
        loss = tf.reduce_mean(tf.square(pred - y))
    grads = tape.gradient(loss, [w])
    optimizer.apply_gradients(zip(grads, [w]))
    return loss


for step in range(10):  # 80 examples, 10 batches of 8
    loss = train_one_batch()
print("loss", float(loss))
