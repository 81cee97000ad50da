"""Quick fixes, "ignore on this line" and fix-all, applied the way an editor applies them."""

from __future__ import annotations

import pytest
from lsprotocol import types

from . import editing
from .conftest import codes, uri_in
from .samples import BOTH, LEARNER, LEARNER_FIXED, NESTED_TAPES, NESTED_TAPES_FIXED

pytestmark = pytest.mark.asyncio


def titled(actions: list[types.CodeAction], start: str) -> types.CodeAction:
    (action,) = [a for a in actions if a.title.startswith(start)]
    return action


@pytest.mark.parametrize("name", ["vscode", "neovim-0.9", "emacs-29"])
async def test_quick_fix_gives_the_fixed_text_and_the_finding_goes(start_editor, tmp_path, name):
    editor = await start_editor(name)
    uri = uri_in(tmp_path, "learner.py")
    editor.open(uri, LEARNER)
    assert codes(await editor.diagnostics(uri)) == ["FUNC001"]
    actions = await editor.code_actions(uri, editor.at(uri, "Variable"))
    fix = titled(actions, "Create the tf.Variable once")
    assert fix.kind == types.CodeActionKind.QuickFix
    assert fix.is_preferred is True  # the fix is safe
    assert [d.code for d in fix.diagnostics] == ["FUNC001"]
    fixed = editor.apply(uri, editing.edits_for(fix.edit, uri))
    assert fixed == LEARNER_FIXED
    assert await editor.diagnostics(uri) == []


async def test_quick_fix_for_the_shadowing_inner_tape(start_editor, tmp_path):
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path, "tapes.py")
    editor.open(uri, NESTED_TAPES)
    assert codes(await editor.diagnostics(uri)) == ["TAPE001", "TAPE002"]
    actions = await editor.code_actions(uri, editor.at(uri, "tf.GradientTape() as tape", nth=1))
    fix = titled(actions, "Give the inner tape its own name")
    assert editor.apply(uri, editing.edits_for(fix.edit, uri)) == NESTED_TAPES_FIXED
    assert await editor.diagnostics(uri) == []


@pytest.mark.parametrize("name", ["vscode", "neovim-0.9"])
async def test_ignore_comment_silences_the_finding(start_editor, tmp_path, name):
    editor = await start_editor(name)
    uri = uri_in(tmp_path, "learner.py")
    editor.open(uri, LEARNER)
    await editor.diagnostics(uri)
    actions = await editor.code_actions(uri, editor.at(uri, "tf.Variable("))
    ignore = titled(actions, "Ignore FUNC001 on this line")
    assert ignore.kind == types.CodeActionKind.QuickFix and not ignore.is_preferred
    text = editor.apply(uri, editing.edits_for(ignore.edit, uri))
    assert "        step = tf.Variable(0, dtype=tf.int64)  # tapelsp: ignore[FUNC001]\n" in text
    assert text.replace("  # tapelsp: ignore[FUNC001]", "") == LEARNER
    assert await editor.diagnostics(uri) == []


async def test_ignore_adds_to_an_existing_directive(start_editor, tmp_path):
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path, "learner.py")
    editor.open(uri, LEARNER.replace("tf.int64)\n", "tf.int64)  # tapelsp: ignore[TAPE001]\n"))
    await editor.diagnostics(uri)
    ignore = titled(await editor.code_actions(uri, editor.at(uri, "tf.Variable(")), "Ignore FUNC001")
    text = editor.apply(uri, editing.edits_for(ignore.edit, uri))
    assert "# tapelsp: ignore[TAPE001, FUNC001]\n" in text
    assert await editor.diagnostics(uri) == []


async def test_no_actions_away_from_findings(start_editor, tmp_path):
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path, "learner.py")
    editor.open(uri, LEARNER)
    await editor.diagnostics(uri)
    assert await editor.code_actions(uri, editor.at(uri, "self.model = model")) == []


@pytest.mark.parametrize("name", ["vscode", "emacs-29"])  # resolved lazily; computed at once
async def test_fix_all_applies_every_safe_fix(start_editor, tmp_path, name):
    editor = await start_editor(name)
    uri = uri_in(tmp_path, "both.py")
    editor.open(uri, BOTH)
    assert codes(await editor.diagnostics(uri)) == ["FUNC001", "TAPE001", "TAPE002"]
    actions = await editor.code_actions(uri, types.Position(line=0, character=0), only=["source.fixAll"])
    (fix_all,) = actions
    assert fix_all.kind == "source.fixAll.tapelsp"
    if name == "vscode":
        assert fix_all.edit is None  # VS Code resolves code actions: the edit comes on resolve
    fix_all = await editor.resolved(fix_all)
    text = editor.apply(uri, editing.edits_for(fix_all.edit, uri))
    assert text == LEARNER_FIXED + "\n\n" + NESTED_TAPES_FIXED.split("\n", 1)[1]
    assert await editor.diagnostics(uri) == []


async def test_fix_all_resolve_refuses_a_stale_document(start_editor, tmp_path):
    editor = await start_editor("vscode")
    uri = uri_in(tmp_path, "both.py")
    editor.open(uri, BOTH)
    await editor.diagnostics(uri)
    (fix_all,) = await editor.code_actions(uri, types.Position(line=0, character=0), only=["source.fixAll"])
    editor.insert(uri, "import tensorflow", "# edited\n")
    with pytest.raises(Exception, match="changed"):
        await editor.resolved(fix_all)


async def test_fix_all_not_offered_when_nothing_is_safely_fixable(start_editor, tmp_path):
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path, "clean.py")
    editor.open(uri, "import tensorflow as tf\n\nx = tf.constant(1.0)\n")
    await editor.diagnostics(uri)
    assert await editor.code_actions(uri, types.Position(line=0, character=0), only=["source.fixAll"]) == []


async def test_only_filters_kinds(start_editor, tmp_path):
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path, "learner.py")
    editor.open(uri, LEARNER)
    await editor.diagnostics(uri)
    quick = await editor.code_actions(uri, editor.at(uri, "tf.Variable("), only=["quickfix"])
    assert {a.kind for a in quick} == {"quickfix"} and len(quick) == 2
    source = await editor.code_actions(uri, editor.at(uri, "tf.Variable("), only=["source"])
    assert [a.kind for a in source] == ["source.fixAll.tapelsp"]
    assert await editor.code_actions(uri, editor.at(uri, "tf.Variable("), only=["refactor"]) == []


PREDICT = '''import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
x = tf.ones((2, 3))
with tf.GradientTape() as tape:
    y = model.predict(x)
    loss = tf.reduce_sum(y)
grads = tape.gradient(loss, model.trainable_variables)
'''


async def test_an_unsafe_fix_is_offered_but_not_preferred_nor_applied_by_fix_all(start_editor, tmp_path):
    editor = await start_editor("emacs-29")  # no resolve: fix-all is computed with the request
    uri = uri_in(tmp_path, "predict.py")
    editor.open(uri, PREDICT)
    assert codes(await editor.diagnostics(uri)) == ["TAPE008"]
    actions = await editor.code_actions(uri, editor.at(uri, "model.predict"))
    fix = titled(actions, "Call the model on the tape")
    assert fix.is_preferred is False
    assert "y = model(x, training=False)" in editing.apply(PREDICT, editing.edits_for(fix.edit, uri))
    # Fix-all applies safe fixes only: nothing to do here, so nothing is offered.
    assert await editor.code_actions(uri, types.Position(line=0, character=0), only=["source.fixAll"]) == []
