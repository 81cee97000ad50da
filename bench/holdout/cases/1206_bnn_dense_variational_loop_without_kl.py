"""Bayesian NN with DenseVariational layers trained by a GradientTape loop that drops model.losses.

Source: tensorflow/probability#1560 "Gradients do not exist with GradientTape()"
(https://github.com/tensorflow/probability/issues/1560). The reporter moves the TFP
"regression with probabilistic layers" BNN (DenseVariational with posterior_mean_field and
prior_trainable) from `model.fit` (model2, works) to a subclassed model trained with
GradientTape (model1) and gets "Gradients do not exist for variables
['model__dense_variational/dense_v1/constant:0', 'model__dense_variational/dense_v2/constant:0']".
DenseVariational adds its KL term with `add_loss`; `fit` adds `model.losses` to the loss, a
hand-written loop must do it too. The loop here minimises only the negative log-likelihood,
so the trainable prior variables (reached only through the KL term) get None gradients and
apply_gradients receives them.
Changes: the reporter's loop body was not visible in the stored thread; it is written here
in the standard form the warning implies (loss = negloglik only). Data: 150 synthetic points
from the tutorial's generator shape; 3 training steps. TFP layers need Keras 2, hence
TF_USE_LEGACY_KERAS=1.
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp
from tensorflow_probability import layers as tpl
from tensorflow_probability import distributions as tfd
from tensorflow.keras import Model

negloglik = lambda y, rv_y: -rv_y.log_prob(y)

w0 = 0.125
b0 = 5.
x_range = [-20, 60]


def load_dataset(n=150):
    rng = np.random.default_rng(43)
    x = (x_range[1] - x_range[0]) * rng.random(n) + x_range[0]
    g = (x - x_range[0]) / (x_range[1] - x_range[0])
    eps = rng.standard_normal(n) * 3 * (0.25 + g ** 2.)
    y = (w0 * x * (1. + np.sin(x)) + b0) + eps
    return x[..., np.newaxis].astype(np.float32), y[..., np.newaxis].astype(np.float32)


def posterior_mean_field(kernel_size, bias_size=0, dtype=None):
    n = kernel_size + bias_size
    c = np.log(np.expm1(1.))
    return tf.keras.Sequential([
        tpl.VariableLayer(2 * n, dtype=dtype),
        tpl.DistributionLambda(lambda t: tfd.Independent(
            tfd.Normal(loc=t[..., :n], scale=1e-5 + tf.nn.softplus(c + t[..., n:])),
            reinterpreted_batch_ndims=1)),
    ])


def prior_trainable(kernel_size, bias_size=0, dtype=None):
    n = kernel_size + bias_size
    return tf.keras.Sequential([
        tpl.VariableLayer(n, dtype=dtype),
        tpl.DistributionLambda(lambda t: tfd.Independent(
            tfd.Normal(loc=t, scale=1), reinterpreted_batch_ndims=1)),
    ])


class Model_DenseVariational(Model):
    def __init__(self, n_train):
        super().__init__()
        self.dense_v1 = tpl.DenseVariational(8, posterior_mean_field, prior_trainable,
                                             kl_weight=1 / n_train, activation="relu",
                                             name="dense_v1")
        self.dense_v2 = tpl.DenseVariational(2, posterior_mean_field, prior_trainable,
                                             kl_weight=1 / n_train, name="dense_v2")
        self.dist = tpl.DistributionLambda(lambda t: tfd.Normal(
            loc=t[..., :1], scale=1e-3 + tf.math.softplus(0.05 * t[..., 1:])))

    def call(self, x):
        return self.dist(self.dense_v2(self.dense_v1(x)))


def main():
    x, y = load_dataset()
    model1 = Model_DenseVariational(len(x))
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.01)
    missing = set()
    for step in range(3):
        with tf.GradientTape() as tape:
            yhat = model1(x)
            loss_value = tf.reduce_mean(negloglik(y, yhat))
        grads = tape.gradient(loss_value, model1.trainable_variables)
        missing |= {v.name for g, v in zip(grads, model1.trainable_variables) if g is None}
        optimizer.apply_gradients(zip(grads, model1.trainable_variables))
    print("variables without gradient:", sorted(missing))
    print(f"ORACLE: bug={bool(missing)} none_gradient_variables={len(missing)} "
          f"of={len(model1.trainable_variables)}")


if __name__ == "__main__":
    main()
