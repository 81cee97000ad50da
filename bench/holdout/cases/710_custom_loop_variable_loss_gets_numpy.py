"""A custom training loop fits one `tf.Variable`; the prediction is converted to a NumPy array
when it is passed to the (complicated) loss function, so the loss is a constant for the tape and
`apply_gradients` raises "No gradients provided for any variable: ['Variable:0']".

Source: tensorflow/tensorflow#50111 "ValueError: No gradients provided for any variable:
['Variable:0']" (https://github.com/tensorflow/tensorflow/issues/50111). The reporter's custom
GradientTape loop with a complicated loss failed this way; they closed it after finding "I
converted the tensor into a numpy array when passing it to my loss function". Changed: the loss
(not posted) is a NumPy smoothed-L1 on a scaled signal, the data is random, and the loop lives in
a small trainer class.
"""
import numpy as np
import tensorflow as tf


def complicated_loss(pred, target):
    diff = np.abs(pred - target)
    per_item = np.where(diff < 1.0, 0.5 * diff ** 2, diff - 0.5)
    return tf.convert_to_tensor(per_item.mean(), dtype=tf.float32)


class ScaleFitter:
    def __init__(self):
        self.scale = tf.Variable(0.5)
        self.optimizer = tf.keras.optimizers.Adam(0.05)

    def predict(self, signal):
        return self.scale * signal

    def train_step(self, signal, target):
        with tf.GradientTape() as tape:
            pred = self.predict(signal)
            loss = complicated_loss(pred.numpy(), target)
        grads = tape.gradient(loss, [self.scale])
        self.optimizer.apply_gradients(zip(grads, [self.scale]))
        return loss


def main():
    signal = np.random.rand(32).astype("float32")
    target = 3.0 * signal
    fitter = ScaleFitter()
    err = None
    try:
        for _ in range(5):
            fitter.train_step(signal, target)
    except ValueError as e:
        err = e
    print("error:", str(err)[:100] if err else None, "scale:", fitter.scale.numpy())
    bug = err is not None and "No gradients provided" in str(err)
    print(f"ORACLE: bug={bug} exception={type(err).__name__ if err else None} no_gradients={bug}")


if __name__ == "__main__":
    main()
