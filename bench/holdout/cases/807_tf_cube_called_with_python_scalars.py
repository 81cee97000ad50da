"""A tf.function called with plain Python numbers: each new value is part of the trace key, so
every call with a different scalar traces (and keeps) a new concrete function instead of
reusing one graph per dtype/shape.

Source: tensorflow/tensorflow#24726 "PolymorphicFunction.get_concrete_function() creates a
different concrete function for each python scalar value"
(https://github.com/tensorflow/tensorflow/issues/24726). The reporter (TF 2.0 preview) showed
that a tf.function given Python scalars gets a new concrete function per value, unlike tensors
which share one per type/shape; alextp explained the value is deliberately part of the
signature (Python values are treated as constants), and a documentation warning was added.
Changed from the posted code: the example is written as a small loop over Python ints calling
the function (as a training loop would), the trace count measured with
experimental_get_tracing_count(), and the concrete functions for 2 and 3 compared.
"""
import tensorflow as tf


@tf.function
def tf_cube(x):
    return x ** 3


def main():
    results = []
    for i in range(1, 8):
        results.append(int(tf_cube(i)))
    traces = tf_cube.experimental_get_tracing_count()
    distinct = tf_cube.get_concrete_function(2) is not tf_cube.get_concrete_function(3)
    print("results:", results)
    print("traces:", traces, "distinct concrete functions for 2 and 3:", distinct)
    print(f"ORACLE: bug={traces > 1} traces={traces} calls=7")


if __name__ == "__main__":
    main()
