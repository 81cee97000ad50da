"""Mixed second derivative where the first gradient is taken after the persistent tape's block.

Source: tensorflow/tensorflow#41510 "ValueError: Tape is still recording, This can happen if
you try to re-enter an already-active tape." (https://github.com/tensorflow/tensorflow/issues/41510),
comment by andrescodas: with the first `tape.gradient` dedented out of the block, as
suggested in the thread, the operation linking v to grads is not taped and the second
gradient is None.
"""
import tensorflow as tf


def main():
    y = tf.constant(2.0,)
    v = tf.Variable(3.0,)

    with tf.GradientTape(persistent=True) as tape:
        tape.watch(y)
        tape.watch(v)

        w = y * y * v

    grads = tape.gradient(w, y)  # 2*y*v  # operation not taped !
    dgradsdv = tape.gradient(grads, v)  # ?

    print(grads)
    print(dgradsdv)
    print(f"ORACLE: bug={dgradsdv is None} second_grad_is_none={dgradsdv is None}")


if __name__ == "__main__":
    main()
