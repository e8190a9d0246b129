// The Deployment controller, a registration on the manager (src/manager/): the manager's shared
// informers of Deployments, ReplicaSets and Pods feed one work queue of Deployment keys; N workers
// reconcile them while this replica leads. ReplicaSet and Pod events are mapped to the
// Deployment that controls them, or for orphans to every Deployment in the namespace whose selector
// matches (it may adopt them). A Deployment's changes also wake the Deployments that depend on it
// and, when its dependency list changes, those it depends on (dependencyindex.ts).

import type { Deployment, PlanResource, Pod, ReplicaSet } from '../../api/types.ts';
import { selectorMatches, isEmptySelector } from '../../api/selector.ts';
import { DEPLOYMENTS, PLANS, PODS, REPLICASETS } from '../../kube/client.ts';
import type { Logger } from '../../observe/logger.ts';
import { Controller } from '../../manager/controller.ts';
import type { Manager } from '../../manager/manager.ts';
import { DependencyIndex } from './dependencyindex.ts';
import { EventRecorder } from '../../manager/events.ts';
import { keyOf } from '../../manager/informer.ts';
import { planPhaseSamples } from './planmetrics.ts';
import type { Informer } from '../../manager/informer.ts';
import { BY_CONTROLLER, byController, controllerIndexValue, controllerRef, reconcile } from './reconciler.ts';
import type { Engine, ReconcilerDeps } from './reconciler.ts';
import { rolloutStartEstimate, rolloutStep, rolloutView } from './rolloutmetrics.ts';
import type { InProgress } from './rolloutmetrics.ts';
import type { WorkQueue } from '../../manager/workqueue.ts';
import { decide, deploymentStepStatus, deploymentTarget, onCreateConflict, onCreateError, planStepNames, plansNaming, REVISION_ANNOTATION, strategyOf } from '../../engine/index.ts';
import { strategyTypeOf } from '../../api/strategies/index.ts';
import type { FreezeSwitch } from '../freeze/switch.ts';

export const CONTROLLER_NAME = 'deployment';
/** How long a stopping controller waits for its queued Events to be written (they then are dropped). */
const EVENTS_DRAIN_MS = 5000;

export interface DeploymentControllerOptions {
  engine: Engine;
  workers?: number;
  /** Watch Plan resources (plans.pacer.dev served): a Plan may hold a Deployment's rollout. */
  customPlans?: boolean;
  /** The freeze switch (../freeze/switch.ts): while on, no new rollout step. */
  freeze?: FreezeSwitch;
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
  /** Plan resources, when the cluster serves them (customPlans). */
  readonly plans?: Informer<PlanResource>;
  readonly queue: WorkQueue;
  readonly recorder: EventRecorder;
  readonly controller: Controller;
  private readonly mgr: Manager;
  private readonly log: Logger;
  /** Who depends on whom, kept from the Deployment events (dependencyindex.ts). */
  readonly dependencyIndex = new DependencyIndex();
  /** Deployment uid → the rollout in progress (for the rollout metrics only; see rolloutmetrics.ts). */
  private readonly rollouts = new Map<string, InProgress>();

  /** Registers the Deployment reconciler with `mgr` (its informers, its queue and workers). */
  constructor(mgr: Manager, opts: DeploymentControllerOptions) {
    this.mgr = mgr;
    this.log = mgr.logger.child({ controller: CONTROLLER_NAME });
    this.deployments = mgr.informer<Deployment>(DEPLOYMENTS);
    this.replicaSets = mgr.informer<ReplicaSet>(REPLICASETS);
    this.replicaSets.addIndex(BY_CONTROLLER, byController);
    this.pods = mgr.informer<Pod>(PODS);
    if (opts.customPlans) this.plans = mgr.informer<PlanResource>(PLANS);
    this.recorder = new EventRecorder(mgr.client, { logger: this.log, now: () => mgr.clock.now(), onDrop: () => mgr.metrics?.eventsDropped.inc() });
    const deps: ReconcilerDeps = {
      client: mgr.client,
      deployments: this.deployments,
      replicaSets: this.replicaSets,
      pods: this.pods,
      engine: opts.engine,
      recorder: this.recorder,
      logger: this.log,
      now: () => mgr.clock.now(),
      dependencyIndex: this.dependencyIndex,
      ...(this.plans ? { plans: this.plans } : {}),
      ...(opts.freeze ? { freeze: () => opts.freeze!.current() } : {}),
    };
    this.controller = new Controller(mgr, {
      name: CONTROLLER_NAME,
      workers: opts.workers,
      reconcile: (key, log, stats) => reconcile(deps, key, log, stats),
      afterStop: () => this.recorder.drain(EVENTS_DRAIN_MS),
    });
    this.queue = this.controller.queue;
    mgr.metrics?.trackDeployments(() => this.deployments.list());
    mgr.metrics?.trackPlanPhases(() => planPhaseSamples(this.deployments.list(), this.replicaSets.list(), this.pods.list(), mgr.clock.now()));
    this.wireEvents();
    // Switching the freeze on or off concerns every Deployment.
    opts.freeze?.onChange(() => { for (const d of this.deployments.list()) this.enqueue(d); });
    mgr.add(this.controller);
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
    const now = this.mgr.clock.now();
    const step = rolloutStep(this.rollouts.get(uid), old && rolloutView(old), rolloutView(d), now);
    if (step.inProgress) this.rollouts.set(uid, step.inProgress);
    else this.rollouts.delete(uid);
    // Every replica follows the rollouts; only the leader counts them (one count per rollout across replicas).
    if (!this.mgr.isLeader()) return;
    for (const end of step.ended) {
      const startedAt = end.startedAt ?? rolloutStartEstimate(d, this.revisionReplicaSet(d, end.revision));
      const seconds = startedAt === undefined ? undefined : Math.max(0, (now - startedAt) / 1000);
      const strategy = strategyTypeOf(d);
      this.mgr.metrics?.observeRollout(end.result, strategy, seconds);
      this.log.info('rollout ended', {
        namespace: d.metadata.namespace, name: d.metadata.name, revision: end.revision, result: end.result,
        ...(seconds !== undefined ? { durationSeconds: Math.round(seconds * 1000) / 1000, estimated: end.startedAt === undefined } : {}),
      });
    }
  }

  /** The ReplicaSet of `d` carrying `revision`. */
  private revisionReplicaSet(d: Deployment, revision: string): ReplicaSet | undefined {
    return this.replicaSets.byIndex(BY_CONTROLLER, controllerIndexValue(d.metadata.namespace, d.metadata.uid)).find(
      (rs) => rs.metadata.annotations?.[REVISION_ANNOTATION] === revision,
    );
  }

  /** Updates the dependency index for `d` and enqueues whom its change concerns (dependencyindex.ts). */
  private dependenciesChanged(d: Deployment, gone: boolean): void {
    for (const key of this.dependencyIndex.update(keyOf(d), gone ? undefined : d)) this.queue.add(key);
  }

  /** The Deployments `p` names in its namespace. */
  private enqueuePlanSteps(p: PlanResource, except?: string): void {
    for (const name of planStepNames(p)) if (name !== except) this.queue.add(`${p.metadata.namespace}/${name}`);
  }

  /**
   * A Deployment's step in the Plans that name it changed (created or deleted, its status as a
   * step, or its template: a new run): the other Deployments of those Plans may now take their
   * turn, or wait.
   */
  private planStepChanged(old: Deployment | undefined, d: Deployment | undefined): void {
    const any = d ?? old;
    if (!this.plans || !any) return;
    const name = any.metadata.name ?? '';
    const plans = plansNaming(this.plans.list(any.metadata.namespace), name);
    if (plans.length === 0) return;
    const step = (x: Deployment | undefined) => JSON.stringify(deploymentStepStatus(name, x));
    if (step(old) === step(d) && deploymentTarget(old) === deploymentTarget(d)) return;
    for (const p of plans) this.enqueuePlanSteps(p, name);
  }

  private wireEvents(): void {
    this.deployments.on({
      add: (d) => {
        this.rolloutChanged(undefined, d);
        this.dependenciesChanged(d, false);
        this.planStepChanged(undefined, d);
        this.enqueue(d);
      },
      update: (old, d) => {
        if (old.metadata.resourceVersion !== d.metadata.resourceVersion) {
          this.rolloutChanged(old, d);
          this.dependenciesChanged(d, false);
          this.planStepChanged(old, d);
        }
        this.enqueue(d);
      },
      delete: (d) => {
        this.rollouts.delete(d.metadata.uid ?? '');
        this.dependenciesChanged(d, true);
        this.planStepChanged(d, undefined);
        this.enqueue(d);
      },
    });
    // A Plan's change (created, started, continued, edited) concerns every Deployment it names.
    const planChanged = (p: PlanResource) => this.enqueuePlanSteps(p);
    this.plans?.on({ add: planChanged, update: (_old, p) => planChanged(p), delete: planChanged });
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
    // Only a strategy that reads pods (Recreate waits for old pods to be gone or terminal) hears of
    // their deletions and phase changes, as upstream's deletePod only wakes a Recreate Deployment.
    // The others learn of pods from their ReplicaSets' status: a pass on each pod's deletion would
    // see the ReplicaSets' counts before the ReplicaSet controller updated them and scale in more,
    // smaller steps than upstream.
    const podChanged = (pod: Pod): void => {
      const d = this.podOwner(pod);
      if (d && strategyOf(d)?.readsPods) this.enqueue(d);
    };
    this.pods.on({
      update: (old, pod) => {
        if (old.status?.phase !== pod.status?.phase) podChanged(pod);
      },
      delete: podChanged,
    });
  }
}
