"""A callback sets `layer.trainable = False` in the middle of `fit`; the layer keeps training.

Source: keras-team/keras#3268 "froze layer, but weights still changed"
(https://github.com/keras-team/keras/issues/3268). The reporter modified the mnist_cnn
example and found that "if I set 'trainable' to false in callback, the layer will not be
frozen". fit() builds its training function once (today a tf.function traced on the first
batch), and the list of trainable variables is read while that function is traced, so the
Python flag flipped later by the callback is never seen: the conv layer's kernel keeps
moving after the "freeze". MNIST is replaced by random 28x28 images, the CNN is shrunk,
and the callback freezes the first conv layer when the second epoch begins.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers
from tensorflow.keras.callbacks import Callback

batch_size = 32
num_classes = 10
epochs = 3
img_rows, img_cols = 28, 28


class FreezeFirstConv(Callback):
    def on_epoch_begin(self, epoch, logs=None):
        if epoch == 1:
            self.model.layers[0].trainable = False
            self.frozen_kernel = self.model.layers[0].get_weights()[0].copy()


def build_model():
    model = keras.Sequential([
        keras.Input(shape=(img_rows, img_cols, 1)),
        layers.Conv2D(8, kernel_size=(3, 3), activation='relu'),
        layers.Conv2D(16, (3, 3), activation='relu'),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Dropout(0.25),
        layers.Flatten(),
        layers.Dense(32, activation='relu'),
        layers.Dense(num_classes, activation='softmax'),
    ])
    model.compile(loss=keras.losses.categorical_crossentropy,
                  optimizer=keras.optimizers.Adadelta(learning_rate=1.0),
                  metrics=['accuracy'])
    return model


def main():
    rng = np.random.default_rng(0)
    x_train = rng.random((256, img_rows, img_cols, 1)).astype('float32')
    y_train = keras.utils.to_categorical(rng.integers(0, num_classes, 256), num_classes)

    model = build_model()
    freeze = FreezeFirstConv()
    model.fit(x_train, y_train, batch_size=batch_size, epochs=epochs, verbose=0,
              callbacks=[freeze])

    after = model.layers[0].get_weights()[0]
    drift = float(np.abs(after - freeze.frozen_kernel).max())
    print("trainable flag now:", model.layers[0].trainable, "max kernel change after freeze:", drift)
    print(f"ORACLE: bug={drift > 0} frozen_kernel_changed={drift > 0} max_change={drift:.3g}")


if __name__ == "__main__":
    main()
