// An owned list+watch loop with a cache, which recovers from every failure (client-node's
// makeInformer stops for good on any error but 410: docs/simulated-api-server.md#what-clients-rely-on).
//
//   list → watch from the list's resourceVersion
//     clean close            → watch again from the last resourceVersion seen
//     410 (HTTP or ERROR)    → relist and diff against the cache (add/update/delete the differences)
//     any other failure      → back off with jitter (200 ms doubling to 30 s, reset by any event), retry
//     every resyncMs         → every cached object is delivered again as an update (client-go's
//                              resync: from the cache, no list, the watch goes on)
//     no event for watchdogMs→ abort the watch, relist
//
// Handlers get (old, new) on update. Objects are cached by "namespace/name" ("name" when cluster-scoped).

import { KubeError, toKubeError } from '../kube/errors.ts';
import type { ObjectMeta } from '../api/types.ts';
import type { Status } from '../kube/errors.ts';
import type { KubeClient, ResourceType, WatchEvent } from '../kube/client.ts';
import { realClock, TimeSlice } from '../kube/clock.ts';
import type { Clock, Timer } from '../kube/clock.ts';

/** What a cache reads of every object: its identity and version. */
export interface ObjectWithMeta {
  metadata: Pick<ObjectMeta, 'name' | 'namespace' | 'resourceVersion' | 'uid'>;
}

/** Where objects come from: the API server through KubeClient, or a fake in tests. */
export interface ListWatchSource<T> {
  list(signal: AbortSignal): Promise<{ items: T[]; resourceVersion: string }>;
  /** Resolves on a clean close; rejects with a KubeError on failure. */
  watch(
    resourceVersion: string,
    onEvent: (e: WatchEvent<T>) => void,
    signal: AbortSignal,
    onOpen?: () => void,
  ): Promise<void>;
}

export interface InformerHandlers<T> {
  add?(obj: T): void;
  /** `old` is the cached object before the change; on resync old and new may be the same version. */
  update?(old: T, obj: T): void;
  /** The last known state of the object. */
  delete?(obj: T): void;
}

export interface InformerOptions {
  name: string;
  /** Deliver every cached object again as an update this often (no list); 0 disables. Default 10 min. */
  resyncMs?: number;
  /** Rebuild when no watch event (bookmarks count) arrived for this long; 0 disables. Default 10 min. */
  watchdogMs?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Logs recoveries (the informer never throws to its owner). */
  onError?(err: KubeError, what: string): void;
  /** Time for the resync, the watchdog and the backoff (default: the real clock). */
  clock?: Clock;
  /**
   * How an object this process wrote is kept until the watch brings it (assume()), given the
   * version the cache holds: the manager's caches keep it as they keep what the watch delivers
   * (kube/slim.ts cacheKeep). Default: as it is.
   */
  keep?<T>(written: T, cached: T | undefined): T;
}

/**
 * A list+watch source for one resource type through the KubeClient (in one namespace, narrowed by a
 * field selector, when given). `transform` (client-go's SetTransform) is applied to every listed
 * page and every watched object before anything keeps it: only its result is ever held.
 */
export function kubeSource<T extends ObjectWithMeta>(
  client: KubeClient,
  type: ResourceType,
  namespace?: string,
  fieldSelector?: string,
  transform?: (obj: T) => T,
): ListWatchSource<T> {
  const only = fieldSelector !== undefined ? { fieldSelector } : {};
  return {
    list: (signal) => client.list<T>(type, namespace, { ...only, ...(transform ? { transform } : {}) }, signal),
    // Like client-go's reflector: a random 5–10 minute server-side timeout, so watches end cleanly
    // and spread out instead of all reconnecting together.
    watch: (resourceVersion, onEvent, signal, onOpen) =>
      client.watch<T>(
        type,
        namespace,
        {
          ...only,
          resourceVersion,
          timeoutSeconds: 300 + Math.floor(Math.random() * 300),
          ...(onOpen ? { onOpen } : {}),
        },
        transform
          ? (e) =>
              onEvent(
                e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED'
                  ? { ...e, object: transform(e.object) }
                  : e,
              )
          : onEvent,
        signal,
      ),
  };
}

export function keyOf(obj: ObjectWithMeta): string {
  const m = obj.metadata;
  return m.namespace ? `${m.namespace}/${m.name}` : `${m.name}`;
}

/** The jittered backoff: base × 2^attempt capped at max, then a uniform jitter of up to +50%. */
export function retryDelay(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const d = Math.min(baseMs * 2 ** attempt, maxMs);
  return Math.round(d * (1 + 0.5 * random()));
}

function isGoneStatus(s: Status | undefined): boolean {
  return !!s && (s.code === 410 || s.reason === 'Expired' || s.reason === 'Gone');
}

class Relist extends Error {}

function numericRV(obj: ObjectWithMeta): number | undefined {
  const rv = obj.metadata.resourceVersion;
  if (rv === undefined || !/^[0-9]{1,15}$/.test(rv)) return undefined;
  return Number(rv);
}

function fileUnder(keys: Map<string, Set<string>>, value: string, key: string): void {
  let set = keys.get(value);
  if (!set) keys.set(value, (set = new Set()));
  set.add(key);
}

export class Informer<T extends ObjectWithMeta> {
  readonly name: string;
  private readonly source: ListWatchSource<T>;
  private readonly opts: Required<Omit<InformerOptions, 'onError' | 'clock' | 'keep'>> &
    Pick<InformerOptions, 'onError'>;
  private readonly clock: Clock;
  private readonly keep: InformerOptions['keep'];
  private readonly handlers: InformerHandlers<T>[] = [];
  private readonly items = new Map<string, T>();
  /** Objects this process wrote that the watch has not delivered yet (see assume()). */
  private readonly assumed = new Map<string, T>();
  private readonly byNamespace = new Map<string, Map<string, T>>();
  /**
   * Each cached key's place in the order list() returns (the order keys were first cached, which is
   * also `items`' order), for byIndex to sort by: kept only once an index is added, since most caches
   * have none (pods, nine tenths of the objects, save a map entry each).
   */
  private readonly order = new Map<string, number>();
  private nextOrder = 0;
  /** client-go's Indexers: per index, its function and the keys filed under each of its values. */
  private readonly indexes = new Map<string, { fn: (obj: T) => string[]; keys: Map<string, Set<string>> }>();
  private lastRV = '';
  private synced = false;
  private stopped = false;
  private running?: Promise<void>;
  private loopAbort?: AbortController;
  private watchAbort?: AbortController;
  private attempt = 0;
  /** 410s in a row with no object event between them. */
  private goneStreak = 0;
  private lastEventAt = 0;
  /** Since when lists and watches have been failing (undefined: the last one worked). */
  private failingSince?: number;
  private nextResyncAt = 0;
  /** A resync is delivering its slices (resync()). */
  private resyncing = false;
  private syncWaiters: Array<() => void> = [];
  private sleepTimer?: Timer;
  private wakeSleep?: () => void;
  private tick?: Timer;
  /** The watchdog aborted the watch: relist before watching again. */
  private rebuilding = false;
  /** relistNow() was called while no watch ran: list before the next watch. */
  private relistAsked = false;
  /** Lists begun so far, and who waits for a list begun after their call (relistNow). */
  private listsBegun = 0;
  private relistWaiters: Array<{ after: number; resolve: () => void }> = [];

  constructor(source: ListWatchSource<T>, opts: InformerOptions) {
    this.source = source;
    this.name = opts.name;
    this.clock = opts.clock ?? realClock;
    this.keep = opts.keep;
    this.opts = {
      name: opts.name,
      resyncMs: opts.resyncMs ?? 600_000,
      watchdogMs: opts.watchdogMs ?? 600_000,
      backoffBaseMs: opts.backoffBaseMs ?? 200,
      backoffMaxMs: opts.backoffMaxMs ?? 30_000,
      onError: opts.onError,
    };
  }

  on(handlers: InformerHandlers<T>): void {
    this.handlers.push(handlers);
  }

  /**
   * Files every cached object under the values `fn` gives it (client-go's AddIndexers), so that
   * byIndex finds them without a walk over the cache: at 10,000 Deployments a namespace holds
   * 20,000 ReplicaSets, of which a reconcile wants two or three.
   */
  addIndex(name: string, fn: (obj: T) => string[]): void {
    const had = this.indexes.get(name);
    if (had?.fn === fn) return; // a shared informer: another controller added the same index
    if (had) throw new Error(`informer ${this.name}: index ${name} already added`);
    const index = { fn, keys: new Map<string, Set<string>>() };
    if (this.indexes.size === 0) for (const key of this.items.keys()) this.order.set(key, this.nextOrder++);
    this.indexes.set(name, index);
    for (const [key, obj] of this.items) for (const v of fn(obj)) fileUnder(index.keys, v, key);
  }

  /**
   * The objects filed under `value` (or any of `values`) in index `name`: exactly those of list()
   * for which the index function gives one of them, in list()'s order, objects this process wrote
   * (assume()) included.
   */
  byIndex(name: string, values: string | readonly string[]): T[] {
    const index = this.indexes.get(name);
    if (!index) throw new Error(`informer ${this.name}: no index ${name}`);
    const wanted = typeof values === 'string' ? [values] : values;
    const filedUnder = (obj: T) => index.fn(obj).some((v) => wanted.includes(v));
    const filed = new Set<string>();
    for (const v of wanted) for (const key of index.keys.get(v) ?? []) filed.add(key);
    const cached: Array<[number, T]> = [];
    const consider = (key: string) => {
      const obj = this.newest(key, this.items.get(key));
      if (obj && filedUnder(obj)) cached.push([this.order.get(key) ?? 0, obj]);
    };
    for (const key of filed) consider(key);
    // A written version may be filed where its cached one is not (an adoption), or not cached yet.
    const written: T[] = [];
    for (const [key, obj] of [...this.assumed]) {
      if (filed.has(key)) continue;
      if (this.items.has(key)) consider(key);
      else if (filedUnder(obj)) written.push(obj);
    }
    return [...cached.sort((a, b) => a[0] - b[0]).map(([, obj]) => obj), ...written];
  }

  // ---- cache ---------------------------------------------------------------------------------

  get(key: string): T | undefined;
  get(namespace: string | undefined, name: string): T | undefined;
  get(a: string | undefined, b?: string): T | undefined {
    const key = b === undefined ? a! : a ? `${a}/${b}` : b;
    return this.newest(key, this.items.get(key));
  }

  /**
   * The object the cache holds under `key` as the list or watch last delivered it, without this
   * process's own writes (assume()): what a new version of it is kept beside (kube/slim.ts cacheKeep).
   */
  cached(key: string): T | undefined {
    return this.items.get(key);
  }

  list(namespace?: string): T[] {
    const real = namespace === undefined ? this.items : this.byNamespace.get(namespace);
    const out: T[] = [];
    for (const [key, obj] of real ?? []) out.push(this.newest(key, obj)!);
    for (const [key, obj] of this.assumed) {
      if (!real?.has(key) && (namespace === undefined || (obj.metadata.namespace ?? '') === namespace)) out.push(obj);
    }
    return out;
  }

  /**
   * Remembers `obj`, which this process just wrote, until the watch brings it or something newer
   * (client-go's MutationCache): the next reconcile then works from what it wrote instead of a
   * stale copy whose write would only fail with a 409. Only numeric resourceVersions are compared.
   */
  assume(obj: T): void {
    const rv = numericRV(obj);
    if (rv === undefined) return;
    const key = keyOf(obj);
    const cached = this.items.get(key);
    const cachedRV = cached ? numericRV(cached) : undefined;
    if (cached && (cachedRV === undefined || cachedRV >= rv)) return;
    const prior = this.assumed.get(key);
    if (prior && (numericRV(prior) ?? -1) >= rv) return;
    this.assumed.set(key, this.keep ? this.keep(obj, cached) : obj);
  }

  /** The assumed object when it is newer than the cached one; forgets it once it is not. */
  private newest(key: string, real: T | undefined): T | undefined {
    const assumed = this.assumed.get(key);
    if (!assumed) return real;
    if (real && (numericRV(real) ?? Infinity) >= (numericRV(assumed) ?? -1)) {
      this.assumed.delete(key);
      return real;
    }
    return assumed;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** How long lists and watches have been failing, in ms (0: the last list or watch worked). */
  failingFor(): number {
    return this.failingSince === undefined ? 0 : this.clock.now() - this.failingSince;
  }

  /** Resolves once the first list has filled the cache (or the informer is stopped). */
  waitForSync(): Promise<void> {
    if (this.synced || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  lastResourceVersion(): string {
    return this.lastRV;
  }

  /**
   * Lists again soon (the watch in progress is ended, as the watchdog ends it) and resolves once
   * the cache holds a list begun after this call, its differences delivered to the handlers as
   * after a 410 (or once the informer stops). The sharded caches (shardcache.ts) ask for it when
   * what their source keeps has changed.
   */
  relistNow(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const after = this.listsBegun;
    const done = new Promise<void>((resolve) => this.relistWaiters.push({ after, resolve }));
    if (this.watchAbort) {
      this.rebuilding = true;
      this.watchAbort.abort();
    } else this.relistAsked = true;
    return done;
  }

  private put(obj: T): T | undefined {
    const key = keyOf(obj);
    const old = this.items.get(key);
    this.items.set(key, obj);
    if (old) this.unfile(key, old);
    else if (this.indexes.size > 0) this.order.set(key, this.nextOrder++);
    for (const index of this.indexes.values()) for (const v of index.fn(obj)) fileUnder(index.keys, v, key);
    const ns = obj.metadata.namespace ?? '';
    let m = this.byNamespace.get(ns);
    if (!m) this.byNamespace.set(ns, (m = new Map()));
    m.set(key, obj);
    return old;
  }

  private remove(key: string): T | undefined {
    this.assumed.delete(key);
    const old = this.items.get(key);
    if (!old) return undefined;
    this.items.delete(key);
    this.order.delete(key);
    this.unfile(key, old);
    const ns = old.metadata.namespace ?? '';
    const m = this.byNamespace.get(ns);
    m?.delete(key);
    if (m && m.size === 0) this.byNamespace.delete(ns);
    return old;
  }

  private unfile(key: string, obj: T): void {
    for (const index of this.indexes.values()) {
      for (const v of index.fn(obj)) {
        const keys = index.keys.get(v);
        keys?.delete(key);
        if (keys?.size === 0) index.keys.delete(v);
      }
    }
  }

  private emit(fn: (h: InformerHandlers<T>) => void): void {
    for (const h of this.handlers) {
      try {
        fn(h);
      } catch (err) {
        this.opts.onError?.(toKubeError(err), `${this.name}: event handler`);
      }
    }
  }

  // ---- loop ------------------------------------------------------------------------------------

  start(): void {
    if (this.running || this.stopped) return;
    this.loopAbort = new AbortController();
    this.running = this.loop(this.loopAbort.signal);
    // One timer drives both the resync and the watchdog.
    const period = Math.max(50, Math.min(this.opts.resyncMs || Infinity, this.opts.watchdogMs || Infinity, 5_000) / 2);
    const every = (): void => {
      this.tick = this.clock.setTimer(() => {
        if (this.stopped) return;
        this.checkTimers();
        every();
      }, period);
    };
    every();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.clock.clearTimer(this.tick);
    this.loopAbort?.abort();
    this.watchAbort?.abort();
    this.wakeSleep?.();
    for (const w of this.syncWaiters.splice(0)) w();
    for (const w of this.relistWaiters.splice(0)) w.resolve();
    await this.running;
  }

  private checkTimers(): void {
    const now = this.clock.now();
    if (this.synced && this.opts.resyncMs > 0 && now >= this.nextResyncAt) void this.resync(now);
    if (!this.watchAbort || this.rebuilding) return;
    if (this.opts.watchdogMs > 0 && now - this.lastEventAt >= this.opts.watchdogMs) {
      this.rebuilding = true;
      this.watchAbort.abort();
    }
  }

  /**
   * client-go's resync: every cached object delivered again as an update whose old and new are the
   * same, so handlers get a periodic pass over everything, from the cache. Nothing is listed (at
   * 10,000 Deployments a relist was 100,000 pods every 10 minutes); a lost event is the watchdog's,
   * a 410's or a restart's to repair. The next one is due after the period, ±10% jitter so that
   * informers started together do not resync together. It is delivered in pieces of a few
   * milliseconds (TimeSlice), the event loop given back between them, as client-go's resync goes
   * through the same queue as the watch's events: at 10,000 Deployments the pod cache holds 100,000
   * objects, which in one piece would hold every other event (a change's first pass) behind them.
   * Each piece reads the cache as it then is: an object deleted meanwhile is not delivered, and one
   * changed comes as it now is.
   */
  private async resync(now: number): Promise<void> {
    this.nextResyncAt = now + this.opts.resyncMs * (0.9 + 0.2 * Math.random());
    if (this.resyncing) return; // the one before is still delivering
    this.resyncing = true;
    try {
      const slice = new TimeSlice();
      for (const key of [...this.items.keys()]) {
        if (this.stopped) return;
        const obj = this.items.get(key);
        if (obj) this.emit((h) => h.update?.(obj, obj));
        if (slice.over()) await slice.next();
      }
    } finally {
      this.resyncing = false;
    }
  }

  private async sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      this.wakeSleep = resolve;
      this.sleepTimer = this.clock.setTimer(resolve, ms);
    });
    this.clock.clearTimer(this.sleepTimer);
    this.wakeSleep = undefined;
  }

  private async loop(signal: AbortSignal): Promise<void> {
    let needList = true;
    while (!signal.aborted) {
      try {
        if (this.relistAsked) {
          this.relistAsked = false;
          needList = true;
        }
        if (needList) {
          await this.relist(signal);
          needList = false;
          if (this.relistAsked) continue;
        }
        const started = this.clock.now();
        const events = await this.watchOnce(signal);
        // A clean close: watch again from the last resourceVersion, unless the watchdog asked for a rebuild.
        if (this.rebuilding) {
          needList = true;
          this.rebuilding = false;
        } else if (events === 0 && this.clock.now() - started < 1000 && !signal.aborted) {
          // A server that ends watches at once would otherwise be hammered.
          await this.sleep(retryDelay(this.attempt++, this.opts.backoffBaseMs, this.opts.backoffMaxMs));
        }
      } catch (err) {
        if (signal.aborted) break;
        const e = err instanceof Relist ? undefined : toKubeError(err);
        if (!e || (e.kind === 'Gone' && !needList)) {
          // The resourceVersion is too old: relist at once, unless that keeps happening with nothing
          // in between (some servers answer every watch with 410: docs/simulated-api-server.md#what-clients-rely-on).
          needList = true;
          if (++this.goneStreak > 1)
            await this.sleep(retryDelay(this.goneStreak - 2, this.opts.backoffBaseMs, this.opts.backoffMaxMs));
          continue;
        }
        this.failingSince ??= this.clock.now();
        this.opts.onError?.(e, `${this.name}: ${needList ? 'list' : 'watch'} failed, retrying`);
        await this.sleep(retryDelay(this.attempt++, this.opts.backoffBaseMs, this.opts.backoffMaxMs));
      }
    }
  }

  private async relist(signal: AbortSignal): Promise<void> {
    const begun = ++this.listsBegun;
    const { items, resourceVersion } = await this.source.list(signal);
    if (signal.aborted) return;
    this.attempt = 0;
    this.failingSince = undefined;
    if (!this.synced) this.nextResyncAt = this.clock.now() + this.opts.resyncMs * (0.9 + 0.2 * Math.random());
    this.lastEventAt = this.clock.now();
    this.lastRV = resourceVersion;
    const seen = new Set<string>();
    for (const obj of items) {
      const key = keyOf(obj);
      seen.add(key);
      const old = this.put(obj);
      if (!old) this.emit((h) => h.add?.(obj));
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.emit((h) => h.update?.(old, obj));
    }
    for (const key of [...this.items.keys()]) {
      if (seen.has(key)) continue;
      const old = this.remove(key)!;
      this.emit((h) => h.delete?.(old));
    }
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
    const waiting = this.relistWaiters;
    this.relistWaiters = waiting.filter((w) => w.after >= begun);
    for (const w of waiting) if (w.after < begun) w.resolve();
  }

  /** One watch; returns how many events it delivered. Throws Relist on 410, KubeError on failure. */
  private async watchOnce(signal: AbortSignal): Promise<number> {
    // Stopped between the list and this watch (stop() right after waitForSync): an aborted signal
    // fires no more 'abort', so the watch would run until the server ends it (5 to 10 minutes).
    if (signal.aborted) return 0;
    const ac = new AbortController();
    this.watchAbort = ac;
    const onAbort = (): void => ac.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let errorEvent: Status | undefined;
    let events = 0;
    try {
      await this.source.watch(
        this.lastRV,
        (e) => {
          if (ac.signal.aborted) return;
          this.lastEventAt = this.clock.now();
          this.attempt = 0;
          events++;
          if (e.type === 'ERROR') {
            // Stop reading: a watch that reported an error delivers nothing trustworthy after it.
            errorEvent = (e.object as unknown as Status) ?? { message: 'unknown' };
            ac.abort();
            return;
          }
          const rv = e.object?.metadata?.resourceVersion;
          if (rv) this.lastRV = rv;
          if (e.type === 'BOOKMARK') return;
          this.goneStreak = 0;
          const obj = e.object;
          const key = keyOf(obj);
          if (e.type === 'DELETED') {
            const old = this.remove(key);
            this.emit((h) => h.delete?.(old ?? obj));
          } else {
            const old = this.put(obj);
            if (old) this.emit((h) => h.update?.(old, obj));
            else this.emit((h) => h.add?.(obj));
          }
        },
        ac.signal,
        () => {
          this.failingSince = undefined;
        },
      );
    } catch (err) {
      // Our own abort (stop, a timer's rebuild, an ERROR event) is not a failure of the watch.
      if (!ac.signal.aborted) throw err;
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.watchAbort = undefined;
    }
    if (errorEvent) {
      if (isGoneStatus(errorEvent)) throw new Relist();
      throw new KubeError('Transient', `${this.name}: watch error event: ${errorEvent.message ?? 'unknown'}`, {
        code: errorEvent.code,
        reason: errorEvent.reason,
        status: errorEvent,
      });
    }
    return events;
  }
}
