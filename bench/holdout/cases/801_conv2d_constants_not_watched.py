"""Gradient of a tf.nn.conv2d output w.r.t. its input and filter: both are plain tensors built
with tf.constant from NumPy arrays inside the tape, never watched, so tape.gradient gives None.

Source: tensorflow/tensorflow#50661 "Calculation of gradient of 2D convolution operation
through GradientTape returns None" (https://github.com/tensorflow/tensorflow/issues/50661).
The reporter ported a TF1 `tf.gradients` test of conv2d (x and w drawn with np.random.randint,
turned into float32 constants) to a GradientTape in eager mode and got None; the reply
(hasan7n) explains that only tf.Variables are watched automatically and that x and w must be
watched (or made Variables).
Changed from the posted code: the module-level script is wrapped in main(), sizes kept small
(4x4 input, 3x3 filter), the GPU memory-growth environment line dropped, a fixed NumPy seed (np.random.seed).
"""
import numpy as np
import tensorflow as tf


def main():
    np.random.seed(0)
    with tf.GradientTape() as g:
        # sizes, fixed strides, in_channel, out_channel be 1 for now
        x_size = 4
        w_size = 3
        x_shape = (1, x_size, x_size, 1)
        w_shape = (w_size, w_size, 1, 1)
        strides = (1, 1, 1, 1)

        x_np = np.random.randint(10, size=x_shape)
        w_np = np.random.randint(10, size=w_shape)
        x = tf.constant(x_np, dtype=tf.float32)
        w = tf.constant(w_np, dtype=tf.float32)
        y = tf.nn.conv2d(x, w, strides=strides, padding="VALID")

    dy_dx, dy_dw = g.gradient(y, [x, w])
    print("y:", y.numpy().ravel())
    print("dy/dx:", dy_dx)
    print("dy/dw:", dy_dw)
    none = dy_dx is None and dy_dw is None
    print(f"ORACLE: bug={none} dx_is_none={dy_dx is None} dw_is_none={dy_dw is None}")


if __name__ == "__main__":
    main()
