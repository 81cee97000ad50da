"""GradCAM class: `tape.watch(self.gradModel.get_layer(self.layerName).output)` on a frozen base.

The GradCAM helper of the cats-vs-dogs transfer-learning notebook watches the target layer's
`.output` so that `tape.gradient(loss, convOutputs)` is not None when the convolutional base is
frozen (`vgg.trainable = False`: its variables are not watched automatically). But
`layer.output` is the symbolic Keras tensor of the graph the model was built from, not the
tensor `self.gradModel(inputs)` returns while the tape records; the pull request reports that
this line "is not working anymore" with a newer TF. Under TF 2.21 (tf_keras, as under Keras 3) `tape.watch` of a
KerasTensor raises ValueError; under older versions the gradient was silently None.

Source: ayulockin/interpretabilitycnn#1 "fixed GradCAM class (new tf version)"
(https://github.com/ayulockin/interpretabilitycnn/pull/1).
Changed from the posted code: the ImageNet VGG16 base is replaced by a small frozen conv base
(two conv layers set non-trainable, layer name `block5_conv3` kept), images are random 32x32, `cv2.resize` is replaced by
`tf.image.resize`; the W&B callback is dropped. The case runs on tf_keras (TF_USE_LEGACY_KERAS=1) like its
look-alike 410, whose fix (watching Keras variables) works only in Keras 2.
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf
from tensorflow import keras


def get_model():
    inp = keras.Input((32, 32, 3))
    x = keras.layers.Conv2D(8, 3, padding="same", activation="relu", name="block1_conv1")(inp)
    x = keras.layers.MaxPooling2D(name="block1_pool")(x)
    x = keras.layers.Conv2D(16, 3, padding="same", activation="relu", name="block5_conv3")(x)
    for name in ("block1_conv1", "block5_conv3"):
        keras.Model(inp, x).get_layer(name).trainable = False  # the frozen "vgg" base
    x = keras.layers.GlobalAveragePooling2D()(x)
    x = keras.layers.Dense(16, activation="relu")(x)
    output = keras.layers.Dense(1, activation="sigmoid")(x)
    model = keras.models.Model(inputs=inp, outputs=output)
    return model


class GradCAM:
    def __init__(self, model, layerName):
        self.model = model
        self.layerName = layerName

        self.gradModel = keras.models.Model(inputs=[self.model.inputs],
                                            outputs=[self.model.get_layer(self.layerName).output,
                                                     self.model.output])

    def compute_heatmap(self, image, classIdx, eps=1e-8):
        with tf.GradientTape() as tape:
            tape.watch(self.gradModel.get_layer(self.layerName).output)
            inputs = tf.cast(image, tf.float32)
            (convOutputs, predictions) = self.gradModel(inputs)
            if len(predictions) == 1:
                loss = predictions[0]
            else:
                loss = predictions[:, classIdx]

        grads = tape.gradient(loss, convOutputs)

        castConvOutputs = tf.cast(convOutputs > 0, "float32")
        castGrads = tf.cast(grads > 0, "float32")
        guidedGrads = castConvOutputs * castGrads * grads

        convOutputs = convOutputs[0]
        guidedGrads = guidedGrads[0]
        weights = tf.reduce_mean(guidedGrads, axis=(0, 1))
        cam = tf.reduce_sum(tf.multiply(weights, convOutputs), axis=-1)

        (w, h) = (image.shape[2], image.shape[1])
        heatmap = tf.image.resize(cam[..., tf.newaxis], (h, w))[..., 0].numpy()
        numer = heatmap - np.min(heatmap)
        denom = (heatmap.max() - heatmap.min()) + eps
        heatmap = numer / denom
        return heatmap


def main():
    model = get_model()
    rng = np.random.default_rng(0)
    image = rng.uniform(size=(1, 32, 32, 3)).astype(np.float32)
    cam = GradCAM(model, "block5_conv3")
    heatmap = cam.compute_heatmap(image, 0)
    print("heatmap", heatmap.shape)


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except (ValueError, TypeError) as exc:
        print(type(exc).__name__ + ":", str(exc)[:300])
        print(f"ORACLE: bug=True error={type(exc).__name__} watch_symbolic=True")
