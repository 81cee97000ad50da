"""The TensorFlow 2 form of the same example: the objective uses tfp.math.value_and_gradient.

Source: tensorflow/probability#624 (https://github.com/tensorflow/probability/issues/624),
resolved by the updated documentation example.
"""
import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp

ndims = 60
minimum = np.ones([ndims], dtype='float64')
scales = np.arange(ndims, dtype='float64') + 1.0


def quadratic(x):
    return tfp.math.value_and_gradient(
        lambda x: tf.reduce_sum(scales * (x - minimum) ** 2), x)


def main():
    start = np.arange(ndims, 0, -1, dtype='float64')
    optim_results = tfp.optimizer.lbfgs_minimize(
        quadratic, initial_position=start, num_correction_pairs=10,
        tolerance=1e-8)
    ok = bool(optim_results.converged) and np.allclose(optim_results.position, minimum)
    print(f"ORACLE: bug={not ok} converged={bool(optim_results.converged)}")


if __name__ == "__main__":
    main()
