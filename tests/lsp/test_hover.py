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


async def test_no_rule_hover_elsewhere(start_editor, tmp_path):
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path, "learner.py")
    editor.open(uri, LEARNER + "# tapelsp is mentioned here, FUNC001 too, but not as a directive\n")
    await editor.diagnostics(uri)
    on_self = await editor.hover(uri, editor.at(uri, "self.model = model"))
    assert on_self is not None and "## What it does" not in on_self.contents.value  # the value, no rule
    assert await editor.hover(uri, editor.at(uri, "FUNC001 too")) is None
    assert await editor.hover(uri, editor.at(uri, "# tapelsp is")) is None


VALUES = """\
import numpy as np
import tensorflow as tf

grid = tf.constant(np.linspace(-1.0, 1.0, 21)[:, None], dtype=tf.float32)
steps = tf.reshape(tf.range(0, 10), [-1, 1])
w = tf.Variable(tf.zeros([3]), trainable=False)
with tf.GradientTape() as tape:
    y = tf.reduce_sum(grid ** 2)
g = tape.gradient(y, grid)
"""


@pytest.mark.parametrize("name", ["vscode", "neovim-0.9"])
async def test_hover_on_a_name_shows_what_tapelsp_infers_it_holds(start_editor, tmp_path, name):
    """The issue's proof: a float32 tensor says float32, an int32 tensor int32, a variable that it
    is a Variable; the gradient source says the tape does not watch it."""
    editor = await start_editor(name)
    uri = uri_in(tmp_path, "values.py")
    editor.open(uri, VALUES)
    await editor.diagnostics(uri)
    grid = await editor.hover(uri, editor.at(uri, "grid ** 2"))
    assert grid is not None
    assert grid.contents.value.startswith("`grid`: tf.Tensor float32, eager, made on line 4 from plain data")
    assert grid.range == types.Range(start=editor.at(uri, "grid ** 2"), end=editor.at(uri, " ** 2"))
    steps = await editor.hover(uri, editor.at(uri, "steps ="))
    assert steps is not None and steps.contents.value.startswith("`steps`: tf.Tensor int32")
    variable = await editor.hover(uri, editor.at(uri, "w = tf"))
    assert variable is not None
    assert variable.contents.value.startswith("`w`: tf.Variable float32") and "not trainable" in variable.contents.value
    # On a finding (TAPE010 here): the finding first, then the value, then the rule's documentation.
    source = await editor.hover(uri, editor.at(uri, "grid)\n"))
    assert source is not None
    parts = source.contents.value.split("\n\n---\n\n")
    assert parts[0].startswith("**TAPE010**: `grid` is a plain tensor")
    assert parts[1].startswith("`grid`: tf.Tensor float32") and parts[1].endswith("not watched by `tape`")
    assert parts[2] == explain("TAPE010")
