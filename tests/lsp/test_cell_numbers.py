"""Notebook cells are numbered as in the file, markdown cells included, exactly as
`tapelsp --check` numbers them (issue 6): the server asks for every cell, not only the
Python ones, so that a client like VS Code sends the markdown cells too."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types

from .conftest import server_env

pytestmark = pytest.mark.asyncio

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "higher_order.ipynb"


async def test_the_notebook_selector_does_not_filter_cells(start_editor):
    editor = await start_editor("vscode")
    sync = editor.initialize_result.capabilities.notebook_document_sync  # type: ignore[attr-defined]
    assert [(selector.notebook, selector.cells) for selector in sync.notebook_selector] == [("*", None)]


async def test_messages_name_the_cell_that_check_names(start_editor, tmp_path):
    cli = subprocess.run([sys.executable, "-m", "tapelsp", "--check", "--output-format", "json", str(EXAMPLE)],
                         capture_output=True, text=True, env=server_env())
    expected = {(item["code"], item["cell"], item["message"]) for item in json.loads(cli.stdout)}
    assert ("TAPE001", 3) in {(code, cell) for code, cell, _message in expected}

    notebook = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    editor = await start_editor("vscode")
    path = tmp_path / EXAMPLE.name
    uris = [f"vscode-notebook-cell:{path}#X{index}" for index in range(len(notebook["cells"]))]
    code = types.NotebookCellKind.Code
    editor.client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(uri=path.as_uri(), notebook_type="jupyter-notebook", version=0, cells=[
            types.NotebookCell(kind=code if cell["cell_type"] == "code" else types.NotebookCellKind.Markup, document=uri)
            for uri, cell in zip(uris, notebook["cells"])]),
        cell_text_documents=[types.TextDocumentItem(
            uri=uri, language_id="python" if cell["cell_type"] == "code" else "markdown", version=1,
            text="".join(cell["source"])) for uri, cell in zip(uris, notebook["cells"])]))
    seen = set()
    for number, uri in enumerate(uris, start=1):
        if notebook["cells"][number - 1]["cell_type"] == "code":
            seen |= {(str(d.code), number, d.message) for d in await editor.pull(uri)}
    assert seen == expected
    assert any("line 1 of cell 3" in message for _code, _cell, message in seen)
