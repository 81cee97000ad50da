// Where the underlines go in a cell's text: offsets for CodeMirror from the findings' ranges.
// No JupyterLab or CodeMirror imports: covered by jest.
import { clampedOffsets, lineStarts } from './edits';
import type { Finding, Severity } from './protocol';

export interface Mark {
  from: number;
  to: number;
  severity: Severity;
  code: string;
  message: string;
  confirmed: boolean;
}

/**
 * One mark per finding, inside `text`. An empty range is widened to the character after it (or
 * before it at the end of a line) so that it stays visible; a range past the text is clamped.
 * Sorted by `from` (what CodeMirror's RangeSetBuilder wants).
 */
export function marksFor(findings: readonly Finding[], text: string): Mark[] {
  const starts = lineStarts(text);
  const marks: Mark[] = [];
  for (const finding of findings) {
    let { from, to } = clampedOffsets(text, finding.range, starts);
    if (from === to) {
      if (to < text.length && text[to] !== '\n') to += 1;
      else if (from > 0 && text[from - 1] !== '\n') from -= 1;
      else continue; // an empty line: nothing to underline
    }
    marks.push({
      from,
      to,
      severity: finding.severity,
      code: finding.code,
      message: finding.message,
      confirmed: finding.runtime?.status === 'confirmed'
    });
  }
  marks.sort((a, b) => a.from - b.from || a.to - b.to);
  return marks;
}
