// The control plane's work queue: keys ("rs/default/web", "sched", ...) merged while they wait,
// handled one at a time, in batches that yield to I/O between them; keys can also be due at a
// later time (one real timer for the earliest of them); a failing key backs off and is retried.

import type { Clock } from '../../kube/clock.ts';

/** What the queue needs of a clock (src/kube/clock.ts; realClock by default in the control plane). */
export type Timers = Pick<Clock, 'now' | 'setTimer' | 'clearTimer'>;

const BATCH = 500;
const BACKOFF_MIN_MS = 10;
const BACKOFF_MAX_MS = 5000;

export class WorkQueue {
  private readonly pending = new Set<string>();
  /** Earliest due time per delayed key; the heap may hold stale entries for it (skipped on pop). */
  private readonly due = new Map<string, number>();
  private readonly heap: Array<{ at: number; key: string }> = [];
  private readonly failures = new Map<string, number>();
  private timer: unknown;
  private timerAt = Infinity;
  private draining = false;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];
  private readonly handle: (key: string) => void;
  private readonly timers: Timers;
  private readonly onError: (key: string, err: unknown) => void;

  constructor(handle: (key: string) => void, timers: Timers, onError: (key: string, err: unknown) => void) {
    this.handle = handle;
    this.timers = timers;
    this.onError = onError;
  }

  add(key: string): void {
    if (this.stopped) return;
    this.pending.add(key);
    this.kick();
  }

  /** Handle `key` at `atMs` (or earlier if it is added or already due sooner). */
  addAt(key: string, atMs: number): void {
    if (this.stopped) return;
    if (atMs <= this.timers.now()) {
      this.add(key);
      return;
    }
    const cur = this.due.get(key);
    if (cur !== undefined && cur <= atMs) return;
    this.due.set(key, atMs);
    this.push({ at: atMs, key });
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.pending.clear();
    this.due.clear();
    this.heap.length = 0;
    if (this.timer !== undefined) this.timers.clearTimer(this.timer);
    this.timer = undefined;
    this.resolveIdle();
  }

  /** Resolves once no key is waiting to be handled now (delayed keys do not count). */
  idle(): Promise<void> {
    if (!this.draining && this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  get size(): number {
    return this.pending.size;
  }

  private kick(): void {
    if (this.draining) return;
    this.draining = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    if (this.stopped) return;
    let n = 0;
    for (const key of this.pending) {
      if (n++ >= BATCH) break;
      this.pending.delete(key);
      try {
        this.handle(key);
        this.failures.delete(key);
      } catch (err) {
        const count = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, count);
        this.onError(key, err);
        this.addAt(key, this.timers.now() + Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** (count - 1)));
      }
      if (this.stopped) return;
    }
    if (this.pending.size > 0) {
      setImmediate(() => this.drain());
      return;
    }
    this.draining = false;
    this.resolveIdle();
  }

  private resolveIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.timers.now();
    while (this.heap.length > 0 && this.heap[0].at <= now) {
      const e = this.pop()!;
      if (this.due.get(e.key) !== e.at) continue;
      this.due.delete(e.key);
      this.pending.add(e.key);
    }
    if (this.pending.size > 0) this.kick();
    this.arm();
  }

  private arm(): void {
    if (this.stopped) return;
    while (this.heap.length > 0 && this.due.get(this.heap[0].key) !== this.heap[0].at) this.pop();
    if (this.heap.length === 0) return;
    const at = this.heap[0].at;
    if (at >= this.timerAt) return;
    if (this.timer !== undefined) this.timers.clearTimer(this.timer);
    this.timerAt = at;
    this.timer = this.timers.setTimer(() => this.fire(), Math.max(0, at - this.timers.now()));
  }

  private push(e: { at: number; key: string }): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p].at <= h[i].at) break;
      [h[p], h[i]] = [h[i], h[p]];
      i = p;
    }
  }

  private pop(): { at: number; key: string } | undefined {
    const h = this.heap;
    if (h.length === 0) return undefined;
    const top = h[0];
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l].at < h[m].at) m = l;
        if (r < h.length && h[r].at < h[m].at) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i], h[m]];
        i = m;
      }
    }
    return top;
  }
}
