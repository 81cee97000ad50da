// applyNotebookEdits against a stand-in for a NotebookPanel: only the parts it touches (the cell
// list and each cell's shared model).
import type { NotebookPanel } from '@jupyterlab/notebook';

import { applyNotebookEdits, cellSources } from '../notebook';
import type { Edit } from '../protocol';
import { at } from './fixtures';

class FakeSharedCell {
  transactions = 0;
  constructor(private source: string) {}
  getSource(): string {
    return this.source;
  }
  updateSource(from: number, to: number, text: string): void {
    this.source = this.source.slice(0, from) + text + this.source.slice(to);
  }
  transact(f: () => void): void {
    this.transactions++;
    f();
  }
}

function fakePanel(sources: Record<string, string>) {
  const cells = Object.entries(sources).map(([id, source]) => ({ id, type: 'code', sharedModel: new FakeSharedCell(source) }));
  const panel = { content: { model: { cells } } } as unknown as NotebookPanel;
  const text = (id: string) => cells.find((c) => c.id === id)!.sharedModel.getSource();
  const transactions = (id: string) => cells.find((c) => c.id === id)!.sharedModel.transactions;
  return { panel, text, transactions };
}

const rename: Edit[] = [
  { cell_id: 'b', range: at(1, 30, 2, 8), new_text: 'inner_tape:\n        inner_' },
  { cell_id: 'b', range: at(4, 9), new_text: 'inner_' }
];
const B = 'with tf.GradientTape() as tape:\n    with tf.GradientTape() as tape:\n        tape.watch(x)\n        y = x * x\n    dy = tape.gradient(y, x)\n';

test('a fix is applied to its cell in one undoable transaction', () => {
  const { panel, text, transactions } = fakePanel({ a: 'import tensorflow as tf', b: B });
  const checked = new Map([['b', B]]);
  const outcome = applyNotebookEdits(panel, rename, (id) => checked.get(id));
  expect(outcome).toEqual({ ok: true, cells: ['b'] });
  expect(text('b')).toBe(
    'with tf.GradientTape() as tape:\n    with tf.GradientTape() as inner_tape:\n        inner_tape.watch(x)\n        y = x * x\n    dy = inner_tape.gradient(y, x)\n'
  );
  expect(transactions('b')).toBe(1);
  expect(text('a')).toBe('import tensorflow as tf');
});

test('nothing is applied to a cell that changed since the check', () => {
  const { panel, text } = fakePanel({ b: B + '# typed since\n' });
  const outcome = applyNotebookEdits(panel, rename, () => B);
  expect(outcome).toEqual({ ok: false, reason: 'the cell changed since the last check' });
  expect(text('b')).toBe(B + '# typed since\n');
});

test('a fix over two cells is applied whole or not at all', () => {
  const { panel, text } = fakePanel({ a: 'v = 1\n', b: B });
  const edits: Edit[] = [
    { cell_id: 'a', range: at(0, 0), new_text: '# hoisted\n' },
    { cell_id: 'gone', range: at(0, 0), new_text: 'x' }
  ];
  expect(applyNotebookEdits(panel, edits, (id) => (id === 'a' ? 'v = 1\n' : undefined))).toEqual({
    ok: false,
    reason: 'a cell of this fix is gone'
  });
  expect(text('a')).toBe('v = 1\n');
  const outOfRange: Edit[] = [
    { cell_id: 'a', range: at(0, 0), new_text: '# hoisted\n' },
    { cell_id: 'b', range: at(40, 0), new_text: 'x' }
  ];
  expect(applyNotebookEdits(panel, outOfRange, (id) => (id === 'a' ? 'v = 1\n' : B)).ok).toBe(false);
  expect(text('a')).toBe('v = 1\n');
});

test('cells are sent with their ids, types and sources', () => {
  const { panel } = fakePanel({ a: 'x = 1', b: 'y' });
  expect(cellSources(panel)).toEqual([
    { id: 'a', cell_type: 'code', source: 'x = 1' },
    { id: 'b', cell_type: 'code', source: 'y' }
  ]);
});
