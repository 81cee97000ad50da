"""Per-row score aggregation by label with unique_with_counts and segment_sum, via tf.map_fn.

Source: tensorflow/tensorflow#42419 "parallel_for: No converter defined for UniqueWithCounts,
SegmentSum, Range, Where, Tile in tf.vectorized_map()" (https://github.com/tensorflow/tensorflow/issues/42419):
the reporter tried to replace tf.map_fn with tf.vectorized_map, which cannot convert these
ops. The per-row work has a data-dependent number of unique labels: map_fn is the right tool.
"""
import numpy as np
import tensorflow as tf


def my_func(tensor_x):
    label_tensor = tensor_x[:, 0]
    score_tensor = tensor_x[:, 1]
    unique_labels, unique_labels_idx, unique_labels_counts = tf.unique_with_counts(label_tensor)
    score_sum_flatten = tf.math.segment_sum(score_tensor, unique_labels_idx)
    repeated_label_tensor = tf.repeat(unique_labels, unique_labels_counts)
    repeated_score_tensor = tf.repeat(score_sum_flatten, unique_labels_counts)
    label_score_tensor = tf.stack((repeated_label_tensor, repeated_score_tensor), axis=1)
    label_score_tensor = tf.reshape(label_score_tensor, shape=tensor_x.shape)
    return label_score_tensor


if __name__ == "__main__":
    input_tensor = tf.constant([[[2.0, 0.5], [2.0, 0.5], [3.0, 0.4], [1.0, 0.1]],
                                [[1.0, 0.2], [1.0, 0.3], [1.0, 0.1], [4.0, 0.9]]])
    out = tf.map_fn(my_func, input_tensor)
    try:
        tf.vectorized_map(my_func, input_tensor, fallback_to_while_loop=False)
        vectorizable = True
    except Exception as exc:
        print(f"vectorized_map: {type(exc).__name__}")
        vectorizable = False
    print(out.numpy()[0].tolist())
    print(f"ORACLE: bug={vectorizable} vectorized_map_converts={vectorizable}")
