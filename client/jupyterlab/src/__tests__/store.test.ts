import type { CellSource, CheckResult, ProbeResult } from '../protocol';
import { FindingsStore } from '../store';
import { at, finding } from './fixtures';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

function setup(delayMs = 500) {
  let cells: CellSource[] = [{ id: 'c1', cell_type: 'code', source: 'a' }];
  const checks: Array<{ cells: CellSource[]; answer: ReturnType<typeof deferred<CheckResult>> }> = [];
  const probes: Array<ReturnType<typeof deferred<ProbeResult>>> = [];
  const store = new FindingsStore({
    cells: () => cells,
    check: (sent) => {
      const answer = deferred<CheckResult>();
      checks.push({ cells: sent, answer });
      return answer.promise;
    },
    probe: () => {
      const answer = deferred<ProbeResult>();
      probes.push(answer);
      return answer.promise;
    },
    delayMs
  });
  return { store, checks, probes, setCells: (next: CellSource[]) => (cells = next) };
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

test('edits are checked once, after the typing stops', async () => {
  const { store, checks, setCells } = setup();
  for (const source of ['ab', 'abc', 'abcd']) {
    setCells([{ id: 'c1', cell_type: 'code', source }]);
    store.contentChanged();
    jest.advanceTimersByTime(300);
  }
  expect(checks).toHaveLength(0);
  jest.advanceTimersByTime(200);
  expect(checks).toHaveLength(1);
  expect(checks[0].cells[0].source).toBe('abcd');
});

test('changes that leave every source as it was sent (outputs, execution counts) are not checked', async () => {
  const { store, checks } = setup();
  void store.checkNow();
  store.contentChanged();
  jest.advanceTimersByTime(1000);
  expect(checks).toHaveLength(1);
});

test('an older answer that arrives late does not replace a newer one', async () => {
  const { store, checks, setCells } = setup();
  const first = store.checkNow();
  setCells([{ id: 'c1', cell_type: 'code', source: 'b' }]);
  const second = store.checkNow();
  checks[1].answer.resolve({ version: '1', findings: [finding({ code: 'NEW' })] });
  await second;
  checks[0].answer.resolve({ version: '1', findings: [finding({ code: 'OLD' })] });
  await first;
  expect(store.findings.map((f) => f.code)).toEqual(['NEW']);
  expect(store.checkedSource('c1')).toBe('b');
});

test('a failed check shows its error and keeps nothing stale as current', async () => {
  const { store, checks } = setup();
  const seen: string[] = [];
  store.subscribe(() => seen.push(store.status));
  const done = store.checkNow();
  checks[0].answer.reject(new Error('server down'));
  await done;
  expect(store.status).toBe('error');
  expect(store.error).toBe('server down');
  expect(seen).toEqual(['checking', 'error']);
});

test('runtime verdicts stay on unchanged cells after a re-check and go when the cell changes', async () => {
  const { store, checks, probes, setCells } = setup();
  const cells = [
    { id: 'c1', cell_type: 'code' as const, source: 'a' },
    { id: 'c2', cell_type: 'code' as const, source: 'b' }
  ];
  setCells(cells);
  const probed = store.probeNow();
  probes[0].resolve({
    version: '1',
    runtime: { versions: { tensorflow: '2.21.0' }, eager: true, control_flow_v2: true, events: 2 },
    message: 'ok',
    findings: [
      finding({ cell_id: 'c1', runtime: { status: 'confirmed', evidence: 'seen' } }),
      finding({ cell_id: 'c2', cell_index: 1, code: 'RUN', range: at(0, 0, 0, 1), runtime: { status: 'runtime-only', evidence: 'only' } })
    ]
  });
  await probed;
  expect(store.probe?.confirmed).toBe(1);

  // Cell 2 changes; cell 1 does not.
  setCells([cells[0], { ...cells[1], source: 'bb' }]);
  const checked = store.checkNow();
  checks[0].answer.resolve({ version: '1', findings: [finding({ cell_id: 'c1' }), finding({ cell_id: 'c2', cell_index: 1, code: 'TAPE002' })] });
  await checked;
  const byCode = Object.fromEntries(store.findings.map((f) => [`${f.cell_id}/${f.code}`, f.runtime?.status ?? null]));
  expect(byCode).toEqual({ 'c1/TAPE001': 'confirmed', 'c2/TAPE002': null });
});

test('nothing happens after dispose', async () => {
  const { store, checks, setCells } = setup();
  setCells([{ id: 'c1', cell_type: 'code', source: 'zz' }]);
  store.contentChanged();
  store.dispose();
  jest.advanceTimersByTime(1000);
  expect(checks).toHaveLength(0);
});
