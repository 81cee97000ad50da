"""The L-BFGS example of the TFP documentation run eagerly on TensorFlow 2.

Source: tensorflow/probability#624 "LBFGS documentation example error in TensorFlow 2.0"
(https://github.com/tensorflow/probability/issues/624): the objective returns
`tf.gradients(value, x)[0]`, which raises in eager mode. (The session at the end of the
documented example is left out.)
"""
import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp

# A high-dimensional quadratic bowl.
ndims = 60
minimum = np.ones([ndims], dtype='float64')
scales = np.arange(ndims, dtype='float64') + 1.0


# The objective function and the gradient.
def quadratic(x):
    value = tf.reduce_sum(scales * (x - minimum) ** 2)
    return value, tf.gradients(value, x)[0]


def main():
    start = np.arange(ndims, 0, -1, dtype='float64')
    optim_results = tfp.optimizer.lbfgs_minimize(
        quadratic, initial_position=start, num_correction_pairs=10,
        tolerance=1e-8)
    return optim_results


if __name__ == "__main__":
    try:
        results = main()
        print("converged:", bool(results.converged))
        print("ORACLE: bug=False error=none")
    except RuntimeError as exc:
        print("RuntimeError:", exc)
        print("ORACLE: bug=True error=RuntimeError")
