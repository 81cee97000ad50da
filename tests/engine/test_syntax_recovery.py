"""Code being typed: a syntax error is reported once (TL001, where Python points) and the
findings of the parts that still parse are kept.

FUNC001 (a tf.Variable created in a tf.function) is the canary: every function below that
creates one must still be flagged whatever is broken elsewhere.
"""

from __future__ import annotations

import ast

import pytest

import tapelsp
from tapelsp import Settings

SETTINGS = Settings(tensorflow_version="2.21")
CANARY = "FUNC001"
SYNTAX = "TL001"

CLASS_TEMPLATE = '''\
import tensorflow as tf


class Model(tf.Module):
    @tf.function
    def first(self, x):
        v = tf.Variable(1.0)
        return v * x

    def typing(self, x):
        y = tf.square(x)
{broken}
        return y

    @tf.function
    def last(self, x):
        w = tf.Variable(2.0)
        return w * x


@tf.function
def after(x):
    u = tf.Variable(3.0)
    return u * x
'''
CLASS_CANARIES = [7, 17, 23]

# Half-typed lines, as they look in an editor between two keystrokes.
HALF_TYPED = [
    "z = tf.square(x", "z = x.", "if x", "return tf.", "for i in", "z = [1, 2",
    "with tf.GradientTape() as", "z = x +", "def inner(", 's = "abc', "z = (x +", "z = x)",
    "tape.gradient(y, x", "z = x.numpy(", "else:", "lambda", "@tf.function", "class",
    "z = tf.map_fn(lambda a: a ** 2, ", "x ===", "z = 中文(", "print 'py2'", "import",
    "from tensorflow import", "del", "try:", "z = {", "z = f'{x'", "yield from",
]


def check(source: str) -> list[tapelsp.Violation]:
    return tapelsp.check_source(source, "typing.py", SETTINGS)


def lines_of(findings, code: str) -> list[int]:
    return sorted(v.range.start.line + 1 for v in findings if v.code == code)


def python_location(source: str) -> tuple[int, int] | None:
    """(1-based line, 1-based column) of the error Python reports for the whole file."""
    try:
        ast.parse(source)
    except SyntaxError as error:
        return (error.lineno, error.offset) if error.lineno else None
    return None


def syntax_errors(findings) -> list[tuple[int, int, str]]:
    return [(v.range.start.line + 1, v.range.start.column + 1, v.message) for v in findings if v.code == SYNTAX]


def describe(source: str, findings) -> str:
    numbered = "\n".join(f"{n:>3} | {line}" for n, line in enumerate(source.splitlines(), 1))
    found = "\n".join(f"  {v.code} {v.range.start.line + 1}:{v.range.start.column + 1} {v.message}" for v in findings)
    return f"\n{numbered}\nfindings:\n{found}"


def assert_recovered(source: str, canaries: list[int]) -> list[tapelsp.Violation]:
    findings = check(source)
    where = python_location(source)
    assert where is not None, "the test source should not parse"
    errors = syntax_errors(findings)
    assert len(errors) == 1, f"the syntax error should be reported once{describe(source, findings)}"
    assert errors[0][:2] == where, f"TL001 at {errors[0][:2]}, Python says {where}{describe(source, findings)}"
    assert lines_of(findings, CANARY) == canaries, describe(source, findings)
    assert not [v for v in findings if v.code in ("TL003", "TL004")], describe(source, findings)
    return findings


@pytest.mark.parametrize("broken", HALF_TYPED)
def test_half_typed_line_in_a_method_keeps_the_other_methods_and_functions(broken: str) -> None:
    assert_recovered(CLASS_TEMPLATE.format(broken=" " * 8 + broken), CLASS_CANARIES)


SAME_FUNCTION = '''\
import tensorflow as tf


@tf.function
def f(x):
    v = tf.Variable(1.0)
{broken}
    w = tf.Variable(2.0)
    return v * w * x


@tf.function
def g(x):
    u = tf.Variable(3.0)
    return u * x
'''


@pytest.mark.parametrize("broken", [b for b in HALF_TYPED if b not in ("@tf.function",)])
def test_half_typed_line_keeps_the_rest_of_its_own_function(broken: str) -> None:
    assert_recovered(SAME_FUNCTION.format(broken=" " * 4 + broken), [6, 8, 14])


@pytest.mark.parametrize("broken", ["  z = 2", "        z = 2", "\tz = 2"],
                         ids=["unindent-mismatch", "unexpected-indent", "tab"])
def test_badly_indented_line_keeps_its_function(broken: str) -> None:
    assert_recovered(SAME_FUNCTION.format(broken=broken), [6, 8, 14])


TWO_FUNCTIONS = '''\
import tensorflow as tf


@tf.function
def f(x):
    v = tf.Variable(1.0)
    return v * x
{between}

@tf.function
def g(x):
    u = tf.Variable(3.0)
    return u * x
{end}'''


@pytest.mark.parametrize("broken", [
    "  x = 1", "      x = 1", "x = (", "x = tf.", "def h(", "class K", "@", ")", "]]", "if True:", "else:",
    "x = tf.reduce_sum([1, 2,", "y = {'a': [1, (2,", "for i in range(3)", "def h(x)",
])
@pytest.mark.parametrize("where", ["between", "at-end"])
def test_broken_top_level_line(broken: str, where: str) -> None:
    source = TWO_FUNCTIONS.format(between=broken if where == "between" else "",
                                  end=broken + "\n" if where == "at-end" else "")
    assert_recovered(source, [6, 12])


def test_missing_colon_on_a_def_keeps_the_other_functions() -> None:
    source = TWO_FUNCTIONS.format(between="", end="\n\n@tf.function\ndef h(x)\n    q = tf.Variable(1.0)\n    return q\n")
    findings = assert_recovered(source, [6, 12])
    assert "expected ':'" in syntax_errors(findings)[0][2]


@pytest.mark.parametrize("tail", ["def broken(x):\n", "def broken(x):", "class Broken:\n", "if x:"])
def test_empty_block_at_end_of_file(tail: str) -> None:
    source = TWO_FUNCTIONS.format(between="", end="\n" + tail)
    findings = assert_recovered(source, [6, 12])
    assert "expected an indented block" in syntax_errors(findings)[0][2]


def test_unclosed_bracket_inside_a_function_keeps_the_next_function() -> None:
    source = TWO_FUNCTIONS.format(between="\n\ndef h(x):\n    return tf.reduce_sum([x, x,\n", end="")
    findings = assert_recovered(source, [6, 16])
    assert "never closed" in syntax_errors(findings)[0][2]


def test_two_separate_errors_are_each_reported_once() -> None:
    source = TWO_FUNCTIONS.format(between="x = (", end="y = tf.\n")
    findings = check(source)
    assert lines_of(findings, SYNTAX) == [8, 14], describe(source, findings)
    assert lines_of(findings, CANARY) == [6, 12]


@pytest.mark.parametrize("where", ["own-line", "in-a-function", "in-a-string"])
def test_null_bytes(where: str) -> None:
    if where == "own-line":
        source = TWO_FUNCTIONS.format(between="x = 1\0", end="")
    elif where == "in-a-function":
        source = TWO_FUNCTIONS.format(between="", end="").replace("return v * x", "return v *\0 x")
    else:
        source = TWO_FUNCTIONS.format(between="s = 'a\0b'", end="")
    findings = check(source)
    errors = syntax_errors(findings)
    assert len(errors) == 1 and "null bytes" in errors[0][2], describe(source, findings)
    nul_line = next(n for n, line in enumerate(source.split("\n"), 1) if "\0" in line)
    nul_col = source.split("\n")[nul_line - 1].index("\0") + 1
    assert errors[0][:2] == (nul_line, nul_col), describe(source, findings)
    assert lines_of(findings, CANARY) == [6, 12], describe(source, findings)


@pytest.mark.parametrize("garbage", [
    "\x01\x02 )))( ]]] tf. tensorflow !!@@##",
    "import tensorflow as tf\n" + "".join(chr(c) for c in range(0x21, 0x7f)) * 3,
    "tensorflow " + "\ufffd\ufffd" * 50 + "\n\x7fELF\x02\x01\x01",
    "tf." + ")" * 500,
    "import tensorflow as tf\n" + "def (" * 200,
    "import tensorflow as tf\n" + '"""' + "x" * 100,
])
def test_a_file_that_is_only_garbage(garbage: str) -> None:
    """Only syntax errors, the first where Python points, none twice on one line."""
    findings = check(garbage)
    errors = syntax_errors(findings)
    assert errors and {v.code for v in findings} == {SYNTAX}, describe(garbage[:300], findings)
    where = python_location(garbage)
    if where is not None:
        assert errors[0][:2] == where, describe(garbage[:300], findings)
    lines = [line for line, _col, _msg in errors]
    assert len(lines) == len(set(lines)), describe(garbage[:300], findings)


def test_the_message_is_pythons() -> None:
    source = TWO_FUNCTIONS.format(between="x = (", end="")
    findings = check(source)
    try:
        ast.parse(source)
    except SyntaxError as error:
        expected = error.msg
    assert syntax_errors(findings)[0][2] == f"SyntaxError: {expected}"


def test_a_file_that_parses_reports_no_syntax_error() -> None:
    source = TWO_FUNCTIONS.format(between="", end="")
    findings = check(source)
    assert lines_of(findings, SYNTAX) == [] and lines_of(findings, CANARY) == [6, 12]


def test_syntax_error_can_be_ignored_without_losing_the_rest() -> None:
    source = TWO_FUNCTIONS.format(between="x = (", end="")
    findings = tapelsp.check_source(source, "typing.py", Settings(tensorflow_version="2.21", ignore=("TL001",)))
    assert [v.code for v in findings if v.code in (CANARY, SYNTAX)] == [CANARY, CANARY]
