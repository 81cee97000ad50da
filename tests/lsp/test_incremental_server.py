"""The server's incremental analysis as an editor sees it: after an edit in one place the
findings elsewhere move with their code, and fixes built for them before are kept."""

from __future__ import annotations

import asyncio

import pytest

from . import editing
from .conftest import codes, uri_in
from .samples import BOTH, LEARNER_FIXED

pytestmark = pytest.mark.asyncio

TOP = "\n\ndef unrelated():\n    return 1\n"


async def _document(editor, uri: str) -> dict:
    status = await editor.status()
    return next(entry for entry in status["documents"] if entry["uri"] == uri)


async def test_fixes_are_built_ahead_and_kept_when_an_edit_moves_their_findings(start_editor, tmp_path):
    editor = await start_editor("vscode")
    uri = uri_in(tmp_path, "both.py")
    editor.open(uri, BOTH)
    found = await editor.diagnostics(uri)
    fixable = [d for d in found if (d.data or {}).get("fixable")]
    assert {d.code for d in fixable} >= {"FUNC001", "TAPE001"}
    # Once the document is quiet, every fix is built ahead of time.
    for _ in range(600):
        if (await _document(editor, uri))["fixesBuilt"] >= len(fixable):
            break
        await asyncio.sleep(0.1)
    else:
        pytest.fail("the fixes were not built ahead of time")
    # A function added at the top: every finding moves two lines down, none is analysed
    # again, and their fixes come with the new diagnostics (nothing is built for them again).
    editor.insert(uri, "import tensorflow as tf\n", TOP, after=True)
    moved = await editor.diagnostics(uri, 2)
    assert [(d.code, d.range.start.line) for d in moved] == [(d.code, d.range.start.line + 4) for d in found]
    assert (await _document(editor, uri))["fixesBuilt"] == len(fixable)
    actions = await editor.code_actions(uri, editor.at(uri, "tf.Variable("))
    (fix,) = [a for a in actions if a.title.startswith("Create the tf.Variable once")]
    fixed = editor.apply(uri, editing.edits_for(fix.edit, uri))
    expected_learner = LEARNER_FIXED.replace("import tensorflow as tf\n", "import tensorflow as tf\n" + TOP, 1)
    assert fixed.startswith(expected_learner.rstrip("\n"))
    assert "FUNC001" not in codes(await editor.diagnostics(uri))


STEP = """import tensorflow as tf


def step(x):
    v = tf.Variable(0.0)
    return x + v
"""


async def test_an_edit_that_ties_a_finding_to_new_code_analyses_it_again(start_editor, tmp_path):
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path, "step.py")
    editor.open(uri, STEP)
    assert codes(await editor.diagnostics(uri)) == []
    # a statement added below makes `step` a tf.function: its unchanged body is analysed again
    editor.insert(uri, "    return x + v\n", "\n\nfast = tf.function(step)\n", after=True)
    assert codes(await editor.diagnostics(uri, 2)) == ["FUNC001"]
    editor.substitute(uri, "fast = tf.function(step)", "fast = step")
    assert codes(await editor.diagnostics(uri, 3)) == []


async def test_a_cell_edit_leaves_the_other_cells_findings_as_a_fresh_analysis_gives_them(start_editor, tmp_path):
    from .test_notebooks import IMPORTS, MARKDOWN, STEP as CELL_STEP, TAPES, Notebook

    editor = await start_editor("vscode")
    cells = [("code", IMPORTS), ("markup", MARKDOWN), ("code", CELL_STEP), ("code", TAPES)]
    notebook = Notebook(editor, tmp_path / "train.ipynb", cells)
    before = await notebook.diagnostics(3)
    assert codes(before) == ["TAPE001", "TAPE002"] and any("of cell 4" in d.message for d in before)
    # two lines more in the third cell: every later line of the joined program moves
    notebook.set_text(2, "# a comment\n# and another\n" + CELL_STEP)
    (variable,) = await notebook.diagnostics(2)
    assert variable.range.start == notebook.at(2, "tfk.Variable(")
    after = await notebook.diagnostics(3)
    assert [(d.code, d.range, d.message) for d in after] == [(d.code, d.range, d.message) for d in before]
    fresh = Notebook(editor, tmp_path / "fresh.ipynb",
                     [(kind, notebook.texts[uri]) for (uri, _), (kind, _text) in zip(notebook.cells, cells)])
    for index in (2, 3):
        assert [(d.code, d.range, d.message) for d in await fresh.diagnostics(index)] == \
            [(d.code, d.range, d.message) for d in await notebook.diagnostics(index)]


async def test_nothing_is_kept_per_change(start_editor, tmp_path):
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path, "step.py")
    editor.open(uri, STEP)
    await editor.diagnostics(uri)
    for number in range(60):
        editor.insert(uri, "    return x + v\n", f"    # note {number}\n")
    await editor.diagnostics(uri, 61)
    status = await editor.status()
    assert status["inFlight"] <= 2, status["inFlight"]  # this status request, at most one more
