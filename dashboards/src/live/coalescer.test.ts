import { describe, expect, it, vi } from 'vitest';
import { createCoalescer, type Scheduler } from './coalescer';

interface Item {
  id: number;
  t: number;
}

/** A scheduler the test fires by hand, recording the delays asked for. */
function manualScheduler() {
  const pending: { run: () => void; delay: number }[] = [];
  const schedule: Scheduler = (run, delay) => {
    const entry = { run, delay };
    pending.push(entry);
    return () => {
      const i = pending.indexOf(entry);
      if (i >= 0) pending.splice(i, 1);
    };
  };
  const fire = () => pending.splice(0).forEach((p) => p.run());
  return { schedule, pending, fire };
}

function setup(now = () => 0) {
  const sched = manualScheduler();
  const flush = vi.fn<(batch: Item[]) => void>();
  const c = createCoalescer<Item>({
    keyOf: (i) => i.id,
    isNewer: (a, b) => a.t >= b.t,
    flush,
    minIntervalMs: 100,
    schedule: sched.schedule,
    now,
  });
  return { c, flush, sched };
}

describe('coalescer', () => {
  it('turns a burst into one flush with the latest item per device', () => {
    const { c, flush, sched } = setup();
    c.add([{ id: 1, t: 1 }, { id: 2, t: 1 }]);
    c.add([{ id: 1, t: 3 }]);
    c.add([{ id: 1, t: 2 }, { id: 2, t: 5 }, { id: 3, t: 1 }]);
    expect(flush).not.toHaveBeenCalled();
    expect(sched.pending).toHaveLength(1);
    sched.fire();
    expect(flush).toHaveBeenCalledTimes(1);
    const batch = flush.mock.calls[0][0];
    expect(batch).toHaveLength(3);
    expect(Object.fromEntries(batch.map((i) => [i.id, i.t]))).toEqual({ 1: 3, 2: 5, 3: 1 });
  });

  it('never lets an older fix replace a newer one within a window', () => {
    const { c, flush, sched } = setup();
    c.add([{ id: 7, t: 10 }]);
    c.add([{ id: 7, t: 4 }]);
    sched.fire();
    expect(flush.mock.calls[0][0]).toEqual([{ id: 7, t: 10 }]);
  });

  it('waits out the minimum interval after a flush before the next one', () => {
    let clock = 1000;
    const { c, sched } = setup(() => clock);
    c.add([{ id: 1, t: 1 }]);
    expect(sched.pending[0].delay).toBe(0);
    sched.fire();
    clock = 1030;
    c.add([{ id: 1, t: 2 }]);
    expect(sched.pending[0].delay).toBe(70);
  });

  it('with a cost factor, waits the last flush duration times it, at most the minimum interval', () => {
    const sched = manualScheduler();
    let clock = 1000;
    let cost = 0;
    let spent = 0; // the cost clock: advanced by each flush's work
    const c = createCoalescer<Item>({
      keyOf: (i) => i.id,
      isNewer: (a, b) => a.t >= b.t,
      flush: () => {
        spent += cost;
      },
      minIntervalMs: 100,
      costFactor: 8,
      schedule: sched.schedule,
      now: () => clock,
      costClock: () => spent,
    });
    cost = 2; // a few markers moved: 16 ms
    c.add([{ id: 1, t: 1 }]);
    sched.fire();
    clock = 1005;
    c.add([{ id: 1, t: 2 }]);
    expect(sched.pending[0].delay).toBe(11);
    cost = 30; // thousands of markers: the full interval, not 240 ms
    clock = 1016;
    sched.fire();
    clock = 1020;
    c.add([{ id: 1, t: 3 }]);
    expect(sched.pending[0].delay).toBe(96);
  });

  it('does not schedule or flush when nothing was added', () => {
    const { c, flush, sched } = setup();
    c.add([]);
    c.flushNow();
    expect(sched.pending).toHaveLength(0);
    expect(flush).not.toHaveBeenCalled();
  });

  it('drops the buffer and the pending flush on dispose', () => {
    const { c, flush, sched } = setup();
    c.add([{ id: 1, t: 1 }]);
    c.dispose();
    expect(sched.pending).toHaveLength(0);
    c.add([{ id: 2, t: 1 }]);
    expect(c.pending()).toBe(0);
    expect(flush).not.toHaveBeenCalled();
  });
});
