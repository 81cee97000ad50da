"""The parameters are created as `tf.Variable(1)` and `tf.Variable(2)`: integer variables, which
the tape does not differentiate, so `tape.gradient` returns `[None, None]` without an error.

Source: tensorflow/tensorflow#26143 "[TF2.0] Error Logging for GradientTape"
(https://github.com/tensorflow/tensorflow/issues/26143). The reporter's `forward(a, b)` multiplies
two integer Variables and the gradients come back None; with float Variables they are correct.
The thread asked for a warning (TF now logs "The dtype of the source tensor must be floating").
Changed: a target value and a few manual gradient-descent steps are added around the posted
forward/gradient code, skipping None gradients as a training loop would.
"""
import tensorflow as tf


def forward(a, b):
    """f = a * b"""
    return a * b


def main():
    params = [tf.Variable(1), tf.Variable(2)]
    target = 6

    grads = None
    for step in range(3):
        with tf.GradientTape() as tape:
            result = forward(*params)
            loss = (result - target) ** 2
        grads = tape.gradient(loss, params)
        for p, g in zip(params, grads):
            if g is not None:
                p.assign_sub(g)
    print("params:", [p.numpy() for p in params], "grads:", grads)
    none = all(g is None for g in grads)
    print(f"ORACLE: bug={none} grads_all_none={none} dtype={params[0].dtype.name}")


if __name__ == "__main__":
    main()
