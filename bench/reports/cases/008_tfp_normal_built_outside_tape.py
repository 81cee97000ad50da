"""A tfd.Normal built from variables outside the tape, evaluated inside it.

Source: tensorflow/probability#285 "tf.identity op on parameters in Distribution \"breaks\"
GradientTape" (https://github.com/tensorflow/probability/issues/285). In 2019 the
distribution stored `tf.identity(loc)` at construction, so nothing was recorded. TFP now
keeps the variables and reads them in each method: on TFP 0.25 the gradient exists.
"""
import tensorflow as tf
import tensorflow_probability as tfp

tfd = tfp.distributions


def main():
    var1, var2 = tf.Variable(1.), tf.Variable(2.)
    normal = tfd.Normal(loc=var1, scale=var2)
    with tf.GradientTape() as tape:
        prob = normal.prob(42.)
    print("watched:", [v.name for v in tape.watched_variables()])
    grads = tape.gradient(prob, [var1, var2])
    missing = sum(g is None for g in grads)
    print(f"ORACLE: bug={missing > 0} none_grads={missing} watched={len(tape.watched_variables())}")


if __name__ == "__main__":
    main()
