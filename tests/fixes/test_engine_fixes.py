"""How the engine builds fixes: lazily, only when asked, never a broken one; and fixing to a fixpoint."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

import tapelsp
from tapelsp import engine
from tapelsp.fixes import apply_fixes, apply_notebook_fixes, fix_text, notebook_json
from tapelsp.model import Applicability, Edit, Fix, Position, Range, Severity
from tapelsp.rules.base import Context, Rule

SERVER = Path(__file__).resolve().parents[2] / "server"


class FakeRule(Rule):
    """
    ## What it does
    Test rule.

    ## Why is this bad?
    Test.

    ## Example
    x

    ## Use instead
    y
    """

    code = "ZZZ001"
    name = "fake-rule"
    summary = "A rule for tests"
    severity = Severity.WARNING
    triggers = ("OLD",)
    fixable = True
    # What the check offers for each `OLD` on a line: set by each test.
    offer = None
    calls: list[int] = []

    def check(self, ctx: Context) -> None:
        for line, text in enumerate(ctx.facts.source.lines):
            column = text.find("OLD")
            if column < 0:
                continue
            rng = Range(Position(line, column), Position(line, column + 3))
            ctx.report(rng, "OLD found", fix=type(self).offer(rng) if type(self).offer else None)


def _forget_rule_instances() -> None:
    cached = getattr(engine, "_rules_for", None)  # the engine keeps rule instances per target versions
    if cached is not None and hasattr(cached, "cache_clear"):
        cached.cache_clear()


@pytest.fixture()
def fake(monkeypatch):
    monkeypatch.setattr(engine, "all_rules", lambda: [FakeRule])
    _forget_rule_instances()
    FakeRule.calls = []
    yield FakeRule
    FakeRule.offer = None
    monkeypatch.undo()
    _forget_rule_instances()


def replace_with(new: str, applicability=Applicability.SAFE):
    def offer(rng: Range):
        def build():
            FakeRule.calls.append(rng.start.line)
            return Fix(f"Use {new}", applicability, (Edit(rng, new),))
        return build
    return offer


def test_a_builder_runs_only_when_fixes_are_asked_for(fake):
    fake.offer = replace_with("NEW")
    text = "OLD = 1\n"
    [found] = tapelsp.check_source(text)
    assert found.fix is None and fake.calls == []
    [found] = tapelsp.check_source(text, fixes=True)
    assert found.fix is not None and found.fix.edits == (Edit(Range(Position(0, 0), Position(0, 3)), "NEW"),)
    assert fake.calls == [0]


def test_a_plain_fix_is_accepted_too_but_only_given_out_with_fixes(fake):
    fake.offer = lambda rng: Fix("Use NEW", Applicability.SAFE, (Edit(rng, "NEW"),))
    assert tapelsp.check_source("OLD = 1\n")[0].fix is None
    assert tapelsp.check_source("OLD = 1\n", fixes=True)[0].fix.title == "Use NEW"


def test_suppressed_findings_never_build_their_fix(fake):
    fake.offer = replace_with("NEW")
    found = tapelsp.check_source("OLD = 1  # tapelsp: ignore[ZZZ001]\nOLD = 2\n", fixes=True)
    assert [v.range.start.line for v in found] == [1]
    assert fake.calls == [1]


def test_a_builder_that_raises_costs_the_fix_only(fake, caplog):
    def offer(rng):
        def build():
            raise KeyError("boom")
        return build
    fake.offer = offer
    with caplog.at_level(logging.WARNING, logger="tapelsp.fixes"):
        [found] = tapelsp.check_source("OLD = 1\n", "f.py", fixes=True)
    assert found.code == "ZZZ001" and found.fix is None
    assert "building the fix failed (KeyError: 'boom'" in found.fix_error
    assert "f.py:1: ZZZ001 fix dropped" in caplog.text


def test_a_fix_that_would_not_parse_is_dropped(fake):
    fake.offer = replace_with("(")
    [found] = tapelsp.check_source("OLD = 1\n", fixes=True)
    assert found.fix is None and found.fix_error.startswith("the fixed code would not parse")
    # ... and with a file that does not parse anyway, the reason says so.
    found = [v for v in tapelsp.check_source("OLD = 1\nx = (\n", fixes=True) if v.code == "ZZZ001"]
    assert found and found[0].fix is None and "does not parse" in found[0].fix_error


def test_a_builder_may_decline(fake):
    fake.offer = lambda rng: (lambda: None)
    [found] = tapelsp.check_source("OLD = 1\n", fixes=True)
    assert found.fix is None and found.fix_error is None


def test_edits_that_do_not_fit_are_dropped(fake):
    fake.offer = lambda rng: (lambda: Fix("bad", Applicability.SAFE, (Edit(Range(Position(9, 0), Position(9, 1)), ""),)))
    [found] = tapelsp.check_source("OLD = 1\n", fixes=True)
    assert found.fix is None and "do not fit" in found.fix_error


def test_fixpoint_with_overlapping_fixes_takes_rounds(fake):
    # Each fix rewrites the whole line; two findings on one line overlap: one per round.
    def offer(rng):
        def build():
            return Fix("NEW", Applicability.SAFE, (Edit(Range(Position(rng.start.line, 0),
                                                                Position(rng.start.line, rng.end.column)), "NEW"),))
        return build
    fake.offer = offer
    result = apply_fixes("OLD + OLD + OLD\n")
    assert result.text == "NEW + NEW + NEW\n" or result.text.count("OLD") == 0
    assert len(result.rounds) >= 2 and len(result.fixed) == 3 and not result.remaining


def test_unsafe_fixes_only_on_request(fake):
    fake.offer = replace_with("NEW", Applicability.UNSAFE)
    assert apply_fixes("OLD = 1\n").text == "OLD = 1\n"
    result = apply_fixes("OLD = 1\n", unsafe=True)
    assert result.text == "NEW = 1\n" and result.changed and not result.remaining


def test_when_fixes_together_do_not_parse_the_sound_ones_are_kept():
    def check(text):
        if text != "a = 1\nb = 2\n":
            return []
        fix_a = Fix("a", Applicability.SAFE, (Edit(Range(Position(0, 4), Position(0, 5)), "(1)"),))
        fix_c = Fix("c", Applicability.SAFE, (Edit(Range(Position(1, 4), Position(1, 5)), "(2"),))
        make = lambda fix, line: tapelsp.Violation("X1", "x", "m", Range(Position(line, 0), Position(line, 1)),
                                                  Severity.ERROR, fix)
        return [make(fix_a, 0), make(fix_c, 1)]

    result = fix_text("a = 1\nb = 2\n", check)
    assert result.text == "a = (1)\nb = 2\n"
    assert [v.fix.title for v in result.fixed] == ["a"]
    assert len(result.problems) == 1 and "line 2" in result.problems[0] and "would not parse" in result.problems[0]


def test_rounds_are_bounded():
    def check(text):  # a fix that never settles
        return [tapelsp.Violation("X1", "x", "m", Range(Position(0, 0), Position(0, 1)), Severity.ERROR,
                                  Fix("grow", Applicability.SAFE, (Edit(Range(Position(0, 0), Position(0, 0)), "x"),)))]
    result = fix_text("y = 1\n", check, max_rounds=4)
    assert result.text == "xxxxy = 1\n" and len(result.rounds) == 4 and result.remaining


NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Title\n"]},
        {"cell_type": "code", "execution_count": None, "metadata": {"tags": ["keep"]}, "outputs": [],
         "source": ["%matplotlib inline\n", "import tensorflow as tf\n"]},
        {"cell_type": "code", "execution_count": 3, "metadata": {}, "outputs": [{"output_type": "stream",
                                                                                 "name": "stdout", "text": ["hi\n"]}],
         "source": ["x = tf.constant(3.0)\n", "with tf.GradientTape() as tape:\n", "    tape.watch(x)\n",
                    "    y = x * x\n", "    with tf.GradientTape() as tape:\n", "        dy = tape.gradient(y, x)"]},
    ],
    "metadata": {"kernelspec": {"name": "python3"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def test_notebook_fixes_apply_to_the_cells():
    text = json.dumps(NOTEBOOK, indent=1, ensure_ascii=False) + "\n"
    found = tapelsp.check_notebook(text, fixes=True)
    [tape] = [v for v in found if v.code == "TAPE001"]
    assert tape.cell == 3 and tape.fix is not None
    assert all(e.range.start.line < 6 for e in tape.fix.edits)  # relative to the cell
    result = apply_notebook_fixes(text)
    assert result.changed and list(result.cells) == [3]
    cell = result.notebook["cells"][2]
    assert "".join(cell["source"]).endswith("    y = x * x\n    dy = tape.gradient(y, x)")
    assert isinstance(cell["source"], list) and cell["outputs"] == NOTEBOOK["cells"][2]["outputs"]
    assert result.notebook["cells"][1] == NOTEBOOK["cells"][1]  # the magic line is untouched
    written = notebook_json(result.notebook, like=text)
    assert json.loads(written)["metadata"] == NOTEBOOK["metadata"]
    assert written.splitlines()[1].startswith(' "cells"')  # nbformat's one-space indentation kept
    # Unchanged notebooks serialise to exactly what they were.
    assert notebook_json(json.loads(text), like=text) == text


def test_a_fix_touching_a_magic_line_is_not_offered(fake):
    FakeRule.offer = lambda rng: (lambda: Fix("x", Applicability.SAFE,
                                              (Edit(Range(Position(rng.start.line - 1, 0), Position(rng.start.line, 3)),
                                                    "NEW"),)))
    try:
        notebook = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                               "source": "%time\nOLD = 1\n"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        [found] = tapelsp.check_notebook(notebook, fixes=True)
        assert found.fix is None and "IPython syntax" in found.fix_error
    finally:
        FakeRule.offer = None


def test_checking_without_fixes_never_imports_libcst(tmp_path):
    source = (Path(__file__).resolve().parents[2] / "server/tapelsp/rules/tape/tape001_shadowed_tape.py")
    assert source.exists()
    script = (
        "import sys, tapelsp\n"
        "from tapelsp.rules import all_rules\n"
        "for rule in all_rules():\n"
        "    for example in rule.examples:\n"
        "        tapelsp.check_source(example.source, 'example.py')\n"
        "assert 'libcst' not in sys.modules, 'libcst imported by detection'\n"
        "tapelsp.check_source(all_rules()[0].examples[0].source if False else "
        "'import tensorflow as tf\\n@tf.function\\ndef f(x):\\n    v = tf.Variable(1.0)\\n    return v\\n', fixes=True)\n"
        "assert 'libcst' in sys.modules\n"
        "print('ok')\n"
    )
    env = {"PYTHONPATH": str(SERVER), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
