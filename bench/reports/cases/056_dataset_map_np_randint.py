"""tf.data pipeline whose map function draws a random field with numpy.random.randint.

Source: tensorflow/tensorflow#60848 "tf.data.Dataset.map does not support randomization"
(https://github.com/tensorflow/tensorflow/issues/60848): the map function is traced once, so
the NumPy draw becomes a constant; with tf.random.uniform (the commented line) the values vary.
(pandas, used in the report to build the column lists, is replaced by a comprehension.)
"""
import numpy as np
import tensorflow as tf

a = [{"key": i, "value": np.random.random()} for i in range(5)]
dict_of_list = {k: [row[k] for row in a] for k in a[0]}  # pd.DataFrame.from_records(a).to_dict(orient="list")
keys = dict_of_list.keys()

dataset = tf.data.Dataset.zip(
    tuple([
        tf.data.Dataset.from_tensor_slices(dict_of_list[key]) for key in keys
    ])
)
dataset = dataset.map(lambda *x: {key: x[i] for i, key in enumerate(keys)})


def test_function(x, f="key", low=0, high=100):
    #x[f] = tf.random.uniform(shape=(), minval=1, maxval=5, dtype=tf.int32) # this is randomized
    x[f] = np.random.randint(low=low, high=high)
    return x


if __name__ == "__main__":
    mapped = dataset.map(test_function)
    draws = [int(b["key"]) for _ in range(2) for b in mapped]
    print("drawn keys:", draws)
    print(f"ORACLE: bug={len(set(draws)) == 1} distinct={len(set(draws))} of={len(draws)}")
