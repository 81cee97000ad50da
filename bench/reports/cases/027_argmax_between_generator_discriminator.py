"""GAN where a Lambda layer turns the generator's two-class mask into argmax labels for D.

Source: eriklindernoren/Keras-GAN#61 "argmax between generator and discriminator"
(https://github.com/eriklindernoren/Keras-GAN/issues/61). The combined model is trained to
fool D, but nothing reaches the generator through the argmax. Image size is reduced.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import backend as K
from tensorflow.keras.layers import Conv2D, Dense, Flatten, Input, Lambda
from tensorflow.keras.models import Model

h, w, c = 16, 16, 3


def build_generator():
    inp = Input((h, w, c))
    out1 = Conv2D(2, 3, padding="same", activation="softmax")(inp)
    return Model(inp, out1)


def build_discriminator():
    inp = Input((h, w, 1))
    x = Flatten()(Conv2D(4, 3, activation="relu")(inp))
    return Model(inp, Dense(1, activation="sigmoid")(x))


def main():
    generator = build_generator()
    discriminator = build_discriminator()
    discriminator.trainable = False

    img = Input((h, w, c))
    out1 = generator(img)
    out2 = Lambda(lambda x: K.cast(K.expand_dims(K.argmax(x)), dtype="float32"))(out1)
    val = discriminator(out2)
    combined = Model(img, val)

    x = np.random.default_rng(0).random((4, h, w, c)).astype(np.float32)
    with tf.GradientTape() as tape:
        loss = keras.losses.binary_crossentropy(tf.ones((4, 1)), combined(x))
    grads = tape.gradient(loss, generator.trainable_variables)
    missing = sum(g is None for g in grads)
    print(f"ORACLE: bug={missing == len(grads)} generator_none_grads={missing}/{len(grads)}")


if __name__ == "__main__":
    main()
