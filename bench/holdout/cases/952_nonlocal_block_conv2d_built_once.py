"""ScrabbleGAN self-attention block after the maintainer's fix: sublayers built once in build().

Source: Nikolai10/scrabble-gan#7 "ValueError: tf.function-decorated function tried to create
variables on non-first call." (https://github.com/Nikolai10/scrabble-gan/issues/7) and the fix
commit 7ef4521 referenced there (https://github.com/Nikolai10/scrabble-gan/commit/7ef4521f0a95cfd4090d208010b08784cd22e045).
The four Conv2D layers are now created in `build()` and only called in `call()`; sigma is a single
variable made in `__init__`. Only the weight-free MaxPool2D layers are still created per call.
Training and saving the generator work, and the attention kernels are trained.
Changes: same tiny generator and L2 stand-in loss as the positive case; `input_shape.as_list()`
becomes `input_shape[1:]` (Keras 3 passes a tuple) and `generator.save(save_format='tf')`
becomes `tf.saved_model.save`.
"""
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow.keras import layers


class NonLocalBlock(layers.Layer):
    """Self-attention (non-local) block, SAGAN style."""

    def __init__(self, name, k_reg):
        super(NonLocalBlock, self).__init__(name='NonLocalBlock' + '_' + name)
        self.k_reg = k_reg
        b_init = tf.zeros_initializer()
        self.sigma = tf.Variable(initial_value=b_init(shape=[], dtype="float32"), trainable=True)

    def build(self, input_shape):
        h, w, num_channels = input_shape[1:]
        self.h = h
        self.w = w
        self.num_channels = num_channels
        self.num_channels_attn = self.num_channels // 8
        self.num_channels_g = self.num_channels // 2
        self.conv2d_1 = layers.Conv2D(filters=self.num_channels_attn, kernel_size=(1, 1), use_bias=False,
                                      strides=(1, 1), padding='same', kernel_initializer=tf.initializers.orthogonal(),
                                      kernel_regularizer=self.k_reg, name="conv2d_theta")
        self.conv2d_2 = layers.Conv2D(filters=self.num_channels_attn, kernel_size=(1, 1), use_bias=False,
                                      strides=(1, 1), padding='same', kernel_initializer=tf.initializers.orthogonal(),
                                      kernel_regularizer=self.k_reg, name="conv2d_phi")
        self.conv2d_3 = layers.Conv2D(filters=self.num_channels_g, kernel_size=(1, 1), use_bias=False,
                                      strides=(1, 1), padding='same', kernel_initializer=tf.initializers.orthogonal(),
                                      kernel_regularizer=self.k_reg, name="conv2d_g")
        self.conv2d_4 = layers.Conv2D(filters=self.num_channels, kernel_size=(1, 1), use_bias=False,
                                      strides=(1, 1), padding='same', kernel_initializer=tf.initializers.orthogonal(),
                                      kernel_regularizer=self.k_reg, name="conv2d_attn_g")

    def _spatial_flatten(self, inputs):
        shape = inputs.shape
        return tf.reshape(inputs, (tf.shape(inputs)[0], -1, shape[3]))

    def call(self, input):
        # Theta path
        theta = self.conv2d_1(input)
        theta = self._spatial_flatten(theta)

        # Phi path
        phi = self.conv2d_2(input)
        phi = layers.MaxPool2D(pool_size=[2, 2], strides=2)(phi)
        phi = self._spatial_flatten(phi)

        # attention map
        attn = tf.matmul(theta, phi, transpose_b=True)
        attn = tf.nn.softmax(attn)

        # G path
        g = self.conv2d_3(input)
        g = layers.MaxPool2D(pool_size=[2, 2], strides=2)(g)
        g = self._spatial_flatten(g)

        attn_g = tf.matmul(attn, g)
        attn_g = tf.reshape(attn_g, [tf.shape(attn_g)[0], self.h, -1, self.num_channels_g])
        attn_g = self.conv2d_4(attn_g)

        return self.sigma * attn_g + input


def make_generator(latent_dim, kernel_reg):
    z = layers.Input(shape=(latent_dim,))
    net = layers.Dense(4 * 8 * 16)(z)
    net = layers.Reshape((4, 8, 16))(net)
    net = NonLocalBlock('g_block', kernel_reg)(net)
    net = layers.Conv2D(1, (3, 3), padding='same', activation='tanh')(net)
    return tf.keras.Model(z, net)


def train_step(generator, optimizer, batch_size, latent_dim, target):
    noise = tf.random.normal([batch_size, latent_dim])
    with tf.GradientTape() as gen_tape:
        gen_images = generator(noise, training=True)
        g_loss = tf.reduce_mean(tf.square(gen_images - target))
    gradients_of_generator = gen_tape.gradient(g_loss, generator.trainable_variables)
    optimizer.apply_gradients(zip(gradients_of_generator, generator.trainable_variables))
    return g_loss


def main():
    tf.random.set_seed(0)
    latent_dim, batch_size = 8, 4
    generator = make_generator(latent_dim, tf.keras.regularizers.l2(1e-4))
    optimizer = tf.keras.optimizers.Adam(1e-3)
    target = tf.constant(np.random.default_rng(0).uniform(-1, 1, (batch_size, 4, 8, 1)), tf.float32)
    for _ in range(3):
        train_step(generator, optimizer, batch_size, latent_dim, target)

    tracked = sum("conv2d_theta" in v.path for v in generator.trainable_variables)
    print("attention kernels among the generator's trainable variables:", tracked)

    path = tempfile.mkdtemp()
    try:
        tf.saved_model.save(generator, path)
        print(f"ORACLE: bug=False saved=True tracked_attention_kernels={tracked}")
    except ValueError as exc:
        msg = " ".join(str(exc).split())
        print("ValueError:", msg[msg.find("tf.function only"):][:110])
        print(f"ORACLE: bug=True error=ValueError tracked_attention_kernels={tracked}")


if __name__ == "__main__":
    main()
