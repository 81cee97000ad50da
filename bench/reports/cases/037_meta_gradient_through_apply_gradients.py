"""Learning-rate meta-gradient taken through an optimizer.apply_gradients inner step.

Source: tensorflow/tensorflow#55181 "Make computation of higher order gradients through
apply_gradients possible" (https://github.com/tensorflow/tensorflow/issues/55181): TF cannot
compute gradients through `optimizer.apply_gradients`, whose update is an assignment.
"""
import numpy as np
import tensorflow as tf


def main():
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(16, 3)).astype(np.float32))
    y = tf.constant(rng.normal(size=(16, 1)).astype(np.float32))
    w = tf.Variable(tf.zeros((3, 1)))
    log_lr = tf.Variable(-2.0)
    optimizer = tf.keras.optimizers.SGD(learning_rate=lambda: tf.exp(log_lr))
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            train_loss = tf.reduce_mean((x @ w - y) ** 2)
        grads = inner.gradient(train_loss, [w])
        optimizer.apply_gradients(zip(grads, [w]))
        val_loss = tf.reduce_mean((x @ w - y) ** 2)
    meta_grad = outer.gradient(val_loss, log_lr)
    print("meta-gradient:", meta_grad)
    print(f"ORACLE: bug={meta_grad is None} meta_grad_is_none={meta_grad is None}")


if __name__ == "__main__":
    main()
