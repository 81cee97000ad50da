"""`np.random.random()` inside a tf.function: drawn once while tracing, then the same number every call.

Source: google-research/seed_rl#52 "Unable to update non-tensor variable in the tf.function"
(https://github.com/google-research/seed_rl/issues/52). The user's second example is a tf.function
that draws `i = np.random.random()` and prints it with `tf.print`; the value is a Python float
computed at trace time and baked into the graph as a constant, so every call prints the same number.

Changed from the posted code: the function is called 5 times in a row and returns the number
instead of printing it only; the actor/learner machinery of seed_rl around it is left out.
"""
import numpy as np
import tensorflow as tf


@tf.function
def random1():
    i = np.random.random()
    tf.print("number_random", i)
    return tf.constant(i)


def main():
    values = [float(random1()) for _ in range(5)]
    print(values)
    distinct = len(set(values))
    print(f"ORACLE: bug={distinct == 1} distinct_values={distinct} calls=5")


if __name__ == "__main__":
    main()
