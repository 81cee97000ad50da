"""Open notebook documents (LSP 3.17 notebook sync): their cells, in order, with their text.

A cell's text is a `TextDocument` of its own (the client edits cells by their own URIs).
Only code cells in Python are part of the program; markup cells and code cells in other
languages (`%%bash` cells that VS Code marks as shell, SQL cells...) are left out of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from lsprotocol import types

from .documents import TextDocument

PYTHON_LANGUAGES = frozenset({"python", "ipython", "python3"})


@dataclass
class Cell:
    uri: str
    kind: int  # types.NotebookCellKind: 1 markup, 2 code
    document: TextDocument

    @property
    def is_python(self) -> bool:
        return self.kind == types.NotebookCellKind.Code and self.document.language_id.lower() in PYTHON_LANGUAGES


@dataclass
class NotebookDocument:
    uri: str
    notebook_type: str
    version: int
    cells: list[Cell] = field(default_factory=list)

    def cell(self, uri: str) -> Cell | None:
        return next((cell for cell in self.cells if cell.uri == uri), None)

    def index_of(self, uri: str) -> int | None:
        return next((index for index, cell in enumerate(self.cells) if cell.uri == uri), None)

    def cell_uris(self) -> list[str]:
        return [cell.uri for cell in self.cells]


def open_notebook(params: types.DidOpenNotebookDocumentParams) -> NotebookDocument:
    notebook = params.notebook_document
    texts = {item.uri: item for item in params.cell_text_documents}
    cells = []
    for cell in notebook.cells:
        item = texts.get(cell.document)
        document = (TextDocument.of(item.uri, item.version, item.text, item.language_id) if item is not None
                    else TextDocument.of(cell.document, 0, "", "python"))
        cells.append(Cell(cell.document, int(cell.kind), document))
    return NotebookDocument(notebook.uri, notebook.notebook_type, notebook.version, cells)


def change_notebook(notebook: NotebookDocument, params: types.DidChangeNotebookDocumentParams,
                    encoding: str) -> list[str]:
    """Apply a notebook change; returns the URIs of the cells it removed."""
    notebook.version = params.notebook_document.version
    changes = params.change.cells
    removed: list[str] = []
    if changes is None:
        return removed
    if changes.structure is not None:
        removed = _restructure(notebook, changes.structure)
    for data in changes.data or ():
        cell = notebook.cell(data.document)
        if cell is not None:
            cell.kind = int(data.kind)
    for content in changes.text_content or ():
        cell = notebook.cell(content.document.uri)
        if cell is None:
            continue
        for change in content.changes:
            cell.document.apply(change, content.document.version, encoding)
    return removed


def _restructure(notebook: NotebookDocument, structure: types.NotebookDocumentCellChangeStructure) -> list[str]:
    array = structure.array
    opened = {item.uri: item for item in structure.did_open or ()}
    existing = {cell.uri: cell for cell in notebook.cells}
    start = min(max(array.start, 0), len(notebook.cells))
    end = min(start + max(array.delete_count, 0), len(notebook.cells))
    new_cells = []
    for cell in array.cells or ():
        item = opened.get(cell.document)
        if item is not None:
            document = TextDocument.of(item.uri, item.version, item.text, item.language_id)
        elif cell.document in existing:  # a moved cell keeps its text
            document = existing[cell.document].document
        else:
            document = TextDocument.of(cell.document, 0, "", "python")
        new_cells.append(Cell(cell.document, int(cell.kind), document))
    notebook.cells[start:end] = new_cells
    still_there = {cell.uri for cell in notebook.cells}
    closed = [item.uri for item in structure.did_close or ()]
    return [uri for uri in dict.fromkeys(closed + list(existing)) if uri not in still_there]


def python_cells(notebook: NotebookDocument) -> Iterable[tuple[int, Cell]]:
    """(1-based number among all cells, cell) of the cells that are part of the program."""
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.is_python:
            yield number, cell
