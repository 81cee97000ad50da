"""FUNC012 on a Python iterator passed in as an argument (issue 17): `next(p)` in a tf.function
is reported when the file calls it more than once with the same Python iterator (or in a loop
the iterator is made outside of). TensorFlow 2.21 keys the trace on the iterator's identity:
one trace, and the element read then is replayed by every call. A tf.data iterator passed in,
a single call, and a new iterator per call stay silent. The guide's form (function.ipynb cell
90), the generator form and the tf.data and one-iterator-per-call valid forms are the rule's
examples, with TensorFlow proofs."""

from __future__ import annotations

import inspect

import tapelsp
from tapelsp import Settings


def found(source: str) -> list:
    text = inspect.cleandoc(source) + "\n"
    return [v for v in tapelsp.check_source(text, "t.py", Settings(tensorflow_version="2.21", select=("FUNC012",)))
            if v.code == "FUNC012"]


def lines(source: str) -> list[int]:
    return sorted(v.range.start.line + 1 for v in found(source))


HEAD = """
    import tensorflow as tf

    @tf.function
    def consume(iterator):
        tf.print("Value:", next(iterator))
"""


def test_the_guides_three_calls_with_one_list_iterator_are_reported_on_next() -> None:
    result = found(HEAD + """
    iterator = iter([1, 2, 3])
    consume(iterator)
    consume(iterator)
    consume(iterator)
    """)
    assert [v.range.start.line + 1 for v in result] == [5]
    message = result[0].message
    assert "same Python iterator `iterator`" in message and "reuse the element read while tracing" in message
    assert "tf.data iterator" in message and "as a tensor" in message


def test_a_tf_data_iterator_passed_in_is_silent() -> None:
    assert lines(HEAD + """
    ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])
    iterator = iter(ds)
    consume(iterator)
    consume(iterator)
    consume(iterator)
    """) == []


def test_the_guides_two_cells_in_one_file_report_the_python_iterator_only() -> None:
    assert lines(HEAD + """
    iterator = iter([1, 2, 3])
    consume(iterator)
    consume(iterator)

    @tf.function
    def good(iterator):
        tf.print("Value:", next(iterator))

    ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])
    iterator = iter(ds)
    good(iterator)
    good(iterator)
    """) == [5]


def test_a_single_call_is_silent() -> None:
    assert lines(HEAD + """
    iterator = iter([1, 2, 3])
    consume(iterator)
    """) == []


def test_a_call_in_a_loop_with_an_iterator_made_before_it_is_reported() -> None:
    assert lines(HEAD + """
    iterator = iter([1, 2, 3])
    for _ in range(3):
        consume(iterator)
    """) == [5]


def test_a_call_in_a_comprehension_is_reported() -> None:
    assert lines(HEAD + """
    iterator = iter([1, 2, 3])
    values = [consume(iterator) for _ in range(3)]
    """) == [5]


def test_a_new_iterator_on_every_iteration_is_silent() -> None:
    assert lines(HEAD + """
    rows = [[1, 2], [3, 4]]
    for row in rows:
        iterator = iter(row)
        consume(iterator)
    """) == []


def test_an_iterator_made_at_the_call_is_silent() -> None:
    assert lines(HEAD + """
    for _ in range(3):
        consume(iter([1, 2, 3]))
    """) == []


def test_two_iterators_each_passed_once_are_silent() -> None:
    assert lines(HEAD + """
    a = iter([1, 2, 3])
    b = iter([4, 5, 6])
    consume(a)
    consume(b)
    """) == []


def test_a_name_rebound_between_the_calls_is_silent() -> None:
    assert lines(HEAD + """
    it = iter([1, 2, 3])
    consume(it)
    it = iter([4, 5, 6])
    consume(it)
    """) == []


def test_a_generator_passed_in_a_loop_is_reported() -> None:
    assert lines(HEAD + """
    def numbers():
        n = 0
        while True:
            n += 1
            yield n

    gen = numbers()
    for _ in range(3):
        consume(gen)
    """) == [5]


def test_zip_and_a_generator_expression_are_python_iterators() -> None:
    assert lines("""
    import tensorflow as tf

    @tf.function
    def add(pairs):
        x, y = next(pairs)
        return x + y

    pairs = zip([1, 2, 3], [4, 5, 6])
    add(pairs)
    add(pairs)
    """) == [5]
    assert lines(HEAD + """
    squares = (i * i for i in range(3))
    consume(squares)
    consume(squares)
    """) == [5]


def test_a_keyword_argument_is_followed() -> None:
    assert lines(HEAD + """
    it = iter([1, 2, 3])
    consume(iterator=it)
    consume(iterator=it)
    """) == [5]


def test_a_method_of_a_module_called_in_a_loop_is_reported() -> None:
    assert lines("""
    import tensorflow as tf

    class Trainer(tf.Module):
        @tf.function
        def step(self, batches):
            return next(batches) * 2

    trainer = Trainer()
    batches = iter([1.0, 2.0, 3.0])
    for _ in range(3):
        trainer.step(batches)
    """) == [6]


def test_an_iterator_of_unknown_origin_is_silent() -> None:
    assert lines(HEAD + """
    def run(source):
        it = iter(source)
        consume(it)
        consume(it)
    """) == []


def test_a_parameter_rebound_in_the_body_is_not_this_case() -> None:
    assert lines("""
    import tensorflow as tf

    @tf.function
    def first(ds):
        ds = iter(ds)
        return next(ds)

    values = [1, 2, 3]
    it = iter(values)
    first(it)
    first(it)
    """) == []


def test_an_input_signature_is_left_alone() -> None:
    assert lines("""
    import tensorflow as tf

    @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
    def consume(iterator):
        return next(iterator)

    it = iter([1, 2, 3])
    consume(it)
    consume(it)
    """) == []


def test_the_call_form_of_tf_function_is_followed() -> None:
    assert lines("""
    import tensorflow as tf

    def consume(iterator):
        return next(iterator)

    fast = tf.function(consume)
    it = iter([1, 2, 3])
    for _ in range(3):
        fast(it)
    """) == [4]
