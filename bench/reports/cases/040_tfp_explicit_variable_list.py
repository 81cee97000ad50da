"""The version that works in the same report: the gradients are taken w.r.t. [beta].

Source: tensorflow/probability#1431 (https://github.com/tensorflow/probability/issues/1431):
"if declare the training parameter as a list (beta parameter here) it works".
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
    grads = tape.gradient(loss, [beta])
    optimizer.apply_gradients(zip(grads, [beta]))
    return loss, grads


def main():
    start = beta.numpy().copy()
    for _ in range(20):
        get_loss_and_grads(X, y)
    moved = not np.allclose(start, beta.numpy())
    print(f"ORACLE: bug={not moved} beta_moved={moved}")


if __name__ == "__main__":
    main()
