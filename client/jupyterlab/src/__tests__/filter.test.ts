import { ALL_SEVERITIES, countBySeverity, displayMessage, filterFindings, locationLabel, runtimeBadge, toggleSeverity } from '../filter';
import { marksFor } from '../marks';
import { at, finding } from './fixtures';

const findings = [
  finding({ code: 'MAP002', severity: 'warning', cell_index: 2, range: at(0, 4, 0, 9) }),
  finding({ code: 'TAPE002', cell_index: 1, range: at(6, 0, 6, 4) }),
  finding({ code: 'TAPE001', cell_index: 1, range: at(2, 9, 2, 30) }),
  finding({ code: 'X', severity: 'information', cell_index: 0, range: at(0, 0, 0, 1) })
];

test('sorted by cell, line, character', () => {
  expect(filterFindings(findings, ALL_SEVERITIES).map((f) => f.code)).toEqual(['X', 'TAPE001', 'TAPE002', 'MAP002']);
});

test('the severity filter hides and shows', () => {
  const noErrors = toggleSeverity(ALL_SEVERITIES, 'error');
  expect(filterFindings(findings, noErrors).map((f) => f.code)).toEqual(['X', 'MAP002']);
  expect(filterFindings(findings, toggleSeverity(noErrors, 'error'))).toHaveLength(4);
  expect(ALL_SEVERITIES.has('error')).toBe(true); // not mutated
  expect(countBySeverity(findings)).toEqual({ error: 2, warning: 1, information: 1 });
});

test('labels as a person counts', () => {
  expect(locationLabel(findings[2])).toBe('cell 2, line 3');
  expect(runtimeBadge(finding({ runtime: { status: 'confirmed', evidence: 'e' } }))).toBe('confirmed');
  expect(runtimeBadge(finding())).toBeNull();
});

describe('underline marks', () => {
  const text = 'x = 1\n\nwith tape:\n';

  test('ranges become offsets; empty ranges widen to one character; empty lines get none', () => {
    const marks = marksFor(
      [
        finding({ range: at(2, 5, 2, 9), code: 'A' }),
        finding({ range: at(0, 0), code: 'B' }),
        finding({ range: at(0, 5), code: 'C' }), // end of line: the character before
        finding({ range: at(1, 0), code: 'D' }), // empty line
        finding({ range: at(2, 5, 9, 4), code: 'E', runtime: { status: 'confirmed', evidence: '' } }), // ends past the text
        finding({ range: at(9, 0, 9, 4), code: 'F' }) // starts past the text: nothing
      ],
      text
    );
    expect(marks.map((m) => [m.code, text.slice(m.from, m.to)])).toEqual([
      ['B', 'x'],
      ['C', '1'],
      ['A', 'tape'],
      ['E', 'tape:\n']
    ]);
    expect(marks.map((m) => m.confirmed)).toEqual([false, false, false, true]);
  });
});

test('the evidence the probe appends to a message is shown once, under the badge', () => {
  const runtime = { status: 'confirmed' as const, evidence: 'TensorFlow said [x]' };
  expect(displayMessage(finding({ message: 'Bad [a] thing [confirmed at runtime: TensorFlow said [x]]', runtime }))).toBe('Bad [a] thing');
  expect(displayMessage(finding({ message: 'Bad [a] thing', runtime }))).toBe('Bad [a] thing');
  expect(displayMessage(finding({ message: 'Bad [confirmed at runtime: y]' }))).toBe('Bad [confirmed at runtime: y]');
});
