"""Gradient taken with respect to a DeferredTensor / TransformedVariable instead of its variable.

Source: tensorflow/probability#903 "DeferredTensor and TransformedVariable when used as
GradientTape source" (https://github.com/tensorflow/probability/issues/903). The reporter
(softlearning, where SAC's temperature alpha = exp(log_alpha)) wraps a variable in
`tfp.util.DeferredTensor(log_x, tf.exp)` and, separately, uses
`tfp.util.TransformedVariable(tf.exp(0.0), tfb.Exp())`, then calls `g.gradient(y, x)` with
the wrapper as the source. The wrapper is not a variable or a watched tensor: the trainable
parameter is the underlying `tf.Variable` (`x.trainable_variables`). TF 2.0 raised
AttributeError ('DeferredTensor' object has no attribute '_id'); TF 2.21 / TFP 0.25 raise
ValueError "Type DeferredTensor is not supported as a gradient source or gradient target".
Changes: the two snippets of the report are kept as two helper functions; the oracle records
what each gradient call does.
"""
import tensorflow as tf
import tensorflow_probability as tfp


def deferred_tensor_example():
    log_x = tf.Variable(0.0)
    x = tfp.util.DeferredTensor(log_x, tf.exp)
    with tf.GradientTape() as g:
        y = x * x

    dy_dx = g.gradient(y, x)
    return dy_dx


def transformed_variable_example():
    x = tfp.util.TransformedVariable(tf.exp(0.0), tfp.bijectors.Exp())
    with tf.GradientTape() as g:
        y = x * x

    dy_dx = g.gradient(y, x)
    return dy_dx


def run(fn):
    try:
        grad = fn()
        return "none" if grad is None else "ok"
    except (AttributeError, ValueError) as exc:
        print(fn.__name__, type(exc).__name__ + ":", str(exc).splitlines()[0])
        return type(exc).__name__


def main():
    deferred = run(deferred_tensor_example)
    transformed = run(transformed_variable_example)
    bug = deferred != "ok" or transformed != "ok"
    print(f"ORACLE: bug={bug} deferred_tensor={deferred} transformed_variable={transformed}")


if __name__ == "__main__":
    main()
