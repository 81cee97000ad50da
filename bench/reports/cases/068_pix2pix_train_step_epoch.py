"""pix2pix training loop that gives its tf.function step the Python epoch for the summaries.

Source: solaris33/deep-learning-tensorflow-book-code#8 "Performance issue in
Appendix/pix2pix_v2_keras.py" (https://github.com/solaris33/deep-learning-tensorflow-book-code/issues/8):
`train_step(input_image, target, epoch)` in the epoch loop traces a graph per epoch.
Tiny generator/discriminator and random image pairs replace the facades dataset;
`tf.summary.write` stands in for `tf.summary.scalar` (TensorBoard is not installed here).
"""
import numpy as np
import tensorflow as tf

generator = tf.keras.Sequential([tf.keras.Input((16, 16, 3)), tf.keras.layers.Conv2D(3, 3, padding="same")])
discriminator = tf.keras.Sequential([tf.keras.Input((16, 16, 6)), tf.keras.layers.Conv2D(1, 4)])
loss_object = tf.keras.losses.BinaryCrossentropy(from_logits=True)
generator_optimizer = tf.keras.optimizers.Adam(2e-4, beta_1=0.5)
discriminator_optimizer = tf.keras.optimizers.Adam(2e-4, beta_1=0.5)
summary_writer = tf.summary.create_noop_writer()


@tf.function
def train_step(input_image, target, epoch):
    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
        gen_output = generator(input_image, training=True)
        disc_real_output = discriminator(tf.concat([input_image, target], -1), training=True)
        disc_generated_output = discriminator(tf.concat([input_image, gen_output], -1), training=True)
        gen_total_loss = loss_object(tf.ones_like(disc_generated_output), disc_generated_output) + \
            100 * tf.reduce_mean(tf.abs(target - gen_output))
        disc_loss = loss_object(tf.ones_like(disc_real_output), disc_real_output) + \
            loss_object(tf.zeros_like(disc_generated_output), disc_generated_output)
    generator_gradients = gen_tape.gradient(gen_total_loss, generator.trainable_variables)
    discriminator_gradients = disc_tape.gradient(disc_loss, discriminator.trainable_variables)
    generator_optimizer.apply_gradients(zip(generator_gradients, generator.trainable_variables))
    discriminator_optimizer.apply_gradients(zip(discriminator_gradients, discriminator.trainable_variables))
    with summary_writer.as_default():
        tf.summary.write('gen_total_loss', gen_total_loss, step=epoch)
        tf.summary.write('disc_loss', disc_loss, step=epoch)


def fit(train_ds, epochs):
    for epoch in range(epochs):
        for n, (input_image, target) in train_ds.enumerate():
            train_step(input_image, target, epoch)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    pairs = rng.random((8, 16, 16, 3)).astype(np.float32), rng.random((8, 16, 16, 3)).astype(np.float32)
    epochs = 5
    fit(tf.data.Dataset.from_tensor_slices(pairs).batch(4), epochs)
    traces = train_step.experimental_get_tracing_count()
    print(f"ORACLE: bug={traces >= epochs} traces={traces} epochs={epochs}")
