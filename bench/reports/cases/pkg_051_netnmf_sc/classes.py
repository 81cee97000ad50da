"""Network-regularised NMF for single-cell data, TF1-style optimisation code.

Source: raphael-group/netNMF-sc#3 "RuntimeError: `loss` passed to Optimizer.compute_gradients
should be a function when eager execution is enabled"
(https://github.com/raphael-group/netNMF-sc/issues/3). The package's gradient-descent class
builds the cost as a tensor and hands it to a tf.compat.v1 optimizer; under TensorFlow 2
eager execution minimize() needs a callable. Written for this corpus in the package's shape.
"""
import numpy as np
import tensorflow as tf


class netNMFGD:
    def __init__(self, d=5, alpha=10, n_inits=1, tol=1e-2, max_iter=20, lr=1e-2):
        self.d = d
        self.alpha = alpha
        self.n_inits = n_inits
        self.tol = tol
        self.max_iter = max_iter
        self.lr = lr
        self.X = None
        self.N = None

    def _fit(self, X, L):
        rng = np.random.default_rng(0)
        W = tf.Variable(rng.random((X.shape[0], self.d)), dtype=tf.float64)
        H = tf.Variable(rng.random((self.d, X.shape[1])), dtype=tf.float64)
        WH = tf.matmul(tf.nn.relu(W), tf.nn.relu(H))
        cost = tf.reduce_sum(tf.square(X - WH)) + self.alpha * tf.linalg.trace(
            tf.matmul(tf.matmul(tf.transpose(tf.nn.relu(W)), L), tf.nn.relu(W)))
        optimizer = tf.compat.v1.train.AdamOptimizer(self.lr)
        train_step = optimizer.minimize(cost)
        for _ in range(self.max_iter):
            train_step
        return W.numpy(), H.numpy(), float(cost)

    def fit_transform(self, X=None):
        X = self.X if X is None else X
        L = np.diag(self.N.sum(axis=1)) - self.N
        results = [self._fit(X, L) for _ in range(self.n_inits)]
        best = min(results, key=lambda r: r[2])
        return best[0], best[1]
