"""One tf.function training step used with two optimizers in sequence (Adam, then SGD).

Source: tensorflow/tensorflow#34983 "ValueError: tf.function-decorated function tried to create
variables on non-first call" (https://github.com/tensorflow/tensorflow/issues/34983): the
second optimizer's slot variables were created in a later trace. With TensorFlow 2.21 and
Keras 3 the optimizer is an argument, the step retraces for it and its variables are created
without error: the symptom is gone. Data is random.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import Model
from tensorflow.keras.layers import Dense, Flatten


class MyModel(Model):
    def __init__(self):
        super(MyModel, self).__init__()
        self.flatten = Flatten()
        self.d1 = Dense(32, activation='relu')
        self.d2 = Dense(10)

    def call(self, x):
        return self.d2(self.d1(self.flatten(x)))


model = MyModel()
loss_object = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(images, labels, optimizer):
    with tf.GradientTape() as tape:
        predictions = model(images)
        loss = loss_object(labels, predictions)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    images = rng.random((16, 8, 8)).astype(np.float32)
    labels = rng.integers(0, 10, size=16)
    try:
        for optimizer in [keras.optimizers.Adam(), keras.optimizers.SGD(0.01)]:
            for _ in range(3):
                train_step(images, labels, optimizer)
        print("ORACLE: bug=False error=none")
    except ValueError as exc:
        print("ValueError:", str(exc).strip().splitlines()[-1][:300])
        print("ORACLE: bug=True error=ValueError")
