// Text edits in the contract's units (0-based lines relative to a cell, characters in UTF-16
// code units, which is what JavaScript strings and CodeMirror count) turned into string offsets,
// applied, and grouped per cell. No JupyterLab imports: covered by jest.
import type { Edit, Finding, Position, Range } from './protocol';

/** One replacement in string offsets of a cell's source. */
export interface OffsetEdit {
  from: number;
  to: number;
  text: string;
}

/** Start offset of every line of `text` (lines end at '\n'). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** Offset of `position` in `text`, or null when the position is not in the text. */
export function offsetAt(text: string, position: Position, starts = lineStarts(text)): number | null {
  if (position.line >= starts.length) return null;
  const lineStart = starts[position.line];
  const lineEnd = position.line + 1 < starts.length ? starts[position.line + 1] - 1 : text.length;
  if (position.character > lineEnd - lineStart) return null;
  return lineStart + position.character;
}

/** Offsets of `range` clamped into the text (for drawing: a stale range still lands somewhere sane). */
export function clampedOffsets(text: string, range: Range, starts = lineStarts(text)): { from: number; to: number } {
  const clamp = (p: Position): number => {
    if (p.line >= starts.length) return text.length;
    const lineStart = starts[p.line];
    const lineEnd = p.line + 1 < starts.length ? starts[p.line + 1] - 1 : text.length;
    return Math.min(lineStart + p.character, lineEnd);
  };
  const from = clamp(range.start);
  return { from, to: Math.max(from, clamp(range.end)) };
}

/**
 * The offset edits for `edits` on `text`, last first (so that applying them one after another
 * keeps the earlier offsets valid), or null when a range is outside the text or two overlap.
 */
export function toOffsetEdits(text: string, edits: readonly Edit[]): OffsetEdit[] | null {
  const starts = lineStarts(text);
  const result: OffsetEdit[] = [];
  for (const edit of edits) {
    const from = offsetAt(text, edit.range.start, starts);
    const to = offsetAt(text, edit.range.end, starts);
    if (from === null || to === null || to < from) return null;
    result.push({ from, to, text: edit.new_text });
  }
  result.sort((a, b) => b.from - a.from || b.to - a.to);
  for (let i = 1; i < result.length; i++) {
    // result[i] starts before result[i - 1]; it must also end before it starts (two
    // insertions at one point are ambiguous too).
    const later = result[i - 1];
    const earlier = result[i];
    if (earlier.to > later.from || (earlier.from === later.from && earlier.to === earlier.from && later.to === later.from)) {
      return null;
    }
  }
  return result;
}

/** `text` with `edits` applied, or null when they do not fit it (see toOffsetEdits). */
export function applyEdits(text: string, edits: readonly Edit[]): string | null {
  const planned = toOffsetEdits(text, edits);
  if (planned === null) return null;
  let out = text;
  for (const edit of planned) out = out.slice(0, edit.from) + edit.text + out.slice(edit.to);
  return out;
}

/** The edits grouped by the cell they change, in their original order. */
export function editsByCell(edits: readonly Edit[]): Map<string, Edit[]> {
  const byCell = new Map<string, Edit[]>();
  for (const edit of edits) {
    const list = byCell.get(edit.cell_id) ?? [];
    list.push(edit);
    byCell.set(edit.cell_id, list);
  }
  return byCell;
}

function rangesOverlap(a: Range, b: Range): boolean {
  const before = (p: Position, q: Position): boolean => p.line < q.line || (p.line === q.line && p.character < q.character);
  const beforeOrAt = (p: Position, q: Position): boolean => !before(q, p);
  // Two ranges are independent when one ends at or before the other starts (and they are not
  // two insertions at the same point).
  const aEmpty = !before(a.start, a.end);
  const bEmpty = !before(b.start, b.end);
  if (aEmpty && bEmpty) return a.start.line === b.start.line && a.start.character === b.start.character;
  return !(beforeOrAt(a.end, b.start) || beforeOrAt(b.end, a.start));
}

/**
 * The fixes "Fix all safe" applies: the safe fixes of `findings` in order, skipping a fix whose
 * edits overlap an edit of a fix already taken (it is offered again after the re-check).
 * A fix is taken whole or not at all.
 */
export function safeFixEdits(findings: readonly Finding[]): { edits: Edit[]; fixes: number; skipped: number } {
  const taken: Edit[] = [];
  let fixes = 0;
  let skipped = 0;
  for (const finding of findings) {
    const fix = finding.fix;
    if (!fix || !fix.safe) continue;
    const clash = fix.edits.some((edit) =>
      taken.some((other) => other.cell_id === edit.cell_id && rangesOverlap(other.range, edit.range))
    );
    if (clash) {
      skipped++;
      continue;
    }
    taken.push(...fix.edits);
    fixes++;
  }
  return { edits: taken, fixes, skipped };
}
