"""A tf.function that makes an iterator over the dataset it is given and returns the next element.

Source: tensorflow/tensorflow#55359 "tf2.0 dataset disable_eager_execution"
(https://github.com/tensorflow/tensorflow/issues/55359): "the output is always 1". Each call
builds a new iterator, which starts at the first element. Run here in TF2 eager mode, where the
same happens call after call.
"""
import tensorflow as tf

with tf.device('/cpu'):
    dataset = tf.data.Dataset.from_tensor_slices([1, 3, 4, 5, 6, 7, 8])


@tf.function
def iter_funs(ds):
    iterator = iter(ds)
    return iterator.get_next()


if __name__ == "__main__":
    with tf.device('/cpu'):
        values = [int(iter_funs(dataset)) for _ in range(3)]
    print(values)
    print(f"ORACLE: bug={values == [1, 1, 1]} values={values}")
