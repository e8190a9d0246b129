// Time as an injected object: everything in the controller that waits or reads the time (the work
// queue's delays, the informers' resync and watchdog, event aggregation, the rate limiter, leader
// election, the rollout metrics) takes a Clock, so tests drive it with a ManualClock instead of
// sleeping. `realClock` is the process's own time.
//
// The simulated cluster's control plane takes the same timers (its Timers are this Clock's now,
// setTimer and clearTimer).
//
// now() is wall-clock milliseconds (Date.now): the rollout metrics and the engine compare it with
// timestamps stored in objects. Timers never keep the process alive (unref'd).

/** A timer's handle: only the clock that made it knows what it is. */
export type Timer = unknown;

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Milliseconds from an arbitrary origin, with sub-millisecond resolution and never going back:
   * for measuring how long something took (queue latency, reconcile time), not for timestamps.
   */
  elapsed(): number;
  /** Calls `fn` once after `ms`; the returned handle cancels it. */
  setTimer(fn: () => void, ms: number): Timer;
  /** Cancels a timer of this clock; undefined or an already-run timer is ignored. */
  clearTimer(t: Timer): void;
  /** Resolves after `ms`; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** sleep() built on a clock's timers. */
function sleepOn(clock: Pick<Clock, 'setTimer' | 'clearTimer'>, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clock.clearTimer(t);
      reject(signal!.reason);
    };
    const t = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const realClock: Clock = {
  now: () => Date.now(),
  elapsed: () => performance.now(),
  setTimer(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref();
    return t;
  },
  clearTimer(t) {
    if (t !== undefined) clearTimeout(t as NodeJS.Timeout);
  },
  sleep: (ms, signal) => sleepOn(realClock, ms, signal),
};

/**
 * A clock that moves only when told: advance(ms) runs every timer that falls due, in time order,
 * letting pending promise callbacks and I/O settle after each one, as if that much time had passed.
 */
export class ManualClock implements Clock {
  private t: number;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  elapsed(): number {
    return this.t;
  }

  setTimer(fn: () => void, ms: number): Timer {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn });
    return id;
  }

  clearTimer(t: Timer): void {
    if (typeof t === 'number') this.timers.delete(t);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Timers not yet run. */
  pending(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, running what falls due on the way. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    await settle();
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.timers)
        if (e[1].at <= end && (!next || e[1].at < next[1].at || (e[1].at === next[1].at && e[0] < next[0]))) next = e;
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = Math.max(this.t, next[1].at);
      next[1].fn();
      await settle();
    }
    this.t = end;
    await settle();
  }
}

/** Lets queued promise callbacks and already-finished I/O run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** How long a piece of a long synchronous task runs before it gives the event loop back (TimeSlice). */
export const SLICE_MS = 5;

/**
 * Work done in pieces of at most about `ms` of the event loop's time, so that a task over a whole
 * cache (a resync's deliveries, a scrape's listing) does not hold other events behind it however
 * much each item costs: `over()` after each item, and when it says so, `await next()`, which lets the
 * loop turn and starts the next piece. Real time (performance.now), not a Clock's: it measures how
 * long the loop was held, which a test's manual clock does not advance.
 */
export class TimeSlice {
  private since = performance.now();
  private readonly ms: number;
  constructor(ms: number = SLICE_MS) {
    this.ms = ms;
  }
  over(): boolean {
    return performance.now() - this.since >= this.ms;
  }
  async next(): Promise<void> {
    await settle();
    this.since = performance.now();
  }
}

// metav1.Time as the API serialises it (api/duration.ts: the engine formats it too).
export { metaTime } from '../api/duration.ts';
