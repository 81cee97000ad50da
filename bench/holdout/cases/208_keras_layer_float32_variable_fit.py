"""Correct look-alike: the same Keras layer with its weight created as float32; fit() trains.

Source: keras-team/keras#20058 "\"No gradients provided for any variable.\" when variable uses an
integer data type" (https://github.com/keras-team/keras/issues/20058). The layer computes
`input * self.var` with `self.var` added as int32; training with `model.fit` raises
`ValueError: No gradients provided for any variable`. The report's own script marks the fix
(`variable_dtype = tf.float32  # Uncommenting this fixes the issue`); this is that variant.
The integer model input stays (it is cast by the multiplication with the float weight).
Changes: 64 samples instead of 1000, one epoch.
"""
import keras
import numpy as np
import tensorflow as tf

variable_dtype = tf.float32   # the fix given in the report


class BugTestLayer(keras.layers.Layer):
    # y = self.var * x
    def build(self, input_shape):
        self.var = self.add_variable((1,), initializer="zeros", dtype=variable_dtype)

    def call(self, input):
        return input * self.var


def main():
    input_layer = keras.Input((1,), dtype=tf.int32)
    test_layer = BugTestLayer()
    output = test_layer(input_layer)
    model = keras.Model(inputs=[input_layer], outputs=[output])

    values = np.array([[i] for i in range(64)])
    model.compile(
        loss=[keras.losses.MeanSquaredError()],
        optimizer=keras.optimizers.RMSprop(),
        metrics=[keras.metrics.MeanSquaredError()],
    )
    try:
        model.fit(values, values, batch_size=8, epochs=1, verbose=0)
        print("ORACLE: bug=False error=none")
    except ValueError as exc:
        print(f"ValueError: {str(exc)[:200]}")
        print("ORACLE: bug=True error=ValueError no_gradients=True")


if __name__ == "__main__":
    main()
