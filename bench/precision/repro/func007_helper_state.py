"""A true finding of FUNC007 in tensorflow/docs (site/en/guide/core/distribution.ipynb, cell 27):
the guide's Adam, a tf.Module whose `apply_gradients` does `self.t += 1.`, runs inside the
tf.function `train_step`, so the step count moves only while TensorFlow traces: the bias
correction keeps the value it had at the first trace. Written here in the guide's shape (no
DTensor); TensorFlow 2.21 decides. Exit 0 when the count is frozen (the finding is true).

    .venv/bin/python bench/precision/repro/func007_helper_state.py
"""

import sys

import tensorflow as tf


class Adam(tf.Module):
    def __init__(self, beta_1=0.9):
        self.beta_1 = beta_1
        self.t = 1.

    def apply_gradients(self, grad):
        corrected = grad / (1 - self.beta_1 ** self.t)
        self.t += 1.
        return corrected


@tf.function
def train_step(grad, optimizer):
    return optimizer.apply_gradients(grad)


optimizer = Adam()
steps = [float(train_step(tf.constant(1.0), optimizer)) for _ in range(4)]
print(f"t after 4 steps: {optimizer.t} (4 calls); bias-corrected steps: {steps}")
sys.exit(0 if optimizer.t == 2.0 and len(set(steps)) == 1 else 1)
