"""Poisson regression that asks the distribution object for its trainable variables.

Source: tensorflow/probability#1431 "Training for the parameters of a probabilistic model does
not work when use .trainable_variables" (https://github.com/tensorflow/probability/issues/1431):
the distribution is built from tensors computed from `beta`, so `y_dist.trainable_variables`
is empty and beta never changes.
"""
import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp

tfd = tfp.distributions

X = np.array([[1.0, 2.0, 5.0],
              [1.0, 1.0, 3.0],
              [1.0, 4.0, 2.0],
              [1.0, 5.0, 2.0],
              [1.0, 3.0, 1.0]])
y = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
beta = tf.Variable(initial_value=np.random.default_rng(0).normal(size=(1, 3)), trainable=True)
optimizer = tf.keras.optimizers.Adam(0.01)


@tf.function
def get_loss_and_grads(X_t, y_t):
    with tf.GradientTape() as tape:
        y_dist = tfd.Poisson(rate=tf.exp(tf.matmul(beta, tf.transpose(X_t))))
        loss = -tf.reduce_mean(y_dist.log_prob(y_t))
    grads = tape.gradient(loss, y_dist.trainable_variables)
    optimizer.apply_gradients(zip(grads, y_dist.trainable_variables))
    return loss, grads


def main():
    start = beta.numpy().copy()
    for _ in range(20):
        get_loss_and_grads(X, y)
    moved = not np.allclose(start, beta.numpy())
    print("beta before/after:", start, beta.numpy())
    return moved


if __name__ == "__main__":
    try:
        moved = main()
        print(f"ORACLE: bug={not moved} beta_moved={moved}")
    except ValueError as exc:
        print("ValueError:", str(exc).strip().splitlines()[-1][:300])
        print("ORACLE: bug=True error=ValueError")
