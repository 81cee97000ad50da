"""Nested GradientTape bound to the same name as the outer tape.

Source: "双重或双层循环中tf.GradientTape的注意点" (notes on tf.GradientTape in double loops),
a blog/Q&A post among the reports tapelsp started from (shared/seeds/000_*.txt).
The author derived x**4 with an inner tape opened as `tape` inside the outer `tape`
and got None; the single-tape version gave the derivative.
"""
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import tensorflow as tf


def derivative_at(value):
    x = tf.constant(value)
    with tf.GradientTape(persistent=False) as tape:
        tape.watch(x)
        y = x * x * x * x
        with tf.GradientTape(persistent=False) as tape:
            dy = tape.gradient(target=y, sources=x)
            print(dy)
    return dy


def main():
    dy = derivative_at(3.0)
    print(f"ORACLE: bug={dy is None} grad_is_none={dy is None}")


if __name__ == "__main__":
    main()
