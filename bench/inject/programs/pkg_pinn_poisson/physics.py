"""The PDE residual of u'' = f, by nested tapes."""
import tensorflow as tf


def laplacian_residual(net, x, source):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            u = net(x)
        du = inner.gradient(u, x)
    d2u = outer.gradient(du, x)
    return d2u - source(x)
