"""`tapelsp --check -` reads standard input; `--stdin-filename` names it."""

from __future__ import annotations

import json

import pytest

from .helpers import run_in_process, run_module
from .sources import CLEAN, FUNC, MAP, PINNED_CONFIG, TAPE, codes, write_tree


@pytest.fixture(autouse=True)
def pinned_rules(tmp_path):
    write_tree(tmp_path, {})


def stdin_check(cwd, data, *args):
    return run_in_process(["--check", *args], cwd=cwd, stdin=data if isinstance(data, bytes) else data.encode())


def test_dash_reads_stdin(tmp_path):
    outcome = stdin_check(tmp_path, TAPE, "-")
    assert (outcome.code, codes(outcome.out)) == (1, ["-:7:10: TAPE001"])


def test_clean_stdin(tmp_path):
    assert stdin_check(tmp_path, CLEAN, "-") == type(stdin_check(tmp_path, CLEAN, "-"))(0, "All checks passed!\n", "")


def test_stdin_filename_names_the_file(tmp_path):
    outcome = stdin_check(tmp_path, TAPE, "-", "--stdin-filename", "src/train.py")
    assert codes(outcome.out) == ["src/train.py:7:10: TAPE001"]
    # Without `-`, --stdin-filename alone also reads stdin (as ruff does).
    assert codes(stdin_check(tmp_path, TAPE, "--stdin-filename", "train.py").out) == ["train.py:7:10: TAPE001"]


def test_stdin_filename_picks_notebook_handling(tmp_path):
    notebook = json.dumps({"cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": "x = 1\n"},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": TAPE},
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    outcome = stdin_check(tmp_path, notebook, "-", "--stdin-filename", "exp.ipynb")
    assert codes(outcome.out) == ["exp.ipynb:cell 2:7:10: TAPE001"]
    (item,) = json.loads(stdin_check(tmp_path, notebook, "-", "--stdin-filename", "exp.ipynb",
                                     "--output-format", "json").out)
    assert (item["cell"], item["location"], item["noqa_row"]) == (2, {"row": 7, "column": 10}, 7)
    # The same JSON text named .py is Python (and clean).
    assert stdin_check(tmp_path, notebook, "-", "--stdin-filename", "exp.py").code == 0


def test_stdin_filename_picks_configuration_and_per_file_ignores(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": '[tool.tapelsp]\nselect = ["TAPE001", "MAP002"]\nper-file-ignores = { "tests/*" = ["TAPE"] }\n',
        "sub/pyproject.toml": '[tool.tapelsp]\nselect = ["FUNC001"]\n',
    })
    source = TAPE + "\n\n" + FUNC.split("\n", 1)[1]
    assert codes(stdin_check(tmp_path, source, "-", "--stdin-filename", "a.py").out) == ["a.py:7:10: TAPE001"]
    assert codes(stdin_check(tmp_path, source, "-", "--stdin-filename", "tests/a.py").out) == []
    assert codes(stdin_check(tmp_path, source, "-", "--stdin-filename", "sub/a.py").out) == ["sub/a.py:15:13: FUNC001"]
    # Unnamed stdin uses the working directory's configuration.
    assert codes(stdin_check(tmp_path / "sub", source, "-").out) == ["-:15:13: FUNC001"]


def test_force_exclude_applies_to_the_stdin_filename(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": PINNED_CONFIG + 'exclude = ["gen"]\n'})
    assert stdin_check(tmp_path, TAPE, "-", "--stdin-filename", "gen/t.py").code == 1
    outcome = stdin_check(tmp_path, TAPE, "-", "--stdin-filename", "gen/t.py", "--force-exclude")
    assert (outcome.code, outcome.out) == (0, "All checks passed!\n")


def test_bad_stdin_is_one_tl002(tmp_path):
    outcome = stdin_check(tmp_path, b"x = '\xe9'\n", "-", "--stdin-filename", "bad.py")
    assert outcome.code == 1
    assert outcome.out == ("bad.py:1:1: TL002 Cannot read file: it is not valid UTF-8 (byte 0xe9 at line 1, byte 6 "
                           "of the line); save it as UTF-8 or declare its encoding with a `# -*- coding: ... -*-` "
                           "line.\nFound 1 error.\n")
    outcome = stdin_check(tmp_path, b'{"cells": ', "-", "--stdin-filename", "bad.ipynb")
    assert codes(outcome.out) == ["bad.ipynb:1:1: TL002"]


def test_empty_stdin_is_clean(tmp_path):
    assert stdin_check(tmp_path, b"", "-").out == "All checks passed!\n"


def test_crlf_and_bom_on_stdin(tmp_path):
    data = b"\xef\xbb\xbf" + MAP.replace("\n", "\r\n").encode()
    assert codes(stdin_check(tmp_path, data, "-").out) == ["-:5:12: MAP002"]


def test_stdin_in_a_fresh_interpreter(tmp_path):
    outcome = run_module(["--check", "-", "--stdin-filename", "t.py", "--output-format", "github"], cwd=tmp_path,
                         stdin=TAPE.encode())
    assert outcome.code == 1
    assert outcome.err == ""
    assert outcome.out.startswith("::error title=tapelsp (TAPE001),file=t.py,line=7,col=10,endLine=7,endColumn=35::")
