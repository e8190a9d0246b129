// reconcile(key): the only place that turns the engine's decisions into API writes.
//
//  1. Read the Deployment from the cache (gone → nothing to do).
//  2. Build the Snapshot: the ReplicaSets it controls plus the orphans its selector matches, the
//     pods its selector matches, now, and its dependencies and dependents (dependencyindex.ts).
//  3. decide(), then carry out the actions in order, stopping at the first failure (the next pass
//     recomputes everything from the cluster: level-triggered). One exception to "one after
//     another": a Deployment patch of annotations alone (a rollout's revision) goes out beside the
//     ReplicaSet scales right before it, which it does not depend on (ActionWriter.writesBesidePatch).
//  4. After each successful write, record the action's event; at the end, the loose events.
//
// Outcomes for the work queue: a Conflict (409, a stale resourceVersion) requeues with backoff and
// never overwrites; any other failure throws (backoff, counted as an error); requeueAfterSeconds
// becomes a delayed add of (s + 1) s as upstream (under 1 s: rate-limited now).

import type { Deployment, DeploymentStatus, OwnerReference, PlanResource, Pod, ReplicaSet } from '../../api/types.ts';
import { isAppsDeployment } from '../../api/types.ts';
import { controllerOf } from '../../api/owners.ts';
import type { AnalysisRun, AnalysisTemplate, AnalysisTemplateRef } from '../../api/analysis.ts';
import { ROLLBACK_TO_ANNOTATION, buildSnapshot, withAnnotations } from '../../engine/index.ts';
import type { Action, Decision, EventRecord, Freeze, Snapshot, SnapshotSource } from '../../engine/index.ts';
import { KubeError, isKind, toKubeError } from '../../kube/errors.ts';
import { mergePatchDiff } from '../../kube/mergepatch.ts';
import type { Logger } from '../../observe/logger.ts';
import type { DependencyIndex } from './dependencyindex.ts';
import type { ReconcileResult } from '../../manager/workqueue.ts';

/** The engine entry points the reconciler calls (src/engine/decide.ts). */
export interface Engine {
  decide(snapshot: Snapshot): Decision;
  onCreateConflict(snapshot: Snapshot, existing: ReplicaSet): Decision;
  onCreateError(snapshot: Snapshot, rsName: string, message: string): Decision;
}

/** The writes and fresh reads reconcile needs (KubeClient has them; tests fake them). */
export interface ReconcileClient {
  getDeployment(namespace: string, name: string): Promise<Deployment>;
  patchDeployment(namespace: string, name: string, patch: unknown): Promise<Deployment>;
  replaceDeploymentStatus(d: Deployment, status: DeploymentStatus): Promise<Deployment>;
  getReplicaSet(namespace: string, name: string): Promise<ReplicaSet>;
  createReplicaSet(rs: ReplicaSet): Promise<ReplicaSet>;
  replaceReplicaSet(rs: ReplicaSet): Promise<ReplicaSet>;
  deleteReplicaSet(
    namespace: string,
    name: string,
    preconditions?: { uid?: string; resourceVersion?: string },
  ): Promise<void>;
  /** Runs for spec.analysis (absent: a client that cannot write them; the engine only asks with the CRD served). */
  createAnalysisRun?(run: AnalysisRun): Promise<AnalysisRun>;
  terminateAnalysisRun?(namespace: string, name: string, resourceVersion?: string): Promise<AnalysisRun>;
}

export interface CacheReader<T> {
  get(key: string): T | undefined;
  list(namespace?: string): T[];
  /** The objects an index files under any of `values` (Informer.byIndex), when the cache keeps that index. */
  byIndex?(name: string, values: readonly string[]): T[];
  /** Remember an object this process just wrote until the watch delivers it (Informer.assume). */
  assume?(obj: T): void;
}

export interface Recorder {
  record(obj: Deployment, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

export interface ReconcilerDeps {
  client: ReconcileClient;
  deployments: CacheReader<Deployment>;
  replicaSets: CacheReader<ReplicaSet>;
  pods: CacheReader<Pod>;
  engine: Engine;
  recorder: Recorder;
  logger: Logger;
  now?: () => number;
  /** Who depends on whom (the controller keeps it); without it dependents are unknown. */
  dependencyIndex?: DependencyIndex;
  /** Plan resources (when the cluster serves them): a Plan may hold a rollout. */
  plans?: CacheReader<PlanResource>;
  /** The freeze switch, while on (engine/freeze.ts). */
  freeze?: () => Freeze | undefined;
  /** AnalysisRuns (when the cluster serves them): spec.analysis starts and reads them. */
  analysisRuns?: CacheReader<AnalysisRun>;
  /** AnalysisTemplates and ClusterAnalysisTemplates (when served). */
  analysisTemplates?: CacheReader<AnalysisTemplate>;
  clusterAnalysisTemplates?: CacheReader<AnalysisTemplate>;
}

/** The controller's caches as the engine's snapshot source (engine/snapshot.ts). */
export function cacheSource(
  deps: Pick<
    ReconcilerDeps,
    | 'replicaSets'
    | 'pods'
    | 'deployments'
    | 'dependencyIndex'
    | 'plans'
    | 'freeze'
    | 'analysisRuns'
    | 'analysisTemplates'
    | 'clusterAnalysisTemplates'
  >,
): SnapshotSource {
  const index = deps.dependencyIndex;
  const plans = deps.plans;
  const runs = deps.analysisRuns;
  const templates = deps.analysisTemplates;
  const clusterTemplates = deps.clusterAnalysisTemplates;
  return {
    ...(runs ? { analysisRuns: (ns: string) => runs.list(ns) } : {}),
    ...(templates || clusterTemplates
      ? {
          analysisTemplate: (ns: string, ref: AnalysisTemplateRef) =>
            ref.clusterScope ? clusterTemplates?.get(ref.templateName) : templates?.get(`${ns}/${ref.templateName}`),
        }
      : {}),
    ...(plans ? { plans: (ns: string) => plans.list(ns) } : {}),
    ...(deps.freeze ? { freeze: deps.freeze } : {}),
    replicaSets: (ns, uid) =>
      uid !== undefined && deps.replicaSets.byIndex
        ? deps.replicaSets.byIndex(BY_CONTROLLER, [controllerIndexValue(ns, uid), controllerIndexValue(ns, undefined)])
        : deps.replicaSets.list(ns),
    pods: (ns) => deps.pods.list(ns),
    deployment: (key) => deps.deployments.get(key),
    deployments: () => deps.deployments.list(),
    // Without the index nobody knows the dependents: the engine then leaves the finalizer alone.
    ...(index
      ? {
          dependents: (key: string) =>
            index
              .dependentsOf(key)
              .map((k) => deps.deployments.get(k))
              .filter((x): x is Deployment => x !== undefined),
        }
      : {}),
  };
}

/**
 * The index of ReplicaSets by controller (Informer.addIndex): "namespace/uid" of the controlling
 * owner, "namespace/" for those no one controls. A reconcile reads its Deployment's and the
 * orphans it may adopt, not every ReplicaSet of the namespace (20,000 at 10,000 Deployments).
 */
export const BY_CONTROLLER = 'controller';

export function controllerIndexValue(namespace: string | undefined, uid: string | undefined): string {
  return `${namespace ?? ''}/${uid ?? ''}`;
}

export function byController(obj: { metadata: { namespace?: string; ownerReferences?: OwnerReference[] } }): string[] {
  return [controllerIndexValue(obj.metadata.namespace, controllerOf(obj)?.uid)];
}

/** An update that makes `d` the controller of a ReplicaSet that had none. */
function isAdoption(action: Action, snapshot: Snapshot): boolean {
  if (action.verb !== 'update' || action.kind !== 'ReplicaSet') return false;
  const ref = controllerOf(action.object);
  if (!ref || ref.uid !== snapshot.deployment.metadata.uid) return false;
  const before = snapshot.replicaSets.find((rs) => rs.metadata.name === action.name);
  return !before || !controllerOf(before);
}

function isNamespaceTerminating(err: KubeError): boolean {
  return (
    !!err.status?.details?.causes?.some((c) => c.reason === 'NamespaceTerminating') ||
    /because it is being terminated/.test(err.message)
  );
}

/** What a pass did, for the reconcile-finished log line. */
export interface ReconcileStats {
  /** Writes that succeeded. */
  writes: number;
}

class Stop {
  readonly result: ReconcileResult;
  constructor(result: ReconcileResult) {
    this.result = result;
  }
}

/** One pass for one Deployment key ("namespace/name"). */
export async function reconcile(
  deps: ReconcilerDeps,
  key: string,
  log: Logger = deps.logger,
  stats: ReconcileStats = { writes: 0 },
): Promise<ReconcileResult> {
  const cached = deps.deployments.get(key);
  if (!cached) {
    log.debug('deployment not found in cache; nothing to do');
    return {};
  }
  const snapshot = buildSnapshot(cached, cacheSource(deps), (deps.now ?? Date.now)());
  const decision = deps.engine.decide(snapshot);
  const writer = new ActionWriter(deps, snapshot, log, stats);
  try {
    await writer.apply(decision.actions, { onCreateConflict: true });
  } catch (err) {
    if (err instanceof Stop) return err.result;
    throw err;
  }
  writer.recordAll(decision.events);
  return requeueFor(decision.requeueAfterSeconds);
}

/** upstream: under a second → rate-limited requeue; else requeue after the time left plus one second. */
export function requeueFor(seconds: number | null): ReconcileResult {
  if (seconds === null || seconds === undefined) return {};
  if (seconds < 1) return { requeue: true };
  return { requeueAfterMs: Math.round((seconds + 1) * 1000) };
}

/**
 * Carries out one Decision's actions against the API (the engine's DecisionPass only computed them),
 * with what the writes learnt (new resourceVersions) along the way.
 */
class ActionWriter {
  private readonly deps: ReconcilerDeps;
  private readonly snapshot: Snapshot;
  private readonly log: Logger;
  private readonly stats: ReconcileStats;
  /** The Deployment as last written by this pass (its resourceVersion guards the next write). */
  private deployment: Deployment;
  /** ReplicaSet name → resourceVersion after this pass's own write to it. */
  private readonly rsVersions = new Map<string, { before?: string; after?: string }>();
  private freshChecked?: boolean;

  constructor(deps: ReconcilerDeps, snapshot: Snapshot, log: Logger, stats: ReconcileStats) {
    this.deps = deps;
    this.snapshot = snapshot;
    this.log = log;
    this.stats = stats;
    this.deployment = snapshot.deployment;
  }

  private record(e: EventRecord | undefined): void {
    if (e) this.deps.recorder.record(this.snapshot.deployment, e.type, e.reason, e.message);
  }

  recordAll(events: EventRecord[]): void {
    for (const e of events ?? []) this.record(e);
  }

  async apply(actions: Action[], opts: { onCreateConflict: boolean }): Promise<void> {
    for (let i = 0; i < actions.length; ) {
      const chain = this.writesBesidePatch(actions, i);
      if (chain > 0) {
        await this.applyBeside(actions.slice(i, i + chain), actions[i + chain], opts);
        i += chain + 1;
        continue;
      }
      try {
        await this.applyOne(actions[i], opts);
      } catch (err) {
        this.failed(actions[i], err);
      }
      this.succeeded(actions[i]);
      i++;
    }
  }

  /** A write that landed: counted, and its Event (and a status write's condition Events) recorded. */
  private succeeded(action: Action): void {
    this.stats.writes++;
    this.record(action.event);
    // Condition changes: recorded only now that the status carrying them is stored.
    if (action.verb === 'updateStatus') this.recordAll(action.events ?? []);
  }

  /** A write that failed: a Conflict requeues the key (never overwrites), anything else is thrown. */
  private failed(action: Action, err: unknown): never {
    if (err instanceof Stop) throw err;
    const e = toKubeError(err);
    if (e.kind === 'Conflict') {
      this.log.debug('conflict writing; requeueing', {
        verb: action.verb,
        kind: action.kind,
        object: action.name,
        error: e.message,
      });
      throw new Stop({ requeue: true });
    }
    throw e;
  }

  /**
   * How many ReplicaSet writes, from `i` on, come right before a Deployment update that only changes
   * its annotations (0: none, or no such update). Such a patch (the revision annotation of a
   * rollout's first pass) neither reads nor changes what those writes do, nor they it, so it is sent
   * beside them instead of after them: one round trip less. Creates, deletes and adoptions are not
   * part of such a run: the revision must not name a ReplicaSet before it exists, and an adoption
   * reads the Deployment afresh first.
   */
  private writesBesidePatch(actions: Action[], i: number): number {
    let j = i;
    while (j < actions.length && this.isReplicaSetWrite(actions[j])) j++;
    if (j === i || j === actions.length) return 0;
    const next = actions[j];
    if (next.verb !== 'update' || next.kind !== 'Deployment') return 0;
    return onlyAnnotations(this.deploymentPatch(next.object as Deployment)) ? j - i : 0;
  }

  /** A scale, or an update that is not an adoption, of a ReplicaSet. */
  private isReplicaSetWrite(action: Action): boolean {
    if (action.kind !== 'ReplicaSet') return false;
    return action.verb === 'scale' || (action.verb === 'update' && !isAdoption(action, this.snapshot));
  }

  /**
   * The ReplicaSet writes `chain`, in order, and the annotations-only patch `patch` at the same
   * time. Each write that landed is counted and its Event recorded, in the Decision's order; then
   * the first failure in that order decides the pass, as it would have one write after another.
   * Every partial outcome is one that upstream's order or Pacer's own could leave already: see
   * docs/architecture.md (from a watch event to a write).
   */
  private async applyBeside(chain: Action[], patch: Action, opts: { onCreateConflict: boolean }): Promise<void> {
    const landed: Action[] = [];
    let chainFailure: { action: Action; err: unknown } | undefined;
    const writeChain = async (): Promise<void> => {
      for (const action of chain) {
        try {
          await this.applyOne(action, opts);
        } catch (err) {
          chainFailure = { action, err };
          return;
        }
        landed.push(action);
      }
    };
    const [, patched] = await Promise.allSettled([writeChain(), this.applyOne(patch, opts)]);
    for (const action of landed) this.succeeded(action);
    if (patched.status === 'fulfilled') this.succeeded(patch);
    if (chainFailure) this.failed(chainFailure.action, chainFailure.err);
    if (patched.status === 'rejected') this.failed(patch, patched.reason);
  }

  /** The resourceVersion to send for a ReplicaSet write: the snapshot's, or ours if this pass wrote it since. */
  private rsVersion(rs: ReplicaSet): string | undefined {
    const name = rs.metadata.name!;
    const seen = this.rsVersions.get(name);
    const fromSnapshot = this.snapshot.replicaSets.find((r) => r.metadata.name === name)?.metadata.resourceVersion;
    const requested = rs.metadata.resourceVersion ?? fromSnapshot;
    if (seen?.after && requested === seen.before) return seen.after;
    return requested;
  }

  private noteRS(before: string | undefined, written: ReplicaSet): void {
    this.rsVersions.set(written.metadata.name!, { before, after: written.metadata.resourceVersion });
  }

  /** Adoption needs a fresh read: a cached Deployment may already be gone or replaced. */
  private async canAdopt(): Promise<boolean> {
    if (this.freshChecked !== undefined) return this.freshChecked;
    const d = this.snapshot.deployment;
    try {
      const fresh = await this.deps.client.getDeployment(d.metadata.namespace!, d.metadata.name!);
      this.freshChecked = !fresh.metadata.deletionTimestamp && fresh.metadata.uid === d.metadata.uid;
      if (!this.freshChecked) this.log.info('not adopting: the deployment is being deleted or was replaced');
    } catch (err) {
      if (!isKind(err, 'NotFound')) throw err;
      this.freshChecked = false;
      this.log.info('not adopting: the deployment is gone');
    }
    return this.freshChecked;
  }

  private async applyOne(action: Action, opts: { onCreateConflict: boolean }): Promise<void> {
    const c = this.deps.client;
    const ns = this.snapshot.deployment.metadata.namespace!;
    switch (action.verb) {
      case 'create': {
        try {
          const created = await c.createReplicaSet({
            ...action.object,
            metadata: { ...action.object.metadata, namespace: ns },
          });
          this.noteRS(undefined, created);
          this.deps.replicaSets.assume?.(created);
          this.log.info('created replica set', { replicaSet: action.name, replicas: action.replicas });
        } catch (err) {
          const e = toKubeError(err);
          if (e.kind === 'AlreadyExists' && opts.onCreateConflict) {
            // Ours from an earlier pass the cache has not seen yet, or a hash collision: the engine says which.
            const existing = await c.getReplicaSet(ns, action.name);
            const next = this.deps.engine.onCreateConflict(this.snapshot, existing);
            this.log.info('replica set already exists', { replicaSet: action.name, actions: next.actions.length });
            await this.apply(next.actions, { onCreateConflict: false });
            this.recordAll(next.events);
            throw new Stop({ requeue: true });
          }
          if (e.kind === 'AlreadyExists' || isNamespaceTerminating(e)) throw e;
          const next = this.deps.engine.onCreateError(this.snapshot, action.name, e.message);
          try {
            await this.apply(next.actions, { onCreateConflict: false });
          } catch (statusErr) {
            if (!(statusErr instanceof Stop))
              this.log.debug('could not record the create failure in status', { error: String(statusErr) });
          }
          this.recordAll(next.events);
          throw e;
        }
        return;
      }
      case 'scale':
      case 'update': {
        if (action.kind === 'Deployment') {
          await this.updateDeployment(action.object as Deployment);
          return;
        }
        const rs = action.object as ReplicaSet;
        if (isAdoption(action, this.snapshot) && !(await this.canAdopt())) throw new Stop({});
        const before = this.rsVersion(rs);
        const written = await c.replaceReplicaSet({
          ...rs,
          metadata: { ...rs.metadata, namespace: ns, resourceVersion: before },
        });
        this.noteRS(before, written);
        this.deps.replicaSets.assume?.(written);
        if (action.verb === 'scale')
          this.log.info('scaled replica set', { replicaSet: action.name, from: action.from, to: action.replicas });
        else this.log.info('updated replica set', { replicaSet: action.name });
        return;
      }
      case 'delete': {
        try {
          await c.deleteReplicaSet(ns, action.name, { uid: action.uid, resourceVersion: action.resourceVersion });
          this.log.info('deleted replica set', { replicaSet: action.name });
        } catch (err) {
          if (!isKind(err, 'NotFound')) throw err;
        }
        return;
      }
      case 'patch': {
        // Force and cancel stamps, on this Deployment or another (engine/requests.ts).
        const own = action.namespace === ns && action.name === this.snapshot.deployment.metadata.name;
        const metadata = {
          annotations: action.annotations,
          ...(action.resourceVersion !== undefined ? { resourceVersion: action.resourceVersion } : {}),
        };
        const written = await c.patchDeployment(action.namespace, action.name, { metadata });
        if (own) this.deployment = written;
        this.deps.deployments.assume?.(written);
        this.log.info('annotated deployment', {
          deployment: `${action.namespace}/${action.name}`,
          annotations: action.annotations,
        });
        return;
      }
      case 'createAnalysisRun': {
        if (!c.createAnalysisRun) throw new KubeError('Other', 'this client cannot create AnalysisRuns');
        try {
          const run = await c.createAnalysisRun({
            ...action.object,
            metadata: { ...action.object.metadata, namespace: ns },
          });
          this.deps.analysisRuns?.assume?.(run);
          this.log.info('started analysis run', { analysisRun: action.name });
        } catch (err) {
          // Ours from an earlier pass the cache has not seen yet: the watch brings it.
          if (!isKind(err, 'AlreadyExists')) throw err;
        }
        return;
      }
      case 'terminateAnalysisRun': {
        if (!c.terminateAnalysisRun) throw new KubeError('Other', 'this client cannot write AnalysisRuns');
        try {
          const run = await c.terminateAnalysisRun(ns, action.name, action.resourceVersion);
          this.deps.analysisRuns?.assume?.(run);
          this.log.info('terminated analysis run', { analysisRun: action.name });
        } catch (err) {
          if (!isKind(err, 'NotFound')) throw err;
        }
        return;
      }
      case 'updateStatus': {
        const d = this.deployment;
        this.deployment = await c.replaceDeploymentStatus(
          action.annotations ? withAnnotations(d, action.annotations) : d,
          action.status,
        );
        this.deps.deployments.assume?.(this.deployment);
        this.log.debug('updated status', { observedGeneration: action.status.observedGeneration });
        return;
      }
      default: {
        const unknown: never = action;
        throw new KubeError('Other', `unknown action ${JSON.stringify((unknown as Action).verb)}`);
      }
    }
  }

  /**
   * Writes only what the engine changed on the Deployment (labels, annotations, the template for a
   * rollback, spec.paused for a cancel that stops it) as a merge patch guarded by the resourceVersion it was computed on.
   */
  private async updateDeployment(target: Deployment): Promise<void> {
    const patch = this.deploymentPatch(target);
    if (!patch) return;
    const d = this.deployment;
    // An apps/v1 Deployment's annotations alone go through /status, as upstream's controller writes
    // its revision annotation: the built-in status strategy keeps annotations, and unlike a write of
    // the object itself it does not move metadata.generation (native mode: docs/native.md). Not the
    // rollback annotation: the API server holds it as spec.rollbackTo, which a /status write cannot
    // change, so clearing it is an update of the object, as upstream's rollback does.
    if (isAppsDeployment(d) && onlyAnnotations(patch) && !touchesRollbackTo(patch)) {
      this.deployment = await this.deps.client.replaceDeploymentStatus(
        { ...d, metadata: { ...d.metadata, annotations: target.metadata.annotations ?? {} } },
        d.status ?? {},
      );
      this.deps.deployments.assume?.(this.deployment);
      this.log.info('updated deployment annotations through status');
      return;
    }
    patch.metadata = { ...(patch.metadata ?? {}), resourceVersion: this.deployment.metadata.resourceVersion };
    this.deployment = await this.deps.client.patchDeployment(d.metadata.namespace!, d.metadata.name!, patch);
    this.deps.deployments.assume?.(this.deployment);
    this.log.info('updated deployment', { fields: Object.keys(patch).join(',') });
  }

  /** The merge patch from the snapshot's Deployment to `target`, in the fields the engine may change; undefined: none. */
  private deploymentPatch(target: Deployment): DeploymentPatch | undefined {
    const pick = (d: Deployment) => ({
      // Finalizers are a list: a change sends the whole new list (guarded by the resourceVersion).
      metadata: { labels: d.metadata.labels, annotations: d.metadata.annotations, finalizers: d.metadata.finalizers },
      spec: { template: d.spec?.template, paused: d.spec?.paused },
    });
    return mergePatchDiff(pick(this.snapshot.deployment), pick(target)) as DeploymentPatch | undefined;
  }
}

type DeploymentPatch = Record<string, Record<string, unknown>>;

/** A patch that sets, changes or removes the legacy rollback annotation. */
function touchesRollbackTo(patch: DeploymentPatch): boolean {
  const annotations = patch.metadata?.annotations;
  return typeof annotations === 'object' && annotations !== null && ROLLBACK_TO_ANNOTATION in annotations;
}

/** A patch that changes the Deployment's annotations and nothing else. */
function onlyAnnotations(patch: DeploymentPatch | undefined): boolean {
  return (
    patch !== undefined &&
    Object.keys(patch).length === 1 &&
    patch.metadata !== undefined &&
    Object.keys(patch.metadata).join() === 'annotations'
  );
}
