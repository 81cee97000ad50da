"""tf.function method accumulates per-iteration gradients into a Python list inside a tf.range loop.

Source: tensorflow/tensorflow#57756 "Problem with @tf.function decoration: tensor out of scope"
(https://github.com/tensorflow/tensorflow/issues/57756). `Outer(tf.keras.Model)` wraps a model;
its `@tf.function` method `gradient(self, x)` first stores outputs and losses of 10 forward
passes in `self.mem` / `self.loss_mem` TensorArrays (`for i in tf.range(10)`), then sums
gradients over the same kind of loop into a Python list with `ghat[j] = ghat[j] + ghat_update[j]`.
The reporter got "The tensor ... cannot be accessed from FuncGraph, because it was defined in
FuncGraph which is out of scope" at that line, only with the decorator.
Changes: the thread shows the class, the TensorArray loop and the failing line; the gradient
loop around that line is written here in the same style (tape over `self.model.call(x)`,
`tape.gradient` against the trainable variables, `ghat` started as zeros). The loss method is
named `loss_fn` because Keras 3's `Model.__init__` sets a `loss` attribute that would hide a
method called `loss`. The inner model is one Dense layer on a 2 x 3 input.
"""
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import tensorflow as tf


class Outer(tf.keras.Model):
    def __init__(self, model):
        super().__init__()
        self.model = model
        self.mem = None
        self.loss_mem = None

    def loss_fn(self, x):
        return 2*x-1

    @tf.function
    def gradient(self, x):
        self.mem = tf.TensorArray(tf.float32, size=10)
        self.loss_mem = tf.TensorArray(tf.float32, size=10)
        for i in tf.range(10):
            out_i = self.model.call(x)
            loss_i = self.loss_fn(out_i)
            self.mem = self.mem.write(i, out_i)
            self.loss_mem = self.loss_mem.write(i, loss_i)

        ghat = [tf.zeros_like(v) for v in self.model.trainable_variables]
        for i in tf.range(10):
            with tf.GradientTape() as tape:
                out_i = self.model.call(x)
                loss_i = tf.reduce_sum(self.loss_fn(out_i))
            ghat_update = tape.gradient(loss_i, self.model.trainable_variables)
            for j in range(len(ghat)):
                ghat[j] = ghat[j] + ghat_update[j]
        return ghat


def main():
    inner = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
    outer = Outer(inner)
    x = tf.ones((2, 3))
    error = None
    try:
        ghat = outer.gradient(x)
        print("accumulated gradient shapes:", [g.shape for g in ghat])
    except Exception as e:  # the reported failure
        error = type(e).__name__
        msg = [l.strip() for l in str(e).splitlines() if "cannot be accessed" in l]
        print(f"{error}: {(msg or [str(e)])[0][:200]}")
    print(f"ORACLE: bug={error == 'InaccessibleTensorError'} error={error}")


if __name__ == "__main__":
    main()
