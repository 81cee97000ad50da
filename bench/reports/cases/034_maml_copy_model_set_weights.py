"""MAML step that copies the meta-model with set_weights and adapts the copy.

Source: tensorflow/tensorflow#34335 "[TF 2.0] Nested Gradient Tape - unconnected graphs"
(https://github.com/tensorflow/tensorflow/issues/34335): the meta-gradient is None unless the
meta-model itself is used; `copy_model` moves the weights with set_weights (an assignment),
so the copy is not connected to the meta-model. Sine-wave tasks are random; tf.keras is
Keras 2 (tf_keras), as in the report.
"""
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf
import tensorflow.keras as keras
import tensorflow.keras.backend as keras_backend


class MetaModel(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden1 = keras.layers.Dense(5, input_shape=(1,))
        self.out = keras.layers.Dense(1)

    def forward(self, x):
        x = keras.activations.relu(self.hidden1(x))
        x = self.out(x)
        return x


def copy_model(model, x):
    copied_model = MetaModel()
    copied_model.forward(x)
    copied_model.set_weights(model.get_weights())
    return copied_model


def compute_loss(model, x, y):
    logits = model.forward(x)
    mse = keras_backend.mean(keras.losses.mean_squared_error(y, logits))
    return mse, logits


def main():
    rng = np.random.default_rng(0)
    x = tf.constant(rng.uniform(-5, 5, size=(10, 1)).astype(np.float32))
    y = tf.sin(x)
    model = MetaModel()
    model.forward(x)
    with tf.GradientTape() as test_tape:
        with tf.GradientTape() as train_tape:
            train_loss, _ = compute_loss(model, x, y)
        gradients = train_tape.gradient(train_loss, model.trainable_variables)
        model_copy = copy_model(model, x)
        for j, (w, g) in enumerate(zip(model_copy.trainable_variables, gradients)):
            w.assign_sub(0.01 * g)
        test_loss, _ = compute_loss(model_copy, x, y)
    meta_grads = test_tape.gradient(test_loss, model.trainable_variables)
    missing = sum(g is None for g in meta_grads)
    print(f"ORACLE: bug={missing == len(meta_grads)} meta_none_grads={missing}/{len(meta_grads)}")


if __name__ == "__main__":
    main()
