// A reconciler as the manager runs it: a work queue of keys and N workers calling `reconcile`, with
// controller-runtime's contract (the queue's: a key never runs on two workers at once, duplicates
// merge, per-key backoff, requeueAfter) and its metrics (controller_runtime_*, workqueue_*).
// A new reconciler is one call, register(mgr, { name, watches, reconcile }): its watches
// (watches.ts) are wired to its queue here. docs/architecture.md#adding-a-controller
//
// The queue collects keys on every replica (the informers run everywhere), but only the leader's
// workers take them: a replica that becomes leader starts with every key its caches delivered.
// Sharded (shards.ts), the workers run on every replica and a key whose shard this replica does not
// hold is parked instead of reconciled; taking that shard queues its parked keys again. A pass runs
// inside its shard's ticket, which the write gate asks.

import { randomUUID } from 'node:crypto';
import { reconcileLogger } from '../observe/logger.ts';
import type { Logger } from '../observe/logger.ts';
import { WorkQueue } from './workqueue.ts';
import type { BackoffOptions, ReconcileResult } from './workqueue.ts';
import type { Watch } from './watches.ts';
import type { Manager, Runnable } from './manager.ts';
import { shardContext } from './shards.ts';

/** The most keys a controller parks for one shard it does not hold (see Controller.park). */
export const MAX_PARKED_PER_SHARD = 100_000;

export interface ControllerOptions {
  /** The controller label of every metric and log line (e.g. "deployment"). */
  name: string;
  workers?: number;
  backoff?: BackoffOptions;
  /**
   * One pass for `key`. Throwing counts as an error and retries the key with backoff; `stats.writes`
   * may be counted as it goes, so a failed pass still logs what it wrote.
   */
  reconcile(key: string, log: Logger, stats: { writes: number }): Promise<ReconcileResult>;
  /** What wakes which key (watch() of watches.ts), wired to the queue in this order. */
  watches?: readonly Watch[];
}

/** Registers a reconciler with `mgr`: its queue, workers and metrics, its watches wired to the queue. */
export function register(mgr: Manager, opts: ControllerOptions): Controller {
  const controller = new Controller(mgr, opts);
  mgr.add(controller);
  return controller;
}

export class Controller implements Runnable {
  readonly name: string;
  readonly needLeaderElection = true;
  readonly queue: WorkQueue;
  private readonly mgr: Manager;
  private readonly opts: ControllerOptions;
  private readonly log: Logger;
  /** Sharded: the keys met while their shard was not held, by shard. */
  private readonly parked = new Map<number, Set<string>>();

  constructor(mgr: Manager, opts: ControllerOptions) {
    this.mgr = mgr;
    this.opts = opts;
    this.name = opts.name;
    this.log = mgr.logger.child({ controller: opts.name });
    const m = mgr.metrics;
    const labels = { controller: opts.name };
    this.queue = new WorkQueue(opts.name, {
      clock: mgr.clock,
      backoff: opts.backoff,
      metrics: m?.queues,
      hooks: m && {
        onStart: () => m.activeWorkers.inc(labels),
        onResult: (_key, result, err, seconds) => {
          m.activeWorkers.dec(labels);
          m.reconcileTime.observe(labels, seconds);
          if (err !== undefined) m.reconcileErrors.inc(labels);
          m.reconcileTotal.inc({ ...labels, result });
        },
      },
    });
    m?.initController(opts.name, this.workers());
    for (const w of opts.watches ?? []) w.wire((key) => this.enqueue(key));
    mgr.onShardAcquired((shard) => {
      const keys = this.parked.get(shard);
      this.parked.delete(shard);
      for (const key of keys ?? []) this.queue.add(key);
    });
  }

  /** Queues `key`; sharded, a key whose shard is not held is parked instead (no worker, no metric). */
  private enqueue(key: string): void {
    const shards = this.mgr.shards;
    if (shards && !shards.runs(shards.shardOfKey(key))) this.park(shards.shardOfKey(key), key);
    else this.queue.add(key);
  }

  /**
   * Parks `key` until its shard is taken. At most MAX_PARKED_PER_SHARD a shard, the least recently
   * parked dropped first (the keys of deleted objects would otherwise pile up on a replica that
   * never takes their shard): a dropped key's object is reconciled at the informers' next resync.
   */
  private park(shard: number, key: string): void {
    let keys = this.parked.get(shard);
    if (!keys) this.parked.set(shard, (keys = new Set()));
    keys.delete(key);
    keys.add(key);
    if (keys.size > MAX_PARKED_PER_SHARD) keys.delete(keys.values().next().value!);
  }

  /** How many keys wait for a shard this replica does not hold. */
  parkedKeys(): number {
    let n = 0;
    for (const keys of this.parked.values()) n += keys.size;
    return n;
  }

  private workers(): number {
    return Math.max(1, this.opts.workers ?? 1);
  }

  /** Runs the workers until `signal` aborts; then no new keys, and in-flight reconciles finish. */
  async start(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    this.log.info('starting workers', { workers: this.workers(), namespace: this.mgr.namespace ?? '(all)' });
    const stop = (): void => this.queue.shutdown();
    signal.addEventListener('abort', stop, { once: true });
    await this.queue.run(this.workers(), (key) => this.reconcileInShard(key));
    this.log.info('workers stopped');
  }

  /** Sharded: the pass runs under its shard's ticket, or the key is parked until the shard is held. */
  private async reconcileInShard(key: string): Promise<ReconcileResult> {
    const shards = this.mgr.shards;
    if (!shards) return this.reconcileAndLog(key);
    const shard = shards.shardOfKey(key);
    const ticket = shards.enter(shard);
    if (!ticket) {
      this.park(shard, key);
      return {};
    }
    try {
      return await shardContext.run(ticket, () => this.reconcileAndLog(key));
    } finally {
      shards.leave(ticket);
    }
  }

  /**
   * One reconcile with its finished line: duration in ms and result; at info when the pass wrote
   * something, met a conflict or failed, at debug when it was a no-op (resyncs and the progress
   * deadline's requeues would otherwise flood the log).
   */
  private async reconcileAndLog(key: string): Promise<ReconcileResult> {
    const log = reconcileLogger(this.mgr.logger, this.opts.name, key, randomUUID());
    const clock = this.mgr.clock;
    const started = clock.elapsed();
    const stats = { writes: 0 };
    const duration = (): number => Math.round((clock.elapsed() - started) * 1000) / 1000;
    try {
      const result = await this.opts.reconcile(key, log, stats);
      const outcome = result.requeueAfterMs !== undefined ? 'requeue_after' : result.requeue ? 'requeue' : 'success';
      log.log(stats.writes > 0 || outcome === 'requeue' ? 'info' : 'debug', 'reconcile finished', {
        duration: duration(),
        result: outcome,
        writes: stats.writes,
        ...(result.requeueAfterMs !== undefined ? { requeueAfterMs: result.requeueAfterMs } : {}),
      });
      return result;
    } catch (err) {
      const e = err as { kind?: string; message?: string };
      log.error('reconcile failed', {
        duration: duration(),
        result: 'error',
        writes: stats.writes,
        kind: e.kind ?? 'Other',
        error: e.message ?? String(err),
        retries: this.queue.numRequeues(key),
      });
      throw err;
    }
  }
}
