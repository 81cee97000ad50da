"""Normalizing flow trained with Adam.minimize given an already-computed loss tensor.

Source: tensorflow/probability#628 "training bijectors with tf.optimizers.Adam in tensorflow 2.0"
(https://github.com/tensorflow/probability/issues/628). The reporter builds a flow (a Chain
of bijectors over a Uniform base), computes `lossReverse = tfp.vi.monte_carlo_variational_loss(
system.log_prob, dist, discrepancy_fn=tfp.vi.kl_reverse, sample_size=128)` eagerly and passes
that tensor to `optimizerReverse.minimize(lossReverse, dist.trainable_variables)`; TF 2.0 raised
TypeError ('Tensor' object is not callable). In eager mode `minimize` needs a zero-argument
callable (or a tape): the loss tensor was computed once, outside any tape.
Changes: the reporter's "define bijectors here..." is a Shift with a tf.Variable and a Scale
with a TransformedVariable; `system` is a small Gaussian-well energy over [nMer, 3]
coordinates. `optimizer.minimize` only exists in Keras 2, so TF_USE_LEGACY_KERAS=1 is set
(tf_keras 2.21 raises ValueError "`tape` is required when a `Tensor` loss is passed").
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import tensorflow as tf
import tensorflow_probability as tfp

tfd = tfp.distributions
tfb = tfp.bijectors

nMer = 4


class GaussianWellSystem:
    """Target density over nMer particles in the unit box (stands in for the user's system)."""

    def __init__(self, centre=0.5, stiffness=20.0):
        self.centre = centre
        self.stiffness = stiffness

    def log_prob(self, x):
        return -self.stiffness * tf.reduce_sum(tf.square(x - self.centre), axis=[-2, -1])


def main():
    system = GaussianWellSystem()

    # define bijectors here...
    bijectors = [
        tfb.Scale(tfp.util.TransformedVariable(tf.ones([nMer, 3]), tfb.Softplus())),
        tfb.Shift(tf.Variable(tf.zeros([nMer, 3]))),
    ]
    flow = tfb.Chain(list(reversed(bijectors)))
    baseDist = tfd.Independent(
        distribution=tfd.Uniform(low=tf.zeros([nMer, 3], dtype=tf.float32),
                                 high=tf.ones([nMer, 3], dtype=tf.float32)),
        reinterpreted_batch_ndims=2)
    dist = tfd.TransformedDistribution(
        distribution=baseDist,
        bijector=flow)

    optimizerReverse = tf.optimizers.Adam(1e-2)
    lossReverse = tfp.vi.monte_carlo_variational_loss(
        system.log_prob,
        dist,
        discrepancy_fn=tfp.vi.kl_reverse,
        sample_size=128)
    trainReverse = optimizerReverse.minimize(lossReverse, dist.trainable_variables)
    return trainReverse


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False minimized=True")
    except (TypeError, ValueError) as exc:
        print(type(exc).__name__ + ":", str(exc).splitlines()[0])
        print(f"ORACLE: bug=True error={type(exc).__name__}")
