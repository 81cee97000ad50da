"""Stock-price GAN ported to TF2 eager: optimizers are given the already computed loss tensors.

Source: deshpandenu/Time-Series-Forecasting-of-Amazon-Stock-Prices-using-Neural-Networks-LSTM-and-GAN-#8
"GAN_implementation" (https://github.com/deshpandenu/Time-Series-Forecasting-of-Amazon-Stock-Prices-using-Neural-Networks-LSTM-and-GAN-/issues/8):
"I am being stuck in error \"`tape` is required when a `Tensor` loss is passed.\" in GAN_class".
The repository's `class GAN` (Notebook_5_GAN.ipynb) builds its generator/discriminator from raw
variables and ends with `self.D_solver = ...AdamOptimizer(...).minimize(self.D_loss,
var_list=theta_D)`. Ported to TF2, `self.D_loss` is an eager tensor computed once; the Keras
optimizer cannot differentiate a finished value and raises the ValueError.
Changes: placeholders are replaced by a random batch of 20-day windows with 5 features passed to
the constructor (as an eager port has to), the CNN discriminator becomes a two-layer MLP, the
l2 terms are dropped; `tf.train.AdamOptimizer` becomes `tf.keras.optimizers.Adam`, which matches
the reported message. TF_USE_LEGACY_KERAS=1 because Keras 3 optimizers have no `minimize`.
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf

SEED = 42
tf.random.set_seed(SEED)


class GAN():

    def sample_Z(self, batch_size, n):
        return np.random.uniform(-1., 1., size=(batch_size, n)).astype(np.float32)

    def __init__(self, X, num_features, num_historical_days, generator_input_size=200, is_train=True):
        self.X = tf.constant(X)
        self.Z = tf.constant(self.sample_Z(X.shape[0], generator_input_size))
        generator_output_size = num_features * num_historical_days

        W1 = tf.Variable(tf.random.truncated_normal([generator_input_size, generator_output_size * 2]))
        b1 = tf.Variable(tf.random.truncated_normal([generator_output_size * 2]))
        W2 = tf.Variable(tf.random.truncated_normal([generator_output_size * 2, generator_output_size]))
        b2 = tf.Variable(tf.random.truncated_normal([generator_output_size]))
        theta_G = [W1, b1, W2, b2]

        h1 = tf.nn.sigmoid(tf.matmul(self.Z, W1) + b1)
        g_log_prob = tf.matmul(h1, W2) + b2
        self.gen_data = tf.reshape(g_log_prob, [-1, num_historical_days, num_features])

        D_W1 = tf.Variable(tf.random.truncated_normal([generator_output_size, 64], stddev=0.1, seed=SEED))
        D_b1 = tf.Variable(tf.zeros([64]))
        D_W2 = tf.Variable(tf.random.truncated_normal([64, 1], stddev=0.1, seed=SEED))
        theta_D = [D_W1, D_b1, D_W2]

        def discriminator(X):
            flat = tf.reshape(X, [-1, generator_output_size])
            h1 = tf.nn.relu(tf.matmul(flat, D_W1) + D_b1)
            if is_train:
                h1 = tf.nn.dropout(h1, rate=0.2)
            D_logit = tf.matmul(h1, D_W2)
            return tf.nn.sigmoid(D_logit), D_logit

        D_real, D_logit_real = discriminator(self.X)
        D_fake, D_logit_fake = discriminator(self.gen_data)

        D_loss_real = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
            logits=D_logit_real, labels=tf.ones_like(D_logit_real)))
        D_loss_fake = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
            logits=D_logit_fake, labels=tf.zeros_like(D_logit_fake)))
        self.D_loss = D_loss_real + D_loss_fake
        self.G_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
            logits=D_logit_fake, labels=tf.ones_like(D_logit_fake)))

        self.D_solver = tf.keras.optimizers.Adam(learning_rate=0.0001).minimize(self.D_loss, var_list=theta_D)
        self.G_solver = tf.keras.optimizers.Adam(learning_rate=0.000055).minimize(self.G_loss, var_list=theta_G)


def main():
    np.random.seed(SEED)
    windows = np.random.normal(size=(16, 20, 5)).astype(np.float32)
    try:
        GAN(windows, num_features=5, num_historical_days=20, generator_input_size=32)
        print("ORACLE: bug=False solvers_built=True")
    except ValueError as exc:
        print("ValueError:", str(exc).splitlines()[0][:120])
        print("ORACLE: bug=True error=ValueError")


if __name__ == "__main__":
    main()
