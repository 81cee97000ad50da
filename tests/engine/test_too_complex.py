"""Code nested deeper than the parser or the analysis can follow: TL003, never an exception."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tapelsp
from tapelsp import Settings
from tapelsp.rules import rule_by_code

SETTINGS = Settings(tensorflow_version="2.21")
HEADER = "import tensorflow as tf\n"
CANARY_FUNCTION = '''
@tf.function
def scale(x):
    v = tf.Variable(2.0)
    return v * x
'''

# Nested deeper than Python's own parser goes: ast.parse raises on each of these.
DEEP = {
    "parentheses-300": "x = " + "(" * 300 + "1" + ")" * 300,
    "sum-100k": "x = " + "+".join(["1"] * 100_000),
    "lists-300": "x = " + "[" * 300 + "1" + "]" * 300,
    "calls-1000": "x = " + "f(" * 1000 + "1" + ")" * 1000,
    "unary-100k": "x = " + "-" * 100_000 + "1",
    "attributes-50k": "x = a" + ".b" * 50_000,
    "subscripts-50k": "x = a" + "[0]" * 50_000,
    "power-5000": "x = " + "**".join(["2"] * 5000),
    "dicts-300": "x = " + "{1: " * 300 + "1" + "}" * 300,
    "map-fn-lambdas-5000": "y = tf.map_fn(" + "lambda a: " * 5000 + "a, x)",
}

# Deep, but Python parses (and mostly compiles) them: the file keeps its findings.
DEEP_BUT_PYTHON = {
    "sum-800": "x = " + "+".join(["1"] * 800),
    "sum-2500": "x = " + "+".join(["1"] * 2500),
    "string-concatenation-2500": "x = " + "+".join(["'a'"] * 2500),
    "lambdas-1000": "x = " + "lambda: " * 1000 + "1",
    "conditional-5000": "x = " + "1 if y else " * 5000 + "2",
    "not-5000": "x = " + "not " * 5000 + "y",
    "parentheses-150": "x = " + "(" * 150 + "1" + ")" * 150,
    "map-fn-lambdas-900": "y = tf.map_fn(" + "lambda a: " * 900 + "a, x)",
}


def _check(source: str) -> list[tapelsp.Violation]:
    return tapelsp.check_source(source, "generated.py", SETTINGS)


@pytest.mark.parametrize("body", DEEP.values(), ids=DEEP.keys())
def test_deep_expressions_give_too_complex(body: str) -> None:
    with pytest.raises((SyntaxError, RecursionError, MemoryError)):
        ast.parse(body)  # the premise: Python itself gives up
    findings = _check(HEADER + CANARY_FUNCTION + body + "\n")
    codes = [v.code for v in findings]
    assert codes.count("TL003") == 1, codes
    assert "TL004" not in codes
    message = next(v.message for v in findings if v.code == "TL003")
    assert message.startswith("Too deeply nested to analyse")


def test_the_brief_cases_report_tl003_with_a_readable_reason() -> None:
    parens = _check(HEADER + "x = " + "(" * 300 + "1" + ")" * 300 + "\n")
    assert [v.code for v in parens] == ["TL003"]
    assert "too many nested parentheses" in parens[0].message
    chain = _check(HEADER + "x = " + "+".join(["1"] * 100_000) + "\n")
    assert [v.code for v in chain] == ["TL003"]
    assert "recursion" in chain[0].message
    assert chain[0].severity == rule_by_code("TL003").severity


def test_too_complex_can_be_ignored() -> None:
    source = HEADER + "x = " + "(" * 300 + "1" + ")" * 300 + "\n"
    assert tapelsp.check_source(source, "generated.py", Settings(tensorflow_version="2.21", ignore=("TL003",))) == []


def test_too_complex_in_a_notebook_cell() -> None:
    import json

    notebook = {"cells": [
        {"cell_type": "code", "source": HEADER, "metadata": {}, "outputs": [], "execution_count": None},
        {"cell_type": "code", "source": "x = " + "+".join(["1"] * 100_000), "metadata": {}, "outputs": [],
         "execution_count": None},
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    findings = tapelsp.check_notebook(json.dumps(notebook), "deep.ipynb", SETTINGS)
    assert [v.code for v in findings] == ["TL003"]


def test_a_rule_that_recurses_too_deep_is_skipped_and_the_others_run(monkeypatch: pytest.MonkeyPatch) -> None:
    rule = rule_by_code("MAP002")

    def deep(self, ctx):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(rule, "check", deep)
    source = HEADER + CANARY_FUNCTION + "y = tf.map_fn(lambda a: a ** 2, x)\n"
    findings = [v for v in _check(source) if v.code in ("FUNC001", "MAP002", "TL003")]
    assert sorted(v.code for v in findings) == ["FUNC001", "TL003"], findings
    assert "MAP002" in next(v.message for v in findings if v.code == "TL003")


def test_deep_input_does_not_crash_the_interpreter() -> None:
    """In a fresh process (a C-stack overflow would kill it, not raise)."""
    server = Path(__file__).resolve().parents[2] / "server"
    script = (
        "import tapelsp\n"
        "sources = ['import tensorflow as tf\\nx = ' + '(' * 5000 + '1' + ')' * 5000,\n"
        "           'import tensorflow as tf\\nx = ' + '+'.join(['1'] * 300000),\n"
        "           'import tensorflow as tf\\nx = ' + '[' * 100000,\n"
        "           'import tensorflow as tf\\nx = ' + 'not ' * 200000 + 'y']\n"
        "for source in sources:\n"
        "    codes = sorted({v.code for v in tapelsp.check_source(source)})\n"
        "    assert codes in (['TL001'], ['TL003']), codes\n"
        "print('ok')\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(server), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0 and done.stdout.strip() == "ok", (done.returncode, done.stderr[-2000:])


@pytest.mark.parametrize("body", DEEP_BUT_PYTHON.values(), ids=DEEP_BUT_PYTHON.keys())
def test_deep_code_python_parses_keeps_its_findings(body: str) -> None:
    ast.parse(body)  # the premise
    findings = [v for v in _check(HEADER + CANARY_FUNCTION + body + "\n") if v.code in ("FUNC001", "TL003", "TL004")]
    assert [v.code for v in findings] == ["FUNC001"], [v.message for v in findings]
