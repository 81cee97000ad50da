"""pix2pix train_step decorated with tf.function receives the Python epoch number.

Source: spmallick/learnopencv#806 "Performance issues about tf.function"
(https://github.com/spmallick/learnopencv/issues/806), on
Image-to-Image-Translation-with-GAN/TensorFlow/pix2pix-tensorflow-single_gpu.py: `fit()` calls
`train_step(input_image, target, epoch)` with the Python int `epoch` of the `for epoch in
range(epochs)` loop. A Python scalar is part of the tf.function cache key, so every new epoch
traces (and builds the generator/discriminator graph) again, though `epoch` is not even used.
Changes: the U-Net generator and PatchGAN discriminator are two-layer conv nets on 16x16 random
image pairs, the facades dataset is a 3-batch tf.data pipeline, 4 epochs, image writing dropped.
"""
import numpy as np
import tensorflow as tf
from tensorflow.keras import layers

Lambda = 100
loss = tf.keras.losses.BinaryCrossentropy(from_logits=True)


def Generator():
    inp = layers.Input(shape=[16, 16, 3])
    x = layers.Conv2D(8, 3, padding='same', activation='relu')(inp)
    x = layers.Conv2D(3, 3, padding='same', activation='tanh')(x)
    return tf.keras.Model(inputs=inp, outputs=x)


def Discriminator():
    inp = layers.Input(shape=[16, 16, 3], name='input_image')
    tar = layers.Input(shape=[16, 16, 3], name='target_image')
    x = layers.concatenate([inp, tar])
    x = layers.Conv2D(8, 4, strides=2, padding='same')(x)
    x = layers.LeakyReLU()(x)
    x = layers.Conv2D(1, 4, padding='same')(x)
    return tf.keras.Model(inputs=[inp, tar], outputs=x)


generator = Generator()
discriminator = Discriminator()
generator_optimizer = tf.keras.optimizers.Adam(2e-4, beta_1=0.5)
discriminator_optimizer = tf.keras.optimizers.Adam(2e-4, beta_1=0.5)


def generator_loss(disc_generated_output, gen_output, target):
    gan_loss = loss(tf.ones_like(disc_generated_output), disc_generated_output)
    # mean absolute error
    l1_loss = tf.reduce_mean(tf.abs(target - gen_output))
    total_gen_loss = gan_loss + (Lambda * l1_loss)
    return total_gen_loss, gan_loss, l1_loss


def discriminator_loss(disc_real_output, disc_generated_output):
    real_loss = loss(tf.ones_like(disc_real_output), disc_real_output)
    generated_loss = loss(tf.zeros_like(disc_generated_output), disc_generated_output)
    total_disc_loss = real_loss + generated_loss
    return total_disc_loss


@tf.function
def train_step(input_image, target, epoch):
    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
        gen_output = generator(input_image, training=True)

        disc_real_output = discriminator([input_image, target], training=True)
        disc_generated_output = discriminator([input_image, gen_output], training=True)

        gen_total_loss, gen_gan_loss, gen_l1_loss = generator_loss(disc_generated_output, gen_output, target)
        disc_loss = discriminator_loss(disc_real_output, disc_generated_output)

    generator_gradients = gen_tape.gradient(gen_total_loss, generator.trainable_variables)
    discriminator_gradients = disc_tape.gradient(disc_loss, discriminator.trainable_variables)

    generator_optimizer.apply_gradients(zip(generator_gradients, generator.trainable_variables))
    discriminator_optimizer.apply_gradients(zip(discriminator_gradients, discriminator.trainable_variables))

    return gen_gan_loss, gen_l1_loss, disc_loss


def fit(train_ds, epochs):
    for epoch in range(epochs):
        D_loss_list, G_loss_list, L1_loss_list = [], [], []
        for n, (input_image, target) in train_ds.enumerate():
            gan_l, l1_l, disc_l = train_step(input_image, target, epoch)
            G_loss_list.append(gan_l)
            D_loss_list.append(disc_l)
            L1_loss_list.append(l1_l)
        print('Epoch: [%d/%d]: D_loss: %.3f, G_loss: %.3f, L1_loss: %.3f' % (
            epoch, epochs, tf.math.reduce_mean(D_loss_list),
            tf.math.reduce_mean(G_loss_list), tf.math.reduce_mean(L1_loss_list)))


def main():
    rng = np.random.default_rng(0)
    inputs = rng.uniform(-1, 1, (12, 16, 16, 3)).astype(np.float32)
    targets = rng.uniform(-1, 1, (12, 16, 16, 3)).astype(np.float32)
    train_dataset = tf.data.Dataset.from_tensor_slices((inputs, targets)).batch(4)
    epochs = 4
    fit(train_dataset, epochs)
    traces = train_step.experimental_get_tracing_count()
    print(f"ORACLE: bug={traces >= epochs} traces={traces} epochs={epochs}")


if __name__ == "__main__":
    main()
