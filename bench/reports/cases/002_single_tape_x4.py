"""The single-tape version of the same derivative, which the author reports as correct.

Source: "双重或双层循环中tf.GradientTape的注意点" (shared/seeds/000_*.txt), second snippet:
the gradient is taken from the tape that recorded y.
"""
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import tensorflow as tf


def derivative_at(value):
    x = tf.constant(value)
    with tf.GradientTape(persistent=False) as tape:
        tape.watch(x)
        y = x * x * x * x
        dy = tape.gradient(target=y, sources=x)
        print(dy)
    return dy


def main():
    dy = derivative_at(3.0)
    ok = dy is not None and abs(float(dy) - 108.0) < 1e-3
    print(f"ORACLE: bug={not ok} dy={None if dy is None else float(dy)}")


if __name__ == "__main__":
    main()
