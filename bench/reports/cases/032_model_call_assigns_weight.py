"""Log-posterior written as a Keras model whose call() assigns its argument to a weight.

Source: tensorflow/tensorflow#54532 "tape.gradient returns None when assign is used in a model
for computation of a function" (https://github.com/tensorflow/tensorflow/issues/54532). The
reporter wanted the gradient of the log-posterior for Hamiltonian Monte Carlo; the value goes
through `self.w.assign(x)`, which is not differentiable.
"""
import tensorflow as tf


class DummyModel(tf.keras.Model):
    def __init__(self):
        super().__init__()

    def build(self, input_shape):
        self.w = self.add_weight(name='w', shape=(), dtype=tf.float64, initializer="zeros")

    def call(self, x):
        self.w.assign(x)
        return 0.5 * self.w * self.w


def main():
    model = DummyModel()
    model.build(())
    x = tf.constant(2.0, dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        log_posterior = model(x)
    g = tape.gradient(log_posterior, x)
    print("gradient:", g)
    print(f"ORACLE: bug={g is None} grad_is_none={g is None}")


if __name__ == "__main__":
    main()
