"""DCGAN train_step given the Python step counter for tf.summary: one new trace per step.

Source: tensorflow/tensorflow#32157 "[TF 2.0] non-tensor argument to target of tf.function logging
slows down training" (https://github.com/tensorflow/tensorflow/issues/32157). The user added a
summary writer to the DCGAN tutorial and passed the step number, a Python int, to the
tf.function-decorated train_step to log the losses; every new int is a new trace signature, so
train_step is retraced at every batch and training slows down.

Changed from the posted code: tiny dense generator/discriminator on 8x8 random "images" instead
of the tutorial's conv nets on MNIST, 4 batches x 2 epochs, summaries written to a temporary dir
with `tf.summary.write` (TensorBoard, which provides `tf.summary.scalar`, is not installed here).
The trace count is read with `experimental_get_tracing_count()`.
"""
import tempfile
import tensorflow as tf

BATCH_SIZE = 16
noise_dim = 8

summary_writer = tf.summary.create_file_writer(tempfile.mkdtemp())

generator = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"),
                                 tf.keras.layers.Dense(64, activation="tanh")])
discriminator = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"),
                                     tf.keras.layers.Dense(1)])
cross_entropy = tf.keras.losses.BinaryCrossentropy(from_logits=True)
generator_optimizer = tf.keras.optimizers.Adam(1e-4)
discriminator_optimizer = tf.keras.optimizers.Adam(1e-4)


def discriminator_loss(real_output, fake_output):
    real_loss = cross_entropy(tf.ones_like(real_output), real_output)
    fake_loss = cross_entropy(tf.zeros_like(fake_output), fake_output)
    return real_loss + fake_loss


def generator_loss(fake_output):
    return cross_entropy(tf.ones_like(fake_output), fake_output)


@tf.function
def train_step(images, step):
    noise = tf.random.normal([BATCH_SIZE, noise_dim])
    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
        generated_images = generator(noise, training=True)
        real_output = discriminator(images, training=True)
        fake_output = discriminator(generated_images, training=True)
        gen_loss = generator_loss(fake_output)
        disc_loss = discriminator_loss(real_output, fake_output)
    gradients_of_generator = gen_tape.gradient(gen_loss, generator.trainable_variables)
    gradients_of_discriminator = disc_tape.gradient(disc_loss, discriminator.trainable_variables)
    generator_optimizer.apply_gradients(zip(gradients_of_generator, generator.trainable_variables))
    discriminator_optimizer.apply_gradients(zip(gradients_of_discriminator, discriminator.trainable_variables))
    with summary_writer.as_default():
        tf.summary.write('gen_loss', gen_loss, step=step)
        tf.summary.write('disc_loss', disc_loss, step=step)


def train(dataset, epochs):
    step = 0
    for epoch in range(epochs):
        for image_batch in dataset:
            train_step(image_batch, step)
            step += 1
    return step


def main():
    images = tf.random.uniform((4 * BATCH_SIZE, 64), -1.0, 1.0)
    train_dataset = tf.data.Dataset.from_tensor_slices(images).batch(BATCH_SIZE)
    steps = train(train_dataset, epochs=2)
    traces = train_step.experimental_get_tracing_count()
    print("steps", steps, "traces", traces)
    print(f"ORACLE: bug={traces > 1} traces={traces} calls={steps}")


if __name__ == "__main__":
    main()
