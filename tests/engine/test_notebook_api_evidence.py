"""The JupyterLab answer's evidence text does not repeat what its summary already quotes."""

from tapelsp.model import Evidence, Position, Range, Severity, Violation
from tapelsp.notebook_api import _evidence_text

MESSAGE = ("tf.function only supports singleton tf.Variables created on the first call. Make sure the "
           "tf.Variable is only created once or created outside tf.function.")


def _with(evidence: Evidence) -> Violation:
    return Violation(code="FUNC001", name="variable-in-function", message="m",
                     range=Range(Position(0, 0), Position(0, 1)), severity=Severity.ERROR,
                     evidence=evidence)


def test_the_quoted_first_sentence_is_not_repeated():
    summary = 'TensorFlow said on line 3 of cell 4: "tf.function only supports singleton tf.Variables created on the first call."'
    text = _evidence_text(_with(Evidence("confirmed", summary, (MESSAGE, "seen 1 time"))))
    assert text.count("only supports singleton") == 1
    assert text.endswith(": Make sure the tf.Variable is only created once or created outside tf.function.; seen 1 time")


def test_details_not_quoted_in_the_summary_are_kept_whole():
    text = _evidence_text(_with(Evidence("runtime", "A None gradient.", ("source 2 of 2 (`w`) was None",))))
    assert text == "A None gradient: source 2 of 2 (`w`) was None"


def test_a_detail_that_is_only_the_quoted_sentence_is_dropped():
    text = _evidence_text(_with(Evidence("confirmed", 'TensorFlow said: "Boom."', ("Boom.",))))
    assert text == 'TensorFlow said: "Boom."'
