"""Hover shows the rule's documentation on a finding and on a code in a suppression comment."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tapelsp.docs import explain

from .conftest import uri_in
from .samples import LEARNER

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("name", ["vscode", "neovim-0.9"])
async def test_hover_on_a_finding_shows_the_rule_doc(start_editor, tmp_path, name):
    editor = await start_editor(name)
    uri = uri_in(tmp_path, "learner.py")
    editor.open(uri, LEARNER)
    (diagnostic,) = await editor.diagnostics(uri)
    hover = await editor.hover(uri, editor.at(uri, "Variable("))
    assert hover is not None
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert hover.contents.value.startswith("**FUNC001**: tf.Variable created inside the tf.function `train`")
    assert explain("FUNC001") in hover.contents.value
    assert "## What it does" in hover.contents.value
    assert hover.range == diagnostic.range


async def test_hover_on_a_code_in_an_ignore_comment(start_editor, tmp_path):
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path, "ignored.py")
    text = LEARNER.replace("tf.int64)\n", "tf.int64)  # tapelsp: ignore[TAPE001, FUNC001]\n", 1)
    text += "y = 1  # noqa: MAP002\n"
    editor.open(uri, text)
    assert await editor.diagnostics(uri) == []
    on_code = await editor.hover(uri, editor.at(uri, "UNC001"))
    assert on_code is not None and on_code.contents.value == explain("FUNC001")
    assert on_code.range == types.Range(start=editor.at(uri, "FUNC001]"), end=editor.at(uri, "]\n"))
    first = await editor.hover(uri, editor.at(uri, "TAPE001"))
    assert first is not None and first.contents.value == explain("TAPE001")
    noqa = await editor.hover(uri, editor.at(uri, "MAP002"))
    assert noqa is not None and noqa.contents.value == explain("MAP002")


async def test_hover_on_a_family_prefix_lists_its_rules(start_editor, tmp_path):
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path, "prefix.py")
    editor.open(uri, "import tensorflow as tf\nx = 1  # tapelsp: ignore[MAP]\n")
    await editor.diagnostics(uri)
    hover = await editor.hover(uri, editor.at(uri, "MAP]"))
    assert hover is not None
    assert hover.contents.value.startswith("# MAP: ")
    assert "- **MAP002**" in hover.contents.value


async def test_no_hover_elsewhere(start_editor, tmp_path):
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path, "learner.py")
    editor.open(uri, LEARNER + "# tapelsp is mentioned here, FUNC001 too, but not as a directive\n")
    await editor.diagnostics(uri)
    assert await editor.hover(uri, editor.at(uri, "self.model = model")) is None
    assert await editor.hover(uri, editor.at(uri, "FUNC001 too")) is None
