"""Trainable Wishart parameters: the gradients of log_prob w.r.t. df and the scale factor.

Source: tensorflow/probability#669 "gradients w.r.t. Wishart parameters are None"
(https://github.com/tensorflow/probability/issues/669): None with TFP 0.8; the maintainer says
it is fixed on master and the reporter confirms with a nightly. TFP 0.25's Wishart with a
Cholesky factor is `WishartTriL`.
"""
import tensorflow as tf
import tensorflow_probability as tfp

tfd = tfp.distributions


df = tf.Variable(4.0)
L = tf.Variable(2 * tf.eye(4))

pX = tfd.WishartTriL(df=df, scale_tril=L)
X = pX.sample(seed=0)

with tf.GradientTape() as tape:
    log_prob = pX.log_prob(X)

trainable_vars = [L, df]

grads = tape.gradient(log_prob, trainable_vars)

print(grads)
print(f"ORACLE: bug={any(g is None for g in grads)} none_grads={sum(g is None for g in grads)}")
