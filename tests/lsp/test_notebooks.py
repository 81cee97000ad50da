"""LSP 3.17 notebook documents: all Python cells are one program, findings come back per cell,
cells that became clean (or were removed) are cleared. Also jupyterlab-lsp's virtual documents."""

from __future__ import annotations

import pytest
from lsprotocol import types

from . import editing
from .conftest import Editor, codes, uri_in

pytestmark = pytest.mark.asyncio

# An alias nobody would guess is TensorFlow: only the first cell's import says so.
IMPORTS = "import tensorflow as tfk\n%matplotlib inline\n!pip list\n"
MARKDOWN = "# Training\n\nThe step below creates a variable on every trace.\n"
STEP = "@tfk.function\ndef step(x):\n    v = tfk.Variable(1.0)\n    return v * x\n"
TAPES = ("x = tfk.constant(1.0)\nwith tfk.GradientTape() as tape:\n    tape.watch(x)\n"
         "    with tfk.GradientTape() as tape:\n        tape.watch(x)\n        y = x * x\n"
         "    dy = tape.gradient(y, x)\nd2y = tape.gradient(dy, x)\n")


class Notebook:
    """A notebook as VS Code syncs it: the notebook and one text document per cell."""

    def __init__(self, editor: Editor, path, cells: list[tuple[str, str]]) -> None:
        self.editor = editor
        self.uri = path.as_uri()
        self.version = 0
        self.cells: list[tuple[str, str]] = []  # (uri, kind)
        self.texts: dict[str, str] = {}
        self.cell_versions: dict[str, int] = {}
        self._counter = 0
        items = [self._new_cell(kind, text) for kind, text in cells]
        editor.client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=self.uri, notebook_type="jupyter-notebook", version=0,
                cells=[types.NotebookCell(kind=self._kind(kind), document=uri) for uri, kind in self.cells]),
            cell_text_documents=items))

    def _kind(self, kind: str) -> types.NotebookCellKind:
        return types.NotebookCellKind.Code if kind == "code" else types.NotebookCellKind.Markup

    def _new_cell(self, kind: str, text: str) -> types.TextDocumentItem:
        self._counter += 1
        uri = f"vscode-notebook-cell:{self.uri[len('file://'):]}#W{self._counter}"
        self.cells.append((uri, kind))
        self.texts[uri] = text
        self.cell_versions[uri] = 1
        return types.TextDocumentItem(uri=uri, language_id="python" if kind == "code" else "markdown",
                                      version=1, text=text)

    def cell(self, index: int) -> str:
        return self.cells[index][0]

    def set_text(self, index: int, text: str) -> None:
        uri = self.cell(index)
        self.texts[uri] = text
        self.cell_versions[uri] += 1
        self.version += 1
        self.editor.client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(version=self.version, uri=self.uri),
            change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
                types.NotebookDocumentCellContentChanges(
                    document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.cell_versions[uri]),
                    changes=[types.TextDocumentContentChangeWholeDocument(text=text)])]))))

    def apply(self, edit: types.WorkspaceEdit) -> None:
        for index, (uri, _kind) in enumerate(self.cells):
            edits = editing.edits_for(edit, uri)
            if edits:
                self.set_text(index, editing.apply(self.texts[uri], edits, self.editor.encoding))

    def remove(self, index: int) -> str:
        uri, _kind = self.cells.pop(index)
        self.version += 1
        self.editor.client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(version=self.version, uri=self.uri),
            change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
                structure=types.NotebookDocumentCellChangeStructure(
                    array=types.NotebookCellArrayChange(start=index, delete_count=1, cells=[]),
                    did_close=[types.TextDocumentIdentifier(uri=uri)])))))
        return uri

    def insert(self, index: int, kind: str, text: str) -> str:
        item = self._new_cell(kind, text)
        self.cells.insert(index, self.cells.pop())
        self.version += 1
        self.editor.client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(version=self.version, uri=self.uri),
            change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
                structure=types.NotebookDocumentCellChangeStructure(
                    array=types.NotebookCellArrayChange(
                        start=index, delete_count=0, cells=[types.NotebookCell(kind=self._kind(kind),
                                                                               document=item.uri)]),
                    did_open=[item])))))
        return item.uri

    def close(self) -> None:
        self.editor.client.notebook_document_did_close(types.DidCloseNotebookDocumentParams(
            notebook_document=types.NotebookDocumentIdentifier(uri=self.uri),
            cell_text_documents=[types.TextDocumentIdentifier(uri=uri) for uri, _kind in self.cells]))

    async def diagnostics(self, index: int) -> list[types.Diagnostic]:
        uri = self.cell(index)
        if self.editor.pulls:
            return await self.editor.pull(uri)
        # Pushed per cell, only when a cell's findings change: wait for the analysis of
        # the notebook's current version to be delivered, then read what the cell has.
        await self.editor.settled()
        return list(self.editor.client.diagnostics.get(uri, []))

    def at(self, index: int, needle: str) -> types.Position:
        return editing.find(self.texts[self.cell(index)], needle, self.editor.encoding)


def training_notebook(editor: Editor, tmp_path) -> Notebook:
    return Notebook(editor, tmp_path / "train.ipynb",
                    [("code", IMPORTS), ("markup", MARKDOWN), ("code", STEP), ("code", TAPES)])


@pytest.mark.parametrize("name", ["vscode", "vscode-push"])
async def test_cells_are_one_program_with_findings_per_cell(start_editor, tmp_path, name):
    editor = await start_editor(name)
    notebook = training_notebook(editor, tmp_path)
    assert await notebook.diagnostics(0) == []  # magics are neutralised: no syntax error
    (variable,) = await notebook.diagnostics(2)
    assert variable.code == "FUNC001"
    assert variable.range.start == notebook.at(2, "tfk.Variable(")  # relative to the cell
    assert codes(await notebook.diagnostics(3)) == ["TAPE001", "TAPE002"]

    # `tfk` comes from the first cell: without that import no other cell uses TensorFlow.
    refreshes = editor.client.diagnostic_refresh_count
    notebook.set_text(0, "%matplotlib inline\n")
    if editor.pulls:
        # Cells the client did not edit changed: it is asked to pull again.
        await editor.wait_for(lambda: editor.client.diagnostic_refresh_count > refreshes)
    assert await notebook.diagnostics(2) == []
    assert await notebook.diagnostics(3) == []
    notebook.set_text(0, IMPORTS)
    assert codes(await notebook.diagnostics(2)) == ["FUNC001"]


@pytest.mark.parametrize("name", ["vscode", "vscode-push"])
async def test_fixed_and_removed_cells_are_cleared(start_editor, tmp_path, name):
    editor = await start_editor(name)
    notebook = training_notebook(editor, tmp_path)
    assert codes(await notebook.diagnostics(2)) == ["FUNC001"]
    assert codes(await notebook.diagnostics(3)) == ["TAPE001", "TAPE002"]

    notebook.set_text(2, "@tfk.function\ndef step(x):\n    return 2.0 * x\n")
    assert await notebook.diagnostics(2) == []
    tapes = notebook.remove(3)
    if editor.pulls:
        assert await editor.pull(tapes) == []
    else:
        await editor.cleared(tapes)

    notebook.insert(1, "code", "v = tfk.Variable(0.0)\n\n@tfk.function\ndef again():\n    w = tfk.Variable(1.0)\n")
    assert codes(await notebook.diagnostics(1)) == ["FUNC001"]

    uris = [uri for uri, _kind in notebook.cells]
    notebook.close()
    if not editor.pulls:
        for uri in uris:
            await editor.cleared(uri)


async def test_quick_fix_and_ignore_in_a_cell(start_editor, tmp_path):
    editor = await start_editor("vscode")
    notebook = training_notebook(editor, tmp_path)
    await notebook.diagnostics(2)
    actions = await editor.code_actions(notebook.cell(2), notebook.at(2, "tfk.Variable("))
    titles = [action.title for action in actions]
    assert "Ignore FUNC001 on this line" in titles
    (ignore,) = [a for a in actions if a.title == "Ignore FUNC001 on this line"]
    assert [uri for uri in (ignore.edit.changes or {})] + [
        c.text_document.uri for c in ignore.edit.document_changes or ()] == [notebook.cell(2)]
    notebook.apply(ignore.edit)
    assert notebook.texts[notebook.cell(2)] == STEP.replace("tfk.Variable(1.0)",
                                                            "tfk.Variable(1.0)  # tapelsp: ignore[FUNC001]")
    assert await notebook.diagnostics(2) == []


async def test_notebook_fix_all_edits_every_cell(start_editor, tmp_path):
    editor = await start_editor("vscode")
    notebook = training_notebook(editor, tmp_path)
    await notebook.diagnostics(2)
    actions = await editor.code_actions(notebook.cell(0), types.Position(line=0, character=0),
                                        only=["notebook.source.fixAll"])
    (fix_all,) = actions
    assert fix_all.kind == "notebook.source.fixAll.tapelsp"
    fix_all = await editor.resolved(fix_all)
    edited = {c.text_document.uri for c in fix_all.edit.document_changes or ()} | set(fix_all.edit.changes or {})
    assert edited == {notebook.cell(2), notebook.cell(3)}
    notebook.apply(fix_all.edit)
    assert "inner_tape" in notebook.texts[notebook.cell(3)]
    assert notebook.texts[notebook.cell(0)] == IMPORTS  # magics untouched
    assert await notebook.diagnostics(2) == []
    assert codes(await notebook.diagnostics(3)) == []


async def test_jupyterlab_lsp_virtual_document_is_python_with_magics(start_editor, tmp_path):
    # jupyterlab-lsp sends the notebook's cells joined as one Python text document.
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path / ".virtual_documents", "train.ipynb")
    text = IMPORTS + "\n\n" + STEP + "\n\n" + TAPES
    editor.open(uri, text)
    found = await editor.diagnostics(uri)
    assert codes(found) == ["FUNC001", "TAPE001", "TAPE002"]  # and no syntax error from the magics
    (variable,) = [d for d in found if d.code == "FUNC001"]
    assert variable.range.start == editor.at(uri, "tfk.Variable(")


async def test_source_fix_all_on_a_cell_edits_that_cell_only(start_editor, tmp_path):
    editor = await start_editor("vscode")
    notebook = training_notebook(editor, tmp_path)
    assert codes(await notebook.diagnostics(3)) == ["TAPE001", "TAPE002"]
    (fix_all,) = await editor.code_actions(notebook.cell(3), types.Position(line=0, character=0),
                                           only=["source.fixAll"])
    assert fix_all.kind == "source.fixAll.tapelsp"
    fix_all = await editor.resolved(fix_all)
    edited = {c.text_document.uri for c in fix_all.edit.document_changes or ()} | set(fix_all.edit.changes or {})
    assert edited == {notebook.cell(3)}
    notebook.apply(fix_all.edit)
    assert await notebook.diagnostics(3) == []
    assert codes(await notebook.diagnostics(2)) == ["FUNC001"]  # another cell's finding stays


async def test_hover_on_a_name_in_a_cell_names_the_cell_where_it_was_made(start_editor, tmp_path):
    editor = await start_editor("vscode")
    notebook = Notebook(editor, tmp_path / "values.ipynb",
                        [("code", "import tensorflow as tf\n"), ("markup", "# steps\n"),
                         ("code", "x = tf.range(3)\n"), ("code", "y = x * 2\n")])
    await notebook.diagnostics(3)
    hover = await editor.hover(notebook.cell(3), notebook.at(3, "x * 2"))
    assert hover is not None
    assert hover.contents.value.startswith("`x`: tf.Tensor int32, eager, made on line 1 of cell 3")
    assert hover.range == types.Range(start=notebook.at(3, "x * 2"), end=notebook.at(3, " * 2"))
