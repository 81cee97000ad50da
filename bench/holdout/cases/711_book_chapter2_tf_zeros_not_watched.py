"""A book's "gradient of y = 2x + 3" example starts from `x = tf.zeros(...)`: a constant tensor,
which GradientTape does not watch unless told, so `tape.gradient(y, x)` returns None.

Source: fchollet/deep-learning-with-python-notebooks#284 "Fix TensorFlow GradientTape example
returning None due to tensor not watched" (pull request,
https://github.com/fchollet/deep-learning-with-python-notebooks/pull/284). The chapter 2 notebook
initialises `x` with `tf.zeros()` and the gradient comes out None; the fix adds `tape.watch(x)`
(or uses `tf.Variable(0.0)`), and a commenter confirms the diagnosis. Changed: the notebook cells
become a helper used for a scalar and for a matrix input, with the same unwatched pattern.
"""
import tensorflow as tf


def gradient_of_affine(x):
    with tf.GradientTape() as tape:
        y = 2 * x + 3
    grad_of_y_wrt_x = tape.gradient(y, x)
    return grad_of_y_wrt_x


def main():
    x = tf.zeros(shape=())
    g_scalar = gradient_of_affine(x)

    x2 = tf.zeros(shape=(2, 2))
    g_matrix = gradient_of_affine(x2)

    print("scalar grad:", g_scalar, "matrix grad:", g_matrix)
    bug = g_scalar is None and g_matrix is None
    print(f"ORACLE: bug={bug} grad_is_none={g_scalar is None} matrix_grad_is_none={g_matrix is None}")


if __name__ == "__main__":
    main()
