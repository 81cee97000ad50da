"""What users see when things go wrong: one line, the right exit code, never a traceback.

These run `python -m tapelsp` in a fresh interpreter, as users do.
"""

from __future__ import annotations

import pytest

from .helpers import run_in_process, run_module
from .sources import TAPE, codes, write_tree

TOO_DEEP = "import tensorflow as tf\nx = " + "+".join(["1"] * 200_000) + "\ny = tf.constant(x)\n"
TOO_MANY_PARENS = "import tensorflow as tf\nx = " + "(" * 300 + "1" + ")" * 300 + "\n"


def assert_one_error_line(outcome, start):
    assert "Traceback" not in outcome.err and "Traceback" not in outcome.out
    assert outcome.err.startswith(start), outcome.err
    assert outcome.err.endswith("\n") and outcome.err.count("\n") == 1, outcome.err


@pytest.mark.parametrize("source, fragment", [
    (TOO_DEEP, "Too deeply nested to analyse"),
    (TOO_MANY_PARENS, "Too deeply nested to analyse (too many nested parentheses)"),
], ids=["200000-terms", "300-parentheses"])
def test_nesting_too_deep_for_the_parser_is_tl003(tmp_path, source, fragment):
    write_tree(tmp_path, {"deep.py": source, "ok.py": TAPE})
    outcome = run_module(["--check", "."], cwd=tmp_path)
    assert (outcome.code, outcome.err) == (1, "")
    assert codes(outcome.out) == ["deep.py:1:1: TL003", "ok.py:7:10: TAPE001"]
    assert fragment in outcome.out
    assert "Traceback" not in outcome.out


@pytest.mark.parametrize("args, files, start", [
    (["--check", "missing.py"], {}, "error: missing.py: no such file or directory"),
    (["--check", "."], {"pyproject.toml": "[tool.tapelsp]\nbogus = 1\n", "t.py": TAPE}, "error: "),
    (["--check", "."], {"pyproject.toml": "[tool.tapelsp\n", "t.py": TAPE}, "error: "),
    (["--check", "--select", "NOPE"], {}, "error: --select: unknown rule code or prefix 'NOPE'"),
    (["--explain", "NOPE1"], {}, "error: unknown rule code 'NOPE1'"),
    (["--check", "--config", "nope.toml"], {}, "error: cannot read "),
])
def test_usage_and_configuration_errors(tmp_path, args, files, start):
    write_tree(tmp_path, files)
    outcome = run_module(args, cwd=tmp_path)
    assert (outcome.code, outcome.out) == (2, "")
    assert_one_error_line(outcome, start)


def test_argparse_errors_exit_2_without_traceback(tmp_path):
    outcome = run_module(["--check", "--output-format", "xml"], cwd=tmp_path)
    assert outcome.code == 2
    assert "Traceback" not in outcome.err
    assert "invalid choice: 'xml'" in outcome.err


def test_no_mode_serves_lsp_and_ends_quietly_at_end_of_input(tmp_path):
    # Without --check tapelsp is the language server; a client that goes away without
    # `shutdown` ends it with exit code 1 (LSP), no output on stdout and no traceback.
    outcome = run_module([], cwd=tmp_path)
    assert (outcome.code, outcome.out) == (1, "")
    assert "Traceback" not in outcome.err


def test_bad_files_in_a_fresh_interpreter(tmp_path):
    write_tree(tmp_path, {"bin.py": b"\x00\x01\x02", "latin.py": b"x = '\xe9'\n", "nb.ipynb": "{", "empty.py": ""})
    outcome = run_module(["--check", "."], cwd=tmp_path)
    assert (outcome.code, outcome.err) == (1, "")
    assert codes(outcome.out) == ["bin.py:1:1: TL002", "latin.py:1:1: TL002", "nb.ipynb:1:1: TL002"]


BROKEN_ENGINE = """\
import tapelsp.files
def broken(*args, **kwargs):
    raise KeyError("planted fault")
tapelsp.files.check_source = broken
"""


def test_an_engine_crash_is_tl004_and_exit_2(tmp_path):
    write_tree(tmp_path, {"a.py": TAPE, "b.py": TAPE})
    outcome = run_module(["--check", ".", "--exit-zero"], cwd=tmp_path, prelude=BROKEN_ENGINE)
    assert outcome.code == 2
    assert codes(outcome.out) == ["a.py:1:1: TL004", "b.py:1:1: TL004"]
    assert "Internal error while checking this file (KeyError: 'planted fault' at " in outcome.out
    assert_one_error_line(outcome, "error: tapelsp failed internally on 2 files (a.py, b.py); see the TL004 findings")


def test_a_rule_crash_reported_by_the_engine_is_exit_2(tmp_path, monkeypatch):
    import tapelsp.files
    from tapelsp.engine import meta_violation

    def engine_with_a_broken_rule(text, path=None, settings=None, targets=None, **kwargs):
        return [meta_violation("TL004", "Internal error in rule TAPE001 (ValueError: boom)", None, settings, path)]

    monkeypatch.setattr(tapelsp.files, "check_source", engine_with_a_broken_rule)
    write_tree(tmp_path, {"a.py": TAPE})
    outcome = run_in_process(["--check", "."], cwd=tmp_path)
    assert outcome.code == 2
    assert outcome.out == "a.py:1:1: TL004 Internal error in rule TAPE001 (ValueError: boom)\nFound 1 error.\n"
    assert outcome.err == "error: tapelsp failed internally on 1 file (a.py); see the TL004 findings\n"


def test_recursion_error_escaping_the_engine_is_tl003(tmp_path, monkeypatch):
    import tapelsp.files

    def too_deep(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(tapelsp.files, "check_source", too_deep)
    write_tree(tmp_path, {"a.py": TAPE})
    outcome = run_in_process(["--check", "."], cwd=tmp_path)
    assert (outcome.code, outcome.err) == (1, "")
    assert codes(outcome.out) == ["a.py:1:1: TL003"]


CRASHING_CLI = """\
import tapelsp.cli.main
def broken(*args, **kwargs):
    raise RuntimeError("planted CLI fault")
tapelsp.cli.main.collect = broken
"""


def test_an_unexpected_cli_error_is_one_line_and_exit_2(tmp_path):
    outcome = run_module(["--check", "."], cwd=tmp_path, prelude=CRASHING_CLI)
    assert (outcome.code, outcome.out) == (2, "")
    assert_one_error_line(outcome, "error: internal error: RuntimeError: planted CLI fault (please report this")


def test_interrupt_is_exit_2(tmp_path, monkeypatch):
    import tapelsp.cli.main

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(tapelsp.cli.main, "collect", interrupted)
    outcome = run_in_process(["--check", "."], cwd=tmp_path)
    assert (outcome.code, outcome.out, outcome.err) == (2, "", "error: interrupted\n")


def test_closed_stdout_pipe(tmp_path):
    """`tapelsp --check . | head -1`: no BrokenPipeError traceback."""
    import subprocess
    import sys

    from .helpers import subprocess_env

    write_tree(tmp_path, {f"m{index}.py": TAPE for index in range(300)})
    command = f"{sys.executable} -m tapelsp --check . -j1 | head -1"
    proc = subprocess.run(command, shell=True, cwd=tmp_path, capture_output=True, env=subprocess_env(), timeout=300)
    assert proc.stdout.decode().startswith("m0.py:7:10: TAPE001")
    assert b"Traceback" not in proc.stderr and b"BrokenPipe" not in proc.stderr
