"""Affine normalizing flow whose scale_tril is computed once, outside the loss callable.

Source: tensorflow/probability#345 "\"no gradients provided\" for simple affine flow with
tf.variables and eager execution" (https://github.com/tensorflow/probability/issues/345).
The bijector is built eagerly with `scale_tril=tfb.FillTriangular().forward(L)`: the forward
transform of `L` runs once, before any loss is recorded, so the bijector holds a constant tensor.
`loss()` never reads `L`; the eager optimizer only updates the variables it saw being read, so
`L` is never trained (its gradient is None). In the 2019 TFP the bijector also converted `shift`
and `V`, so no variable at all got a gradient; TFP 0.25 keeps `shift` as a variable.
Changes: `tfb.Affine` (removed from TFP) becomes `tfb.Chain([tfb.Shift(shift),
tfb.ScaleMatvecTriL(...)])`, the low-rank `scale_perturb_factor=V` term is dropped,
`tf.get_variable` becomes `tf.Variable` with a well-conditioned start, and
`tf.train.AdamOptimizer` becomes `tf.compat.v1.train.AdamOptimizer` (same eager minimize(callable)).
"""
import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp

tfd = tfp.distributions
tfb = tfp.bijectors

DTYPE = tf.float32
NP_DTYPE = np.float32


def main():
    x = tf.constant(np.arange(20), shape=(10, 2), dtype=DTYPE)
    base_dist = tfd.MultivariateNormalDiag(loc=tf.zeros([2], DTYPE))

    shift = tf.Variable(tf.zeros([2], DTYPE), name='shift')
    L = tf.Variable(np.array([1.0, 0.1, 1.0], NP_DTYPE), name='L')
    bijector = tfb.Chain([
        tfb.Shift(shift),
        tfb.ScaleMatvecTriL(scale_tril=tfb.FillTriangular().forward(L)),
    ])
    dist = tfd.TransformedDistribution(base_dist, bijector)

    def loss():
        return -tf.reduce_mean(dist.log_prob(x))

    with tf.GradientTape() as tape:
        value = loss()
    grads = tape.gradient(value, [shift, L])
    print("gradient is None for [shift, L]:", [g is None for g in grads])

    L_before = L.numpy().copy()
    shift_before = shift.numpy().copy()
    optimizer = tf.compat.v1.train.AdamOptimizer(1e-1)
    for _ in range(20):
        optimizer.minimize(loss)
    L_moved = not np.allclose(L.numpy(), L_before)
    shift_moved = not np.allclose(shift.numpy(), shift_before)
    print("L moved:", L_moved, " shift moved:", shift_moved)
    print(f"ORACLE: bug={not L_moved} L_grad_is_none={grads[1] is None} L_trained={L_moved} "
          f"shift_trained={shift_moved}")


if __name__ == "__main__":
    main()
