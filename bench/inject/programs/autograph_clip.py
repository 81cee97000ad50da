"""Compiled step with data-dependent control flow that AutoGraph converts."""
import tensorflow as tf

w = tf.Variable([[0.5], [-0.5]])
optimizer = tf.keras.optimizers.SGD(0.1)


@tf.function
def clipped_step(x, y, max_norm):
    with tf.GradientTape() as tape:
        pred = x @ w
        loss = tf.reduce_mean(tf.square(pred - y))
    grad = tape.gradient(loss, w)
    norm = tf.norm(grad)
    if norm > max_norm:
        grad = grad * (max_norm / norm)
    optimizer.apply_gradients([(grad, w)])
    return loss


@tf.function
def power_iterations(matrix, n):
    v = tf.ones((matrix.shape[0], 1))
    for i in tf.range(n):
        v = matrix @ v
        v = v / tf.norm(v)
    return v


x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
y = tf.constant([[1.0], [2.0], [3.0]])
for step in range(5):
    loss = clipped_step(x, y, tf.constant(1.0))
print("loss", float(loss), power_iterations(tf.constant([[2.0, 1.0], [1.0, 3.0]]), tf.constant(20)).numpy().ravel())
