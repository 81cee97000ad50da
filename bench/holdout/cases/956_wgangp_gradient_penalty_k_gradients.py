"""WGAN-GP whose gradient-penalty loss calls K.gradients on a symbolic interpolated tensor.

Source: davidADSP/GDL_code#67 "WGAN-GP implementation incompatible with TensorFlow 2.x"
(https://github.com/davidADSP/GDL_code/issues/67): with TF 2 "`K.gradients()` returns `None` when
computing the gradient penalty loss". The loss is a `functools.partial` that closes over
`interpolated_img`, a symbolic tensor of the functional critic model built in
`_build_adversarial`; at train time Keras runs the loss inside its own train function, where that
tensor is not part of the graph being differentiated. On TF 2.21 (tf_keras) the call fails
outright: K.gradients cannot take the KerasTensor (TypeError).
Changes: the conv critic/generator for CelebA become two small Dense models on 16-value "images",
`keras.layers.merge._Merge` (gone) becomes a plain Layer with the same random weighted average,
RMSprop's `lr=` becomes `learning_rate=`, one `train_critic` step replaces the training loop;
TF_USE_LEGACY_KERAS=1 because the compile-with-partial-loss / K.gradients API is Keras 2 only.
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

from functools import partial

import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K
from tensorflow.keras.layers import Input, Dense, Layer, LeakyReLU
from tensorflow.keras.models import Model
from tensorflow.keras.optimizers import RMSprop


class RandomWeightedAverage(Layer):
    """Provides a (random) weighted average between real and generated image samples"""
    def __init__(self, batch_size):
        super().__init__()
        self.batch_size = batch_size

    def call(self, inputs):
        alpha = K.random_uniform((self.batch_size, 1))
        return (alpha * inputs[0]) + ((1 - alpha) * inputs[1])


class WGANGP():
    def __init__(self, input_dim, z_dim, critic_learning_rate, generator_learning_rate,
                 grad_weight, batch_size):
        self.input_dim = input_dim
        self.z_dim = z_dim
        self.critic_learning_rate = critic_learning_rate
        self.generator_learning_rate = generator_learning_rate
        self.grad_weight = grad_weight
        self.batch_size = batch_size
        self._build_critic()
        self._build_generator()
        self._build_adversarial()

    def gradient_penalty_loss(self, y_true, y_pred, interpolated_samples):
        """
        Computes gradient penalty based on prediction and weighted real / fake samples
        """
        gradients = K.gradients(y_pred, interpolated_samples)[0]

        # compute the euclidean norm by squaring ...
        gradients_sqr = K.square(gradients)
        #   ... summing over the rows ...
        gradients_sqr_sum = K.sum(gradients_sqr,
                                  axis=np.arange(1, len(gradients_sqr.shape)))
        #   ... and sqrt
        gradient_l2_norm = K.sqrt(gradients_sqr_sum)
        # compute lambda * (1 - ||grad||)^2 still for each single sample
        gradient_penalty = K.square(1 - gradient_l2_norm)
        # return the mean as loss over all the batch samples
        return K.mean(gradient_penalty)

    def wasserstein(self, y_true, y_pred):
        return -K.mean(y_true * y_pred)

    def _build_critic(self):
        critic_input = Input(shape=(self.input_dim,), name='critic_input')
        x = LeakyReLU(0.2)(Dense(32)(critic_input))
        critic_output = Dense(1)(x)
        self.critic = Model(critic_input, critic_output)

    def _build_generator(self):
        generator_input = Input(shape=(self.z_dim,), name='generator_input')
        x = LeakyReLU(0.2)(Dense(32)(generator_input))
        generator_output = Dense(self.input_dim, activation='tanh')(x)
        self.generator = Model(generator_input, generator_output)

    def get_opti(self, lr):
        return RMSprop(learning_rate=lr)

    def set_trainable(self, m, val):
        m.trainable = val
        for l in m.layers:
            l.trainable = val

    def _build_adversarial(self):
        # Freeze generator's layers while training critic
        self.set_trainable(self.generator, False)

        # Image input (real sample)
        real_img = Input(shape=(self.input_dim,))

        # Fake image
        z_disc = Input(shape=(self.z_dim,))
        fake_img = self.generator(z_disc)

        # critic determines validity of the real and fake images
        fake = self.critic(fake_img)
        valid = self.critic(real_img)

        # Construct weighted average between real and fake images
        interpolated_img = RandomWeightedAverage(self.batch_size)([real_img, fake_img])
        # Determine validity of weighted sample
        validity_interpolated = self.critic(interpolated_img)

        # Use Python partial to provide loss function with additional
        # 'interpolated_samples' argument
        partial_gp_loss = partial(self.gradient_penalty_loss,
                                  interpolated_samples=interpolated_img)
        partial_gp_loss.__name__ = 'gradient_penalty'  # Keras requires function names

        self.critic_model = Model(inputs=[real_img, z_disc],
                                  outputs=[valid, fake, validity_interpolated])

        self.critic_model.compile(
            loss=[self.wasserstein, self.wasserstein, partial_gp_loss],
            optimizer=self.get_opti(self.critic_learning_rate),
            loss_weights=[1, 1, self.grad_weight])

        # For the generator we freeze the critic's layers
        self.set_trainable(self.critic, False)
        self.set_trainable(self.generator, True)
        model_input = Input(shape=(self.z_dim,))
        img = self.generator(model_input)
        model_output = self.critic(img)
        self.model = Model(model_input, model_output)
        self.model.compile(optimizer=self.get_opti(self.generator_learning_rate),
                           loss=self.wasserstein)
        self.set_trainable(self.critic, True)

    def train_critic(self, x_train, batch_size):
        valid = np.ones((batch_size, 1), dtype=np.float32)
        fake = -np.ones((batch_size, 1), dtype=np.float32)
        dummy = np.zeros((batch_size, 1), dtype=np.float32)  # Dummy gt for gradient penalty
        idx = np.random.randint(0, x_train.shape[0], batch_size)
        true_imgs = x_train[idx]
        noise = np.random.normal(0, 1, (batch_size, self.z_dim))
        d_loss = self.critic_model.train_on_batch([true_imgs, noise], [valid, fake, dummy])
        return d_loss


def main():
    np.random.seed(0)
    batch_size = 8
    x_train = np.random.uniform(-1, 1, (64, 16)).astype(np.float32)
    gan = WGANGP(input_dim=16, z_dim=4, critic_learning_rate=2e-4,
                 generator_learning_rate=2e-4, grad_weight=10, batch_size=batch_size)
    try:
        d_loss = gan.train_critic(x_train, batch_size)
        print("critic losses:", d_loss)
        print("ORACLE: bug=False critic_step=ok")
    except (TypeError, ValueError, AttributeError) as exc:
        print(type(exc).__name__ + ":", " ".join(str(exc).split())[-160:])
        print(f"ORACLE: bug=True error={type(exc).__name__}")


if __name__ == "__main__":
    main()
