// The Deployment controller: three informers (Deployments, ReplicaSets, Pods) feed one work queue
// of Deployment keys; N workers reconcile them. ReplicaSet and Pod events are mapped to the
// Deployment that controls them, or for orphans to every Deployment in the namespace whose selector
// matches (it may adopt them). A Deployment's changes also wake the Deployments that depend on it
// and, when its dependency list changes, those it depends on (dependencies.ts).

import { randomUUID } from 'node:crypto';
import type { Deployment, Pod, ReplicaSet } from '../api/types.ts';
import { selectorMatches, isEmptySelector } from '../api/selector.ts';
import type { KubeClient, ResourceType } from '../kube/client.ts';
import { DEPLOYMENTS, PODS, REPLICASETS } from '../kube/client.ts';
import type { KubeError } from '../kube/errors.ts';
import type { Logger } from '../observe/logger.ts';
import { reconcileLogger } from '../observe/logger.ts';
import type { ControllerMetrics } from '../observe/metrics.ts';
import { DependencyIndex } from './dependencies.ts';
import { EventRecorder } from './events.ts';
import { Informer, keyOf } from './informer.ts';
import type { ListWatchSource, ObjectWithMeta } from './informer.ts';
import { controllerRef, reconcile } from './reconciler.ts';
import type { Engine, ReconcileStats, ReconcilerDeps } from './reconciler.ts';
import { rolloutStartEstimate, rolloutStep, rolloutView } from './rollouts.ts';
import type { InProgress } from './rollouts.ts';
import { WorkQueue } from './workqueue.ts';
import type { ReconcileResult } from './workqueue.ts';
import { REVISION_ANNOTATION } from '../engine/annotations.ts';
import { decide, onCreateConflict, onCreateError } from '../engine/sync.ts';

export const CONTROLLER_NAME = 'deployment';

export interface ControllerOptions {
  client: KubeClient;
  engine: Engine;
  logger: Logger;
  metrics?: ControllerMetrics;
  /** Restrict every list, watch and write to one namespace (default: all). */
  namespace?: string;
  workers?: number;
  resyncMs?: number;
  watchdogMs?: number;
}

/** A list+watch source for one resource type through the KubeClient. */
export function kubeSource<T extends ObjectWithMeta>(client: KubeClient, type: ResourceType, namespace?: string): ListWatchSource<T> {
  return {
    list: (signal) => client.list<T>(type, namespace, {}, signal),
    // Like client-go's reflector: a random 5–10 minute server-side timeout, so watches end cleanly
    // and spread out instead of all reconnecting together.
    watch: (resourceVersion, onEvent, signal) =>
      client.watch<T>(type, namespace, { resourceVersion, timeoutSeconds: 300 + Math.floor(Math.random() * 300) }, onEvent, signal),
  };
}

/** The engine of src/engine/sync.ts, as the reconciler calls it. */
export const defaultEngine: Engine = {
  decide: (snapshot) => decide(snapshot),
  onCreateConflict,
  onCreateError,
};

/** Kept async so callers need not change if the engine is ever loaded lazily again. */
export async function loadEngine(): Promise<Engine> {
  return defaultEngine;
}

export class DeploymentController {
  readonly deployments: Informer<Deployment>;
  readonly replicaSets: Informer<ReplicaSet>;
  readonly pods: Informer<Pod>;
  readonly queue: WorkQueue;
  readonly recorder: EventRecorder;
  private readonly opts: ControllerOptions;
  private readonly log: Logger;
  private workers?: Promise<void>;
  private started = false;
  private stopping?: Promise<void>;
  /** Who depends on whom, kept from the Deployment events (dependencies.ts). */
  readonly dependencyIndex = new DependencyIndex();
  /** Deployment uid → the rollout in progress (for the rollout metrics only; see rollouts.ts). */
  private readonly rollouts = new Map<string, InProgress>();

  constructor(opts: ControllerOptions) {
    this.opts = opts;
    this.log = opts.logger.child({ controller: CONTROLLER_NAME });
    const { client, namespace } = opts;
    const onError = (what: string) => (err: KubeError, msg: string) => this.log.warn(msg, { informer: what, kind: err.kind, error: err.message });
    const informerOpts = (name: string) => ({ name, resyncMs: opts.resyncMs, watchdogMs: opts.watchdogMs, onError: onError(name) });
    this.deployments = new Informer<Deployment>(kubeSource(client, DEPLOYMENTS, namespace), informerOpts('deployments'));
    this.replicaSets = new Informer<ReplicaSet>(kubeSource(client, REPLICASETS, namespace), informerOpts('replicasets'));
    this.pods = new Informer<Pod>(kubeSource(client, PODS, namespace), informerOpts('pods'));
    this.recorder = new EventRecorder(client, { logger: this.log });
    const m = opts.metrics;
    const labels = { controller: CONTROLLER_NAME };
    this.queue = new WorkQueue(CONTROLLER_NAME, {
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
    m?.initController(CONTROLLER_NAME, Math.max(1, opts.workers ?? 1));
    m?.trackDeployments(() => this.deployments.list());
    this.wireEvents();
  }

  private enqueue(d: Deployment): void {
    this.queue.add(keyOf(d));
  }

  /** The Deployment that controls `obj` (by controller ownerReference, uid-checked), if cached. */
  private owner(obj: ReplicaSet): Deployment | undefined {
    const ref = controllerRef(obj);
    if (!ref || ref.kind !== 'Deployment' || !ref.apiVersion.startsWith('pacer.dev/')) return undefined;
    const d = this.deployments.get(obj.metadata.namespace, ref.name);
    return d && d.metadata.uid === ref.uid ? d : undefined;
  }

  /** Deployments that could adopt an orphan ReplicaSet. */
  private adopters(rs: ReplicaSet): Deployment[] {
    return this.deployments.list(rs.metadata.namespace).filter(
      (d) => !isEmptySelector(d.spec?.selector) && selectorMatches(d.spec.selector, rs.metadata.labels),
    );
  }

  private replicaSetChanged(rs: ReplicaSet): void {
    if (controllerRef(rs)) {
      const d = this.owner(rs);
      if (d) this.enqueue(d);
      return;
    }
    for (const d of this.adopters(rs)) this.enqueue(d);
  }

  /** The Deployment behind a pod: pod → its controlling ReplicaSet → that ReplicaSet's Deployment. */
  private podOwner(pod: Pod): Deployment | undefined {
    const ref = controllerRef(pod);
    if (!ref || ref.kind !== 'ReplicaSet') return undefined;
    const rs = this.replicaSets.get(pod.metadata.namespace, ref.name);
    if (!rs || rs.metadata.uid !== ref.uid) return undefined;
    return this.owner(rs);
  }

  /** Feeds one stored change of a Deployment to the rollout rule; counts what ended. */
  private rolloutChanged(old: Deployment | undefined, d: Deployment): void {
    const uid = d.metadata.uid ?? '';
    const step = rolloutStep(this.rollouts.get(uid), old && rolloutView(old), rolloutView(d), Date.now());
    if (step.inProgress) this.rollouts.set(uid, step.inProgress);
    else this.rollouts.delete(uid);
    for (const end of step.ended) {
      const startedAt = end.startedAt ?? rolloutStartEstimate(d, this.revisionReplicaSet(d, end.revision));
      const seconds = startedAt === undefined ? undefined : Math.max(0, (Date.now() - startedAt) / 1000);
      const strategy = d.spec?.strategy?.type ?? 'RollingUpdate';
      this.opts.metrics?.observeRollout(end.result, strategy, seconds);
      this.log.info('rollout ended', {
        namespace: d.metadata.namespace, name: d.metadata.name, revision: end.revision, result: end.result,
        ...(seconds !== undefined ? { durationSeconds: Math.round(seconds * 1000) / 1000, estimated: end.startedAt === undefined } : {}),
      });
    }
  }

  /** The ReplicaSet of `d` carrying `revision`. */
  private revisionReplicaSet(d: Deployment, revision: string): ReplicaSet | undefined {
    return this.replicaSets.list(d.metadata.namespace).find(
      (rs) => controllerRef(rs)?.uid === d.metadata.uid && rs.metadata.annotations?.[REVISION_ANNOTATION] === revision,
    );
  }

  /** Updates the dependency index for `d` and enqueues whom its change concerns (dependencies.ts). */
  private dependenciesChanged(d: Deployment, gone: boolean): void {
    for (const key of this.dependencyIndex.update(keyOf(d), gone ? undefined : d)) this.queue.add(key);
  }

  private wireEvents(): void {
    this.deployments.on({
      add: (d) => {
        this.rolloutChanged(undefined, d);
        this.dependenciesChanged(d, false);
        this.enqueue(d);
      },
      update: (old, d) => {
        if (old.metadata.resourceVersion !== d.metadata.resourceVersion) {
          this.rolloutChanged(old, d);
          this.dependenciesChanged(d, false);
        }
        this.enqueue(d);
      },
      delete: (d) => {
        this.rollouts.delete(d.metadata.uid ?? '');
        this.dependenciesChanged(d, true);
        this.enqueue(d);
      },
    });
    this.replicaSets.on({
      add: (rs) => this.replicaSetChanged(rs),
      update: (old, rs) => {
        if (old.metadata.resourceVersion === rs.metadata.resourceVersion) return; // a resync: the Deployments resync too
        const oldRef = controllerRef(old);
        const newRef = controllerRef(rs);
        if (oldRef && (!newRef || oldRef.uid !== newRef.uid)) {
          const prev = this.owner(old);
          if (prev) this.enqueue(prev); // released or taken over: the old owner recomputes its status
        }
        this.replicaSetChanged(rs);
        // Labels changed on an orphan: Deployments that matched before may want to know too.
        if (!newRef && JSON.stringify(old.metadata.labels) !== JSON.stringify(rs.metadata.labels)) {
          for (const d of this.adopters(old)) this.enqueue(d);
        }
      },
      delete: (rs) => {
        const d = this.owner(rs);
        if (d) this.enqueue(d);
      },
    });
    this.pods.on({
      // Recreate waits for old pods to be gone or terminal: deletions and phase changes matter.
      update: (old, pod) => {
        if (old.status?.phase === pod.status?.phase) return;
        const d = this.podOwner(pod);
        if (d && d.spec?.strategy?.type === 'Recreate') this.enqueue(d);
      },
      delete: (pod) => {
        const d = this.podOwner(pod);
        if (d) this.enqueue(d);
      },
    });
  }

  /** Starts the informers; workers begin once every cache has synced. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.deployments.start();
    this.replicaSets.start();
    this.pods.start();
    this.workers = this.waitForSync().then(() => {
      if (this.stopping) return;
      this.log.info('caches synced; starting workers', { workers: this.opts.workers ?? 1, namespace: this.opts.namespace ?? '(all)' });
      const deps: ReconcilerDeps = {
        client: this.opts.client,
        deployments: this.deployments,
        replicaSets: this.replicaSets,
        pods: this.pods,
        engine: this.opts.engine,
        recorder: this.recorder,
        logger: this.log,
        dependencyIndex: this.dependencyIndex,
      };
      return this.queue.run(this.opts.workers ?? 1, (key) => this.reconcileAndLog(deps, key));
    });
  }

  /**
   * One reconcile with its finished line: duration in ms and result; at info when the pass wrote
   * something, met a conflict or failed, at debug when it was a no-op (resyncs and the progress
   * deadline's requeues would otherwise flood the log).
   */
  private async reconcileAndLog(deps: ReconcilerDeps, key: string): Promise<ReconcileResult> {
    const log = reconcileLogger(this.opts.logger, CONTROLLER_NAME, key, randomUUID());
    const started = performance.now();
    const stats: ReconcileStats = { writes: 0 };
    const duration = () => Math.round((performance.now() - started) * 1000) / 1000;
    try {
      const result = await reconcile(deps, key, log, stats);
      const outcome = result.requeueAfterMs !== undefined ? 'requeue_after' : result.requeue ? 'requeue' : 'success';
      log.log(stats.writes > 0 || outcome === 'requeue' ? 'info' : 'debug', 'reconcile finished', {
        duration: duration(), result: outcome, writes: stats.writes,
        ...(result.requeueAfterMs !== undefined ? { requeueAfterMs: result.requeueAfterMs } : {}),
      });
      return result;
    } catch (err) {
      const e = err as { kind?: string; message?: string };
      log.error('reconcile failed', {
        duration: duration(), result: 'error', writes: stats.writes, kind: e.kind ?? 'Other',
        error: e.message ?? String(err), retries: this.queue.numRequeues(key),
      });
      throw err;
    }
  }

  waitForSync(): Promise<void> {
    return Promise.all([this.deployments.waitForSync(), this.replicaSets.waitForSync(), this.pods.waitForSync()]).then(() => undefined);
  }

  /** True once every cache has synced (readiness). */
  ready(): boolean {
    return this.deployments.hasSynced() && this.replicaSets.hasSynced() && this.pods.hasSynced();
  }

  /** Graceful: no new keys, in-flight reconciles finish, then the watches close and events flush. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.queue.shutdown();
      const stopInformers = () => Promise.all([this.deployments.stop(), this.replicaSets.stop(), this.pods.stop()]);
      // Never synced (API server away): stopping the informers releases the workers' wait for sync.
      if (!this.ready()) await stopInformers();
      await this.workers;
      await stopInformers();
      await this.recorder.flush();
      this.log.info('stopped');
    })();
    return this.stopping;
  }
}
