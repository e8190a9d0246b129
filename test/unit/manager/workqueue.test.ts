import { expect } from 'chai';
import { WorkQueue, backoffDelay, DEFAULT_BACKOFF } from '../../../src/manager/workqueue.ts';
import type { ResultLabel } from '../../../src/manager/workqueue.ts';
import { ManualClock, settle } from '../../../src/kube/clock.ts';

describe('manager/workqueue', () => {
  describe('per-key exponential backoff (client-go ItemExponentialFailureRateLimiter 5ms..1000s)', () => {
    const rows: Array<[number, number]> = [
      [0, 5],
      [1, 10],
      [2, 20],
      [3, 40],
      [10, 5120],
      [17, 655_360],
      [18, 1000_000],
      [30, 1000_000],
      [5000, 1000_000],
    ];
    for (const [failures, ms] of rows) {
      it(`after ${failures} failures the next retry waits ${ms} ms`, () => {
        expect(backoffDelay(failures, DEFAULT_BACKOFF)).to.equal(ms);
      });
    }
  });

  it('merges a key added while it is queued', async () => {
    const q = new WorkQueue('t');
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.len()).to.equal(2);
    expect(await q.get()).to.equal('a');
    expect(await q.get()).to.equal('b');
    expect(q.len()).to.equal(0);
  });

  it('holds a key added while processing until done, then queues it once', async () => {
    const q = new WorkQueue('t');
    q.add('a');
    const k = await q.get();
    q.add('a');
    q.add('a');
    expect(q.len(), 'not handed out while a worker has it').to.equal(0);
    q.done(k!);
    expect(q.len()).to.equal(1);
    expect(await q.get()).to.equal('a');
  });

  it('never runs one key on two workers at once, and loses no add', async () => {
    const q = new WorkQueue('t');
    const running = new Map<string, number>();
    let maxConcurrentPerKey = 0;
    let runsOfA = 0;
    let addsDuringRun = 0;
    const done = q.run(4, async (key) => {
      running.set(key, (running.get(key) ?? 0) + 1);
      maxConcurrentPerKey = Math.max(maxConcurrentPerKey, running.get(key)!);
      if (key === 'a') {
        runsOfA++;
        if (addsDuringRun < 5) {
          addsDuringRun++;
          q.add('a');
          q.add('a');
        }
      }
      for (let i = 0; i < 3; i++) await settle(); // the other workers run meanwhile
      running.set(key, running.get(key)! - 1);
    });
    q.add('a');
    q.add('b');
    q.add('c');
    for (let i = 0; i < 100 && !(runsOfA === 6 && q.len() === 0); i++) await settle();
    q.shutdown();
    await done;
    expect(maxConcurrentPerKey).to.equal(1);
    expect(runsOfA, 'each add during a run gives exactly one more run').to.equal(6);
  });

  it('addAfter delays, and the earliest pending time for a key wins', async () => {
    const clock = new ManualClock();
    const q = new WorkQueue('t', { clock });
    q.addAfter('a', 60_000);
    q.addAfter('a', 5);
    q.addAfter('a', 30_000);
    expect(q.len()).to.equal(0);
    await clock.advance(4);
    expect(q.len(), 'not before 5 ms').to.equal(0);
    await clock.advance(1);
    expect(q.len(), 'at 5 ms').to.equal(1);
    expect(await q.get()).to.equal('a');
    expect(clock.pending(), 'the later times were dropped').to.equal(0);
    q.shutdown();
  });

  it('addAfter with 0 adds at once', () => {
    const q = new WorkQueue('t');
    q.addAfter('a', 0);
    expect(q.len()).to.equal(1);
  });

  it('addRateLimited counts failures per key until forget', async () => {
    const clock = new ManualClock();
    const q = new WorkQueue('t', { clock, backoff: { baseDelayMs: 1, maxDelayMs: 4 } });
    q.addRateLimited('a');
    q.addRateLimited('a');
    q.addRateLimited('b');
    expect(q.numRequeues('a')).to.equal(2);
    expect(q.numRequeues('b')).to.equal(1);
    q.forget('a');
    expect(q.numRequeues('a')).to.equal(0);
    await clock.advance(1);
    expect(q.len(), 'both keys after the first backoff (1 ms; the second add of a merged into it)').to.equal(2);
    q.shutdown();
  });

  it('run applies the result: error → backoff, requeueAfter → forget + delay, success → forget', async () => {
    const results: Array<[string, ResultLabel]> = [];
    const clock = new ManualClock();
    const q = new WorkQueue('t', {
      clock,
      backoff: { baseDelayMs: 1, maxDelayMs: 10 },
      hooks: { onResult: (k, r) => results.push([k, r]) },
    });
    let failing = 2;
    let delayed = 1;
    const done = q.run(2, async (key) => {
      if (key === 'fail' && failing-- > 0) throw new Error('boom');
      if (key === 'later' && delayed-- > 0) return { requeueAfterMs: 5 };
      return undefined;
    });
    q.add('fail');
    q.add('later');
    await clock.advance(0);
    expect(results, 'first pass').to.deep.equal([
      ['fail', 'error'],
      ['later', 'requeue_after'],
    ]);
    await clock.advance(1); // fail's first backoff
    expect(results.length).to.equal(3);
    await clock.advance(1); // its second (2 ms)
    expect(results.length, 'fail has not run again before 2 ms').to.equal(3);
    await clock.advance(2); // 4 ms in: fail's second retry and later's 5 ms are due at 3 and 5
    await clock.advance(1);
    expect(results.filter(([, r]) => r === 'success').length, 'both succeeded').to.equal(2);
    expect(results.filter(([k]) => k === 'fail').map(([, r]) => r)).to.deep.equal(['error', 'error', 'success']);
    expect(results.filter(([k]) => k === 'later').map(([, r]) => r)).to.deep.equal(['requeue_after', 'success']);
    expect(q.numRequeues('fail'), 'success forgets the backoff').to.equal(0);
    q.shutdown();
    await done;
  });

  it('run reports each reconcile: onStart before, onResult with its duration (fake clock)', async () => {
    const clock = new ManualClock(0);
    const seen: string[] = [];
    const q = new WorkQueue('t', {
      clock,
      backoff: { baseDelayMs: 60_000, maxDelayMs: 60_000 }, // the failed key is not retried before shutdown
      hooks: {
        onStart: (k) => seen.push(`start ${k}`),
        onResult: (k, r, err, seconds) => seen.push(`${r} ${k} ${seconds}s${err ? ` ${(err as Error).message}` : ''}`),
      },
    });
    const done = q.run(1, async (key) => {
      await clock.advance(key === 'slow' ? 2500 : 40);
      if (key === 'bad') throw new Error('boom');
      return key === 'later' ? { requeueAfterMs: 60_000 } : undefined;
    });
    q.add('slow');
    q.add('bad');
    q.add('later');
    for (let i = 0; i < 20 && seen.length < 6; i++) await settle();
    q.shutdown();
    await done;
    expect(seen).to.deep.equal([
      'start slow',
      'success slow 2.5s',
      'start bad',
      'error bad 0.04s boom',
      'start later',
      'requeue_after later 0.04s',
    ]);
  });

  it('shutdown drains queued keys, finishes in-flight ones, then ignores adds', async () => {
    const q = new WorkQueue('t');
    const seen: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const done = q.run(1, async (key) => {
      if (key === 'a') await gate;
      seen.push(key);
    });
    q.add('a');
    q.add('b');
    await settle();
    q.shutdown();
    q.add('c');
    q.addAfter('d', 1);
    let finished = false;
    void done.then(() => {
      finished = true;
    });
    await settle();
    expect(finished, 'waits for the in-flight key').to.equal(false);
    release();
    await done;
    expect(seen).to.deep.equal(['a', 'b']);
  });

  it('shutdownAndDrain resolves once in-flight keys are done', async () => {
    const q = new WorkQueue('t');
    q.add('a');
    const k = await q.get();
    let drained = false;
    const p = q.shutdownAndDrain().then(() => {
      drained = true;
    });
    await settle();
    expect(drained).to.equal(false);
    q.done(k!);
    await p;
    expect(drained).to.equal(true);
    expect(await q.get()).to.equal(undefined);
  });
});
