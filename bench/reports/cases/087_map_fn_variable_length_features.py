"""Variable-length numeric features stored as strings, parsed and intersected per row by map_fn.

Source: tensorflow/tensorflow#24774 "why is tensorflow.map_fn slow, what is wrong with following
code?" (https://github.com/tensorflow/tensorflow/issues/24774), comment by tejaslodaya: the rows
have different lengths, so they are kept as strings; map_fn converts each one and computes one
scalar per row, which "is impossible to do in vectorization".
"""
import tensorflow as tf

reference = tf.constant([1.0, 3.0, 5.0, 8.0])


def row_intersection(row):
    values = tf.strings.to_number(tf.strings.split(row, ","), tf.float32)
    hits = tf.reduce_any(tf.equal(values[:, None], reference[None, :]), axis=1)
    return tf.reduce_sum(tf.cast(hits, tf.float32)) / tf.cast(tf.size(values), tf.float32)


if __name__ == "__main__":
    features = tf.constant(["1,2,3", "5", "8,9,10,11,1", "4,6"])
    out = tf.map_fn(row_intersection, features, fn_output_signature=tf.float32)
    try:
        tf.vectorized_map(row_intersection, features, fallback_to_while_loop=False)
        vectorizable = True
    except Exception as exc:
        print(f"vectorized_map: {type(exc).__name__}")
        vectorizable = False
    print(out.numpy().tolist())
    print(f"ORACLE: bug={vectorizable} vectorized_map_converts={vectorizable}")
