"""A correct custom training loop: tapelsp has nothing to say about it."""
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu"), tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adam(1e-2)
step_count = tf.Variable(0, dtype=tf.int64)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    step_count.assign_add(1)
    tf.print("step", step_count, "loss", loss)
    return loss


x = tf.random.normal([64, 4])
y = tf.reduce_sum(x, axis=1, keepdims=True)
for _ in range(3):
    train_step(x, y)
