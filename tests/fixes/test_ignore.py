"""The "ignore on this line" edit: it silences exactly its finding, keeps the line's other comments."""

from __future__ import annotations

import pytest

import tapelsp
from tapelsp import Settings
from tapelsp.fixes import apply_edits, ignore_fix
from tapelsp.model import Position, Range, Severity, Violation

SETTINGS = Settings(tensorflow_version="2.21")

SEED = """\
import tensorflow as tf

x = tf.constant(3.0)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
    with tf.GradientTape() as tape:{comment}
        dy = tape.gradient(y, x)
"""


def finding(code: str, line: int, column: int = 0) -> Violation:
    return Violation(code, "name", "message", Range(Position(line, column), Position(line, column + 1)), Severity.ERROR)


@pytest.mark.parametrize(("comment", "expected"), [
    ("", "  # tapelsp: ignore[TAPE001]"),
    ("   ", "  # tapelsp: ignore[TAPE001]"),
    ("  # noqa: E501", "  # noqa: E501  # tapelsp: ignore[TAPE001]"),
    ("  # tapelsp: ignore[FUNC001]", "  # tapelsp: ignore[FUNC001, TAPE001]"),
    ("  # tapelsp: ignore[FUNC001, MAP002]  # why", "  # tapelsp: ignore[FUNC001, MAP002, TAPE001]  # why"),
    ("  # the inner one", "  # the inner one  # tapelsp: ignore[TAPE001]"),
])
def test_ignore_edit_silences_the_finding(comment, expected):
    source = SEED.format(comment=comment)
    [violation] = [v for v in tapelsp.check_source(source, "t.py", SETTINGS) if v.code == "TAPE001"]
    fix = ignore_fix(violation, source)
    assert fix is not None and fix.title == "Ignore TAPE001 on this line"
    fixed = apply_edits(source, fix.edits)
    assert fixed.splitlines()[6] == "    with tf.GradientTape() as tape:" + expected
    # Only that line changed, and the finding is gone.
    assert [a for a, b in zip(source.splitlines(), fixed.splitlines()) if a != b] == [source.splitlines()[6]]
    assert not [v for v in tapelsp.check_source(fixed, "t.py", SETTINGS) if v.code == "TAPE001"]


def test_nothing_to_do_when_already_silenced():
    assert ignore_fix(finding("TAPE001", 0), "x = 1  # tapelsp: ignore\n") is None
    assert ignore_fix(finding("TAPE001", 0), "x = 1  # noqa: TAPE\n") is None


def test_lines_that_cannot_end_with_a_comment():
    # Inside a triple-quoted string the comment would be part of the string.
    assert ignore_fix(finding("TAPE001", 0, 4), 'x = """a\nb"""\n') is None
    assert ignore_fix(finding("TAPE001", 0), "x = 1 + \\\n    2\n") is None
    # The string's last line is fine: its end is after the string.
    fix = ignore_fix(finding("TAPE001", 1), 'x = """a\nb"""\n')
    assert fix is not None and apply_edits('x = """a\nb"""\n', fix.edits) == 'x = """a\nb"""  # tapelsp: ignore[TAPE001]\n'


def test_inside_brackets_and_with_crlf():
    source = "f(a,\r\n  b)\r\n"
    fix = ignore_fix(finding("FUNC001", 0), source)
    assert apply_edits(source, fix.edits) == "f(a,  # tapelsp: ignore[FUNC001]\r\n  b)\r\n"


def test_a_notebook_finding_takes_its_cell_source():
    cell = "x = 1\ny = 2"
    fix = ignore_fix(Violation("FUNC001", "n", "m", Range(Position(1, 0), Position(1, 1)), Severity.ERROR, cell=2), cell)
    assert apply_edits(cell, fix.edits) == "x = 1\ny = 2  # tapelsp: ignore[FUNC001]"


def test_reading_only_the_statement_gives_the_edit_reading_the_text_gives():
    import ast
    from pathlib import Path

    texts = [p.read_text() for p in sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))]
    texts.append('x = 1\ndoc = """a\n# not a comment\nb"""  # a comment\n\n\ndef f():\n    s = (1,  # one\n         2)\n'
                 '    return f"""{s}\n"""\n# between\ny = \'#\'  # tapelsp: ignore[FUNC001]\n')
    compared = 0
    for text in texts:
        tree = ast.parse(text)
        spans = tuple((min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", [])]) - 1, s.end_lineno)
                      for s in tree.body)
        for line, content in enumerate(text.split("\n")[:-1]):
            violation = finding("TAPE001", line, 0)
            assert ignore_fix(violation, text, spans) == ignore_fix(violation, text), (line, content)
            compared += 1
    assert compared > 60
