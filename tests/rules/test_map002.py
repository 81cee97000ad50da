"""MAP002's suggested replacements, and the shapes of function it leaves alone."""

from __future__ import annotations

import pytest

import tapelsp
from tapelsp import Settings


def suggestion(call: str) -> str | None:
    source = f"import tensorflow as tf\n\ny = {call}\n"
    found = [v for v in tapelsp.check_source(source, "t.py", Settings(select=("MAP002",))) if v.code == "MAP002"]
    if not found:
        return None
    return found[0].message.split("Use `", 1)[1].split("`", 1)[0]


@pytest.mark.parametrize(("call", "expected"), [
    ("tf.map_fn(lambda a: a ** 2, x)", "x ** 2"),
    ("tf.map_fn(tf.nn.relu, x)", "tf.nn.relu(x)"),
    ("tf.map_fn(tf.math.reduce_max, x)", "tf.math.reduce_max(x, axis=1)"),
    ("tf.map_fn(lambda r: tf.reduce_sum(r, axis=0), x)", "tf.reduce_sum(x, axis=1)"),
    ("tf.map_fn(lambda r: tf.reduce_sum(r, axis=-1), x)", "tf.reduce_sum(x, axis=-1)"),
    ("tf.map_fn(lambda r: tf.reduce_mean(r * w) + b, x)", "tf.reduce_mean(x * w, axis=1) + b"),
    ("tf.map_fn(lambda t: t[0] - t[1], (a, b), dtype=tf.float32)", "a - b"),
    ("tf.map_fn(lambda t: tf.maximum(t[0], t[-1]), [a, b], dtype=tf.float32)", "tf.maximum(a, b)"),
    ("tf.map_fn(lambda r: tf.tensordot(r, W, 1), x)", "tf.tensordot(x, W, 1)"),
    ("tf.map_fn(lambda r: tf.nn.softmax(r, axis=-1), x)", "tf.nn.softmax(x, axis=-1)"),
    ("tf.map_fn(lambda a: tf.cast(a, tf.float32) * 2.0, x)", "tf.cast(x, tf.float32) * 2.0"),
    ("tf.map_fn(lambda r: r - tf.reduce_mean(r), x)", "x - tf.reduce_mean(x, axis=1, keepdims=True)"),
    ("tf.map_fn(lambda r: r / tf.reduce_sum(r, axis=-1), x)", "x / tf.reduce_sum(x, axis=-1, keepdims=True)"),
    ("tf.map_fn(lambda r: tf.reduce_sum(r - tf.reduce_mean(r)), x)",
     "tf.reduce_sum(x - tf.reduce_mean(x, axis=1, keepdims=True), axis=1)"),
    ("tf.map_fn(lambda im: tf.image.flip_up_down(im) - 0.5, x)", "tf.image.flip_up_down(x) - 0.5"),
])
def test_suggestion(call: str, expected: str) -> None:
    assert suggestion(call) == expected


@pytest.mark.parametrize("call", [
    "tf.map_fn(lambda im: tf.image.central_crop(im, tf.reduce_max(im)), x)",  # an argument from the image
    "tf.map_fn(lambda t: t[0] * t[2], (a, b), dtype=tf.float32)",  # index out of the tuple
    "tf.map_fn(lambda t: t * 2, (a, b))",                       # the whole tuple
    "tf.map_fn(lambda r: tf.where(r), x)",                      # indices: variable length
    "tf.map_fn(tf.add, x)",                                     # needs two arguments
    "tf.map_fn(tf.strings.length, s)",
    "tf.map_fn(lambda a: a * 2, tf.ragged.constant([[1.0], [2.0, 3.0]]))",
    "tf.map_fn(lambda a: a * 2, x, fn_output_signature=tf.RaggedTensorSpec(shape=[None]))",
    "tf.map_fn(lambda a: 2.0, x)",                              # ignores its element
    "tf.map_fn(user_function, x)",                              # unknown function
])
def test_silent(call: str) -> None:
    assert suggestion(call) is None


# No single op replaces these, but every op in them has a vectorized form with shapes fixed
# before the element is seen: tf.vectorized_map is the replacement.
@pytest.mark.parametrize("call", [
    "tf.map_fn(lambda r: tf.reduce_sum(r, keepdims=True), x)",
    "tf.map_fn(lambda r: tf.reduce_sum(r, axis=k), x)",         # axis not a literal
    "tf.map_fn(lambda r: tf.nn.softmax(r, axis=0), x)",         # axis 0 of a row is axis 1 of x
    "tf.map_fn(lambda r: tf.tensordot(W, r, axes=1), x)",       # contracts the mapped axis
    "tf.map_fn(lambda r: r[1:] * 2, x)",                        # slicing the element
    "tf.map_fn(lambda t: tf.tensordot(t[0], t[1], 0), (a, b))",  # outer products
    "tf.map_fn(lambda v: grid[tf.argmin(tf.abs(v - grid))], x)",  # a fixed tensor indexed per element
    "tf.map_fn(lambda r: tf.einsum('ij,j->i', M, r), x)",
    "tf.map_fn(lambda r: tf.reshape(r, [2, -1]) * 2.0, x)",
])
def test_vectorized_map(call: str) -> None:
    assert suggestion(call) in ("tf.vectorized_map(fn, x)", "tf.vectorized_map(fn, (a, b))")


@pytest.mark.parametrize("call", [
    "tf.map_fn(lambda r: r[: tf.cast(r[0], tf.int32)], x)",     # a slice the element decides
    "tf.map_fn(lambda r: tf.reshape(r, tf.shape(r)[::-1]), x)",  # a shape the element decides
    "tf.map_fn(lambda r: tf.random.shuffle(r), x)",             # an op outside the list
    "tf.map_fn(lambda r: tf.unique(r).y, x)",
    "tf.map_fn(lambda r: tf.boolean_mask(r, r > 0), x)",
    "tf.map_fn(lambda r: r if r > 0 else -r, x)",              # Python control flow
    "tf.map_fn(lambda r: helper(r) * 2, x)",                    # a Python function it cannot see
    "tf.map_fn(lambda r: r[tf.argmax(r)], x)",                  # the element indexed by itself
])
def test_not_vectorizable(call: str) -> None:
    assert suggestion(call) is None
