"""FUNC009 on three forms the earlier rule missed: a call made while another tf.function traces,
in a Python loop of its body (bench/reports case 066); different Python literals in calls in a
row (the tf.function guide, cell 36); a Python list of numbers passed to a tf.function that loops
over it (the guide, cell 68), directly or through a helper that forwards its arguments. Each
is reported only when the number does not shape the graph. TensorFlow proofs are the rule's
examples."""

from __future__ import annotations

import inspect

import tapelsp
from tapelsp import Settings


def found(source: str) -> list:
    text = inspect.cleandoc(source) + "\n"
    return [v for v in tapelsp.check_source(text, "t.py", Settings(tensorflow_version="2.21", select=("FUNC009",)))
            if v.code == "FUNC009"]


def lines(source: str) -> list[int]:
    return sorted(v.range.start.line + 1 for v in found(source))


INNER = """
    import tensorflow as tf

    @tf.function
    def moment(ps, k):
        return tf.reduce_mean(tf.math.pow(ps, k))

    @tf.function
    def structure(x, n):
        for _ in range(n):
            x = x + 1.0
        return x
"""


def test_a_loop_index_passed_while_tracing_is_reported() -> None:
    result = found(INNER + """
    @tf.function
    def outer(ps, K=5):
        r = 0.0
        for k in range(2, K + 1):
            r += moment(ps, k)
        return r
    """)
    assert [v.range.start.line + 1 for v in result] == [17]
    assert "called while `outer` traces" in result[0].message and "tf.math.pow(ps, k)" in result[0].message
    assert "tf.float32" in result[0].message  # an int next to float tensors needs a float dtype


def test_a_constant_value_while_tracing_is_not_reported() -> None:
    assert lines(INNER + """
    @tf.function
    def outer(ps):
        r = 0.0
        for k in range(4):
            r += moment(ps, 2)
        return r
    """) == []


def test_a_value_that_shapes_the_inner_graph_is_not_reported() -> None:
    assert lines(INNER + """
    @tf.function
    def outer(x):
        for n in range(1, 5):
            x = structure(x, n)
        return x
    """) == []


def test_a_tensor_loop_while_tracing_is_not_reported() -> None:
    # `range(n)` with a tensor `n` is a tf.while_loop: `k` is a tensor there
    assert lines(INNER + """
    @tf.function
    def outer(ps, n):
        r = 0.0
        for k in tf.range(n):
            r += moment(ps, k)
        return r
    """) == []


def test_two_literals_in_a_row_are_reported_on_the_second() -> None:
    result = found(INNER + """
    moment(tf.ones([3]), 2)
    moment(tf.ones([3]), 2)
    moment(tf.ones([3]), 3)
    """)
    assert [v.range.start.line + 1 for v in result] == [15]
    assert "`k=2` on line 13" in result[0].message


def test_literals_for_a_structural_parameter_are_not_reported() -> None:
    assert lines(INNER + """
    structure(tf.ones([3]), 2)
    structure(tf.ones([3]), 8)
    """) == []


def test_literals_in_branches_are_not_reported() -> None:
    assert lines(INNER + """
    import sys
    if sys.argv:
        moment(tf.ones([3]), 2)
    else:
        moment(tf.ones([3]), 3)
    """) == []


def test_a_redefined_function_in_a_notebook_keeps_its_own_traces() -> None:
    # the second call reaches a new tf.function (defined again), traced anew anyway
    assert lines(INNER + """
    moment(tf.ones([3]), 2)

    @tf.function
    def moment(ps, k):
        return tf.reduce_mean(tf.math.pow(ps, k))

    moment(tf.ones([3]), 3)
    """) == []


LOOP = """
    import tensorflow as tf

    @tf.function
    def train(dataset):
        loss = tf.constant(0)
        for x, y in dataset:
            loss += tf.abs(y - x)
        return loss
"""


def test_a_python_list_of_data_is_reported_directly_and_through_get_concrete_function() -> None:
    assert lines(LOOP + """
    train([(1, 2), (3, 4)])
    train.get_concrete_function([(1, 1)] * 3)
    """) == [10, 11]


def test_a_helper_that_forwards_its_arguments_is_followed() -> None:
    assert lines(LOOP + """
    def measure(f, *args):
        return f.get_concrete_function(*args)

    data = [(1, 1)] * 3
    measure(train, data)
    """) == [14]


def test_a_dataset_or_a_tensor_is_not_reported() -> None:
    assert lines(LOOP + """
    train(tf.data.Dataset.from_tensor_slices(([1, 2], [3, 4])))
    train(tf.constant([[1, 2], [3, 4]]))
    """) == []


def test_a_list_of_tensors_or_a_single_element_is_not_reported() -> None:
    assert lines(LOOP + """
    train([(tf.constant(1), tf.constant(2)), (tf.constant(3), tf.constant(4))])
    train([(1, 2)])
    """) == []
