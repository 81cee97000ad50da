"""Neural style transfer script: `K.gradients(loss, combination_image)` run under TF2's eager mode.

The repository's INetwork.py builds the style-transfer loss on Keras placeholders and takes
`grads = K.gradients(loss, combination_image)` to feed a `K.function` for L-BFGS. That is the
TF1 graph API: under TensorFlow 2 eager execution `K.gradients` (tf.gradients) raises
"RuntimeError: tf.gradients is not supported when eager execution is enabled. Use
tf.GradientTape instead." The thread's replies are `tf.compat.v1.disable_eager_execution()` or
TF 1.x.

Source: titu1994/Neural-Style-Transfer#69 "Replace tf.gradients with tf.GradientTape :
RuntimeError" (https://github.com/titu1994/Neural-Style-Transfer/issues/69).
Changed from the posted code: VGG16 with ImageNet weights and image files are replaced by a
small two-block conv network (layer names kept) and random 32x32 images; the argument parser,
masks, colour preservation and the L-BFGS loop are dropped. `K.placeholder` / `K.gradients`
exist only in Keras 2: tf_keras (TF_USE_LEGACY_KERAS=1).
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K
from tensorflow.keras import layers

img_width = img_height = 32
content_weight = 0.025
style_weight = 1.0
total_variation_weight = 8.5e-5


def preprocess_image(seed):
    rng = np.random.default_rng(seed)
    img = rng.uniform(0, 255, size=(1, img_width, img_height, 3)).astype("float32")
    return img - 128.0


def gram_matrix(x):
    features = K.batch_flatten(K.permute_dimensions(x, (2, 0, 1)))
    return K.dot(features, K.transpose(features))


def style_loss(style, combination):
    S = gram_matrix(style)
    C = gram_matrix(combination)
    size = img_width * img_height
    return K.sum(K.square(S - C)) / (4.0 * (3 ** 2) * (size ** 2))


def content_loss(base, combination):
    return K.sum(K.square(combination - base))


def total_variation_loss(x):
    a = K.square(x[:, :img_width - 1, :img_height - 1, :] - x[:, 1:, :img_height - 1, :])
    b = K.square(x[:, :img_width - 1, :img_height - 1, :] - x[:, :img_width - 1, 1:, :])
    return K.sum(K.pow(a + b, 1.25))


def feature_network(input_tensor):
    outputs_dict = {}
    x = layers.Conv2D(8, 3, padding="same", activation="relu", name="block1_conv1")(input_tensor)
    outputs_dict["block1_conv1"] = x
    x = layers.MaxPooling2D(name="block1_pool")(x)
    x = layers.Conv2D(16, 3, padding="same", activation="relu", name="block2_conv1")(x)
    outputs_dict["block2_conv1"] = x
    return outputs_dict


def main():
    base_image = K.variable(preprocess_image(0))
    style_reference_image = K.variable(preprocess_image(1))
    combination_image = K.placeholder((1, img_width, img_height, 3))
    input_tensor = K.concatenate([base_image, style_reference_image, combination_image], axis=0)
    outputs_dict = feature_network(input_tensor)

    layer_features = outputs_dict["block2_conv1"]
    base_image_features = layer_features[0, :, :, :]
    combination_features = layer_features[2, :, :, :]
    loss = content_weight * content_loss(base_image_features, combination_features)
    for layer_name in ["block1_conv1", "block2_conv1"]:
        layer_features = outputs_dict[layer_name]
        style_reference_features = layer_features[1, :, :, :]
        combination_features = layer_features[2, :, :, :]
        sl = style_loss(style_reference_features, combination_features)
        loss = loss + (style_weight / 2) * sl
    loss = loss + total_variation_weight * total_variation_loss(combination_image)

    grads = K.gradients(loss, combination_image)

    outputs = [loss]
    if isinstance(grads, (list, tuple)):
        outputs += grads
    else:
        outputs.append(grads)
    f_outputs = K.function([combination_image], outputs)
    return f_outputs


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except RuntimeError as exc:
        print("RuntimeError:", exc)
        print("ORACLE: bug=True error=RuntimeError eager_tf_gradients=True")
