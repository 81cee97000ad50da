"""TAPE006 for a module-level object built from a tensor computed from a module-level variable,
read by a function's tape (report 007: `tfd.Normal(loc, scale=tf.exp(logscale))` at import,
`joint.log_prob` in the tape: the gradient for logscale is None). The reported form and its
DeferredTensor / TransformedVariable / built-in-the-tape look-alikes have TensorFlow proofs among
the rule's examples; these near variants were each run under TensorFlow 2.21 (their asserts hold)."""

from __future__ import annotations

import inspect

import tapelsp
from tapelsp import Settings


def lines(source: str) -> list[int]:
    text = inspect.cleandoc(source) + "\n"
    found = tapelsp.check_source(text, "t.py", Settings(tensorflow_version="2.21", select=("TAPE006",)))
    return sorted(v.range.start.line + 1 for v in found if v.code == "TAPE006")


def test_a_sample_in_a_method_tape_of_a_module_level_distribution_is_reported() -> None:
    assert lines("""
    import tensorflow as tf
    import tensorflow_probability as tfp

    loc = tf.Variable(0.5)
    log_scale = tf.Variable(0.0)
    prior = tfp.distributions.Normal(loc=loc, scale=tf.exp(log_scale))


    class Trainer:
        def step(self):
            with tf.GradientTape() as tape:
                sample = prior.sample(3, seed=1)
                loss = tf.reduce_sum(sample)
            return tape.gradient(loss, [loc, log_scale])


    g_loc, g_log_scale = Trainer().step()
    assert g_loc is not None and g_log_scale is None
    print("ok")
    """) == [6]


def test_the_source_also_read_directly_in_the_tape_is_silent() -> None:
    assert lines("""
    import tensorflow as tf
    import tensorflow_probability as tfp

    loc = tf.Variable(0.5)
    log_scale = tf.Variable(0.0)
    dist = tfp.distributions.Normal(loc=loc, scale=tf.exp(log_scale))


    def neg_log_likelihood(data):
        with tf.GradientTape() as tape:
            loss = -tf.reduce_sum(dist.log_prob(data)) + 0.1 * tf.square(log_scale)
        return tape.gradient(loss, [loc, log_scale])


    g_loc, g_log_scale = neg_log_likelihood(tf.constant([0.0, 1.0]))
    assert g_loc is not None and g_log_scale is not None
    print("ok")
    """) == []


def test_a_global_rebuilt_inside_the_tape_is_silent() -> None:
    assert lines("""
    import tensorflow as tf
    import tensorflow_probability as tfp

    loc = tf.Variable(0.5)
    log_scale = tf.Variable(0.0)
    dist = tfp.distributions.Normal(loc=loc, scale=tf.exp(log_scale))


    def neg_log_likelihood(data):
        global dist
        with tf.GradientTape() as tape:
            dist = tfp.distributions.Normal(loc=loc, scale=tf.exp(log_scale))
            loss = -tf.reduce_sum(dist.log_prob(data))
        return tape.gradient(loss, [loc, log_scale])


    g_loc, g_log_scale = neg_log_likelihood(tf.constant([0.0, 1.0]))
    assert g_loc is not None and g_log_scale is not None
    print("ok")
    """) == []


def test_a_deferred_tensor_scale_is_silent() -> None:
    assert lines("""
    import tensorflow as tf
    import tensorflow_probability as tfp

    loc = tf.Variable(0.5)
    log_scale = tf.Variable(0.0)
    dist = tfp.distributions.Normal(loc=loc, scale=tfp.util.DeferredTensor(log_scale, tf.exp))


    def neg_log_likelihood(data):
        with tf.GradientTape() as tape:
            loss = -tf.reduce_sum(dist.log_prob(data))
        return tape.gradient(loss, [loc, log_scale])


    g_loc, g_log_scale = neg_log_likelihood(tf.constant([0.0, 1.0]))
    assert g_loc is not None and g_log_scale is not None
    print("ok")
    """) == []


def test_the_report_case_joint_distribution_in_main_is_reported() -> None:
    assert lines("""
    import tensorflow as tf
    import tensorflow_probability as tfp

    tfd = tfp.distributions
    loc_1 = tf.Variable([38.6])
    logscale_1 = tf.Variable([2.3])
    joint = tfd.JointDistributionSequential([tfd.Normal(loc=loc_1, scale=tf.exp(logscale_1)),
                                             lambda b: tfd.Normal(b, 1.0)])


    def main():
        with tf.GradientTape() as tape:
            ll = joint.log_prob([[3.], [5.]])
        return tape.gradient(ll, [loc_1, logscale_1])


    main()
    """) == [7]


def test_a_source_local_to_the_function_is_silent() -> None:
    assert lines("""
    import tensorflow as tf
    import tensorflow_probability as tfp

    log_scale = tf.Variable(0.0)
    dist = tfp.distributions.Normal(loc=0.0, scale=tf.exp(log_scale))


    def fit(data):
        log_scale = tf.Variable(1.0)
        with tf.GradientTape() as tape:
            loss = -tf.reduce_sum(dist.log_prob(data)) * log_scale
        return tape.gradient(loss, [log_scale])


    fit(tf.constant([0.0]))
    """) == []
