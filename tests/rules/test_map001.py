"""MAP001 depends on the configured TensorFlow and on the mode switches in the file."""

from __future__ import annotations

import inspect

import tapelsp
from tapelsp import Settings

TAPE_OVER_MAP_FN = inspect.cleandoc("""
    import tensorflow as tf

    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.map_fn(lambda a: a * a, x)
    grad = tape.gradient(y, x)
""") + "\n"


def lines(source: str, tensorflow: str, code: str = "MAP001") -> list[int]:
    found = tapelsp.check_source(source, "t.py", Settings(tensorflow_version=tensorflow, select=(code,)))
    return [v.range.start.line + 1 for v in found if v.code == code]


def with_switches(*calls: str) -> str:
    head, rest = TAPE_OVER_MAP_FN.split("\n", 1)
    return head + "\n" + "".join(f"{call}\n" for call in calls) + rest


def test_same_source_differs_between_tensorflow_1_and_2() -> None:
    assert lines(TAPE_OVER_MAP_FN, "1.15") == [6]
    assert lines(TAPE_OVER_MAP_FN, "2.21") == []


def test_tf2_switches() -> None:
    assert lines(with_switches("tf.compat.v1.disable_v2_behavior()"), "2.21") == [7]
    assert lines(with_switches("tf.compat.v1.disable_eager_execution()"), "2.21") == []
    assert lines(with_switches("tf.compat.v1.disable_control_flow_v2()"), "2.21") == []
    assert lines(with_switches("tf.compat.v1.disable_control_flow_v2()",
                               "tf.compat.v1.disable_eager_execution()"), "2.21") == [8]
    assert lines(with_switches("tf.compat.v1.disable_v2_behavior()",
                               "tf.compat.v1.enable_control_flow_v2()"), "2.21") == []


def test_tf1_with_eager_or_control_flow_v2_enabled_is_silent() -> None:
    assert lines(with_switches("tf.enable_eager_execution()"), "1.15") == []
    assert lines(with_switches("tf.enable_control_flow_v2()"), "1.15") == []


def test_message_names_the_symptom_and_the_switch() -> None:
    source = with_switches("tf.compat.v1.disable_v2_behavior()")
    [finding] = [v for v in tapelsp.check_source(source, "t.py", Settings(tensorflow_version="2.21"))
                 if v.code == "MAP001"]
    assert "silently returns None" in finding.message
    assert {r.message for r in finding.related} >= {"the GradientTape recording it",
                                                     "v1 graph control flow switched on here"}


def test_import_compat_v1_alone_is_not_v1_control_flow() -> None:
    source = TAPE_OVER_MAP_FN.replace("import tensorflow as tf", "import tensorflow.compat.v1 as tf")
    assert lines(source, "2.21") == []
