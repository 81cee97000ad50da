"""Notebooks: every code cell checked as one program, findings mapped back to cell and row."""

from __future__ import annotations

import json

import pytest

import tapelsp
from tapelsp import Settings
from tapelsp.notebook import neutralise_magics

SETTINGS = Settings(tensorflow_version="2.21")
# A non-conventional alias: only the import in another cell makes `T` TensorFlow.
IMPORT = "import tensorflow as T\n"
FUNC = "@T.function\ndef f(x):\n    v = T.Variable(1.0)\n    return v * x\n"


def notebook(*cells, as_lists: bool = False) -> str:
    out = []
    for cell in cells:
        kind, source = cell if isinstance(cell, tuple) else ("code", cell)
        entry = {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True) if as_lists else source}
        if kind == "code":
            entry.update(outputs=[], execution_count=None)
        out.append(entry)
    return json.dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


# The codes these tests are about (other rules may have their own opinions on the cells).
WATCHED = ("FUNC001", "TL")


def found(text, settings: Settings = SETTINGS) -> list[tuple[int | None, int, int, str]]:
    """(cell, 1-based row, 1-based column, code) of each finding."""
    return [(v.cell, v.range.start.line + 1, v.range.start.column + 1, v.code)
            for v in tapelsp.check_notebook(text, "analysis.ipynb", settings) if v.code.startswith(WATCHED)]


def test_findings_are_mapped_to_their_cell_and_row() -> None:
    text = notebook(("markdown", "# Training\nsome `tf.Variable` prose"), IMPORT, "x = 1\n" + FUNC, FUNC)
    # cells are numbered among all cells, markdown included (as ruff does)
    assert found(text) == [(3, 4, 9, "FUNC001"), (4, 3, 9, "FUNC001")]


def test_cross_cell_names() -> None:
    assert found(notebook(IMPORT, FUNC)) == [(2, 3, 9, "FUNC001")]
    # without the import cell `T` is nothing
    assert found(notebook("import numpy as np\n", FUNC)) == []


def test_source_as_a_list_of_lines_and_as_a_dict() -> None:
    text = notebook(IMPORT, FUNC, as_lists=True)
    assert found(text) == [(2, 3, 9, "FUNC001")]
    assert found(json.loads(text)) == [(2, 3, 9, "FUNC001")]
    assert found(text.encode("utf-8")) == [(2, 3, 9, "FUNC001")]


@pytest.mark.parametrize("magics", [
    "%matplotlib inline\n",
    "!pip install tensorflow\n",
    "files = !ls -la\n",
    "out = %timeit -o T.constant(1.0)\n",
    "a, b = !echo 1 2\n",
    "T.function?\n",
    "T.function??\n",
    "?T.function\n",
    "%pinfo T.function\n",
    "%config InlineBackend.figure_format = \\\n    'retina'\n",
    "!pip install \\\n    tensorflow\n",
    "for i in range(2):\n    %time T.constant(i)\n    !echo {i}\n",
    "if True:\n    !ls\n",
])
def test_magics_are_neutralised(magics: str) -> None:
    text = notebook(IMPORT + magics + FUNC)
    row = 1 + magics.count("\n") + 3
    assert found(text) == [(1, row, 9, "FUNC001")]


def test_neutralised_cell_keeps_its_line_count_and_parses() -> None:
    import ast

    cell = "%matplotlib inline\nx = !ls\nT?\n%config A = \\\n    1\ny = 2\n"
    out = neutralise_magics(cell)
    assert out.count("\n") == cell.count("\n")
    ast.parse(out)
    assert out.splitlines()[-1] == "y = 2"


@pytest.mark.parametrize("magic", ["%%bash", "%%sh", "%%script python", "%%writefile train.py", "%%html",
                                   "%%javascript", "%%latex", "%%markdown"])
def test_cells_in_another_language_are_skipped(magic: str) -> None:
    assert found(notebook(IMPORT, f"{magic}\n{FUNC}")) == []


@pytest.mark.parametrize("magic", ["%%time", "%%timeit -n 1 -r 1", "%%capture output", "%%prun"])
def test_python_cell_magics_are_kept(magic: str) -> None:
    # the magic line is row 1, so the finding is one row further down
    assert found(notebook(IMPORT, f"{magic}\n{FUNC}")) == [(2, 4, 9, "FUNC001")]


def test_cells_without_trailing_newline() -> None:
    assert found(notebook(IMPORT.rstrip(), FUNC.rstrip(), FUNC.rstrip())) == [(2, 3, 9, "FUNC001"),
                                                                                (3, 3, 9, "FUNC001")]


def test_raw_and_markdown_cells_are_not_code() -> None:
    assert found(notebook(("raw", "import tensorflow as T\n" + FUNC), ("markdown", FUNC), IMPORT)) == []


def test_non_ascii_columns_in_a_cell() -> None:
    cell = '@T.function\ndef f(x):\n    s = "中文🙂"; v = T.Variable(1.0)\n    return v * x\n'
    # `    s = "中文🙂"; v = ` is 19 code points (🙂 is one, though two UTF-16 units and four
    # UTF-8 bytes): the finding starts at column 20
    assert found(notebook(IMPORT, cell)) == [(2, 3, 20, "FUNC001")]


def test_related_locations_and_messages_name_the_cell() -> None:
    tape_cell = ("with tf.GradientTape() as tape:\n    tape.watch(x)\n    y = x * x\n"
                 "    with tf.GradientTape() as tape:\n        dy = tape.gradient(y, x)\n")
    findings = tapelsp.check_notebook(notebook("import tensorflow as tf\nx = tf.constant(3.0)\n", tape_cell),
                                      "n.ipynb", SETTINGS)
    tape = [v for v in findings if v.code == "TAPE001"]
    assert len(tape) == 1 and tape[0].cell == 2 and tape[0].range.start.line == 3
    assert "of cell 2" in tape[0].message
    assert tape[0].related and all(r.range.start.line < 5 for r in tape[0].related)


# --- syntax errors in cells ------------------------------------------------------------------

@pytest.mark.parametrize("broken", [
    "def broken(:\n    pass\n",
    "y = T.square(\n",
    "x = 1 + \\\n",
    "if x:\n",
    's = """never closed\n',
    "x = [1, 2\n",
])
def test_a_syntax_error_in_one_cell_keeps_the_other_cells(broken: str) -> None:
    """Jupyter compiles each cell alone: the error is in its own cell, once, where Python points."""
    import ast

    with pytest.raises(SyntaxError) as python:
        ast.parse(broken)
    row, column = python.value.lineno, python.value.offset
    got = found(notebook(IMPORT + FUNC, broken, FUNC))
    assert got == [(1, 4, 9, "FUNC001"), (2, row, column, "TL001"), (3, 3, 9, "FUNC001")]


def test_a_broken_cell_completed_by_the_next_one_is_still_broken() -> None:
    """Joined, `y = T.square(x,` and `1.0)` parse; Jupyter runs them apart, and both fail."""
    import ast

    where = []
    for cell in ("y = T.square(x,\n", "1.0)\n"):
        with pytest.raises(SyntaxError) as python:
            ast.parse(cell)
        where.append((python.value.lineno, python.value.offset))
    got = found(notebook(IMPORT + FUNC, "y = T.square(x,\n", "1.0)\n"))
    assert got == [(1, 4, 9, "FUNC001"), (2, *where[0], "TL001"), (3, *where[1], "TL001")]


def test_an_indented_cell_is_dedented_as_ipython_does() -> None:
    assert found(notebook(IMPORT + FUNC, "    x = 1\n    y = 2\n", FUNC)) == [(1, 4, 9, "FUNC001"),
                                                                              (3, 3, 9, "FUNC001")]


def test_syntax_error_inside_a_cell_keeps_the_rest_of_that_cell() -> None:
    cell = FUNC + "\ny = T.square(\n\n" + FUNC.replace("def f", "def g")
    assert found(notebook(IMPORT, cell)) == [(2, 3, 9, "FUNC001"), (2, 6, 13, "TL001"), (2, 10, 9, "FUNC001")]


def test_cell_syntax_errors_respect_settings_and_noqa() -> None:
    text = notebook(IMPORT + FUNC, "x = 1 + \\\n")
    assert found(text, Settings(tensorflow_version="2.21", ignore=("TL001",))) == [(1, 4, 9, "FUNC001")]
    suppressed = notebook(IMPORT + FUNC, "y = T.square(  # noqa: TL001\n")
    assert found(suppressed) == [(1, 4, 9, "FUNC001")]


# --- what is not a notebook ---------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    '{"cells": [', "", "not json at all", "[1, 2]", '{"cells": 3}', '{"nbformat": 4}',
    '{"cells": [{"cell_type": "code", "source": [1, 2]}]}', '{"cells": [7]}',
    '{"cells": [{"cell_type": "code", "source": 5}]}', b"\xff\xfe\x00binary",
])
def test_unreadable_notebooks_give_tl002(text) -> None:
    findings = tapelsp.check_notebook(text, "broken.ipynb", SETTINGS)
    assert [v.code for v in findings] == ["TL002"]
    assert findings[0].message.startswith("Cannot read notebook")


def test_tl002_can_be_ignored() -> None:
    assert tapelsp.check_notebook('{"cells": [', "b.ipynb", Settings(ignore=("TL002",))) == []


@pytest.mark.parametrize("text", ['{"cells": []}', notebook(("markdown", "tf.Variable"))])
def test_notebooks_without_code(text: str) -> None:
    assert tapelsp.check_notebook(text, "empty.ipynb", SETTINGS) == []


def test_suppression_in_a_cell() -> None:
    cell = FUNC.replace("T.Variable(1.0)", "T.Variable(1.0)  # tapelsp: ignore[FUNC001]")
    assert found(notebook(IMPORT, cell, FUNC)) == [(3, 3, 9, "FUNC001")]
