"""Linear regression by hand: two variables, a tape, and plain SGD updates."""
import numpy as np
import tensorflow as tf


def make_data(n=128):
    rng = np.random.default_rng(0)
    x = rng.uniform(-1.0, 1.0, size=(n, 1)).astype("float32")
    y = 3.0 * x - 0.5 + rng.normal(0.0, 0.05, size=(n, 1)).astype("float32")
    return tf.constant(x), tf.constant(y)


def train(steps=40, lr=0.1):
    x, y = make_data()
    w = tf.Variable(0.0)
    b = tf.Variable(0.0)
    for step in range(steps):
        with tf.GradientTape() as tape:
            pred = w * x + b
            loss = tf.reduce_mean(tf.square(pred - y))
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(lr * dw)
        b.assign_sub(lr * db)
    return float(w.numpy()), float(b.numpy()), float(loss.numpy())


if __name__ == "__main__":
    w, b, loss = train()
    print(f"w={w:.3f} b={b:.3f} loss={loss:.4f}")
