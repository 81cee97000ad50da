"""A tf.function that returns `(x + y).numpy()` to get an array.

Source: tensorflow/tensorflow#57195 "AttributeError: 'Tensor' object has no attribute 'numpy'"
(https://github.com/tensorflow/tensorflow/issues/57195).
"""
import tensorflow as tf

x = tf.ones([1])
y = tf.ones([1])


@tf.function
def f(x, y):
    return (x + y).numpy()


if __name__ == "__main__":
    try:
        print(f(x, y))
        print("ORACLE: bug=False error=none")
    except AttributeError as exc:
        print("AttributeError:", str(exc).strip().splitlines()[-1][:300])
        print("ORACLE: bug=True error=AttributeError")
