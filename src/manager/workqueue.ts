// A work queue of keys with controller-runtime's contract (client-go's workqueue):
//  * a key is never handed to two workers at once;
//  * adding a key that is already queued merges with it;
//  * adding a key that is being processed marks it dirty: it is queued again once `done`;
//  * `addAfter` delays an add (the earliest pending time per key wins);
//  * `addRateLimited` delays by the key's own exponential backoff until `forget`;
//  * `shutdown` stops new adds; workers drain what is queued, finish in-flight keys, then exit.

import { realClock } from '../kube/clock.ts';
import type { Clock, Timer } from '../kube/clock.ts';

/** client-go's ItemExponentialFailureRateLimiter: base × 2^failures, capped. */
export interface BackoffOptions {
  baseDelayMs: number;
  maxDelayMs: number;
}

/** client-go's default for controllers: 5 ms doubling to 1000 s. */
export const DEFAULT_BACKOFF: BackoffOptions = { baseDelayMs: 5, maxDelayMs: 1000_000 };

/** The delay of the (failures+1)-th retry. */
export function backoffDelay(failures: number, opts: BackoffOptions = DEFAULT_BACKOFF): number {
  // 2^failures overflows to Infinity long after the cap: Math.min handles it.
  return Math.min(opts.baseDelayMs * 2 ** failures, opts.maxDelayMs);
}

/** What a reconcile asks of the queue (controller-runtime's reconcile.Result). */
export interface ReconcileResult {
  /** Requeue after this many ms (the rate limiter is reset). */
  requeueAfterMs?: number;
  /** Requeue with the key's backoff. */
  requeue?: boolean;
}

export type ResultLabel = 'success' | 'error' | 'requeue' | 'requeue_after';

export interface WorkQueueHooks {
  /** Called when a worker takes a key, before reconcile (controller_runtime_active_workers). */
  onStart?(key: string): void;
  /** Called after each reconcile with its outcome and how long it took, result handling included. */
  onResult?(key: string, result: ResultLabel, err: unknown, seconds: number): void;
}

/**
 * What a queue reports, one instance per queue (client-go's workqueue metrics, without prom-client:
 * the queue stays usable with none). Durations are in seconds.
 */
export interface QueueMetrics {
  /** A key became pending (workqueue_adds_total). */
  add(): void;
  /** A worker took a key that had waited `waited` seconds since its add (workqueue_queue_duration_seconds). */
  get(waited: number): void;
  /** A worker finished a key it had held for `worked` seconds (workqueue_work_duration_seconds). */
  done(worked: number): void;
  /** A delayed or rate-limited add (workqueue_retries_total: client-go counts every AddAfter). */
  retry(): void;
}

/** What the metrics read from a queue at scrape time. */
export interface QueueState {
  /** Pending keys: queued, or added again while being processed (workqueue_depth). */
  depth(): number;
  /** For each key being processed, seconds since a worker took it (unfinished work, longest processor). */
  processingSeconds(): number[];
}

export interface QueueMetricsProvider {
  forQueue(name: string, state: QueueState): QueueMetrics;
}

export class WorkQueue {
  readonly name: string;
  private readonly backoff: BackoffOptions;
  private readonly hooks: WorkQueueHooks;
  private readonly queue: string[] = [];
  /** Keys that need processing (queued, or added again while processing). */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly waiting = new Map<string, { at: number; timer: Timer }>();
  private readonly getters: Array<(key: string | undefined) => void> = [];
  private readonly idleWaiters: Array<() => void> = [];
  private shuttingDown = false;
  private readonly clock: Clock;
  private readonly metrics?: QueueMetrics;
  /** When each pending key was added (ms), for the queue latency. */
  private readonly addedAt = new Map<string, number>();
  /** When a worker took each key being processed (ms). */
  private readonly startedAt = new Map<string, number>();

  constructor(
    name: string,
    opts: { backoff?: BackoffOptions; hooks?: WorkQueueHooks; metrics?: QueueMetricsProvider; clock?: Clock } = {},
  ) {
    this.name = name;
    this.backoff = opts.backoff ?? DEFAULT_BACKOFF;
    this.hooks = opts.hooks ?? {};
    this.clock = opts.clock ?? realClock;
    this.metrics = opts.metrics?.forQueue(name, {
      depth: () => this.dirty.size,
      processingSeconds: () => {
        const now = this.clock.elapsed();
        return [...this.startedAt.values()].map((t) => (now - t) / 1000);
      },
    });
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    this.metrics?.add();
    if (!this.addedAt.has(key)) this.addedAt.set(key, this.clock.elapsed());
    if (this.processing.has(key)) return; // requeued by done()
    this.push(key);
  }

  private push(key: string): void {
    const getter = this.getters.shift();
    if (getter) {
      this.take(key);
      getter(key);
    } else {
      this.queue.push(key);
    }
  }

  /** A worker takes `key`. */
  private take(key: string): void {
    this.dirty.delete(key);
    this.processing.add(key);
    const now = this.clock.elapsed();
    const added = this.addedAt.get(key);
    this.addedAt.delete(key);
    this.startedAt.set(key, now);
    if (this.metrics) this.metrics.get(added === undefined ? 0 : (now - added) / 1000);
  }

  /** The next key, or undefined once shut down and empty. The caller must call done(key). */
  get(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.take(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  done(key: string): void {
    this.processing.delete(key);
    const started = this.startedAt.get(key);
    this.startedAt.delete(key);
    if (this.metrics && started !== undefined) this.metrics.done((this.clock.elapsed() - started) / 1000);
    if (this.dirty.has(key)) this.push(key);
    if (this.processing.size === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    this.metrics?.retry();
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.clock.now() + ms;
    const pending = this.waiting.get(key);
    if (pending && pending.at <= at) return;
    if (pending) this.clock.clearTimer(pending.timer);
    const timer = this.clock.setTimer(() => {
      this.waiting.delete(key);
      this.add(key);
    }, ms);
    this.waiting.set(key, { at, timer });
  }

  addRateLimited(key: string): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    this.addAfter(key, backoffDelay(n, this.backoff));
  }

  /** Clears the key's backoff (after a success). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** Keys waiting in line for a worker. */
  len(): number {
    return this.queue.length;
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Stops new adds and delayed adds; idle workers exit, queued keys are still handed out. */
  shutdown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.waiting.values()) this.clock.clearTimer(timer);
    this.waiting.clear();
    for (const g of this.getters.splice(0)) g(undefined);
  }

  /**
   * Shuts down and resolves once no key is being processed. Workers started by run() also drain the
   * keys still queued; awaiting run()'s promise waits for those too.
   */
  async shutdownAndDrain(): Promise<void> {
    this.shutdown();
    while (this.processing.size > 0) {
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    }
  }

  /**
   * Runs `workers` loops that take keys and call `reconcile`, applying its result the way
   * controller-runtime does: a throw → addRateLimited; requeueAfterMs → forget + addAfter;
   * requeue → addRateLimited; otherwise forget. Resolves when every worker has exited.
   */
  run(workers: number, reconcile: (key: string) => Promise<ReconcileResult | undefined>): Promise<void> {
    const loop = async (): Promise<void> => {
      for (;;) {
        const key = await this.get();
        if (key === undefined) return;
        const start = this.clock.elapsed();
        const seconds = () => (this.clock.elapsed() - start) / 1000;
        this.hooks.onStart?.(key);
        try {
          const result = await reconcile(key);
          if (result?.requeueAfterMs !== undefined) {
            this.forget(key);
            this.addAfter(key, result.requeueAfterMs);
            this.hooks.onResult?.(key, 'requeue_after', undefined, seconds());
          } else if (result?.requeue) {
            this.addRateLimited(key);
            this.hooks.onResult?.(key, 'requeue', undefined, seconds());
          } else {
            this.forget(key);
            this.hooks.onResult?.(key, 'success', undefined, seconds());
          }
        } catch (err) {
          this.addRateLimited(key);
          this.hooks.onResult?.(key, 'error', err, seconds());
        } finally {
          this.done(key);
        }
      }
    };
    return Promise.all(Array.from({ length: Math.max(1, workers) }, loop)).then(() => undefined);
  }
}
