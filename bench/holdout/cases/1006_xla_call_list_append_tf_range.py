"""Keras call under tf.function(jit_compile=True) appends tf.range loop outputs to a Python list.

Source: tensorflow/tensorflow#105332 "XLA JIT Compilation Fails with Tensor Scope Access in
tf.while_loop" (https://github.com/tensorflow/tensorflow/issues/105332), reported on TF 2.21.0rc0.
`SimpleModel.call` is decorated with `@tf.function(jit_compile=True)`; it splits the input into
chunks with `for i in tf.range(num_batches)`, runs a Dense layer on each chunk and does
`processed.append(transformed)`, then `tf.concat(processed, axis=0)`. AutoGraph turns the
`tf.range` loop into a `tf.while_loop`, the appended tensors belong to the loop body graph, and
reading them after the loop raises InaccessibleTensorError (the reporter thought only XLA was
affected; under TF 2.21 the same error appears with jit_compile=False too).
Changes: chunk size 4 instead of 32, Dense(16) instead of Dense(64), a random 12 x 6 input.
"""
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import numpy as np
import tensorflow as tf


class SimpleModel(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(16, activation='relu')

    @tf.function(jit_compile=True)
    def call(self, inputs):
        batch_size = 4
        num_batches = tf.shape(inputs)[0] // batch_size
        processed = []

        for i in tf.range(num_batches):
            batch = inputs[i * batch_size:(i + 1) * batch_size]
            transformed = self.dense(batch)
            processed.append(transformed)

        return tf.concat(processed, axis=0)


def main():
    model = SimpleModel()
    inputs = tf.constant(np.random.default_rng(0).normal(size=(12, 6)), dtype=tf.float32)
    error = None
    try:
        out = model(inputs)
        print("output shape:", out.shape)
    except Exception as e:  # the reported failure
        error = type(e).__name__
        msg = [l.strip() for l in str(e).splitlines() if "cannot be accessed" in l]
        print(f"{error}: {(msg or [str(e)])[0][:200]}")
    print(f"ORACLE: bug={error == 'InaccessibleTensorError'} error={error}")


if __name__ == "__main__":
    main()
