"""Ordinal (CORAL) cross-entropy loss that builds each label's level vector with tf.map_fn.

Source: ck37/coral-ordinal#14 "Vectorize ops (remove map_fn() calls) for up to 1000x speedup in
loss/metric/softmax calculations" (https://github.com/ck37/coral-ordinal/pull/14, merged).
`OrdinalCrossEntropy.call` converts the labels with `tf.map_fn(fn, y_true)`, where `fn` turns one
label into `[1]*label + [0]*(K-1-label)` with repeat/zeros/concat. The per-element function is
plain elementwise work over the batch: `tf.sequence_mask(labels, K-1)` computes the same matrix in
one op, and the PR measured 100x-1000x faster losses. The case times the loss inside a
tf.function, as `fit` runs it, against the vectorized levels (computed only for the measurement).
Changes: the model is skipped (random ordinal logits stand in for a CoralOrdinal layer output);
the Keras-2 `Reduction` branches are dropped (Keras 3 reduces in the base class) and the
serialization decorator is left out.
"""
import functools
import time
from typing import Optional

import numpy as np
import tensorflow as tf


def _label_to_levels(label: tf.Tensor, num_classes: int):
    # Original code that we are trying to replicate:
    # levels = [1] * label + [0] * (self.num_classes - 1 - label)
    label_vec = tf.repeat(1, tf.cast(tf.squeeze(label), tf.int32))

    # This line requires that label values begin at 0.
    num_zeros = num_classes - 1 - tf.cast(tf.squeeze(label), tf.int32)

    zero_vec = tf.zeros(shape=(num_zeros), dtype=tf.int32)

    levels = tf.concat([label_vec, zero_vec], axis=0)

    return tf.cast(levels, tf.float32)


def _ordinal_loss_no_reduction(logits, levels, importance):
    """Compute ordinal loss without reduction."""
    losses = -tf.reduce_sum(
        (tf.math.log_sigmoid(logits) * levels
         + (tf.math.log_sigmoid(logits) - logits) * (1.0 - levels)) * importance,
        axis=1,
    )
    return losses


class OrdinalCrossEntropy(tf.keras.losses.Loss):
    def __init__(self, num_classes: Optional[int] = None, importance_weights=None,
                 from_type: str = "ordinal_logits", name: str = "ordinal_crossentropy", **kwargs):
        super().__init__(name=name, **kwargs)
        self.num_classes = num_classes
        self.importance_weights = importance_weights
        self.from_type = from_type

    def call(self, y_true, y_pred):
        # Ensure that y_true is the same type as y_pred (presumably a float).
        y_pred = tf.convert_to_tensor(y_pred)
        y_true = tf.cast(y_true, y_pred.dtype)
        if self.num_classes is None:
            self.num_classes = int(y_pred.get_shape().as_list()[1]) + 1

        # Convert each true label to a vector of ordinal level indicators.
        fn = functools.partial(_label_to_levels, num_classes=self.num_classes)
        tf_levels = tf.map_fn(fn, y_true)

        if self.importance_weights is None:
            importance_weights = tf.ones(self.num_classes - 1, dtype=tf.float32)
        else:
            importance_weights = tf.cast(self.importance_weights, dtype=tf.float32)

        if self.from_type == "ordinal_logits":
            return _ordinal_loss_no_reduction(y_pred, tf_levels, importance_weights)
        raise NotImplementedError("not yet implemented")


def best_time(fn, *args, repeats=5):
    fn(*args)  # trace and warm up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*args).numpy()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    num_classes, batch = 6, 4096
    rng = np.random.default_rng(0)
    y_true = tf.constant(rng.integers(0, num_classes, (batch, 1)), tf.float32)
    y_pred = tf.constant(rng.normal(size=(batch, num_classes - 1)), tf.float32)

    loss_obj = OrdinalCrossEntropy(num_classes=num_classes)
    map_fn_loss = tf.function(lambda t, p: loss_obj(t, p))

    @tf.function
    def vectorized_loss(t, p):  # reference for the measurement only
        levels = tf.sequence_mask(tf.cast(tf.squeeze(t, 1), tf.int32), num_classes - 1, dtype=tf.float32)
        return tf.reduce_mean(_ordinal_loss_no_reduction(p, levels, tf.ones(num_classes - 1)))

    same = np.allclose(map_fn_loss(y_true, y_pred).numpy(), vectorized_loss(y_true, y_pred).numpy(), atol=1e-5)
    t_map = best_time(map_fn_loss, y_true, y_pred)
    t_vec = best_time(vectorized_loss, y_true, y_pred)
    speedup = t_map / t_vec
    print(f"map_fn loss {t_map * 1e3:.2f} ms, vectorized {t_vec * 1e3:.2f} ms, same value: {same}")
    print(f"ORACLE: bug={same and speedup > 3} speedup={speedup:.1f} same_result={same}")


if __name__ == "__main__":
    main()
