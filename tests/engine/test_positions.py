"""Positions are 0-based lines and columns in Unicode code points, whatever precedes the finding."""

from __future__ import annotations

import ast

import pytest

import tapelsp
from tapelsp import Settings
from tapelsp.text import SourceText

SETTINGS = Settings(tensorflow_version="2.21")


def findings(source: str, code: str) -> list[tapelsp.Violation]:
    return [v for v in tapelsp.check_source(source, "p.py", SETTINGS) if v.code == code]


def text_at(source: str, violation: tapelsp.Violation) -> str:
    """The source text a single-line range covers, sliced by code points."""
    start, end = violation.range.start, violation.range.end
    assert start.line == end.line
    return SourceText(source).line(start.line)[start.column:end.column]


def variable_in_function(prefix: str, suffix: str = "") -> str:
    return ("import tensorflow as tf\n\n@tf.function\ndef f(x):\n"
            f"    {prefix}v = tf.Variable(1.0){suffix}\n    return v * x\n")


@pytest.mark.parametrize("prefix", [
    "",
    's = "中文字符"; ',
    "s = '日本語のテキスト'; ",
    's = "🙂🙂"; ',  # astral: 1 code point, 2 UTF-16 units, 4 UTF-8 bytes each
    's = "é"; t = "ß"; ',
    's = "\\u00e9"; ',  # an escape is plain ASCII in the source
    "s = 'a\\tb';\t",
])
@pytest.mark.parametrize("suffix", ["", "  # 中文注释 🙂"])
def test_columns_are_code_points(prefix: str, suffix: str) -> None:
    source = variable_in_function(prefix, suffix)
    (violation,) = findings(source, "FUNC001")
    line = source.splitlines()[4]
    expected = line.index("tf.Variable(1.0)")
    assert violation.range.start.line == 4
    assert violation.range.start.column == expected
    assert violation.range.end.column == expected + len("tf.Variable(1.0)")
    assert text_at(source, violation) == "tf.Variable(1.0)"


def test_non_ascii_on_other_lines_does_not_matter() -> None:
    source = ("# 这个文件训练一个模型 🙂\nimport tensorflow as tf\n\n@tf.function\ndef f(x):\n"
              "    \"\"\"计算。\"\"\"\n    v = tf.Variable(1.0)\n    return v * x\n")
    (violation,) = findings(source, "FUNC001")
    assert (violation.range.start.line, violation.range.start.column) == (6, 8)


def test_map002_range_after_non_ascii() -> None:
    source = 'import tensorflow as tf\nx = tf.constant([1.0])\nw = "日本🙂"; y = tf.map_fn(lambda a: a ** 2, x)\n'
    (violation,) = findings(source, "MAP002")
    assert text_at(source, violation) == "tf.map_fn(lambda a: a ** 2, x)"


def test_tape001_range_after_non_ascii() -> None:
    source = ("import tensorflow as tf\nx = tf.constant(3.0)\nwith tf.GradientTape() as tape:  # 外\n"
              "    tape.watch(x); s = 'ü'\n    y = x * x\n"
              "    with tf.GradientTape() as tape:  # 内层 🙂\n        dy = tape.gradient(y, x)\n")
    (violation,) = findings(source, "TAPE001")
    assert violation.range.start.line == 5
    assert text_at(source, violation) == "tf.GradientTape() as tape"


def test_multi_line_range_end_column_uses_its_own_line() -> None:
    source = ('import tensorflow as tf\n\n@tf.function\ndef f(x):\n'
              '    v = tf.Variable(\n        "中文🙂" and 1.0)\n    return v * x\n')
    (violation,) = findings(source, "FUNC001")
    assert (violation.range.start.line, violation.range.start.column) == (4, 8)
    end_line = source.splitlines()[5]
    assert (violation.range.end.line, violation.range.end.column) == (5, len(end_line))


def test_syntax_error_column_matches_python_in_code_points() -> None:
    source = 'import tensorflow as tf\ns = "中文🙂"; y = tf.square(x +)\n'
    with pytest.raises(SyntaxError) as python:
        ast.parse(source)
    (violation,) = findings(source, "TL001")
    assert (violation.range.start.line + 1, violation.range.start.column + 1) == (python.value.lineno,
                                                                                 python.value.offset)
    assert SourceText(source).line(1)[violation.range.start.column] == ")"


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_line_endings_do_not_move_positions(newline: str) -> None:
    source = variable_in_function('s = "中文"; ').replace("\n", newline)
    (violation,) = findings(source, "FUNC001")
    column = '    s = "中文"; v = '.__len__()
    assert (violation.range.start.line, violation.range.start.column) == (4, column)


@pytest.mark.parametrize("separator", ["\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
def test_characters_str_splitlines_breaks_at_are_not_line_ends(separator: str) -> None:
    """Python's tokenizer ends lines only at \\n, \\r\\n and \\r; a form feed (page break) or a
    U+2028 in a string must not shift later lines."""
    source = (f"import tensorflow as tf\ns = 'a{separator}b'\n{separator if separator == chr(12) else ''}\n"
              "@tf.function\ndef f(x):\n    s = '中'; v = tf.Variable(1.0)  # tapelsp: ignore[MAP002]\n"
              "    return v * x\n")
    ast.parse(source)  # Python agrees these are ordinary characters
    (violation,) = findings(source, "FUNC001")
    assert (violation.range.start.line, violation.range.start.column) == (5, len("    s = '中'; v = "))
    suppressed = source.replace("ignore[MAP002]", "ignore[FUNC001]")
    assert findings(suppressed, "FUNC001") == [], "the suppression comment is read from the finding's line"


def test_source_text_lines_match_the_tokenizer() -> None:
    text = "a\r\nb\rc\nd\x0ce\u2028f\n"
    assert SourceText(text).lines == ["a", "b", "c", "d\x0ce\u2028f", ""]
    assert SourceText("").lines == [""]
    assert SourceText("x").lines == ["x"]


def test_column_conversion_from_utf8_bytes() -> None:
    text = SourceText('s = "é🙂"; t = 1\n')
    byte_col = len('s = "é🙂"; '.encode("utf-8"))
    assert text.column(0, byte_col) == len('s = "é🙂"; ')
    assert text.column(7, 3) == 3, "past the end: no crash"
