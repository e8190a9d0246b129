import { expect } from 'chai';
import { WorkQueue, type Timers } from '../../../../src/sim/control/queue.ts';

/** A clock that only moves when the test says so. */
function fakeTimers() {
  let now = 1000;
  const timers: Array<{ at: number; fn: () => void; id: number }> = [];
  let next = 0;
  const t: Timers = {
    now: () => now,
    setTimer: (fn, ms) => {
      const id = next++;
      timers.push({ at: now + ms, fn, id });
      return id;
    },
    clearTimer: (h) => {
      const i = timers.findIndex((x) => x.id === h);
      if (i >= 0) timers.splice(i, 1);
    },
  };
  return {
    t,
    advance(ms: number) {
      now += ms;
      for (const due of timers.filter((x) => x.at <= now)) {
        timers.splice(timers.indexOf(due), 1);
        due.fn();
      }
    },
    pendingTimers: () => timers.length,
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('sim/control work queue', () => {
  it('merges a key added several times before it runs', async () => {
    const seen: string[] = [];
    const q = new WorkQueue(
      (k) => seen.push(k),
      fakeTimers().t,
      () => {},
    );
    q.add('a');
    q.add('b');
    q.add('a');
    await q.idle();
    expect(seen).to.deep.equal(['a', 'b']);
  });

  it('runs delayed keys when their time comes, the earliest request winning', async () => {
    const clock = fakeTimers();
    const seen: string[] = [];
    const q = new WorkQueue(
      (k) => seen.push(k),
      clock.t,
      () => {},
    );
    q.addAt('late', 1500);
    q.addAt('soon', 1100);
    q.addAt('soon', 1400); // later than the pending request: ignored
    clock.advance(100);
    await tick();
    await q.idle();
    expect(seen).to.deep.equal(['soon']);
    clock.advance(300);
    await tick();
    await q.idle();
    expect(seen).to.deep.equal(['soon']);
    clock.advance(100);
    await tick();
    await q.idle();
    expect(seen).to.deep.equal(['soon', 'late']);
    q.stop();
  });

  it('retries a failing key with backoff and reports the error', async () => {
    const clock = fakeTimers();
    let calls = 0;
    const errors: string[] = [];
    const q = new WorkQueue(
      () => {
        calls++;
        if (calls < 3) throw new Error(`boom ${calls}`);
      },
      clock.t,
      (k, e) => errors.push(`${k}: ${(e as Error).message}`),
    );
    q.add('k');
    await q.idle();
    expect(calls).to.equal(1);
    clock.advance(10);
    await tick();
    await q.idle();
    expect(calls).to.equal(2);
    clock.advance(10); // the second backoff is 20 ms
    await tick();
    await q.idle();
    expect(calls).to.equal(2);
    clock.advance(10);
    await tick();
    await q.idle();
    expect(calls).to.equal(3);
    expect(errors).to.deep.equal(['k: boom 1', 'k: boom 2']);
    q.stop();
  });

  it('stop() drops everything and clears its timer', async () => {
    const clock = fakeTimers();
    const seen: string[] = [];
    const q = new WorkQueue(
      (k) => seen.push(k),
      clock.t,
      () => {},
    );
    q.addAt('x', 2000);
    expect(clock.pendingTimers()).to.equal(1);
    q.stop();
    expect(clock.pendingTimers()).to.equal(0);
    q.add('y');
    await tick();
    expect(seen).to.deep.equal([]);
  });
});
