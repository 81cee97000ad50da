"""Integral (quadrature) loss: a tf.function is called with each Python axis index k of a loop.

Source: aligirayhanozbay/poisson_CNN#2 "Performance issue in poisson_CNN/losses/integral_loss.py"
(https://github.com/aligirayhanozbay/poisson_CNN/issues/2): `find_neighbouring_indices_along_axis`
(a @tf.function) is called from a loop over the spatial axes with the Python int `k` as its
`dim` argument, so one graph is traced per axis.
Changed from the repository: the loss is reduced to locating the grid neighbours of the
Gauss-Legendre points and averaging the pointwise error there (the multilinear interpolation
and the linear solves are dropped); the same number of quadrature points is used on every axis
so that only `k` differs between the calls; random 3-D fields replace the Poisson solutions.
"""
import numpy as np
import tensorflow as tf


@tf.function
def find_neighbouring_indices_along_axis(grid_sizes, quadrature_coords_along_axis, dim):
    dim_size = grid_sizes[dim]
    dx = tf.cast(2/(dim_size-1), tf.keras.backend.floatx())
    lower_idx = tf.cast(tf.math.floor((quadrature_coords_along_axis+1)/dx), tf.int32)
    upper_idx = tf.cast(tf.math.ceil((quadrature_coords_along_axis+1)/dx), tf.int32)
    return tf.stack([lower_idx, upper_idx], 1)


def find_neighbouring_indices_wrapper(quadrature_coords, data_format):
    @tf.function
    def find_neighbouring_indices(grid_shape):
        if data_format == 'channels_first':
            grid_shape = grid_shape[2:]
        elif data_format == 'channels_last':
            grid_shape = grid_shape[1:-1]
        return_list = []
        for k, item in enumerate(quadrature_coords):
            return_list.append(find_neighbouring_indices_along_axis(grid_shape, item, k))
        return return_list
    return find_neighbouring_indices


class integral_loss:
    def __init__(self, n_quadpts, ndims=None, Lp_norm_power=2, data_format='channels_first'):
        if isinstance(n_quadpts, int):
            n_quadpts = [n_quadpts for _ in range(ndims)]
        self.n_quadpts = n_quadpts
        self.ndims = ndims
        self.Lp_norm_power = Lp_norm_power
        self.data_format = data_format
        quadrature_coords = []
        for dim in range(self.ndims):
            x, w = np.polynomial.legendre.leggauss(self.n_quadpts[dim])
            quadrature_coords.append(tf.cast(x, tf.keras.backend.floatx()))
        self.find_neighbouring_indices = find_neighbouring_indices_wrapper(quadrature_coords, self.data_format)

    @tf.function
    def __call__(self, y_true, y_pred):
        gridshape = tf.shape(y_true)
        neighbouring_indices = self.find_neighbouring_indices(gridshape)
        pointwise_loss = (y_true - y_pred)**self.Lp_norm_power
        lower = tf.stack(tf.meshgrid(*[idx[:, 0] for idx in neighbouring_indices], indexing='ij'), -1)
        values = tf.gather_nd(tf.transpose(pointwise_loss, [2, 3, 4, 0, 1]), lower)
        return tf.reduce_mean(values, axis=[0, 1, 2])


if __name__ == "__main__":
    loss_func = integral_loss(6, ndims=3)
    rng = np.random.default_rng(0)
    for _ in range(3):  # a few training batches
        t = tf.constant(rng.normal(size=(2, 1, 20, 20, 20)), tf.float32)
        u = tf.zeros_like(t)
        dc = loss_func(t, u)
    traces = find_neighbouring_indices_along_axis.experimental_get_tracing_count()
    print("loss:", dc.numpy().ravel())
    print(f"ORACLE: bug={traces >= 3} inner_traces={traces} distinct_k=3")
