import { Debouncer } from '../debounce';

test('runs once after the last schedule; flush runs now; cancel drops it', () => {
  const calls: number[] = [];
  let now = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  let next = 1;
  const fake = {
    setTimeout: (fn: () => void, ms: number) => (timers.set(next, { at: now + ms, fn }), next++),
    clearTimeout: (handle: unknown) => void timers.delete(handle as number)
  };
  const advance = (ms: number) => {
    now += ms;
    for (const [id, t] of [...timers]) if (t.at <= now) (timers.delete(id), t.fn());
  };
  const d = new Debouncer(() => calls.push(now), 100, fake);
  d.schedule();
  advance(50);
  d.schedule();
  advance(99);
  expect(calls).toEqual([]);
  advance(1);
  expect(calls).toEqual([150]);
  d.schedule();
  d.flush();
  expect(calls).toEqual([150, 150]);
  expect(d.pending).toBe(false);
  d.schedule();
  d.cancel();
  advance(500);
  expect(calls).toEqual([150, 150]);
});
