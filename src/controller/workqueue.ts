// A work queue of keys with controller-runtime's contract (client-go's workqueue):
//  * a key is never handed to two workers at once;
//  * adding a key that is already queued merges with it;
//  * adding a key that is being processed marks it dirty: it is queued again once `done`;
//  * `addAfter` delays an add (the earliest pending time per key wins);
//  * `addRateLimited` delays by the key's own exponential backoff until `forget`;
//  * `shutdown` stops new adds; workers drain what is queued, finish in-flight keys, then exit.

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
  /** Called after each reconcile with its outcome (metrics). */
  onResult?(key: string, result: ResultLabel, err?: unknown): void;
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
  private readonly waiting = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly getters: Array<(key: string | undefined) => void> = [];
  private readonly idleWaiters: Array<() => void> = [];
  private shuttingDown = false;

  constructor(name: string, opts: { backoff?: BackoffOptions; hooks?: WorkQueueHooks } = {}) {
    this.name = name;
    this.backoff = opts.backoff ?? DEFAULT_BACKOFF;
    this.hooks = opts.hooks ?? {};
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return; // requeued by done()
    this.push(key);
  }

  private push(key: string): void {
    const getter = this.getters.shift();
    if (getter) {
      this.dirty.delete(key);
      this.processing.add(key);
      getter(key);
    } else {
      this.queue.push(key);
    }
  }

  /** The next key, or undefined once shut down and empty. The caller must call done(key). */
  get(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) this.push(key);
    if (this.processing.size === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = Date.now() + ms;
    const pending = this.waiting.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
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

  /** Keys waiting to be processed (the workqueue_depth metric). */
  len(): number {
    return this.queue.length;
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Stops new adds and delayed adds; idle workers exit, queued keys are still handed out. */
  shutdown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
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
  run(workers: number, reconcile: (key: string) => Promise<ReconcileResult | void>): Promise<void> {
    const loop = async (): Promise<void> => {
      for (;;) {
        const key = await this.get();
        if (key === undefined) return;
        try {
          const result = await reconcile(key);
          if (result?.requeueAfterMs !== undefined) {
            this.forget(key);
            this.addAfter(key, result.requeueAfterMs);
            this.hooks.onResult?.(key, 'requeue_after');
          } else if (result?.requeue) {
            this.addRateLimited(key);
            this.hooks.onResult?.(key, 'requeue');
          } else {
            this.forget(key);
            this.hooks.onResult?.(key, 'success');
          }
        } catch (err) {
          this.addRateLimited(key);
          this.hooks.onResult?.(key, 'error', err);
        } finally {
          this.done(key);
        }
      }
    };
    return Promise.all(Array.from({ length: Math.max(1, workers) }, loop)).then(() => undefined);
  }
}
