"""Edits on text: code-point positions, line endings, overlaps, and diffs turned into minimal edits."""

from __future__ import annotations

import random

import pytest

from tapelsp.fixes.edits import (EditError, apply_edits, fits, line_starts, newline_of, overlapping, parse_problem,
                                 text_edits, to_offset, to_position)
from tapelsp.model import Edit, Position, Range


def edit(line: int, column: int, end_line: int, end_column: int, text: str) -> Edit:
    return Edit(Range(Position(line, column), Position(end_line, end_column)), text)


def test_positions_are_code_points_on_tokenizer_lines():
    text = "é = 1\r\nx = 'ü'\ry = 2\n"
    starts = line_starts(text)
    assert starts == [0, 7, 15, 21]
    assert to_offset(text, starts, Position(1, 5)) == 12 and text[12] == "ü"
    assert to_position(starts, 12) == Position(1, 5)
    assert to_position(starts, len(text)) == Position(3, 0)
    with pytest.raises(EditError):
        to_offset(text, starts, Position(0, 6))  # past the end of "é = 1" (the \r\n is not a column)
    with pytest.raises(EditError):
        to_offset(text, starts, Position(4, 0))


def test_apply_edits_in_any_order():
    text = "a = 1\nb = 2\nc = 3\n"
    edits = [edit(2, 0, 2, 1, "z"), edit(0, 4, 0, 5, "10"), edit(1, 0, 2, 0, "")]
    assert apply_edits(text, edits) == "a = 10\nz = 3\n"


def test_inserted_lines_take_the_files_line_ending():
    assert apply_edits("a = 1\r\nb = 2\r\n", [edit(1, 0, 1, 0, "x = 0\ny = 0\n")]) == "a = 1\r\nx = 0\r\ny = 0\r\nb = 2\r\n"
    assert apply_edits("a = 1\rb = 2\r", [edit(1, 0, 1, 0, "x = 0\r\n")]) == "a = 1\rx = 0\rb = 2\r"
    assert newline_of("no newline") == "\n" and newline_of("a\r\nb\n") == "\r\n"


def test_overlapping_edits_are_refused():
    text = "abcdef\n"
    with pytest.raises(EditError):
        apply_edits(text, [edit(0, 0, 0, 3, "x"), edit(0, 2, 0, 4, "y")])
    with pytest.raises(EditError):  # two insertions at one place: their order would be a guess
        apply_edits(text, [edit(0, 2, 0, 2, "x"), edit(0, 2, 0, 2, "y")])
    # Touching is not overlapping: an insertion where a replacement starts, two adjacent replacements.
    assert apply_edits(text, [edit(0, 2, 0, 2, "<"), edit(0, 2, 0, 4, "CD")]) == "ab<CDef\n"
    assert apply_edits(text, [edit(0, 0, 0, 2, "AB"), edit(0, 2, 0, 4, "CD")]) == "ABCDef\n"
    assert overlapping(Range(Position(0, 1), Position(0, 3)), Range(Position(0, 2), Position(0, 2)))
    assert not fits([edit(0, 0, 0, 3, "x")], [edit(0, 1, 0, 2, "y")])
    assert fits([edit(0, 0, 0, 1, "x")], [edit(0, 1, 0, 2, "y")])


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_text_edits_turn_old_into_new_and_leave_other_lines_alone(newline):
    old = newline.join(["import tensorflow as tf", "", "def f(x):", "    v = 2", "    return v * x", ""])
    new = newline.join(["import tensorflow as tf", "", "v = 2", "", "def f(x):", "    return v * x", ""])
    edits = text_edits(old, new)
    assert apply_edits(old, edits) == new
    touched = {line for e in edits for line in range(e.range.start.line, e.range.end.line + 1)}
    assert 0 not in touched and 1 not in touched  # the import and the blank line after it


def test_text_edits_never_split_a_crlf():
    old = "a\r\nb\r\n"
    new = "a\r\nx\r\nb\r\n"
    for e in text_edits(old, new):
        assert e.range.start.column <= len(old.split("\r\n")[e.range.start.line])
    assert apply_edits(old, text_edits(old, new)) == new


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_text_edits_random_round_trips(newline):
    rng = random.Random(7)
    words = ["a", "b", "c\n", "\n", "d = 1\n", "é", "\t", " "]
    for _ in range(300):
        old = "".join(rng.choice(words) for _ in range(rng.randint(0, 25))).replace("\n", newline)
        new = "".join(rng.choice(words) for _ in range(rng.randint(0, 25))).replace("\n", newline)
        if newline in old or newline not in new:  # a text without line endings writes new ones as \n
            assert apply_edits(old, text_edits(old, new)) == new, (old, new)
        assert text_edits(old, old) == ()


def test_parse_problem():
    assert parse_problem("x = 1\n") is None
    assert "line 1" in parse_problem("x = (\n")
    assert parse_problem("x = '\x00'") is not None
