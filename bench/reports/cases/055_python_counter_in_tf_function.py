"""A Python attribute incremented inside a tf.function, which runs only while tracing.

Source: tensorflow/tensorflow#31362 "Non-tensorflow code gets executed only on the first run
of tf.function" (https://github.com/tensorflow/tensorflow/issues/31362).
"""
import tensorflow as tf

print(tf.__version__)


class MyObj:
    def __init__(self):
        self.value = 0


obj = MyObj()


@tf.function
def with_py_side_effect(tensorflow_stuff, o):

    # do my complex tf stuff
    ...

    o.value += 1
    return tensorflow_stuff


if __name__ == "__main__":
    for i in range(5):
        print(i, obj.value)
        a = with_py_side_effect(None, obj)
    print(f"ORACLE: bug={obj.value != 5} value={obj.value} calls=5")
