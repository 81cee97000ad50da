// What the extension does to a notebook: read its cells, jump to a finding, apply edits
// through the cells' shared models (so each cell's undo history, Ctrl+Z, takes them back).
import type { NotebookPanel } from '@jupyterlab/notebook';

import { editsByCell, toOffsetEdits, type OffsetEdit } from './edits';
import type { CellSource, Edit, Position } from './protocol';

/** Every cell of the notebook, in order, as the REST API wants them. */
export function cellSources(panel: NotebookPanel): CellSource[] {
  const model = panel.content.model;
  if (!model) return [];
  const cells: CellSource[] = [];
  for (const cell of model.cells) {
    const type = cell.type === 'code' || cell.type === 'markdown' ? cell.type : 'raw';
    cells.push({ id: cell.id, cell_type: type, source: cell.sharedModel.getSource() });
  }
  return cells;
}

function cellIndex(panel: NotebookPanel, cellId: string): number {
  const model = panel.content.model;
  if (!model) return -1;
  let index = 0;
  for (const cell of model.cells) {
    if (cell.id === cellId) return index;
    index++;
  }
  return -1;
}

/** Select the cell, put its editor's cursor at `position` and focus it. */
export async function revealPosition(panel: NotebookPanel, cellId: string, position: Position): Promise<boolean> {
  const notebook = panel.content;
  const index = cellIndex(panel, cellId);
  if (index < 0) return false;
  notebook.activeCellIndex = index;
  await notebook.scrollToItem(index, 'smart').catch(() => undefined);
  const cell = notebook.widgets[index];
  await cell.ready;
  const editor = cell.editor;
  if (!editor) return false;
  notebook.mode = 'edit';
  // Let the editor take in a change just made to the shared model before moving its cursor.
  await new Promise((resolve) => requestAnimationFrame(resolve));
  const line = Math.min(position.line, Math.max(editor.lineCount - 1, 0));
  editor.setSelection({ start: { line, column: position.character }, end: { line, column: position.character } });
  editor.revealPosition({ line, column: position.character });
  editor.focus();
  return true;
}

export type ApplyOutcome = { ok: true; cells: string[] } | { ok: false; reason: string };

/**
 * Applies `edits` to the notebook's cells when every cell still has the source the edits were
 * computed for (`expected(cellId)`); one undoable transaction per cell. Nothing is changed
 * when any cell is missing, changed, or an edit does not fit.
 */
export function applyNotebookEdits(
  panel: NotebookPanel,
  edits: readonly Edit[],
  expected: (cellId: string) => string | undefined
): ApplyOutcome {
  const model = panel.content.model;
  if (!model) return { ok: false, reason: 'the notebook is not loaded' };
  const plan: Array<{ shared: { updateSource(from: number, to: number, text: string): void; transact(f: () => void): void }; edits: OffsetEdit[] }> = [];
  for (const [cellId, cellEdits] of editsByCell(edits)) {
    let cell = null;
    for (const candidate of model.cells) if (candidate.id === cellId) cell = candidate;
    if (!cell) return { ok: false, reason: 'a cell of this fix is gone' };
    const source = cell.sharedModel.getSource();
    if (expected(cellId) !== source) return { ok: false, reason: 'the cell changed since the last check' };
    const offsets = toOffsetEdits(source, cellEdits);
    if (!offsets) return { ok: false, reason: 'the fix does not fit the cell' };
    plan.push({ shared: cell.sharedModel, edits: offsets });
  }
  for (const { shared, edits: offsets } of plan) {
    shared.transact(() => {
      for (const edit of offsets) shared.updateSource(edit.from, edit.to, edit.text);
    });
  }
  return { ok: true, cells: [...editsByCell(edits).keys()] };
}

/** The id of the notebook's running kernel, if any. */
export function kernelId(panel: NotebookPanel): string | null {
  return panel.sessionContext.session?.kernel?.id ?? null;
}
