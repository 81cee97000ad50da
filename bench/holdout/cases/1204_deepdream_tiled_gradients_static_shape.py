"""DeepDream TiledGradients reads the image's static shape inside a tf.function with [None, None, 3].

Source: tensorflow/docs#1995 "Corrected issues with image size in TiledGradients of deepdream
tutorial" (https://github.com/tensorflow/docs/pull/1995). The tutorial's
`TiledGradients.__call__` is a tf.function with input_signature
`TensorSpec([None, None, 3])`; it builds the tile grid with
`tf.range(0, img_rolled.shape[0], tile_size)`. `img_rolled.shape` is read at trace time and is
[None, None, 3] whatever the image size, so the grid collapses to the single tile at (0, 0):
only one tile of the image ever gets gradients (visible when tile_size is smaller than the
image). The merged fix passes the dynamic size (`tf.shape(img)`) as an argument.
Changes: InceptionV3 is replaced by a two-convolution model (its two activations are the
dream layers), a 64x64 random image and tile_size=16 instead of 512; one gradient call is
measured instead of the octave loop.
"""
import numpy as np
import tensorflow as tf


def build_dream_model():
    inputs = tf.keras.layers.Input(shape=(None, None, 3))
    x = tf.keras.layers.Conv2D(8, 3, padding="same", activation="relu", name="mixed0")(inputs)
    y = tf.keras.layers.Conv2D(8, 3, padding="same", activation="relu", name="mixed1")(x)
    return tf.keras.Model(inputs, [x, y])


def calc_loss(img, model):
    # Pass forward the image through the model to retrieve the activations.
    # Converts the image into a batch of size 1.
    img_batch = tf.expand_dims(img, axis=0)
    layer_activations = model(img_batch)
    if len(layer_activations) == 1:
        layer_activations = [layer_activations]

    losses = []
    for act in layer_activations:
        loss = tf.math.reduce_mean(act)
        losses.append(loss)

    return tf.reduce_sum(losses)


def random_roll(img, maxroll):
    # Randomly shift the image to avoid tiled boundaries.
    shift = tf.random.uniform(shape=[2], minval=-maxroll, maxval=maxroll, dtype=tf.int32)
    img_rolled = tf.roll(img, shift=shift, axis=[0, 1])
    return shift, img_rolled


class TiledGradients(tf.Module):
    def __init__(self, model):
        self.model = model

    @tf.function(
        input_signature=(
            tf.TensorSpec(shape=[None, None, 3], dtype=tf.float32),
            tf.TensorSpec(shape=[], dtype=tf.int32),)
    )
    def __call__(self, img, tile_size=512):
        shift, img_rolled = random_roll(img, tile_size)

        # Initialize the image gradients to zero.
        gradients = tf.zeros_like(img_rolled)

        # Skip the last tile, unless there's only one tile.
        xs = tf.range(0, img_rolled.shape[0], tile_size)[:-1]
        if not tf.cast(len(xs), bool):
            xs = tf.constant([0])
        ys = tf.range(0, img_rolled.shape[1], tile_size)[:-1]
        if not tf.cast(len(ys), bool):
            ys = tf.constant([0])

        for x in xs:
            for y in ys:
                # Calculate the gradients for this tile.
                with tf.GradientTape() as tape:
                    # This needs gradients relative to `img_rolled`.
                    # `GradientTape` only watches `tf.Variable`s by default.
                    tape.watch(img_rolled)

                    # Extract a tile out of the image.
                    img_tile = img_rolled[x:x + tile_size, y:y + tile_size]
                    loss = calc_loss(img_tile, self.model)

                # Update the image gradients for this tile.
                gradients = gradients + tape.gradient(loss, img_rolled)

        # Undo the random shift applied to the image and its gradients.
        gradients = tf.roll(gradients, shift=-shift, axis=[0, 1])

        # Normalize the gradients.
        gradients /= tf.math.reduce_std(gradients) + 1e-8

        return gradients


def main():
    tf.random.set_seed(0)
    model = build_dream_model()
    get_tiled_gradients = TiledGradients(model)
    img = tf.constant(np.random.default_rng(0).uniform(-1, 1, (64, 64, 3)).astype(np.float32))
    gradients = get_tiled_gradients(img, tf.constant(16))
    nonzero = tf.reduce_any(tf.not_equal(gradients, 0.0), axis=-1)
    covered = float(tf.reduce_mean(tf.cast(nonzero, tf.float32)))
    # A 64x64 image with 16x16 tiles (last tile skipped) should cover 9 tiles = 56 % of pixels.
    print(f"fraction of pixels with a gradient: {covered:.3f}")
    print(f"ORACLE: bug={covered < 0.2} covered_fraction={covered:.3f} expected_fraction=0.562")


if __name__ == "__main__":
    main()
