// The REST contract with the tapelsp server extension (/tapelsp/check, /tapelsp/probe,
// /tapelsp/rules/<CODE>): value types and defensive parsing of its answers. No JupyterLab
// imports: covered by jest.

export type Severity = 'error' | 'warning' | 'information';
export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'information'];

export interface Position {
  line: number; // 0-based, relative to the cell
  character: number; // UTF-16 code units
}

export interface Range {
  start: Position;
  end: Position;
}

export interface Edit {
  cell_id: string;
  range: Range;
  new_text: string;
}

export interface Fix {
  title: string;
  safe: boolean;
  edits: Edit[];
}

export type RuntimeStatus = 'confirmed' | 'runtime-only' | 'refuted';

export interface RuntimeVerdict {
  status: RuntimeStatus;
  evidence: string;
}

export interface Related {
  cell_id: string;
  range: Range;
  message: string;
}

export interface Finding {
  code: string;
  message: string;
  severity: Severity;
  cell_id: string;
  cell_index: number;
  range: Range;
  doc_url: string;
  related: Related[];
  fix: Fix | null;
  runtime: RuntimeVerdict | null;
}

export interface CellSource {
  id: string;
  cell_type: 'code' | 'markdown' | 'raw';
  source: string;
}

export interface CheckResult {
  version: string;
  findings: Finding[];
}

export interface RuntimeSummary {
  versions: Record<string, string>;
  eager: boolean | null;
  control_flow_v2: boolean | null;
  events: number;
}

export interface ProbeResult extends CheckResult {
  runtime: RuntimeSummary | null;
  message: string;
}

export interface RuleDoc {
  code: string;
  title: string;
  severity: string;
  markdown: string;
}

/** Raised for an answer that does not follow the contract. */
export class ProtocolError extends Error {}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}

function nonNegativeInt(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}

function parsePosition(value: unknown): Position | null {
  if (!isObject(value)) return null;
  const line = nonNegativeInt(value.line);
  const character = nonNegativeInt(value.character);
  return line === null || character === null ? null : { line, character };
}

export function parseRange(value: unknown): Range | null {
  if (!isObject(value)) return null;
  const start = parsePosition(value.start);
  const end = parsePosition(value.end);
  if (!start || !end) return null;
  if (end.line < start.line || (end.line === start.line && end.character < start.character)) return null;
  return { start, end };
}

export function parseSeverity(value: unknown): Severity {
  return value === 'error' || value === 'warning' ? value : 'information';
}

function parseFix(value: unknown): Fix | null {
  if (!isObject(value) || !Array.isArray(value.edits)) return null;
  const edits: Edit[] = [];
  for (const raw of value.edits) {
    if (!isObject(raw)) return null;
    const range = parseRange(raw.range);
    if (!range || typeof raw.cell_id !== 'string' || typeof raw.new_text !== 'string') return null;
    edits.push({ cell_id: raw.cell_id, range, new_text: raw.new_text });
  }
  if (edits.length === 0) return null;
  return { title: str(value.title, 'Apply fix'), safe: value.safe === true, edits };
}

function parseRuntime(value: unknown): RuntimeVerdict | null {
  if (!isObject(value)) return null;
  const status = value.status;
  if (status !== 'confirmed' && status !== 'runtime-only' && status !== 'refuted') return null;
  return { status, evidence: str(value.evidence) };
}

/** One finding, or null when it lacks what the UI needs to show it. */
export function parseFinding(value: unknown): Finding | null {
  if (!isObject(value)) return null;
  const range = parseRange(value.range);
  const cellIndex = nonNegativeInt(value.cell_index);
  if (typeof value.code !== 'string' || !value.code || typeof value.cell_id !== 'string' || !range || cellIndex === null) {
    return null;
  }
  const related: Related[] = [];
  if (Array.isArray(value.related)) {
    for (const raw of value.related) {
      if (!isObject(raw)) continue;
      const relRange = parseRange(raw.range);
      if (relRange && typeof raw.cell_id === 'string') {
        related.push({ cell_id: raw.cell_id, range: relRange, message: str(raw.message) });
      }
    }
  }
  return {
    code: value.code,
    message: str(value.message),
    severity: parseSeverity(value.severity),
    cell_id: value.cell_id,
    cell_index: cellIndex,
    range,
    doc_url: str(value.doc_url),
    related,
    fix: parseFix(value.fix),
    runtime: parseRuntime(value.runtime)
  };
}

/** The answer of POST /tapelsp/check. Malformed findings are dropped, not fatal. */
export function parseCheckResult(value: unknown): CheckResult {
  if (!isObject(value) || !Array.isArray(value.findings)) {
    throw new ProtocolError('the tapelsp server answered without a list of findings');
  }
  const findings = value.findings.map(parseFinding).filter((f): f is Finding => f !== null);
  return { version: str(value.version), findings };
}

/** The answer of POST /tapelsp/probe. */
export function parseProbeResult(value: unknown): ProbeResult {
  const base = parseCheckResult(value);
  const raw = (value as Json).runtime;
  let runtime: RuntimeSummary | null = null;
  if (isObject(raw)) {
    const versions: Record<string, string> = {};
    if (isObject(raw.versions)) {
      for (const [name, version] of Object.entries(raw.versions)) {
        if (typeof version === 'string') versions[name] = version;
      }
    }
    runtime = {
      versions,
      eager: typeof raw.eager === 'boolean' ? raw.eager : null,
      control_flow_v2: typeof raw.control_flow_v2 === 'boolean' ? raw.control_flow_v2 : null,
      events: nonNegativeInt(raw.events) ?? 0
    };
  }
  return { ...base, runtime, message: str((value as Json).message) };
}

/** The answer of GET /tapelsp/rules/<CODE>. */
export function parseRuleDoc(value: unknown): RuleDoc {
  if (!isObject(value) || typeof value.markdown !== 'string') {
    throw new ProtocolError('the tapelsp server answered without the rule documentation');
  }
  return { code: str(value.code), title: str(value.title), severity: str(value.severity), markdown: value.markdown };
}

/** The `message` of an error answer (`{"message": ...}`), else a fallback. */
export function errorMessage(value: unknown, fallback: string): string {
  if (isObject(value) && typeof value.message === 'string' && value.message) return value.message;
  return fallback;
}
