"""TAPE007 beyond its examples: a gradient target that is itself a NumPy value or a Python number
made from a tensor (TensorFlow 2.21: `tape.gradient` raises AttributeError, `jacobian` of an array
returns None), whatever the analysis can say about the sources."""

from __future__ import annotations

import textwrap

import tapelsp
from tapelsp import Settings


def _found(source: str, code: str = "TAPE007") -> list[tuple[int, str]]:
    found = tapelsp.check_source(textwrap.dedent(source).lstrip("\n"), None, Settings(tensorflow_version="2.21"))
    return [(v.range.start.line + 1, v.message) for v in found if v.code == code]


def _lines(source: str, code: str = "TAPE007") -> list[int]:
    return [line for line, _message in _found(source, code)]


def _target_findings(source: str) -> list[int]:
    """The lines of the findings that say the target is not a tensor."""
    return [line for line, message in _found(source) if "needs a tensor target" in message]


def test_np_asarray_target_with_computed_sources_raises():
    found = _found("""
        import numpy as np
        import tensorflow as tf

        experts = [tf.Variable(tf.ones((4, 1))) for _ in range(2)]
        params = [w for w in experts]
        x = tf.ones((3, 4))
        with tf.GradientTape() as tape:
            loss = np.asarray(tf.reduce_mean(x @ experts[0]))
        grads = tape.gradient(loss, params)
    """)
    assert [line for line, _ in found] == [8]
    assert "raises AttributeError" in found[0][1]


def test_numpy_target_through_arithmetic_and_a_name():
    assert _lines("""
        import tensorflow as tf

        w = tf.Variable(2.0)
        with tf.GradientTape() as tape:
            out = (w * 3.0).numpy()
            loss = 2.0 * out + 1.0
        g = tape.gradient(loss, w)
    """) == [5]


def test_float_of_a_tensor_as_target():
    found = _found("""
        import tensorflow as tf

        w = tf.Variable(2.0)
        with tf.GradientTape() as tape:
            loss = float(w * w)
        g = tape.gradient(loss, w)
    """)
    assert [line for line, _ in found] == [5]
    assert "'float' object has no attribute 'dtype'" in found[0][1]


def test_jacobian_of_an_array_returns_none():
    found = _found("""
        import tensorflow as tf

        w = tf.Variable([1.0, 2.0])
        with tf.GradientTape() as tape:
            y = (w * 2.0).numpy()
        j = tape.jacobian(y, w)
    """)
    assert [line for line, _ in found] == [5]
    assert "returns None" in found[0][1]


def test_loop_that_may_skip_the_call_is_silent():
    assert _target_findings("""
        import numpy as np
        import tensorflow as tf

        a = tf.Variable(1.0)
        b = tf.Variable(2.0)
        with tf.GradientTape(persistent=True) as tape:
            la = np.mean(a * 2.0)
            lb = b * 3.0
        for name, loss, var in (("a", la, a), ("b", lb, b)):
            if name == "a":
                continue
            g = tape.gradient(loss, var)
    """) == []


def test_numpy_behaviour_enabled_is_silent():
    assert _target_findings("""
        import numpy as np
        import tensorflow as tf

        tf.experimental.numpy.experimental_enable_numpy_behavior()
        w = tf.Variable([1.0, 2.0])
        with tf.GradientTape() as tape:
            loss = np.mean(w * 2.0)
        g = tape.gradient(loss, w)
    """) == []


def test_numpy_data_target_is_not_a_conversion():
    assert _lines("""
        import numpy as np
        import tensorflow as tf

        w = tf.Variable(1.0)
        data = np.ones(3, np.float32)
        with tf.GradientTape() as tape:
            loss = np.mean(data)
        g = tape.gradient(loss, w)
    """) == []


def test_user_object_with_a_numpy_method_is_silent():
    assert _target_findings("""
        import tensorflow as tf

        class Box:
            def __init__(self, t):
                self.t = t

            def numpy(self):
                return self.t

        w = tf.Variable(2.0)
        with tf.GradientTape() as tape:
            loss = Box(w * w).numpy()
        g = tape.gradient(loss, w)
    """) == []


def test_constant_summand_whose_cut_another_summand_met_first():
    """`adv` read by the actor's term first (under stop_gradient) and then by the critic's: the
    critic's term is constant, its cut lost even though the evaluation met it in the other term."""
    assert _lines("""
        import numpy as np
        import tensorflow as tf

        w = tf.Variable(1.0)
        with tf.GradientTape() as tape:
            value = np.asarray(w * 3.0)
            adv = 1.0 - value
            actor = -tf.reduce_mean(w * tf.stop_gradient(adv))
            critic = tf.reduce_mean(adv ** 2)
            total = actor + critic
        grad = tape.gradient(total, w)
    """) == [6]
