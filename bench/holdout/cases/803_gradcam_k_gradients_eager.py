"""Grad-CAM heatmap code from standalone Keras kept as is under TF2: K.gradients of a slice of
model.output w.r.t. a conv layer's output. K.gradients is tf.gradients, which TF2 refuses while
eager execution is enabled.

Source: tensorflow/tensorflow#33135 "How to replace Keras' gradients() function with
GradientTape in TF2.0?" (https://github.com/tensorflow/tensorflow/issues/33135). The reporter's
heatmap code (load_model, predict, model.output[:, np.argmax(preds[0])], K.gradients(...,
conv_layer.output), K.mean, K.function) fails with "tf.gradients is not supported when eager
execution is enabled. Use tf.GradientTape instead."
Changed from the posted code: the saved model and image file are replaced by a small
functional CNN (layers named "model_input" and "block5_conv3" as in the post) and a random
image; preprocess_input is dropped. The user's API (K.gradients on model.output) exists only in
Keras 2, so TF_USE_LEGACY_KERAS=1 selects tf_keras.
"""
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K


def build_model():
    inp = tf.keras.Input(shape=(32, 32, 3), name="model_input")
    x = tf.keras.layers.Conv2D(8, 3, activation="relu", padding="same")(inp)
    x = tf.keras.layers.Conv2D(8, 3, activation="relu", padding="same", name="block5_conv3")(x)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    out = tf.keras.layers.Dense(4, activation="softmax")(x)
    return tf.keras.Model(inp, out)


def heatmap(model, img_tensor):
    preds = model.predict(img_tensor, verbose=0)
    model_prediction = model.output[:, np.argmax(preds[0])]

    # Calculate pooled grads for heatmap
    conv_layer = model.get_layer("block5_conv3")  # last conv. layer
    grads = K.gradients(model_prediction, conv_layer.output)[0]
    pooled_grads = K.mean(grads, axis=(0, 1, 2))

    # Get values of pooled grads and model conv. layer output as Numpy arrays
    input_layer = model.get_layer("model_input")
    iterate = K.function([input_layer.input], [pooled_grads, conv_layer.output[0]])
    pooled_grads_value, conv_layer_output_value = iterate([img_tensor])
    return np.mean(conv_layer_output_value * pooled_grads_value, axis=-1)


def main():
    model = build_model()
    img_tensor = np.random.default_rng(0).random((1, 32, 32, 3)).astype("float32")
    try:
        hm = heatmap(model, img_tensor)
        print("heatmap shape:", hm.shape)
        print("ORACLE: bug=False error=None")
    except (RuntimeError, ValueError, TypeError, AttributeError) as exc:
        print(f"{type(exc).__name__}: {str(exc)[:200]}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")


if __name__ == "__main__":
    main()
