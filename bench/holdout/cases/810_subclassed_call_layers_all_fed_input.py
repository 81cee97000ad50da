"""Subclassed model whose call() applies each Dense layer to the model input `x` instead of to
the previous layer's output. Only the last layer's output is returned, so the first three
layers' kernels and biases do not influence the loss and get no gradient.

Source: tensorflow/tensorflow#36880 "No gradients for bias and kernels in Dense layer."
(https://github.com/tensorflow/tensorflow/issues/36880). The reporter (TF 2.1, float64 Keras
backend, subclassed model `flight` with Dense layers named layer1..layer4) got "Gradients do not
exist for variables ['flight_2/layer1/kernel:0', ..., 'flight_2/layer3/bias:0'] when minimizing
the loss". The reply (pandrey-fr) explains that
the model's call method "returns the output of `layer4(x)`, meaning that the first three layers
have no effect on the predictions, hence the absence of gradients", and gives the chained call
(output = self.linear1(x); output = self.linear2(output); ...).
Changed from the posted code: the dask/S3 flight-data pipeline is replaced by random
regression data and the layer sizes are small; call() follows the reply's description and its
attribute names (linear1..linear4, layers named layer1..layer4 as in the warning); one
GradientTape training step stands in for the training loop.
"""
import numpy as np
import tensorflow as tf


tf.keras.backend.set_floatx("float64")


class flight(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.linear1 = tf.keras.layers.Dense(32, activation="relu", name="layer1")
        self.linear2 = tf.keras.layers.Dense(32, activation="relu", name="layer2")
        self.linear3 = tf.keras.layers.Dense(16, activation="relu", name="layer3")
        self.linear4 = tf.keras.layers.Dense(1, name="layer4")

    def call(self, x):
        output = self.linear1(x)
        output = self.linear2(x)
        output = self.linear3(x)
        output = self.linear4(x)
        return output


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 8)).astype("float64")
    y = (x.sum(axis=1, keepdims=True) ** 2).astype("float64")

    model = flight()
    optimizer = tf.keras.optimizers.Adam(1e-3)
    loss_fn = tf.keras.losses.MeanSquaredError()

    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x))
    grads = tape.gradient(loss, model.trainable_variables)
    none = [v.path for g, v in zip(grads, model.trainable_variables) if g is None]
    print("variables without gradient:", none)
    try:
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    except ValueError as exc:
        print(f"apply_gradients: ValueError: {str(exc)[:160]}")
    print(f"ORACLE: bug={len(none) > 0} none_grads={len(none)}/{len(grads)}")


if __name__ == "__main__":
    main()
