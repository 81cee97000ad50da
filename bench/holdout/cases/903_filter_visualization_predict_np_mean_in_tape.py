"""Filter visualization: the activation is computed with `Model.predict` and `np.mean` inside the tape.

Source: Stack Overflow "How to compute gradients of a filter's activation of an intermediate
layer, with respect to an input image in Tensorflow 2.0?" (mirrored at
https://whosebug.com/question/4531662/How-to-compute-gradients-of-a-filter-s-activation-of-an-intermediate-layer-with-respect-to-an-input-image-in-Tensorflow-2.0).
To visualize what a VGG16 filter of `block3_conv1` responds to, the user builds an activation
model up to that layer, watches a random input image, computes `activation_model.predict(inputs)`
and `np.mean(preds[:,:,:,0])` inside the tape and asks for the gradient of
`tf.convert_to_tensor(loss)` w.r.t. the input: the gradient is None (predict returns a NumPy
array, the mean is a NumPy float, so nothing is recorded).
Changes: VGG16 (no weights download) is replaced by a small conv net with the same layer names;
the image is 1x32x32x3 instead of 150x150; the user's `input`/`inputs` typo is unified.
"""
import numpy as np
import tensorflow as tf
from tensorflow.keras import Model, layers


def small_vgg():
    inp = layers.Input((None, None, 3))
    x = layers.Conv2D(8, 3, padding="same", activation="relu", name="block1_conv1")(inp)
    x = layers.MaxPooling2D(name="block1_pool")(x)
    x = layers.Conv2D(8, 3, padding="same", activation="relu", name="block2_conv1")(x)
    x = layers.MaxPooling2D(name="block2_pool")(x)
    x = layers.Conv2D(16, 3, padding="same", activation="relu", name="block3_conv1")(x)
    return Model(inp, x, name="vgg16")


def main():
    model = small_vgg()
    inputs = tf.convert_to_tensor(np.random.random((1, 32, 32, 3)))

    activation_model = Model(inputs=model.input,
                             outputs=model.get_layer("block3_conv1").output)

    with tf.GradientTape() as tape:
        tape.watch(inputs)
        preds = activation_model.predict(inputs, verbose=0)
        loss = np.mean(preds[:, :, :, 0])  # mean activation of filter 0

    grads = tape.gradient(tf.convert_to_tensor(loss), inputs)
    print("preds type", type(preds).__name__, "loss", loss, "grads", grads)
    print(f"ORACLE: bug={grads is None} grad_is_none={grads is None}")


if __name__ == "__main__":
    main()
