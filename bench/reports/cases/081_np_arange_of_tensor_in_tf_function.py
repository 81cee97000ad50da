"""A tf.function with NumPy hyper-parameters that calls np.arange on a tensor bound.

Source: tensorflow/tensorflow#40537 "Tensorflow tf function with numpy hyper-parameters and
numpy calls" (https://github.com/tensorflow/tensorflow/issues/40537): `np.arange(range_lim)`
with a symbolic `range_lim` raises "Cannot convert a symbolic Tensor ... to a numpy array".
"""
import numpy as np
import tensorflow as tf


@tf.function
def my_function(x, a):
    range_lim = tf.shape(x)[-1]
    range_array = np.arange(range_lim)
    return x * a * range_array


if __name__ == "__main__":
    try:
        print(my_function(tf.ones([3, 4]), np.float32(2.0)))
        print("ORACLE: bug=False error=none")
    except (NotImplementedError, TypeError) as exc:
        print(f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1][:300]}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")
