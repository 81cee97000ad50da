"""The probe's pieces without kernels: recorder, namespace reading, messages, association."""

from __future__ import annotations

import textwrap

from tapelsp.model import Position, Range, Related, Severity, Violation
from tapelsp.probe import kernel_query
from tapelsp.probe.kernel import parse_query_answer, query_expression, short_message
from tapelsp.probe.merge import associate
from tapelsp.probe.recorder import Recorder
from tapelsp.probe.source_map import SourceMap


def test_recorder_aggregates_per_site_and_names_what_changed_between_traces():
    recorder = Recorder()
    place = ("/p/train.py", 9)
    recorder.record_gradient(place, "gradient", 2, [(1, "tf.Variable 'b:0'")], traced=False)
    recorder.record_gradient(place, "gradient", 2, [], traced=False)
    function = type("F", (), {})()
    origin = ("step", "/p/train.py", 3)
    recorder.record_function_call(origin, function, ("/p/train.py", 12), 1, [("x", "tensor () float32"), ("lr", "0.1")])
    recorder.record_function_call(origin, function, ("/p/train.py", 12), 1, [("x", "tensor () float32"), ("lr", "0.2")])
    recorder.record_function_call(origin, function, ("/p/train.py", 12), 0, None)
    for count in (5, 6):
        recorder.record_event("retracing-warning", f"{count} out of the last {count} calls to <function at 0x7f{count}>",
                              ("/p/train.py", 12))
    snapshot = recorder.snapshot()
    [site] = snapshot["gradient_sites"]
    assert (site["calls"], site["none_calls"], site["none_sources"][0]["calls"]) == (2, 1, 1)
    [record] = snapshot["functions"]
    assert (record["calls"], record["traces"], record["instances"]) == (3, 2, 1)
    assert [t["changed"] for t in record["trace_log"]] == [[], ["lr: 0.1 -> 0.2"]]
    [event] = snapshot["events"]
    assert event["count"] == 2


def test_namespace_reading_calls_no_user_code():
    calls = []

    class Sneaky:
        @property
        def name(self):
            calls.append("name")
            return "sneaky"

        def __getattr__(self, attr):
            calls.append(attr)
            raise AttributeError(attr)

    sneaky = Sneaky()
    assert kernel_query.library_attr(sneaky, "name") is None
    assert kernel_query.library_attr(sneaky, "missing", "default") == "default"
    assert kernel_query.classify(sneaky) is None
    facts = kernel_query.namespace_facts({"sneaky": sneaky, "n": 3})
    assert facts == [] and calls == []


def test_versions_come_from_metadata_without_importing():
    import sys

    before = set(sys.modules)
    versions = kernel_query.versions()
    assert set(versions) == {"tensorflow", "keras", "tf_keras", "tensorflow_probability", "numpy"}
    assert "tensorflow" not in set(sys.modules) - before


def test_the_query_expression_evaluates_to_the_report_in_a_private_namespace():
    namespace = {"x": 1}
    text = eval(query_expression(), namespace)
    data = parse_query_answer({"tapelsp": {"status": "ok", "data": {"text/plain": repr(text)}}})
    assert data["schema"] == kernel_query.SCHEMA and "versions" in data
    assert set(namespace) == {"x", "__builtins__"}


def test_short_message_keeps_tensorflows_sentence():
    text = ('in user code:\n\n    File "/p/x.py", line 5, in scale  *\n        v = tf.Variable(2.0)\n\n'
            '    ValueError: tf.function only supports singleton tf.Variables created on the first call.\n')
    assert short_message(text) == "tf.function only supports singleton tf.Variables created on the first call."
    assert short_message("{{function_node __wrapped__Reshape}} Input to reshape is a tensor") == \
        "Input to reshape is a tensor"


def _violation(line: int, related: tuple[int, ...] = ()) -> Violation:
    return Violation("TAPE007", "x", "m", Range(Position(line - 1, 0), Position(line - 1, 1)), Severity.ERROR,
                     related=tuple(Related(Range(Position(r - 1, 0), Position(r - 1, 1)), "r") for r in related))


def test_association_strong_inside_the_tape_block_weak_after_it():
    source = textwrap.dedent('''\
        import tensorflow as tf

        def step(w):
            with tf.GradientTape() as tape:
                y = w * w
            g = tape.gradient(y, w)
            other = tf.GradientTape()
            return g

        loss = 1.0
        h = other.gradient(loss, 2)
    ''')
    unit = SourceMap("/p/x.py", source, notebook=False)
    assert associate(_violation(5), unit).strong == (6,)
    assert associate(_violation(4), unit).strong == (6,)
    assert associate(_violation(10), unit).strong == ()
    assert associate(_violation(10), unit).weak == (11,)
    assert associate(_violation(2, related=(11,)), unit).strong == (11,)
