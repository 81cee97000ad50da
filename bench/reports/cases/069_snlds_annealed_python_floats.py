"""Switching-dynamics trainer that anneals its learning rate, temperature and entropy weight.

Source: yerkojahve/Meta-Pseudo-label#1 "Performance issue in snlds/examples/lorenz_attractor_trainer.py"
(https://github.com/yerkojahve/Meta-Pseudo-label/issues/1): the Python floats `learning_rate`,
`temperature` and `cross_entrophy_coef`, recomputed in the while loop, are passed to the
tf.function `train_step`, one trace per new value. A small dense model stands in for SNLDS.
"""
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(16, activation="tanh"),
                             tf.keras.layers.Dense(3)])
optimizer = tf.keras.optimizers.Adam(1e-3)


def schedule(step, start, end, steps):
    return float(max(end, start - (start - end) * step / steps))


@tf.function
def train_step(batch, model, optimizer, learning_rate, temperature, cross_entrophy_coef):
    optimizer.learning_rate.assign(learning_rate)
    with tf.GradientTape() as tape:
        logits = model(batch[:, :-1]) / temperature
        nll = tf.reduce_mean(tf.square(logits - batch[:, 1:]))
        probs = tf.nn.softmax(logits)
        entropy = -tf.reduce_mean(tf.reduce_sum(probs * tf.math.log(probs + 1e-8), axis=-1))
        loss = nll - cross_entrophy_coef * entropy
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    data = tf.constant(rng.normal(size=(32, 4)), tf.float32)
    step, num_steps = 0, 8
    while step < num_steps:
        learning_rate = schedule(step, 1e-3, 1e-4, num_steps)
        temperature = schedule(step, 10.0, 1.0, num_steps)
        cross_entrophy_coef = schedule(step, 1.0, 0.0, num_steps)
        train_step(data, model, optimizer, learning_rate, temperature, cross_entrophy_coef)
        step += 1
    traces = train_step.experimental_get_tracing_count()
    print(f"ORACLE: bug={traces >= num_steps} traces={traces} steps={num_steps}")
