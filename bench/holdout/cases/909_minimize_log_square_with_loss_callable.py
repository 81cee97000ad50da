"""Correct look-alike: `optimizer.minimize` is given a loss *function*, not a computed tensor.

Source: accepted answer to Stack Overflow "Tensorflow 2.0: minimize a simple function"
(mirrored at https://newbe.dev/tensorflow-2-0-minimize-a-simple-function). The user wanted to
minimize (log x)^2 for `x = tf.Variable(2.)` after computing `y` under a GradientTape; the answer
gives two correct options, and this is option 2: define the loss computation as a function
`compute_loss()` and pass that callable to `opt.minimize(compute_loss, var_list=...)`, which
records its own tape. x moves towards 1 and no error is raised.
Changes: `opt` is `tf.optimizers.Adam(0.5)` (the thread's TF 2.0 optimizer; Keras 3 optimizers
have no `minimize`, so the case sets TF_USE_LEGACY_KERAS=1); the step runs 50 times.
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import tensorflow as tf

x = tf.Variable(2, name='x', trainable=True, dtype=tf.float32)
opt = tf.optimizers.Adam(0.5)
trainable_variables = [x]


# To use minimize you have to define your loss computation as a function
def compute_loss():
    log_x = tf.math.log(x)
    y = tf.math.square(log_x)
    return y


def main():
    error = None
    try:
        for _ in range(50):
            train = opt.minimize(compute_loss, var_list=trainable_variables)
    except Exception as e:
        error = e
        print(type(e).__name__, e)
    print("x", float(x.numpy()), "loss", float(compute_loss().numpy()))
    moved = abs(float(x.numpy()) - 2.0) > 0.1
    print(f"ORACLE: bug={error is not None or not moved} exception={type(error).__name__ if error else 'none'} x_moved={moved}")


if __name__ == "__main__":
    main()
