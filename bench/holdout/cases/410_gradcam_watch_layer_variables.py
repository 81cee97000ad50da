"""GradCAM class: `tape.watch(...get_layer(self.layerName).variables)` on a frozen base (correct).

The fix merged in the same pull request: instead of the symbolic `.output`, the tape watches
the frozen target layer's variables, so the convolution is recorded while `self.gradModel`
runs and `tape.gradient(loss, convOutputs)` is a real gradient (the conv base is frozen, so
without an explicit watch nothing upstream of the trainable head would be recorded). Same
program as case 409 otherwise.

Source: ayulockin/interpretabilitycnn#1 "fixed GradCAM class (new tf version)"
(https://github.com/ayulockin/interpretabilitycnn/pull/1): "changed to
`tape.watch(self.gradModel.get_layer(self.layerName).variables)`".
Changed from the posted code: the ImageNet VGG16 base is replaced by a small frozen conv base
(two conv layers set non-trainable, layer name `block5_conv3` kept), images are random 32x32,
`cv2.resize` is replaced by `tf.image.resize`; the W&B callback is dropped. `tape.watch` of Keras variables works only in Keras 2, so
the case runs on tf_keras (TF_USE_LEGACY_KERAS=1), the notebook's Keras.
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
            tape.watch(self.gradModel.get_layer(self.layerName).variables)
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
    print("heatmap", heatmap.shape, "finite:", bool(np.isfinite(heatmap).all()))
    return heatmap


if __name__ == "__main__":
    try:
        heatmap = main()
        ok = bool(np.isfinite(heatmap).all())
        print(f"ORACLE: bug={not ok} error=none grads_is_none=False heatmap_finite={ok}")
    except (ValueError, TypeError) as exc:  # TypeError: grads is None
        print(type(exc).__name__ + ":", str(exc)[:300])
        print(f"ORACLE: bug=True error={type(exc).__name__} watch_symbolic=True")
