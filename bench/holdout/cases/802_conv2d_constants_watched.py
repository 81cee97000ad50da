"""Correct look-alike: the conv2d input and filter are watched before the convolution, so
tape.gradient returns both gradients.

Source: tensorflow/tensorflow#50661 "Calculation of gradient of 2D convolution operation
through GradientTape returns None" (https://github.com/tensorflow/tensorflow/issues/50661),
the reply by hasan7n, "option 1: watch your tensors": g.watch(x) and g.watch(w) after the
tf.constant conversions (the reply also shows option 2, tf.Variable).
Changed from the posted code: wrapped in main(), small sizes, fixed NumPy seed (np.random.seed), the two
gradients taken in one call on a non-persistent tape.
"""
import numpy as np
import tensorflow as tf


def main():
    np.random.seed(0)
    with tf.GradientTape() as g:
        x_size = 4
        w_size = 3
        x_shape = (1, x_size, x_size, 1)
        w_shape = (w_size, w_size, 1, 1)
        strides = (1, 1, 1, 1)

        x_np = np.random.randint(10, size=x_shape)
        w_np = np.random.randint(10, size=w_shape)
        x = tf.constant(x_np, dtype=tf.float32)
        w = tf.constant(w_np, dtype=tf.float32)
        g.watch(x)
        g.watch(w)
        y = tf.nn.conv2d(x, w, strides=strides, padding="VALID")

    dy_dx, dy_dw = g.gradient(y, [x, w])
    print("dy/dx:", None if dy_dx is None else dy_dx.numpy().ravel())
    print("dy/dw:", None if dy_dw is None else dy_dw.numpy().ravel())
    none = dy_dx is None or dy_dw is None
    print(f"ORACLE: bug={none} dx_is_none={dy_dx is None} dw_is_none={dy_dw is None}")


if __name__ == "__main__":
    main()
