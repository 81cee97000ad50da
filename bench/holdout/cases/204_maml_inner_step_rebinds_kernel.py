"""MAML on sinusoids: the inner SGD step rebinds each layer's kernel/bias to a tensor.

Source: hereismari/tensorflow-maml#3 "How to apply several SGD steps within the ineer loop?"
(https://github.com/hereismari/tensorflow-maml/issues/3). The repository's `train_maml` does
the inner update as `model_copy.layers[j].kernel = tf.subtract(model.layers[j].kernel, ...)`;
users adding a second inner step found that "updating the weights manually as done here
makes them non-trainable": after the rebinding the copied model has no trainable kernels or
biases left, so the second inner gradient has nothing to differentiate. Changes: the
notebook's plotting and logging are dropped, 2 tasks, 1 epoch, and a second inner step is
added as the thread asks. The notebook used tf.keras 2 (a Dense kernel is a plain attribute
there), hence the legacy-Keras switch.
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import random

import numpy as np
import tensorflow as tf
import tensorflow.keras as keras
import tensorflow.keras.backend as keras_backend


class SinusoidGenerator():
    def __init__(self, K=10):
        self.K = K
        self.amplitude = np.random.uniform(0.1, 5.0)
        self.phase = np.random.uniform(0, np.pi)
        self.x = np.random.uniform(-5, 5, self.K)

    def batch(self):
        y = self.amplitude * np.sin(self.x - self.phase)
        return self.x[:, None], y[:, None]


class SineModel(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden1 = keras.layers.Dense(40, input_shape=(1,))
        self.hidden2 = keras.layers.Dense(40)
        self.out = keras.layers.Dense(1)

    def forward(self, x):
        x = keras.activations.relu(self.hidden1(x))
        x = keras.activations.relu(self.hidden2(x))
        x = self.out(x)
        return x


def loss_function(pred_y, y):
    return keras_backend.mean(keras.losses.mean_squared_error(y, pred_y))


def np_to_tensor(list_of_numpy_objs):
    return (tf.convert_to_tensor(obj) for obj in list_of_numpy_objs)


def compute_loss(model, x, y, loss_fn=loss_function):
    logits = model.forward(x)
    mse = loss_fn(y, logits)
    return mse, logits


def copy_model(model, x):
    copied_model = SineModel()
    copied_model.forward(tf.convert_to_tensor(x))
    copied_model.set_weights(model.get_weights())
    return copied_model


def train_maml(model, epochs, dataset, lr_inner=0.01):
    optimizer = keras.optimizers.Adam()
    report = []
    for _ in range(epochs):
        for i, t in enumerate(random.sample(dataset, len(dataset))):
            x, y = np_to_tensor(t.batch())
            model.forward(x)
            with tf.GradientTape() as test_tape:
                with tf.GradientTape() as train_tape:
                    train_loss, _ = compute_loss(model, x, y)
                gradients = train_tape.gradient(train_loss, model.trainable_variables)
                k = 0
                model_copy = copy_model(model, x)
                for j in range(len(model_copy.layers)):
                    model_copy.layers[j].kernel = tf.subtract(model.layers[j].kernel, tf.multiply(lr_inner, gradients[k]))
                    model_copy.layers[j].bias = tf.subtract(model.layers[j].bias, tf.multiply(lr_inner, gradients[k+1]))
                    k += 2
                # second inner SGD step, as asked in the thread
                with tf.GradientTape() as train_tape2:
                    train_loss2, _ = compute_loss(model_copy, x, y)
                gradients2 = train_tape2.gradient(train_loss2, model_copy.trainable_variables)
                report.append(len(gradients2))
                test_loss, logits = compute_loss(model_copy, x, y)
            gradients = test_tape.gradient(test_loss, model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return report


def main():
    np.random.seed(333)
    random.seed(0)
    dataset = [SinusoidGenerator(K=10) for _ in range(2)]
    model = SineModel()
    report = train_maml(model, 1, dataset)
    print("trainable variables seen by the second inner step:", report, "(6 expected)")
    print(f"ORACLE: bug={max(report) == 0} copy_trainable_after_rebind={max(report)}")


if __name__ == "__main__":
    main()
