"""The FUNC002-FUNC009 fixes beyond their examples: argument mapping, applicability, no-fix cases."""

from __future__ import annotations

import ast
import inspect

import pytest

import tapelsp
from tapelsp import Settings
from tapelsp.fixes import apply_fixes
from tapelsp.fixes.random_ops import tf_random_call
from tapelsp.model import Applicability


def _offers(source: str, code: str):
    source = inspect.cleandoc(source) + "\n"
    settings = Settings(tensorflow_version="2.21", select=(code,))
    return source, [v for v in tapelsp.check_source(source, "t.py", settings, fixes=True) if v.code == code]


@pytest.mark.parametrize(("call", "qualname", "expected", "literal"), [
    ("np.random.uniform()", "numpy.random.uniform", "tf.random.uniform([])", True),
    ("np.random.uniform(-1, 1, size=(2, 3))", "numpy.random.uniform", "tf.random.uniform((2, 3), -1, 1)", True),
    ("np.random.uniform(high=5)", "numpy.random.uniform", "tf.random.uniform([], 0.0, 5)", True),
    ("np.random.normal(0, 0.1, 4)", "numpy.random.normal", "tf.random.normal([4], 0, 0.1)", True),
    ("np.random.randint(10)", "numpy.random.randint", "tf.random.uniform([], 0, 10, dtype=tf.int32)", True),
    ("np.random.randint(0, 10, 5)", "numpy.random.randint", "tf.random.uniform([5], 0, 10, dtype=tf.int32)", True),
    ("np.random.rand(2, 3)", "numpy.random.rand", "tf.random.uniform([2, 3])", True),
    ("np.random.randn(n)", "numpy.random.randn", "tf.random.normal([n])", False),
    ("np.random.choice(4, 3)", "numpy.random.choice", "tf.random.uniform([3], 0, 4, dtype=tf.int32)", True),
    ("random.random()", "random.random", "tf.random.uniform([])", True),
    ("random.uniform(0.5, 1.5)", "random.uniform", "tf.random.uniform([], 0.5, 1.5)", True),
    ("random.randint(1, 6)", "random.randint", "tf.random.uniform([], 1, 7, dtype=tf.int32)", True),
    ("random.randint(1, n - 1)", "random.randint", "tf.random.uniform([], 1, (n - 1) + 1, dtype=tf.int32)", False),
    ("random.gauss(0, 1)", "random.gauss", "tf.random.normal([], 0, 1)", True),
])
def test_random_calls_map_their_arguments(call, qualname, expected, literal):
    node = ast.parse(call).body[0].value
    found = tf_random_call(qualname, node, "tf", call)
    assert found is not None and (found.text, found.literal) == (expected, literal)


@pytest.mark.parametrize(("call", "qualname"), [
    ("np.random.normal(size=n)", "numpy.random.normal"),            # an int or a tuple?
    ("np.random.randint(0, 1.5)", "numpy.random.randint"),          # float bound for an integer draw
    ("np.random.randint(0, 5, dtype=np.int64)", "numpy.random.randint"),
    ("np.random.choice(actions)", "numpy.random.choice"),          # an array to choose from
    ("np.random.choice(4, 3, p=probs)", "numpy.random.choice"),
    ("np.random.choice(4, 3, replace=False)", "numpy.random.choice"),
    ("random.choice(xs)", "random.choice"),
    ("np.random.uniform(*bounds)", "numpy.random.uniform"),
])
def test_random_calls_without_a_twin_get_no_fix(call, qualname):
    node = ast.parse(call).body[0].value
    assert tf_random_call(qualname, node, "tf", call) is None


def test_print_fix_keeps_comments_and_needs_plain_arguments():
    source, found = _offers("""
        import tensorflow as tf

        @tf.function
        def f(x):
            print("x",  # the input
                  x, end="\\n")
            print(f"x={x}")
            print("y", compute(x))
            print("z", x, flush=True)
            return x
    """, "FUNC007")
    fixes = {v.range.start.line + 1: v.fix for v in found}
    assert fixes[5] is not None and fixes[5].applicability is Applicability.SAFE
    assert fixes[7] is None and fixes[9] is None
    assert fixes[8] is not None and fixes[8].applicability is Applicability.UNSAFE
    fixed = apply_fixes(source, "t.py", Settings(tensorflow_version="2.21", select=("FUNC007",))).text
    assert 'tf.print("x",  # the input\n          x, end="\\n")' in fixed
    assert 'print(f"x={x}")' in fixed and 'print("y", compute(x))' in fixed  # unsafe one left for --unsafe-fixes


def test_constant_fix_is_unsafe_with_dtype_and_absent_with_shape():
    _source, found = _offers("""
        import tensorflow as tf

        @tf.function
        def f(x):
            y = x * 2.0
            a = tf.constant(y, dtype=tf.float32)
            b = tf.constant(y, shape=[2])
            return a + b

        out = f(tf.constant([1.0, 2.0]))
    """, "FUNC005")
    fixes = {v.range.start.line + 1: v.fix for v in found}
    assert fixes[6] is not None and fixes[6].applicability is Applicability.UNSAFE
    assert fixes[7] is None


def test_scalar_argument_fix_is_unsafe_for_ints_and_safe_for_floats():
    source, found = _offers("""
        import tensorflow as tf

        @tf.function
        def f(x, lr, n):
            return x * lr + tf.cast(n, tf.float32)

        lr = 0.5
        for step in range(100):
            f(tf.constant(1.0), lr, step)
            lr = lr / 2
    """, "FUNC009")
    fixes = {v.range.start.column: v.fix for v in found}
    assert len(found) == 2 and all(fix is not None for fix in fixes.values())
    lr_column = source.splitlines()[8].index("lr")
    step_column = source.splitlines()[8].index("step")
    assert fixes[lr_column].applicability is Applicability.SAFE
    assert fixes[step_column].applicability is Applicability.UNSAFE


def test_hoisted_layer_in_a_nested_function_gets_no_fix():
    _source, found = _offers("""
        import tensorflow as tf

        @tf.function
        def f(x):
            def inner(y):
                return tf.keras.layers.Dense(2)(y)
            return inner(x)
    """, "FUNC003")
    assert found and all(v.fix is None for v in found)
