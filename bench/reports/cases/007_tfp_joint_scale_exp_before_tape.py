"""JointDistributionSequential whose scales are computed (tf.exp) when it is built, before the tape.

Source: tensorflow/probability#1165 "Gradients are None"
(https://github.com/tensorflow/probability/issues/1165). The gradients with respect to
the log-scales are None while the locations get theirs: `tf.exp(logscale)` ran once,
outside the tape.
"""
import tensorflow as tf
import tensorflow_probability as tfp

tfd = tfp.distributions

loc_1 = tf.Variable([38.6], trainable=True)
logscale_1 = tf.Variable([2.3], trainable=True)

loc_2 = tf.Variable([6.6], trainable=True)
logscale_2 = tf.Variable([3.4], trainable=True)

a = tf.Variable([3.3], trainable=True)
b = tf.Variable([6.0], trainable=True)
joint = tfd.JointDistributionSequential([tfd.Normal(loc=loc_1, scale=tf.exp(logscale_1)),
                                         tfd.Normal(loc=loc_2, scale=tf.exp(logscale_2)),
                                         lambda b1, b0: tfd.Independent(
                                             tfd.Normal(
                                                 loc=b0 + b1 * 3,
                                                 scale=a / b),
                                             reinterpreted_batch_ndims=1
                                         ), ])


def main():
    with tf.GradientTape() as tape:
        ll = joint.log_prob([[3.], [5.], [6.]])

    grads = tape.gradient(ll, [loc_1, loc_2, logscale_1, logscale_2])
    missing = [name for name, g in zip(["loc_1", "loc_2", "logscale_1", "logscale_2"], grads) if g is None]
    print("None gradients:", missing)
    print(f"ORACLE: bug={bool(missing)} none_grads={','.join(missing) or '-'}")


if __name__ == "__main__":
    main()
