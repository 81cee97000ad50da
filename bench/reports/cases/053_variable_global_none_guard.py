"""The restructured function from the answer: the variable is created once, behind a None check.

Sources: shared/seeds/001_*.txt (Stack Overflow answer on "tf.function-decorated function
tried to create variables on non-first call") and tensorflow/tensorflow#26812
(https://github.com/tensorflow/tensorflow/issues/26812). The answer also has a Python
`print("PRINT: ", y)` next to the tf.print, to show that it runs only while tracing; it is left
out here (it is a pitfall of its own, which this look-alike is not about).
"""
import tensorflow as tf

b = None


@tf.function
def f():
    a = tf.constant([[10, 10], [11., 1.]])
    x = tf.constant([[1., 0.], [0., 1.]])
    global b
    if b is None:
        b = tf.Variable(12.)
    y = tf.matmul(a, x) + b
    tf.print("TF-PRINT: ", y)
    return y


if __name__ == "__main__":
    first = f()
    second = f()
    ok = float(second[0, 0]) == 22.0
    print(f"ORACLE: bug={not ok} y00={float(second[0, 0])}")
