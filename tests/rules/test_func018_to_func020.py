"""FUNC018 (a call outside the input_signature), FUNC019 (a recursive tf.function) and FUNC020 (a fresh
object argument per call): what they may not claim. The rules' examples (run under TensorFlow by
tests/runtime) show what they find."""

from __future__ import annotations

import inspect

import tapelsp
from tapelsp import Settings


def flagged(source: str, code: str) -> list[int]:
    found = tapelsp.check_source(inspect.cleandoc(source) + "\n", "t.py", Settings(select=(code, "TL004")))
    assert all(v.code == code for v in found), [v.message for v in found]
    return sorted(v.range.start.line + 1 for v in found)


SIGNED = """
    import numpy as np
    import tensorflow as tf

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def f(x):
        return tf.reduce_sum(x)

    ARG
"""


def test_only_arguments_whose_dtype_or_shape_is_plain() -> None:
    def at(arg: str) -> list[int]:
        return flagged(SIGNED.replace("ARG", arg), "FUNC018")

    assert at("f(tf.zeros([3, 2], tf.int32))") == [8]
    assert at("f(tf.zeros([3, 3]))") == [8]
    assert at("f(tf.constant([1.0, 2.0]))") == [8]            # rank 1 for rank 2
    assert at("f(3.0)") == [8]                                # a Python scalar: rank 0
    assert at("f(tf.zeros([3, 2]))") == []
    assert at("f(np.zeros((3, 2)))") == []                    # NumPy float64 converts
    assert at("f([[1, 2]])") == []                            # Python ints convert to float32
    assert at("f(load())") == []                              # unknown: silent
    assert at("f(tf.reshape(tf.range(6.0), [3, 2]))") == []   # shape not written out


def test_python_floats_for_an_integer_signature() -> None:
    source = SIGNED.replace("tf.float32)", "tf.int32)")
    assert flagged(source.replace("ARG", "f([[1.5, 2.0]])"), "FUNC018") == [8]
    assert flagged(source.replace("ARG", "f([[1, 2]])"), "FUNC018") == []


def test_a_name_rebound_or_a_method_is_not_read() -> None:
    rebound = SIGNED.replace("ARG", "f = tf.function(lambda x: x)\n    f(tf.zeros([3, 3]))")
    assert flagged(rebound, "FUNC018") == []
    method = """
        import tensorflow as tf

        class M(tf.Module):
            @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
            def f(self, x):
                return x

        def f(x):
            return x

        m = M()
        f(tf.zeros([2, 2], tf.int32))
    """
    assert flagged(method, "FUNC018") == []


def test_a_concrete_function_of_a_signed_tf_function_follows_the_signature() -> None:
    source = """
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
        def double(a):
            return a + a

        concrete = double.get_concrete_function()
        concrete(tf.constant(1))
    """
    assert flagged(source, "FUNC018") == []


def test_recursion_through_another_binding_is_not_claimed() -> None:
    source = """
        import tensorflow as tf

        def helper(n):
            return n

        @tf.function
        def step(n):
            return helper(n - 1)

        helper = step
    """
    assert flagged(source, "FUNC019") == []
    nested = """
        import tensorflow as tf

        @tf.function
        def outer(x):
            def outer(y):
                return y
            return outer(x)
    """
    assert flagged(nested, "FUNC019") == []


def test_a_method_calling_another_instance_s_method_of_the_same_name() -> None:
    source = """
        import tensorflow as tf

        class Child(tf.Module):
            def walk(self, n):
                return n

        class Parent(tf.Module):
            def __init__(self):
                self.child = Child()

            @tf.function
            def walk(self, n):
                return self.child.walk(n)

        p = Parent()
        p.walk(tf.constant(1))
    """
    assert flagged(source, "FUNC019") == []
    assert flagged(source.replace("self.child.walk(n)", "self.walk(n - 1)"), "FUNC019") == [13]


FRESH = """
    import tensorflow as tf

    class Config:
        def __init__(self, scale=2.0):
            self.scale = scale

    @tf.function
    def scaled(x, config):
        return x * config.scale

    CALLS
"""


def test_func020_only_objects_made_anew_for_each_call() -> None:
    def at(calls: str) -> list[int]:
        return flagged(FRESH.replace("CALLS", calls.replace("\n", "\n    ")), "FUNC020")

    assert at("for i in range(3):\n    scaled(tf.constant(1.0), Config())") == [12]
    assert at("for i in range(3):\n    c = Config()\n    scaled(tf.constant(1.0), c)") == [13]
    assert at("c = Config()\nfor i in range(3):\n    scaled(tf.constant(1.0), c)") == []
    assert at("scaled(tf.constant(1.0), Config())\nscaled(tf.constant(2.0), Config())") == [12]
    assert at("c = Config()\nscaled(tf.constant(1.0), c)\nscaled(tf.constant(2.0), c)") == []
    assert at("scaled(tf.constant(1.0), Config())") == []


def test_func020_classes_traced_by_their_values_or_by_a_protocol() -> None:
    protocol = FRESH.replace("self.scale = scale", "self.scale = scale\n\n        def __tf_tracing_type__(self, context):\n            return None")
    loop = "for i in range(3):\n        scaled(tf.constant(1.0), Config())"
    assert flagged(protocol.replace("CALLS", loop), "FUNC020") == []
    module = FRESH.replace("class Config:", "class Config(tf.Module):")
    assert flagged(module.replace("CALLS", loop), "FUNC020") == []
