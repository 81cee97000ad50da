"""No longer shown: DenseFlipout posterior variables without gradients in a GradientTape loop.

Source: tensorflow/probability#467 "Gradients does not exist for variables
['sin_cos_model_3/dense_flipout_12/kernel_posterior_untransformed_scale:0' etc ..."
(https://github.com/tensorflow/probability/issues/467). With tf-2.0.0b1 and the TFP nightly
of June 2019, a subclassed "sin_cos" regression model built from `tfp.layers.DenseFlipout`
layers and trained with a GradientTape loop got None gradients (and the optimizer's
"Gradients does not exist" warning) for `kernel_posterior_untransformed_scale` and
`bias_posterior_loc`; the maintainer pointed to the known TF2 incompatibility of those
layers (tensorflow/probability#409). With TF 2.21, tf_keras 2.21 and TFP 0.25 the same loop
gets a gradient for every trainable variable.
Changes: the Colab notebook is replaced by a 3-layer DenseFlipout model fitting sin/cos of
random inputs, the KL terms (model.losses) added to the MSE as in the TFP examples, 3 steps.
DenseFlipout is a Keras 2 layer, hence TF_USE_LEGACY_KERAS=1.
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp


class SinCosModel(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.d1 = tfp.layers.DenseFlipout(16, activation=tf.nn.relu)
        self.d2 = tfp.layers.DenseFlipout(16, activation=tf.nn.relu)
        self.d3 = tfp.layers.DenseFlipout(2)

    def call(self, x):
        return self.d3(self.d2(self.d1(x)))


def main():
    rng = np.random.default_rng(0)
    x = rng.uniform(-3, 3, size=(64, 1)).astype(np.float32)
    y = np.concatenate([np.sin(x), np.cos(x)], axis=1).astype(np.float32)
    model = SinCosModel()
    optimizer = tf.keras.optimizers.Adam(1e-3)
    missing = set()
    for _ in range(3):
        with tf.GradientTape() as tape:
            pred = model(x)
            mse = tf.reduce_mean(tf.square(pred - y))
            kl = sum(model.losses) / x.shape[0]
            loss = mse + kl
        grads = tape.gradient(loss, model.trainable_variables)
        missing |= {v.name for g, v in zip(grads, model.trainable_variables) if g is None}
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    print("variables without gradient:", sorted(missing))
    print(f"ORACLE: bug={bool(missing)} none_gradient_variables={len(missing)} "
          f"of={len(model.trainable_variables)}")


if __name__ == "__main__":
    main()
