// Which findings the sidebar shows, in which order, and the counts it prints.
// No JupyterLab imports: covered by jest.
import { SEVERITIES, type Finding, type Severity } from './protocol';

export type SeverityFilter = ReadonlySet<Severity>;

export const ALL_SEVERITIES: SeverityFilter = new Set(SEVERITIES);

/** Findings in cell order, then line, then character, then code (stable for equal keys). */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return findings
    .map((finding, index) => ({ finding, index }))
    .sort((a, b) => {
      const f = a.finding;
      const g = b.finding;
      return (
        f.cell_index - g.cell_index ||
        f.range.start.line - g.range.start.line ||
        f.range.start.character - g.range.start.character ||
        (f.code < g.code ? -1 : f.code > g.code ? 1 : 0) ||
        a.index - b.index
      );
    })
    .map(({ finding }) => finding);
}

export function filterFindings(findings: readonly Finding[], severities: SeverityFilter): Finding[] {
  return sortFindings(findings.filter((f) => severities.has(f.severity)));
}

export function countBySeverity(findings: readonly Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, information: 0 };
  for (const f of findings) counts[f.severity]++;
  return counts;
}

/** The filter with `severity` switched on or off. */
export function toggleSeverity(filter: SeverityFilter, severity: Severity): SeverityFilter {
  const next = new Set(filter);
  if (next.has(severity)) next.delete(severity);
  else next.add(severity);
  return next;
}

/** "cell 3, line 2" (1-based, as a person counts; the cell number counts every cell). */
export function locationLabel(finding: Finding): string {
  return `cell ${finding.cell_index + 1}, line ${finding.range.start.line + 1}`;
}

/** The label of a finding's runtime badge, or null when the probe said nothing about it. */
export function runtimeBadge(finding: Finding): string | null {
  switch (finding.runtime?.status) {
    case 'confirmed':
      return 'confirmed';
    case 'runtime-only':
      return 'runtime only';
    case 'refuted':
      return 'not seen at runtime';
    default:
      return null;
  }
}

const CONFIRMED_SUFFIX = ' [confirmed at runtime: ';

/**
 * The message to show: the probe appends " [confirmed at runtime: ...]" to a confirmed
 * finding's message; the sidebar shows that evidence under a badge, so not twice.
 */
export function displayMessage(finding: Finding): string {
  const at = finding.message.lastIndexOf(CONFIRMED_SUFFIX);
  if (!finding.runtime?.evidence || at <= 0 || !finding.message.endsWith(']')) return finding.message;
  return finding.message.slice(0, at);
}
