import { applyEdits, clampedOffsets, lineStarts, offsetAt, safeFixEdits, toOffsetEdits } from '../edits';
import { at, finding } from './fixtures';

describe('offsets in UTF-16 code units', () => {
  test('line starts and offsets', () => {
    const text = 'ab\ncd\n';
    expect(lineStarts(text)).toEqual([0, 3, 6]);
    expect(offsetAt(text, { line: 1, character: 1 })).toBe(4);
    expect(offsetAt(text, { line: 2, character: 0 })).toBe(6);
  });

  test('a character past the end of its line or a line past the text is no position', () => {
    expect(offsetAt('ab\ncd', { line: 0, character: 3 })).toBeNull();
    expect(offsetAt('ab\ncd', { line: 2, character: 0 })).toBeNull();
  });

  test('astral characters count as two units, as the server sends them', () => {
    const text = 's = "😀"; tape = 1';
    // 😀 is one code point but two UTF-16 units: `tape` starts at unit 10.
    expect(text.slice(offsetAt(text, { line: 0, character: 10 })!, 14)).toBe('tape');
    expect(applyEdits(text, [{ cell_id: 'c', range: at(0, 10, 0, 14), new_text: 'outer' }])).toBe('s = "😀"; outer = 1');
  });

  test('clamped offsets stay inside the text', () => {
    expect(clampedOffsets('ab\ncd', at(0, 1, 5, 0))).toEqual({ from: 1, to: 5 });
    expect(clampedOffsets('ab\ncd', at(0, 9, 0, 12))).toEqual({ from: 2, to: 2 });
  });
});

describe('applying edits', () => {
  const text = 'with tf.GradientTape() as tape:\n    with tf.GradientTape() as tape:\n        pass\n';

  test('several edits apply as if at once, whatever their order', () => {
    const edits = [
      { cell_id: 'c', range: at(1, 30, 1, 34), new_text: 'inner_tape' },
      { cell_id: 'c', range: at(0, 0, 0, 0), new_text: '# fixed\n' }
    ];
    expect(applyEdits(text, edits)).toBe(
      '# fixed\nwith tf.GradientTape() as tape:\n    with tf.GradientTape() as inner_tape:\n        pass\n'
    );
    expect(applyEdits(text, [...edits].reverse())).toBe(applyEdits(text, edits));
  });

  test('overlapping edits and edits outside the text are refused', () => {
    expect(toOffsetEdits(text, [
      { cell_id: 'c', range: at(0, 0, 0, 10), new_text: 'x' },
      { cell_id: 'c', range: at(0, 5, 0, 12), new_text: 'y' }
    ])).toBeNull();
    expect(toOffsetEdits(text, [
      { cell_id: 'c', range: at(0, 3), new_text: 'x' },
      { cell_id: 'c', range: at(0, 3), new_text: 'y' }
    ])).toBeNull();
    expect(applyEdits(text, [{ cell_id: 'c', range: at(7, 0), new_text: 'x' }])).toBeNull();
  });

  test('adjacent edits are fine', () => {
    expect(applyEdits('abcd', [
      { cell_id: 'c', range: at(0, 0, 0, 2), new_text: 'X' },
      { cell_id: 'c', range: at(0, 2, 0, 4), new_text: 'Y' }
    ])).toBe('XY');
  });
});

describe('fix all safe', () => {
  const fix = (cell: string, range: ReturnType<typeof at>, safe = true) => ({
    title: 't',
    safe,
    edits: [{ cell_id: cell, range, new_text: 'z' }]
  });

  test('takes the safe fixes, skips unsafe ones and ones that clash with a fix already taken', () => {
    const findings = [
      finding({ fix: fix('c1', at(0, 0, 0, 4)) }),
      finding({ fix: fix('c1', at(0, 2, 0, 6)) }), // overlaps the first
      finding({ fix: fix('c1', at(1, 0, 1, 4), false) }), // unsafe
      finding({ fix: fix('c2', at(0, 0, 0, 4)) }), // same range, other cell
      finding({ fix: null })
    ];
    const result = safeFixEdits(findings);
    expect(result.fixes).toBe(2);
    expect(result.skipped).toBe(1);
    expect(result.edits.map((e) => e.cell_id)).toEqual(['c1', 'c2']);
  });
});
