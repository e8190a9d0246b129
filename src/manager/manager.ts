// The manager (controller-runtime's Manager is the model; docs/architecture.md#the-manager):
//
//  * a shared cache: one informer per resource type, created on first request and shared by every
//    reconciler that asks for it; likewise one Event recorder;
//  * runnables: reconcilers (leader-only) and anything else that runs on every replica (HTTP
//    servers, the webhook); each runs until its signal aborts;
//  * start: informers first; once every cache has synced, leader election (when enabled) and then
//    the leader-only runnables; the others start at once;
//  * stop: leader-only runnables first (their in-flight reconciles finish), then the queued Events
//    are written, then the Lease is released, then the informers and the other runnables stop;
//  * a replica that loses its Lease stops its leader-only runnables at once, refuses every further
//    write of its main client (KubeClient's writeGate) and reports it through `done`, which rejects
//    with LeaderElectionLost: `pacer controller` then exits 1 and is restarted, as controller-runtime
//    does;
//  * sharded (leader election with more than one shard, shards.ts): a Lease per shard instead of one;
//    the leader-only runnables run once the caches have synced, each pass only for a shard this
//    replica holds (the others' keys are parked until it does), and the write gate asks the pass's
//    shard ticket. A lost shard is dropped alone: the replica goes on with the others. The pod and
//    ReplicaSet caches keep only the namespaces of the shards held (shardcache.ts), every namespace
//    while shard 0 is held and its node roller has a roll to work on (cacheEveryNamespace).

import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { KubeClient, ResourceType } from '../kube/client.ts';
import { realClock } from '../kube/clock.ts';
import { cacheKeep, keptBesideCached } from '../kube/slim.ts';
import type { Clock } from '../kube/clock.ts';
import type { KubeError } from '../kube/errors.ts';
import type { Logger } from '../observe/logger.ts';
import type { ControllerMetrics } from '../observe/metrics.ts';
import { Informer, keyOf, kubeSource } from './informer.ts';
import type { ObjectWithMeta } from './informer.ts';
import { EventRecorder } from './events.ts';
import { LeaderElector, campaignProblem, kubeLeaseStore } from './leaderelection.ts';
import type { Lease, LeaseStore } from './leaderelection.ts';
import { ShardSet, shardContext } from './shards.ts';
import { SHARDED_KINDS, shardedSource } from './shardcache.ts';
import type { ShardingOptions } from './shards.ts';
import { LEASES } from '../kube/client.ts';
import { DEFAULT_LEASE_DURATION_MS, DEFAULT_RENEW_DEADLINE_MS, DEFAULT_RETRY_PERIOD_MS } from './leaderelection.ts';

export interface Runnable {
  readonly name: string;
  /** True: runs only while this replica leads (reconcile workers). False: on every replica. */
  readonly needLeaderElection: boolean;
  /** Runs until `signal` aborts, then stops gracefully and resolves. */
  start(signal: AbortSignal): Promise<void>;
}

export interface LeaderElectionOptions {
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease (--leader-election-id). */
  id: string;
  /** This replica's identity (default: hostname_uuid, as controller-runtime). */
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** The Lease's client (client-go uses a separate one, so the writeGate never blocks renewals). */
  store?: LeaseStore;
  client?: KubeClient;
  /** More than one shard: a Lease per shard (`<id>-shard-K`) instead of the one Lease `<id>`. */
  sharding?: ShardingOptions;
}

export interface ManagerOptions {
  /** The client reconcilers write with; the manager sets its writeGate when electing. */
  client: KubeClient;
  logger: Logger;
  metrics?: ControllerMetrics;
  clock?: Clock;
  /** Restrict every informer to one namespace (default: all). */
  namespace?: string;
  resyncMs?: number;
  watchdogMs?: number;
  /** A cache whose lists and watches have failed for this long is stale: not ready (default 30 s). */
  staleAfterMs?: number;
  /** Off: this replica leads from the start (one process, tests, `pacer up`). */
  leaderElection?: LeaderElectionOptions;
}

/** How long a cache's lists and watches may fail before the manager reports not ready. */
export const DEFAULT_STALE_AFTER_MS = 30_000;
/** How long a stopping leader waits for its queued Events to be written (they then are dropped). */
const EVENTS_DRAIN_MS = 5000;

export class LeaderElectionLost extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LeaderElectionLost';
  }
}

export function defaultIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

export class Manager {
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly metrics?: ControllerMetrics;
  readonly clock: Clock;
  readonly namespace?: string;
  private readonly opts: ManagerOptions;
  private readonly informers = new Map<string, Informer<ObjectWithMeta>>();
  private recorder?: EventRecorder;
  private readonly runnables: Runnable[] = [];
  private readonly elector?: LeaderElector;
  /** Sharded: the shards' Leases and the holds this replica has. */
  readonly shards?: ShardSet;
  private readonly acquiredListeners: Array<(shard: number) => void> = [];
  /** Sharded: the informers whose caches keep only the namespaces cached here (cachesNamespace). */
  private readonly shardedInformers: Informer<ObjectWithMeta>[] = [];
  /** Sharded: while shard 0 is held, the sharded caches keep every namespace (the node roller reads them all). */
  private everyNamespaceWithShard0 = false;
  /** Sharded: resolves once the sharded caches hold every namespace (after everyNamespaceWithShard0 was set). */
  private everyNamespaceCached: Promise<void> = Promise.resolve();
  /** The sharded caches' latest relist (refillShardedCaches). */
  private refilling: Promise<void> = Promise.resolve();
  private readonly leaseName?: string;
  private leading: boolean;
  /** Once lost, never again in this process: the writeGate stays shut. */
  private lost = false;
  /** The last campaign failure logged (said once, not at every retry). */
  private lastCampaignError: string | undefined;
  private leaseNamespace: string | undefined;
  private started = false;
  /** Set the moment a stop is asked for (before `stopping`'s first await). */
  private stopRequested = false;
  private stopping?: Promise<void>;
  private readonly everyone = new AbortController();
  private leaders?: AbortController;
  private leaderRuns: Promise<void>[] = [];
  private otherRuns: Promise<void>[] = [];
  private electing?: Promise<void>;
  private readonly electionAbort = new AbortController();
  private settleDone!: { resolve(): void; reject(err: Error): void };
  /** Resolves after a stop; rejects with LeaderElectionLost when the Lease was lost. */
  readonly done: Promise<void>;

  constructor(opts: ManagerOptions) {
    this.opts = opts;
    this.client = opts.client;
    this.logger = opts.logger;
    this.metrics = opts.metrics;
    this.clock = opts.clock ?? realClock;
    this.namespace = opts.namespace;
    this.done = new Promise<void>((resolve, reject) => {
      this.settleDone = { resolve, reject };
    });
    this.done.catch(() => undefined); // observed by whoever awaits it; never an unhandled rejection
    const le = opts.leaderElection;
    this.leading = !le;
    if (le?.sharding && le.sharding.shards > 1) {
      this.leaseNamespace = le.namespace;
      this.shards = new ShardSet({
        ...le.sharding,
        namespace: le.namespace,
        id: le.id,
        identity: le.identity ?? defaultIdentity(),
        leaseDurationMs: le.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS,
        renewDeadlineMs: le.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS,
        retryPeriodMs: le.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS,
        client: le.client ?? opts.client,
        leases: this.informer<Lease & ObjectWithMeta>(LEASES, { namespace: le.namespace }),
        clock: this.clock,
        logger: opts.logger,
        metrics: opts.metrics,
        onAcquired: (shard) => {
          for (const l of this.acquiredListeners) l(shard);
        },
        syncShard: (shard) => this.refillShardedCaches(shard),
        onDropped: (shard) => {
          void this.refillShardedCaches(shard);
        },
      });
    } else if (le) {
      const store = le.store ?? kubeLeaseStore(le.client ?? opts.client, le.namespace, le.id);
      this.leaseName = le.id;
      const log = opts.logger.child({ lease: `${le.namespace}/${le.id}` });
      this.elector = new LeaderElector({
        store,
        identity: le.identity ?? defaultIdentity(),
        leaseDurationMs: le.leaseDurationMs,
        renewDeadlineMs: le.renewDeadlineMs,
        retryPeriodMs: le.retryPeriodMs,
        clock: this.clock,
        onStartedLeading: () => this.startLeading(),
        onStoppedLeading: () => this.stopLeading(),
        onNewLeader: (id) => {
          this.lastCampaignError = undefined;
          log.info(id === '' ? 'the lease was released' : 'new leader', {
            leader: id,
            me: id === this.elector?.identity,
          });
        },
        // A failure that stops every campaign (no namespace, no RBAC) is an error, said once with its
        // fix; the same failure again is not repeated at each retry (debug), another one is.
        onError: (message, err) => {
          const problem = campaignProblem(err, le.namespace);
          const text = problem ?? message;
          if (text === this.lastCampaignError) {
            log.debug(message);
            return;
          }
          this.lastCampaignError = text;
          if (problem) log.error(problem);
          else log.warn(message);
        },
      });
      this.leaseNamespace = le.namespace;
      opts.metrics?.leaderElection.set({ name: le.id }, 0);
    }
  }

  /**
   * The shared informer of `type` (one per resource type and scope; created on first request): in
   * the manager's namespace (all without one) unless `scope` names another, narrowed by a field
   * selector if it has one (the freeze switch: one ConfigMap in Pacer's own namespace). It keeps
   * objects as kube/slim.ts's cacheKeep gives them: pods slimmed, nothing with managedFields,
   * equal strings and parts held once.
   */
  informer<T extends ObjectWithMeta>(
    type: ResourceType,
    scope: { namespace?: string; fieldSelector?: string } = {},
  ): Informer<T> {
    const namespace = scope.namespace ?? this.namespace;
    const key = `${type.group}/${type.version}/${type.plural}${scope.namespace !== undefined || scope.fieldSelector !== undefined ? `/${namespace ?? ''}?${scope.fieldSelector ?? ''}` : ''}`;
    let inf = this.informers.get(key);
    if (!inf) {
      if (this.started) throw new Error(`informer for ${type.plural} requested after the manager started`);
      const name = type.plural;
      const byShard = this.shards !== undefined && scope.namespace === undefined && scope.fieldSelector === undefined;
      // ReplicaSets and Deployments are kept beside the version of them the cache holds, reusing
      // their equal parts (kube/slim.ts).
      const keep = cacheKeep(type);
      let cache: Informer<ObjectWithMeta> | undefined;
      const transform = keptBesideCached(type)
        ? (obj: ObjectWithMeta): ObjectWithMeta => keep(obj, obj.metadata ? cache?.cached(keyOf(obj)) : undefined)
        : keep;
      inf = cache = new Informer<ObjectWithMeta>(
        byShard && SHARDED_KINDS.includes(type)
          ? shardedSource(this.client, type, namespace, transform, (ns) => this.cachesNamespace(ns))
          : kubeSource(this.client, type, namespace, scope.fieldSelector, transform),
        {
          name,
          resyncMs: this.opts.resyncMs,
          watchdogMs: this.opts.watchdogMs,
          clock: this.clock,
          keep,
          onError: (err: KubeError, msg: string) =>
            this.logger.warn(msg, { informer: name, kind: err.kind, error: err.message }),
        },
      );
      this.informers.set(key, inf);
      if (byShard && SHARDED_KINDS.includes(type)) this.shardedInformers.push(inf);
    }
    return inf as unknown as Informer<T>;
  }

  /**
   * Whether this replica's pod and ReplicaSet caches keep the objects of `namespace` now: always
   * unsharded; sharded, while it holds the namespace's shard (synced or not, handed over or not),
   * or shard 0 when a reader of every namespace asked for it.
   */
  cachesNamespace(namespace: string | undefined): boolean {
    const shards = this.shards;
    if (!shards) return true;
    if (this.everyNamespaceWithShard0 && shards.holding(0)) return true;
    return shards.holding(shards.shardOf(namespace || undefined));
  }

  /**
   * For a pass of shard 0 that reads pods and ReplicaSets of every namespace (the node roller drains
   * nodes and gates on the health of workloads in any namespace): resolves once the caches hold
   * every namespace, from a list begun after the first call; they go on keeping every namespace
   * while shard 0 is held, until uncacheEveryNamespace. At once when not sharded (every namespace
   * is cached).
   */
  cacheEveryNamespace(): Promise<void> {
    if (!this.shards || this.everyNamespaceWithShard0) return this.everyNamespaceCached;
    this.everyNamespaceWithShard0 = true;
    this.everyNamespaceCached = this.shards.holding(0) ? this.refillShardedCaches(0) : Promise.resolve();
    return this.everyNamespaceCached;
  }

  /** No pass needs every namespace any more (the last node roll done): the caches go back to the shards held. */
  uncacheEveryNamespace(): void {
    if (!this.shards || !this.everyNamespaceWithShard0) return;
    this.everyNamespaceWithShard0 = false;
    if (this.shards.holding(0)) void this.refillShardedCaches(0);
  }

  /**
   * What the sharded caches keep changed with `shard` (taken or given up): each lists again and
   * holds that shard's objects (or no longer) once this resolves. Nothing to do when the caches keep
   * every namespace anyway (shard 0 held for the node roller, and another shard moved).
   */
  private refillShardedCaches(shard: number): Promise<void> {
    // Keeping every namespace already: the list asked for when shard 0 was taken (begun after it,
    // so with this shard's namespaces kept) is the one to wait for.
    if (this.everyNamespaceWithShard0 && shard !== 0 && this.shards?.holding(0)) return this.refilling;
    this.refilling = Promise.all(this.shardedInformers.map((i) => i.relistNow())).then(() => undefined);
    return this.refilling;
  }

  /**
   * The Event recorder every reconciler records with (created on first request): one queue, one
   * spam filter, written through the manager's client and drained when the leader-only runnables
   * have stopped.
   */
  eventRecorder(): EventRecorder {
    this.recorder ??= new EventRecorder(this.client, {
      logger: this.logger,
      now: () => this.clock.now(),
      onDrop: () => this.metrics?.eventsDropped.inc(),
    });
    return this.recorder;
  }

  add(r: Runnable): void {
    if (this.started) throw new Error(`runnable ${r.name} added after the manager started`);
    this.runnables.push(r);
  }

  /** This replica's identity in the Lease, when electing. */
  identity(): string | undefined {
    return this.elector?.identity ?? this.shards?.identity;
  }

  /** True while this replica may run reconcile workers and write (sharded: holds a shard). */
  isLeader(): boolean {
    if (this.shards) return this.shards.held().length > 0;
    return this.leading;
  }

  /** Whether this replica reconciles objects of `namespace` now (undefined: cluster-scoped). */
  leads(namespace: string | undefined): boolean {
    return this.shards ? this.shards.owns(namespace) : this.leading;
  }

  /** Sharded: `fn` is called with each shard this replica takes (its parked keys may run). */
  onShardAcquired(fn: (shard: number) => void): void {
    this.acquiredListeners.push(fn);
  }

  /** Every cache has synced and none is stale (readiness: a standby is ready too). */
  ready(): boolean {
    return this.notReady() === undefined;
  }

  /**
   * Why this replica cannot campaign for the leader election Lease at all (its namespace missing,
   * RBAC refusing), with the fix; undefined when it can, or does not elect.
   */
  campaignProblem(): string | undefined {
    if (this.shards) return this.shards.campaignProblem();
    if (!this.elector || this.leading) return undefined;
    return campaignProblem(this.elector.campaignError(), this.leaseNamespace ?? '');
  }

  /** Why not ready, in words: the caches not synced yet, or those whose lists and watches keep failing. */
  notReady(): string | undefined {
    const unsynced = [...this.informers.values()].filter((i) => !i.hasSynced()).map((i) => i.name);
    if (unsynced.length > 0) return `caches not synced: ${unsynced.join(', ')}`;
    const after = this.opts.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
    const stale = [...this.informers.values()]
      .filter((i) => i.failingFor() >= after)
      .map((i) => `${i.name} (${Math.round(i.failingFor() / 1000)} s)`);
    if (stale.length > 0) return `caches stale, the API server failing for: ${stale.join(', ')}`;
    return undefined;
  }

  waitForSync(): Promise<void> {
    return Promise.all([...this.informers.values()].map((i) => i.waitForSync())).then(() => undefined);
  }

  /** Why a write is refused now, or undefined (KubeClient's writeGate). */
  writeRefusal(): string | undefined {
    if (this.shards) return this.shards.refusal(shardContext.getStore());
    if (this.leading) return undefined;
    return this.lost
      ? `this replica lost the leader election lease ${this.leaseName}`
      : 'this replica is not the leader';
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const inf of this.informers.values()) inf.start();
    for (const r of this.runnables)
      if (!r.needLeaderElection) this.otherRuns.push(this.runGuarded(r, this.everyone.signal));
    void this.waitForSync().then(() => {
      if (this.stopRequested) return;
      if (this.shards) {
        // Every pass asks for its shard: the workers run from now, parking the keys of shards not held.
        this.logger.info('caches synced; campaigning for shards', {
          identity: this.identity(),
          shards: this.shards.campaigned(),
        });
        this.startLeading();
        this.electing = this.shards.run(this.electionAbort.signal);
        return;
      }
      if (!this.elector) {
        this.startLeading();
        return;
      }
      this.logger.info('caches synced; campaigning for leadership', {
        identity: this.elector.identity,
        lease: this.leaseName,
      });
      this.electing = this.elector.run(this.electionAbort.signal);
    });
  }

  private runGuarded(r: Runnable, signal: AbortSignal): Promise<void> {
    return r.start(signal).catch((err: unknown) => {
      this.logger.error('runnable failed', { runnable: r.name, error: (err as Error).message ?? String(err) });
    });
  }

  private startLeading(): void {
    if (this.stopRequested || this.lost) return;
    this.leading = true;
    if (this.leaseName) {
      this.metrics?.leaderElection.set({ name: this.leaseName }, 1);
      this.logger.info('became the leader; starting workers', {
        identity: this.elector?.identity,
        lease: this.leaseName,
      });
    }
    this.leaders = new AbortController();
    const signal = this.leaders.signal;
    this.leaderRuns = this.runnables.filter((r) => r.needLeaderElection).map((r) => this.runGuarded(r, signal));
  }

  /**
   * Leading ended. Lost (renewal failed): the write gate shuts at once, before the leader-only
   * runnables are told to stop, since another replica may soon take the Lease. A graceful stop
   * still holds the Lease: in-flight passes finish their writes, and the gate shuts after them.
   */
  private async stopLeading(): Promise<void> {
    const lostNow = this.leading && !this.stopRequested;
    if (lostNow) {
      this.leading = false;
      this.lost = true;
      this.logger.error('leader election lost: stopping workers', {
        identity: this.elector?.identity,
        lease: this.leaseName,
      });
    }
    this.leaders?.abort();
    await Promise.all(this.leaderRuns);
    // Still leading unless lost: the Events of the last passes still pass the write gate.
    await this.recorder?.drain(EVENTS_DRAIN_MS);
    this.leading = false;
    if (this.leaseName) this.metrics?.leaderElection.set({ name: this.leaseName }, 0);
    if (lostNow)
      void this.stopAll(
        new LeaderElectionLost(`leader election lost (lease ${this.opts.leaderElection?.namespace}/${this.leaseName})`),
      );
  }

  /** Graceful stop: leader-only runnables, the Lease, then the caches and everything else. */
  stop(): Promise<void> {
    return this.stopAll();
  }

  private stopAll(reason?: Error): Promise<void> {
    this.stopRequested = true;
    this.stopping ??= (async () => {
      if (this.shards) {
        // No shard taken from now; the passes end and the Events are written while the shards are
        // still held; then every shard Lease is released and the member Lease deleted.
        this.shards.stop();
        if (this.leading) await this.stopLeading();
        this.electionAbort.abort();
        await this.electing;
      }
      if (this.elector) {
        this.electionAbort.abort();
        await this.electing; // stops the leader-only runnables, then releases the Lease
      }
      if (this.leading) await this.stopLeading();
      this.everyone.abort();
      await Promise.all([...this.informers.values()].map((i) => i.stop()));
      await Promise.all(this.otherRuns);
      if (reason) this.settleDone.reject(reason);
      else this.settleDone.resolve();
    })();
    return this.stopping;
  }
}
