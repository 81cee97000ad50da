"""The working version from the same thread: the first gradient is taken inside the block.

Source: tensorflow/tensorflow#41510 (https://github.com/tensorflow/tensorflow/issues/41510),
andrescodas's first example, which prints 12.0 and 4.0.
"""
import tensorflow as tf


def main():
    y = tf.constant(2.0,)
    v = tf.Variable(3.0,)

    with tf.GradientTape(persistent=True) as tape:
        tape.watch(y)
        tape.watch(v)

        w = y * y * v

        grads = tape.gradient(w, y)  # 2*y*v
    dgradsdv = tape.gradient(grads, v)  # 2 * y

    print(grads)
    print(dgradsdv)
    ok = dgradsdv is not None and abs(float(dgradsdv) - 4.0) < 1e-5
    print(f"ORACLE: bug={not ok} dgradsdv={None if dgradsdv is None else float(dgradsdv)}")


if __name__ == "__main__":
    main()
