// Which documents the language client hands to the server. No `vscode` import (unit-tested).

/** Python files on disk, unsaved Python buffers, and the Python cells of notebooks. */
export const DOCUMENT_SELECTOR = [
    { scheme: 'file', language: 'python' },
    { scheme: 'untitled', language: 'python' },
    { scheme: 'vscode-notebook-cell', language: 'python' },
];

/** Notebook types whose cells are synchronised as LSP notebook documents. */
export const NOTEBOOK_TYPES: readonly string[] = ['jupyter-notebook'];

/** The cells of a notebook that the client sends: all of them for a Jupyter notebook, none otherwise. */
export function notebookCells<T>(notebookType: string, cells: T[]): T[] {
    return NOTEBOOK_TYPES.includes(notebookType) ? cells : [];
}
