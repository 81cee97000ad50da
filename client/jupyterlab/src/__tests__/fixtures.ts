import type { Finding } from '../protocol';

export function finding(overrides: Partial<Finding> = {}): Finding {
  return {
    code: 'TAPE001',
    message: 'inner tape rebinds `tape`',
    severity: 'error',
    cell_id: 'c1',
    cell_index: 0,
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
    doc_url: '',
    related: [],
    fix: null,
    runtime: null,
    ...overrides
  };
}

export const at = (line: number, character: number, endLine = line, endCharacter = character) => ({
  start: { line, character },
  end: { line: endLine, character: endCharacter }
});
