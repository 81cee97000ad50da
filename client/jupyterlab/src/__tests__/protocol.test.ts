import { errorMessage, parseCheckResult, parseFinding, parseProbeResult, parseRuleDoc, ProtocolError } from '../protocol';

const wire = {
  code: 'FUNC001',
  message: 'tf.Variable created inside the tf.function',
  severity: 'error',
  cell_id: 'abc',
  cell_index: 2,
  range: { start: { line: 3, character: 4 }, end: { line: 3, character: 15 } },
  doc_url: 'https://example.invalid/FUNC001',
  related: [{ cell_id: 'abc', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, message: 'the function' }],
  fix: { title: 'Hoist', safe: false, edits: [{ cell_id: 'abc', range: { start: { line: 3, character: 4 }, end: { line: 3, character: 15 } }, new_text: 'v' }] },
  runtime: { status: 'confirmed', evidence: 'ValueError raised in cell 3' }
};

test('a finding as the contract sends it', () => {
  const f = parseFinding(wire)!;
  expect(f.code).toBe('FUNC001');
  expect(f.cell_index).toBe(2);
  expect(f.fix).toEqual({ title: 'Hoist', safe: false, edits: wire.fix.edits });
  expect(f.runtime).toEqual({ status: 'confirmed', evidence: 'ValueError raised in cell 3' });
  expect(f.related).toHaveLength(1);
});

test('bad findings are dropped, bad parts become null, unknown severities are information', () => {
  const result = parseCheckResult({
    version: '0.1',
    findings: [
      wire,
      { ...wire, range: { start: { line: 2, character: 0 }, end: { line: 1, character: 0 } } }, // reversed
      { ...wire, cell_index: -1 },
      { ...wire, code: 7 },
      null,
      'x',
      { ...wire, severity: 'hint', fix: { title: 'x', edits: [{ cell_id: 'abc' }] }, runtime: { status: 'maybe' } }
    ]
  });
  expect(result.version).toBe('0.1');
  expect(result.findings).toHaveLength(2);
  expect(result.findings[1].severity).toBe('information');
  expect(result.findings[1].fix).toBeNull();
  expect(result.findings[1].runtime).toBeNull();
});

test('an answer without findings is a protocol error', () => {
  expect(() => parseCheckResult({ message: 'oops' })).toThrow(ProtocolError);
  expect(() => parseCheckResult(null)).toThrow(ProtocolError);
  expect(() => parseRuleDoc({ code: 'X' })).toThrow(ProtocolError);
});

test('probe answers carry the runtime summary', () => {
  const result = parseProbeResult({
    version: '0.1',
    findings: [wire],
    runtime: { versions: { tensorflow: '2.21.0', python: 3 }, eager: true, control_flow_v2: true, events: 4 },
    message: 'attached'
  });
  expect(result.runtime).toEqual({ versions: { tensorflow: '2.21.0' }, eager: true, control_flow_v2: true, events: 4 });
  expect(result.message).toBe('attached');
  expect(parseProbeResult({ findings: [] }).runtime).toBeNull();
});

test('error answers give their message', () => {
  expect(errorMessage({ message: 'run %load_ext tapelsp.probe' }, 'fallback')).toBe('run %load_ext tapelsp.probe');
  expect(errorMessage('<html>', 'fallback')).toBe('fallback');
});
