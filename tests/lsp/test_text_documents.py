"""Open, change (incrementally), close; what a diagnostic carries; positions in the
negotiated encoding; syntax errors while typing."""

from __future__ import annotations

import pytest
from lsprotocol import types

from .conftest import codes, uri_in
from .samples import BOTH, LEARNER, NESTED_TAPES

pytestmark = pytest.mark.asyncio

TWO_CLIENTS = ["vscode", "neovim-0.9"]  # pull, push


@pytest.mark.parametrize("name", TWO_CLIENTS)
async def test_open_reports_findings_with_everything_a_diagnostic_carries(start_editor, tmp_path, name):
    editor = await start_editor(name)
    uri = uri_in(tmp_path, "learner.py")
    editor.open(uri, LEARNER)
    diagnostics = await editor.diagnostics(uri)
    assert codes(diagnostics) == ["FUNC001"]
    (diagnostic,) = diagnostics
    assert diagnostic.source == "tapelsp"
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.code_description is not None
    assert diagnostic.code_description.href.endswith("#func001-variable-created-in-tf-function")
    assert diagnostic.range == types.Range(start=editor.at(uri, "tf.Variable("),
                                           end=types.Position(line=9, character=45))
    (related,) = diagnostic.related_information
    assert related.location.uri == uri
    assert related.location.range.start == editor.at(uri, "tf.function")
    assert diagnostic.data["code"] == "FUNC001" and diagnostic.data["fixable"] is True
    assert diagnostic.data["version"] == 1


@pytest.mark.parametrize("name", TWO_CLIENTS)
async def test_incremental_edits_move_fix_and_bring_back_findings(start_editor, tmp_path, name):
    editor = await start_editor(name)
    uri = uri_in(tmp_path, "learner.py")
    editor.open(uri, LEARNER)
    assert [d.range.start.line for d in await editor.diagnostics(uri)] == [9]

    editor.insert(uri, "class Learner", "# a comment\n# and another\n")
    moved = await editor.diagnostics(uri)
    assert [(d.code, d.range.start.line) for d in moved] == [("FUNC001", 11)]
    assert moved[0].range.start == editor.at(uri, "tf.Variable(")

    # Typing the fix by hand, one small edit at a time.
    editor.substitute(uri, "        step = tf.Variable(0, dtype=tf.int64)\n", "")
    editor.insert(uri, "        self.model = model\n", "        self.step = tf.Variable(0, dtype=tf.int64)\n",
                  after=True)
    editor.substitute(uri, "        step.assign_add(1)", "        self.step.assign_add(1)")
    assert await editor.diagnostics(uri) == []

    editor.insert(uri, "        return self.model(x)", "        extra = tf.Variable(1.0)\n")
    back = await editor.diagnostics(uri)
    assert [(d.code, d.range.start) for d in back] == [("FUNC001", editor.at(uri, "tf.Variable(1.0)"))]


async def test_close_clears_pushed_diagnostics(start_editor, tmp_path):
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path, "learner.py")
    editor.open(uri, LEARNER)
    assert codes(await editor.diagnostics(uri)) == ["FUNC001"]
    editor.close(uri)
    await editor.cleared(uri)
    assert list(editor.client.diagnostics[uri]) == []


async def test_closed_document_pulls_nothing(start_editor, tmp_path):
    editor = await start_editor("vscode")
    uri = uri_in(tmp_path, "learner.py")
    editor.open(uri, LEARNER)
    assert codes(await editor.diagnostics(uri)) == ["FUNC001"]
    editor.close(uri)
    assert await editor.pull(uri) == []


async def test_pull_result_ids_say_unchanged_for_the_same_version(start_editor, tmp_path):
    editor = await start_editor("vscode")
    uri = uri_in(tmp_path, "learner.py")
    editor.open(uri, LEARNER)
    params = types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    first = await editor.client.text_document_diagnostic_async(params)
    assert first.kind == "full" and first.result_id
    params.previous_result_id = first.result_id
    again = await editor.client.text_document_diagnostic_async(params)
    assert again.kind == "unchanged" and again.result_id == first.result_id
    editor.insert(uri, "class Learner", "\n")
    after_edit = await editor.client.text_document_diagnostic_async(params)
    assert after_edit.kind == "full" and after_edit.result_id != first.result_id


@pytest.mark.parametrize("name, encoding", [("vscode", "utf-16"), ("neovim-0.9", "utf-16"),
                                            ("neovim-0.11", "utf-8"), ("emacs-29", "utf-32")])
async def test_columns_after_non_bmp_characters_are_in_the_negotiated_encoding(start_editor, tmp_path, name,
                                                                               encoding):
    editor = await start_editor(name)
    assert editor.encoding == encoding
    uri = uri_in(tmp_path, "emoji.py")
    # Two emoji (outside the BMP: 2 UTF-16 units, 4 UTF-8 bytes, 1 code point each) and an
    # accented letter before the finding, on the finding's own line.
    text = LEARNER.replace("        step = tf.Variable(0, dtype=tf.int64)",
                           "        s = '😀é😀'; step = tf.Variable(0, dtype=tf.int64)")
    editor.open(uri, text)
    (diagnostic,) = await editor.diagnostics(uri)
    line = text.split("\n")[9]
    column = line.index("tf.Variable(")
    expected = {"utf-16": column + 2, "utf-8": column + 2 * 3 + 1, "utf-32": column}[encoding]
    assert diagnostic.range.start == types.Position(line=9, character=expected)
    end = len(line)
    assert diagnostic.range.end.character == {"utf-16": end + 2, "utf-8": end + 7, "utf-32": end}[encoding]

    # An incremental edit placed after the emoji lands where the client means it.
    editor.insert(uri, "step = tf.Variable", "    ", after=False)
    (moved,) = await editor.diagnostics(uri)
    assert moved.range.start.character == expected + 4


@pytest.mark.parametrize("name", TWO_CLIENTS)
async def test_syntax_error_while_typing_keeps_the_other_findings(start_editor, tmp_path, name):
    editor = await start_editor(name)
    uri = uri_in(tmp_path, "both.py")
    editor.open(uri, BOTH)
    assert codes(await editor.diagnostics(uri)) == ["FUNC001", "TAPE001", "TAPE002"]

    # Half-typed line between the two parts of the file.
    editor.insert(uri, "x = tf.linspace", "def broken(:\n    y = (\n")
    during = await editor.diagnostics(uri)
    assert codes(during) == ["FUNC001", "TAPE001", "TAPE002", "TL001"]
    (syntax,) = [d for d in during if d.code == "TL001"]
    assert syntax.message.startswith("SyntaxError")

    editor.substitute(uri, "def broken(:\n    y = (\n", "")
    assert codes(await editor.diagnostics(uri)) == ["FUNC001", "TAPE001", "TAPE002"]


async def test_a_file_without_findings_gets_an_empty_report(start_editor, tmp_path):
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path, "clean.py")
    editor.open(uri, "import tensorflow as tf\n\nx = tf.constant(1.0)\n")
    assert await editor.diagnostics(uri) == []


async def test_crlf_and_form_feed_lines_stay_in_step(start_editor, tmp_path):
    """LSP lines end at \\r\\n, \\r and \\n only; a form feed inside a line is not a line end."""
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path, "crlf.py")
    text = NESTED_TAPES.replace("x = tf.linspace", "\x0c\nx = tf.linspace").replace("\n", "\r\n")
    editor.open(uri, text)
    first = await editor.diagnostics(uri)
    assert [(d.code, d.range.start.line) for d in first] == [("TAPE001", 6), ("TAPE002", 10)]
    editor.insert(uri, "\x0c", "# form feed above\r\n")
    second = await editor.diagnostics(uri)
    assert [(d.code, d.range.start.line) for d in second] == [("TAPE001", 7), ("TAPE002", 11)]
