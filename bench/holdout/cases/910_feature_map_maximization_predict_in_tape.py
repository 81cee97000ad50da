"""Feature-map visualization: the tape records `model.predict`, whose NumPy output has no gradient.

Source: Stack Overflow "Tensorflow 2 does not compute gradients" (Japanese mirror
https://isolution.pro/q/so69914111/tensorflow-2-wa-kobai-o-keisanshimasen). To see what a VGG16
feature map learned, the user's `maxFeatureMap.getGradient(layer, feature_map)` creates a random
preprocessed picture, builds a sub-model up to `self.model.layers[layer]`, and inside the tape
computes `model.predict(pic, steps=1)[0][:,:,feature_map]` and its `tf.reduce_mean`; the gradient
w.r.t. the picture is None (and the following `apply_gradients` cannot run).
Changes: VGG16 (weights download) is replaced by a small conv stack with VGG-style layer names;
the picture is 1x32x32x3; the failing `apply_gradients` is caught; the class's unused
`getNumLayers` helper is kept short.
"""
import numpy as np
import tensorflow as tf
from tensorflow.keras.applications import vgg16


class maxFeatureMap():

    def __init__(self, model):
        self.model = model
        self.optimizer = tf.keras.optimizers.Adam()

    def getNumLayers(self, layer_name):
        for layer in self.model.layers:
            if layer.name == layer_name:
                weights = layer.get_weights()
                num = weights[1].shape[0]
        return ("There are {} feature maps in {}".format(num, layer_name))

    def getGradient(self, layer, feature_map):
        pic = vgg16.preprocess_input(np.random.uniform(size=(1, 32, 32, 3)))  ## Creates values between 0 and 1
        pic = tf.convert_to_tensor(pic)

        model = tf.keras.Model(inputs=self.model.inputs,
                               outputs=self.model.layers[layer].output)
        with tf.GradientTape() as tape:
            ## predicts the output of the model and only chooses the feature_map indicated
            predictions = model.predict(pic, steps=1, verbose=0)[0][:, :, feature_map]
            loss = tf.reduce_mean(predictions)
        print(loss)
        gradients = tape.gradient(loss, pic[0])
        print(gradients)
        try:
            self.optimizer.apply_gradients(zip(gradients, pic))
        except Exception as e:
            print("apply_gradients:", type(e).__name__, e)
        return gradients


def small_vgg():
    inp = tf.keras.Input((32, 32, 3))
    x = tf.keras.layers.Conv2D(8, 3, padding="same", activation="relu", name="block1_conv1")(inp)
    x = tf.keras.layers.Conv2D(8, 3, padding="same", activation="relu", name="block1_conv2")(x)
    x = tf.keras.layers.MaxPooling2D(name="block1_pool")(x)
    x = tf.keras.layers.Conv2D(16, 3, padding="same", activation="relu", name="block2_conv1")(x)
    return tf.keras.Model(inp, x, name="vgg16")


def main():
    model = small_vgg()
    feature_maps = maxFeatureMap(model)
    print(feature_maps.getNumLayers("block2_conv1"))
    gradients = feature_maps.getGradient(4, 3)
    print(f"ORACLE: bug={gradients is None} grad_is_none={gradients is None}")


if __name__ == "__main__":
    main()
