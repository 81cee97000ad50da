"""ScrabbleGAN-style self-attention block that builds its Conv2D layers inside call().

Source: Nikolai10/scrabble-gan#7 "ValueError: tf.function-decorated function tried to create
variables on non-first call." (https://github.com/Nikolai10/scrabble-gan/issues/7), duplicates
#1/#2; maintainer fix in commit 7ef4521 ("Possible bug fix for issue #1 #2 #7").
`NonLocalBlock.call` instantiates four `layers.Conv2D` (and a scalar layer) every time it runs.
In eager training each call draws fresh random kernels that the optimizer never sees; when the
trained generator is saved, Keras/TF trace `call` in a tf.function and the new variables raise
"tf.function only supports singleton tf.Variables created on the first call".
Changes: the handwriting generator is a tiny Dense -> Reshape -> NonLocalBlock -> Conv2D model on
random latents, the discriminator/recognizer losses are replaced by an L2 loss to a random target,
three eager steps replace the epochs, and `generator.save(..., save_format='tf')` (gone in Keras 3)
becomes `tf.saved_model.save`, which traces the model the same way.
"""
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow.keras import layers


class ScalarLayer(layers.Layer):

    def __init__(self, name):
        super(ScalarLayer, self).__init__(name=name)

    def build(self, input_shape):
        self.sigma = self.add_weight(name="sigma", shape=[], initializer='zeros', trainable=True)

    def call(self, x):
        return self.sigma * x


class NonLocalBlock(layers.Layer):
    """Self-attention (non-local) block, SAGAN style."""

    def __init__(self, name, k_reg):
        super(NonLocalBlock, self).__init__(name='NonLocalBlock' + '_' + name)
        self.k_reg = k_reg

    def _spatial_flatten(self, inputs):
        shape = inputs.shape
        return tf.reshape(inputs, (tf.shape(inputs)[0], -1, shape[3]))

    def call(self, input):
        h, w, num_channels = input.shape[1:]
        num_channels_attn = num_channels // 8
        num_channels_g = num_channels // 2

        # Theta path
        theta = layers.Conv2D(filters=num_channels_attn, kernel_size=(1, 1), use_bias=False, strides=(1, 1),
                              padding='same', kernel_initializer=tf.initializers.orthogonal(),
                              kernel_regularizer=self.k_reg, name="conv2d_theta")(input)
        theta = self._spatial_flatten(theta)

        # Phi path
        phi = layers.Conv2D(filters=num_channels_attn, kernel_size=(1, 1), use_bias=False, strides=(1, 1),
                            padding='same', kernel_initializer=tf.initializers.orthogonal(),
                            kernel_regularizer=self.k_reg, name="conv2d_phi")(input)
        phi = layers.MaxPool2D(pool_size=[2, 2], strides=2)(phi)
        phi = self._spatial_flatten(phi)

        # attention map
        attn = tf.matmul(theta, phi, transpose_b=True)
        attn = tf.nn.softmax(attn)

        # G path
        g = layers.Conv2D(filters=num_channels_g, kernel_size=(1, 1), use_bias=False, strides=(1, 1),
                          padding='same', kernel_initializer=tf.initializers.orthogonal(),
                          kernel_regularizer=self.k_reg, name="conv2d_g")(input)
        g = layers.MaxPool2D(pool_size=[2, 2], strides=2)(g)
        g = self._spatial_flatten(g)

        attn_g = tf.matmul(attn, g)
        attn_g = tf.reshape(attn_g, [tf.shape(attn_g)[0], h, -1, num_channels_g])
        attn_g = layers.Conv2D(filters=num_channels, kernel_size=(1, 1), use_bias=False, strides=(1, 1),
                               padding='same', kernel_initializer=tf.initializers.orthogonal(),
                               kernel_regularizer=self.k_reg, name="conv2d_attn_g")(attn_g)

        attn_g = ScalarLayer('non-local-block-scalar')(attn_g)
        return input + attn_g


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
