"""`# tapelsp: ignore[CODE]`, `# noqa: CODE`, their bare forms, prefixes and `ignore-file`."""

from __future__ import annotations

import pytest

import tapelsp
from tapelsp import Settings
from tapelsp.suppression import ALL, codes_on_line, ignores_whole_file

SETTINGS = Settings(tensorflow_version="2.21")

# Line 5 has a FUNC001 and a MAP002 finding; line 8 has a FUNC001 finding.
SOURCE = '''\
import tensorflow as tf

@tf.function
def f(x):
    v = tf.Variable(1.0); y = tf.map_fn(lambda a: a * 2.0, x){comment5}
    return v * y

w = tf.function(lambda x: tf.Variable(2.0) * x){comment8}
'''


def codes(comment5: str = "", comment8: str = "") -> list[tuple[int, str]]:
    source = SOURCE.format(comment5=comment5, comment8=comment8)
    return [(v.range.start.line + 1, v.code) for v in tapelsp.check_source(source, "s.py", SETTINGS)
            if v.code in ("FUNC001", "MAP002", "TL001")]


BASELINE = [(5, "FUNC001"), (5, "MAP002"), (8, "FUNC001")]


def test_baseline_without_comments() -> None:
    assert codes() == BASELINE


@pytest.mark.parametrize(("comment", "left_on_line_5"), [
    ("  # tapelsp: ignore[FUNC001]", ["MAP002"]),
    ("  # tapelsp: ignore[MAP002]", ["FUNC001"]),
    ("  # tapelsp: ignore[FUNC001, MAP002]", []),
    ("  # tapelsp: ignore[FUNC001,MAP002]", []),
    ("  # tapelsp: ignore[func001]", ["MAP002"]),
    ("  # tapelsp: ignore", []),
    ("  #tapelsp:ignore", []),
    ("  # tapelsp: ignore[FUNC]", ["MAP002"]),
    ("  # tapelsp: ignore[MAP]", ["FUNC001"]),
    ("  # noqa: FUNC001", ["MAP002"]),
    ("  # noqa:FUNC001,MAP002", []),
    ("  # noqa: FUNC001, MAP002", []),
    ("  # NOQA: MAP002", ["FUNC001"]),
    ("  # noqa", []),
    ("  # noqa: FUNC", ["MAP002"]),
    ("  # noqa: TAPE001", ["FUNC001", "MAP002"]),
    ("  # noqa: E501", ["FUNC001", "MAP002"]),
    ("  # tapelsp: ignore[TAPE001]", ["FUNC001", "MAP002"]),
    ("  # tapelsp: ignore[FUNC002]", ["FUNC001", "MAP002"]),
    ("  # noqa: FUNC001 map later", ["MAP002"]),
    ("  # noqa: some reason", ["FUNC001", "MAP002"]),
    ("  # tapelsp: ignore[FUNC001]  # noqa: MAP002", []),
    ("  # a comment that mentions tapelsp", ["FUNC001", "MAP002"]),
])
def test_line_suppression(comment: str, left_on_line_5: list[str]) -> None:
    found = codes(comment5=comment)
    assert [code for line, code in found if line == 5] == left_on_line_5
    assert (8, "FUNC001") in found, "a comment on line 5 must not touch line 8"


def test_suppression_on_another_line_does_nothing() -> None:
    assert codes(comment8="  # noqa: FUNC001") == [(5, "FUNC001"), (5, "MAP002")]
    assert codes(comment8="  # tapelsp: ignore") == [(5, "FUNC001"), (5, "MAP002")]


@pytest.mark.parametrize("header", [
    "# tapelsp: ignore-file\n",
    "#tapelsp:ignore-file\n",
    "  # tapelsp: ignore-file\n",
    "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n# tapelsp: ignore-file  (generated)\n",
])
def test_ignore_file(header: str) -> None:
    source = header + SOURCE.format(comment5="", comment8="")
    assert ignores_whole_file(source)
    assert tapelsp.check_source(source, "s.py", SETTINGS) == []


@pytest.mark.parametrize("text", [
    "x = 1  # tapelsp: ignore-file\n",  # not on a line of its own
    "# tapelsp: ignore\n",
    "# tapelsp: ignore[FUNC001]\n",
    "# noqa\n",
    "# tapelsp: ignore-files-later\n",
])
def test_not_ignore_file(text: str) -> None:
    assert not ignores_whole_file(text + SOURCE.format(comment5="", comment8=""))


def test_ignore_file_also_silences_syntax_errors() -> None:
    assert tapelsp.check_source("# tapelsp: ignore-file\nimport tensorflow as tf\ndef f(:\n", "s.py", SETTINGS) == []


def test_a_syntax_error_can_be_suppressed_on_its_line() -> None:
    source = "import tensorflow as tf\ny = tf.square(  # noqa: TL001\n"
    assert tapelsp.check_source(source, "s.py", SETTINGS) == []


@pytest.mark.parametrize(("line", "expected"), [
    ("x = 1", None),
    ("x = 1  # just a comment", None),
    ("x  # noqa", ALL),
    ("x  # noqa:", ALL),
    ("x  # noqa - reason", ALL),
    ("x  # tapelsp: ignore[]", ALL),
    ("x  # noqa: FUNC001 tape is fine", ("FUNC001",)),
    ("x  # noqa: func001", ("FUNC001",)),
    ("x  # noqa: some reason", None),
    ("x  # tapelsp: ignore[tape001, FUNC]", ("TAPE001", "FUNC")),
])
def test_codes_on_line(line: str, expected) -> None:
    assert codes_on_line(line) == expected
