"""Physics loss builds a matrix with tf.constant around an expression of the unknown parameter.

Source: Crunch-UQ4MI/neuraluq#12 "Updates likelihood function for deep ensemble method with
parallelized FNN" (https://github.com/Crunch-UQ4MI/neuraluq/pull/12), comment of 2023-11-20:
in a physics-informed inverse problem the user puts the parameter to identify inside a
matrix of the physics loss, `B = tf.constant([[0.0], [tf.divide(1.0, b)]], dtype=tf.float32)`,
and gets "TypeError: Expected float32, but got Tensor("Neg:0", shape=(), dtype=float32) of
type 'SymbolicTensor'". The maintainer answers that tf.constant will not work there.
tf.constant needs a concrete value; in the traced loss `b` is symbolic (and in eager code
the constant would silently cut the gradient to `b`). Fix: build B with tf.stack/tf.concat.
Changes: neuraluq's surrogate/variable classes are replaced by a small Keras network and a
tf.Variable (b = -exp(log_b), hence the "Neg" op); the ODE system du/dt = A u + B f(t) on
synthetic collocation points stands in for the user's model.
"""
import numpy as np
import tensorflow as tf


class InversePINN:
    def __init__(self):
        self.net = tf.keras.Sequential([
            tf.keras.layers.Input(shape=(1,)),
            tf.keras.layers.Dense(16, activation="tanh"),
            tf.keras.layers.Dense(2),
        ])
        self.log_b = tf.Variable(0.3, name="log_b")
        self.A = tf.constant([[0.0, 1.0], [-1.0, -0.1]], dtype=tf.float32)
        self.optimizer = tf.keras.optimizers.Adam(1e-3)

    def forcing(self, t):
        return tf.sin(t)

    @tf.function
    def physics_loss(self, t):
        b = -tf.exp(self.log_b)
        with tf.GradientTape() as tape:
            tape.watch(t)
            u = self.net(t)
        du_dt = tape.batch_jacobian(u, t)[..., 0]
        B = tf.constant([[0.0], [tf.divide(1.0, b)]], dtype=tf.float32)
        residual = du_dt - tf.matmul(u, self.A, transpose_b=True) - tf.matmul(
            self.forcing(t), B, transpose_b=True)
        return tf.reduce_mean(tf.square(residual))

    def train_step(self, t):
        with tf.GradientTape() as tape:
            loss = self.physics_loss(t)
        variables = self.net.trainable_variables + [self.log_b]
        grads = tape.gradient(loss, variables)
        self.optimizer.apply_gradients(zip(grads, variables))
        return loss


def main():
    t = tf.constant(np.linspace(0.0, 5.0, 32, dtype=np.float32)[:, None])
    pinn = InversePINN()
    try:
        loss = pinn.train_step(t)
        print("loss", float(loss))
        print("ORACLE: bug=False trained=True")
    except TypeError as exc:
        lines = [l.strip() for l in str(exc).splitlines() if l.strip()]
        print("TypeError:", lines[-1])
        print("ORACLE: bug=True error=TypeError")


if __name__ == "__main__":
    main()
