"""CNN training loop that computes the logits before calling the tf.function train step.

Sources: tensorflow/tensorflow#28836 and ftramer/ensemble-adv-training#4
"No gradients provided for any variable: ['cnn_model_14/conv2d_42/kernel:0', ...]"
(https://github.com/tensorflow/tensorflow/issues/28836,
https://github.com/ftramer/ensemble-adv-training/issues/4). The loop runs the model and
passes the logits to `train_step`, whose tape therefore never sees the forward pass.
MNIST is replaced by random 28x28 images.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras


class CNNModel(keras.Model):
    def __init__(self):
        super().__init__()
        self.conv1 = keras.layers.Conv2D(8, 3, activation="relu")
        self.flat = keras.layers.Flatten()
        self.dense = keras.layers.Dense(10)

    def call(self, x):
        return self.dense(self.flat(self.conv1(x)))


model = CNNModel()
cross_entropy = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
cnn_optimizer = keras.optimizers.Adam(1e-3)


@tf.function
def train_step(logits, labels):
    with tf.GradientTape() as cnn_tape:
        loss = cross_entropy(labels, logits)
        #loss = cross_entropy(labels,tf.argmax(logits,axis=1))
    gradient_of_cnn = cnn_tape.gradient(loss, model.trainable_variables)
    cnn_optimizer.apply_gradients(zip(gradient_of_cnn, model.trainable_variables))


def train(train_dataset, train_labels_dataset, epochs):
    for epoch in range(epochs):
        for image_batch, label_batch in zip(train_dataset, train_labels_dataset):
            logits = model(image_batch)
            labels = label_batch
            print('logits->', logits.shape, 'labels->', labels.shape)
            train_step(logits, labels)


def main():
    rng = np.random.default_rng(0)
    images = rng.random((32, 28, 28, 1), dtype=np.float32)
    labels = rng.integers(0, 10, size=32)
    train_dataset = tf.data.Dataset.from_tensor_slices(images).batch(16)
    train_labels_dataset = tf.data.Dataset.from_tensor_slices(labels).batch(16)
    train(train_dataset, train_labels_dataset, epochs=1)


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except ValueError as exc:
        print("ValueError:", str(exc).strip().splitlines()[-1][:200])
        print("ORACLE: bug=True error=ValueError")
