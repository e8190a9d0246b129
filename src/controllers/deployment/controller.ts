// The Deployment controller, one registration on the manager (src/manager/): Deployments, their
// ReplicaSets and pods (the manager's shared informers) wake Deployment keys; N workers reconcile
// them while this replica leads. Its watches say which key each change wakes: a ReplicaSet's or a
// pod's controlling Deployment (for an orphan ReplicaSet, every Deployment whose selector matches:
// it may adopt it); a Deployment's dependents and, when its dependency list changes, its
// dependencies (dependencyindex.ts); the other steps of the Plans naming it. docs/architecture.md

import { analysisOf } from '../../api/native.ts';
import type { Deployment, PlanResource, Pod, ReplicaSet } from '../../api/types.ts';
import { selectorMatches, isEmptySelector } from '../../api/selector.ts';
import { dependencyKeys } from '../../api/dependencies.ts';
import {
  ANALYSIS_RUNS,
  ANALYSIS_TEMPLATES,
  CLUSTER_ANALYSIS_TEMPLATES,
  DEPLOYMENTS,
  PLANS,
  PODS,
  REPLICASETS,
} from '../../kube/client.ts';
import type { ResourceType } from '../../kube/client.ts';
import type { AnalysisRun, AnalysisTemplate } from '../../api/analysis.ts';
import type { Logger } from '../../observe/logger.ts';
import { register } from '../../manager/controller.ts';
import type { Controller } from '../../manager/controller.ts';
import type { Manager } from '../../manager/manager.ts';
import type { EventRecorder } from '../../manager/events.ts';
import { keyOf } from '../../manager/informer.ts';
import type { Informer } from '../../manager/informer.ts';
import type { WorkQueue } from '../../manager/workqueue.ts';
import { resourceVersionChanged, watch } from '../../manager/watches.ts';
import type { Change, WatchedValue } from '../../manager/watches.ts';
import { DependencyIndex } from './dependencyindex.ts';
import { otherStatusWriter, standDownMessage } from './nativeguard.ts';
import { planPhaseSampler } from './planmetrics.ts';
import { BY_CONTROLLER, byController, controllerIndexValue, reconcile } from './reconciler.ts';
import { controllerOf } from '../../api/owners.ts';
import type { Engine, ReconcilerDeps } from './reconciler.ts';
import { rolloutStartEstimate, rolloutStep, rolloutView } from './rolloutmetrics.ts';
import type { InProgress } from './rolloutmetrics.ts';
import {
  decide,
  deploymentStepStatus,
  deploymentTarget,
  onCreateConflict,
  onCreateError,
  planStepNames,
  plansNaming,
  REVISION_ANNOTATION,
  statusEqual,
  strategyOf,
} from '../../engine/index.ts';
import type { Freeze } from '../../engine/index.ts';
import { strategyTypeOf } from '../../api/strategies/index.ts';

export const CONTROLLER_NAME = 'deployment';
/** The controller of apps/v1 Deployments (native mode: docs/native.md). */
export const APPS_CONTROLLER_NAME = 'deployment-apps';

export interface DeploymentControllerOptions {
  engine: Engine;
  /** The Deployment kind: pacer.dev's (default) or apps/v1's (APPS_DEPLOYMENTS: native mode). */
  resource?: ResourceType;
  workers?: number;
  /** Watch Plan resources (plans.pacer.dev served): a Plan may hold a Deployment's rollout. */
  customPlans?: boolean;
  /** The freeze switch: while on, no new rollout step; its switching wakes every Deployment. */
  freeze?: WatchedValue<Freeze | undefined>;
  /** Watch AnalysisRuns and the templates (the analysis CRDs served): spec.analysis judges rollouts. */
  analysis?: boolean;
}

/** The engine of src/engine/decide.ts, as the reconciler calls it. */
export const defaultEngine: Engine = {
  decide: (snapshot) => decide(snapshot),
  onCreateConflict,
  onCreateError,
};

/** Kept async so callers need not change if the engine is ever loaded lazily again. */
export async function loadEngine(): Promise<Engine> {
  return defaultEngine;
}

/** A container's restart count or waiting reason changed (what the analysis' pod check reads). */
function containersChanged(old: Pod, pod: Pod): boolean {
  type Lite = { restartCount?: number; state?: { waiting?: { reason?: string } } };
  const a = old.status?.containerStatuses as Lite[] | undefined;
  const b = pod.status?.containerStatuses as Lite[] | undefined;
  if (a === b) return false;
  if (!a || !b || a.length !== b.length) return true;
  // Every pod status update passes here: compared in place, nothing allocated.
  for (let i = 0; i < a.length; i++)
    if (a[i].restartCount !== b[i].restartCount || a[i].state?.waiting?.reason !== b[i].state?.waiting?.reason)
      return true;
  return false;
}

export class DeploymentController {
  readonly deployments: Informer<Deployment>;
  readonly replicaSets: Informer<ReplicaSet>;
  readonly pods: Informer<Pod>;
  /** Plan resources, when the cluster serves them (customPlans). */
  readonly plans?: Informer<PlanResource>;
  readonly queue: WorkQueue;
  /** The manager's Event recorder (shared with the other reconcilers). */
  readonly recorder: EventRecorder;
  readonly controller: Controller;
  private readonly mgr: Manager;
  private readonly log: Logger;
  /** Who depends on whom, kept from the Deployment events (dependencyindex.ts). */
  readonly dependencyIndex = new DependencyIndex();
  /** The apiVersion of the Deployments this controller owns ReplicaSets for (pacer.dev/v1alpha1 or apps/v1). */
  private readonly ownerApiVersion: string;
  /** Deployment uid → the rollout in progress (for the rollout metrics only; see rolloutmetrics.ts). */
  private readonly rollouts = new Map<string, InProgress>();

  /** Registers the Deployment reconciler with `mgr`: the informers it reads, its watches, queue and workers. */
  constructor(mgr: Manager, opts: DeploymentControllerOptions) {
    this.mgr = mgr;
    const resource = opts.resource ?? DEPLOYMENTS;
    this.ownerApiVersion = `${resource.group}/${resource.version}`;
    const name = resource === DEPLOYMENTS ? CONTROLLER_NAME : APPS_CONTROLLER_NAME;
    this.log = mgr.logger.child({ controller: name });
    const deployments = (this.deployments = mgr.informer<Deployment>(resource));
    this.replicaSets = mgr.informer<ReplicaSet>(REPLICASETS);
    this.replicaSets.addIndex(BY_CONTROLLER, byController);
    this.pods = mgr.informer<Pod>(PODS);
    const plans = opts.customPlans ? (this.plans = mgr.informer<PlanResource>(PLANS)) : undefined;
    const runs = opts.analysis ? mgr.informer<AnalysisRun>(ANALYSIS_RUNS) : undefined;
    const templates = opts.analysis ? mgr.informer<AnalysisTemplate>(ANALYSIS_TEMPLATES) : undefined;
    const clusterTemplates = opts.analysis ? mgr.informer<AnalysisTemplate>(CLUSTER_ANALYSIS_TEMPLATES) : undefined;
    this.recorder = mgr.eventRecorder();
    const deps: ReconcilerDeps = {
      client: mgr.client.forDeployments(resource),
      deployments: this.deployments,
      replicaSets: this.replicaSets,
      pods: this.pods,
      engine: opts.engine,
      recorder: this.recorder,
      logger: this.log,
      now: () => mgr.clock.now(),
      dependencyIndex: this.dependencyIndex,
      ...(plans ? { plans } : {}),
      ...(opts.freeze ? { freeze: () => opts.freeze!.current() } : {}),
      ...(runs && templates && clusterTemplates
        ? { analysisRuns: runs, analysisTemplates: templates, clusterAnalysisTemplates: clusterTemplates }
        : {}),
    };
    // The rollout metrics follow every Deployment change; they wake nothing.
    deployments.on({
      add: (d) => this.rolloutChanged(undefined, d),
      update: (old, d) => {
        if (resourceVersionChanged(old, d)) this.rolloutChanged(old, d);
      },
      delete: (d) => {
        this.rollouts.delete(d.metadata.uid ?? '');
      },
    });
    // Native mode stands down once another Deployment controller shows itself (nativeguard.ts).
    const native = resource !== DEPLOYMENTS;
    const since = mgr.clock.now();
    if (native)
      deployments.on({
        update: (_old, d) => this.watchForOtherController(d, since),
        add: (d) => this.watchForOtherController(d, since),
      });
    this.controller = register(mgr, {
      name,
      workers: opts.workers,
      reconcile: async (key, log, stats) => {
        if (this.stoodDown !== undefined) return {};
        return reconcile(deps, key, log, stats);
      },
      watches: [
        watch(deployments, { changed: resourceVersionChanged, keys: (c) => this.relatedKeys(c) }),
        watch(deployments, { keys: ({ obj }) => [keyOf(obj)] }),
        // A Plan's change (created, started, continued, edited) concerns every Deployment it names.
        ...(plans ? [watch(plans, { keys: ({ obj }) => this.planStepKeys(obj) })] : []),
        watch(this.replicaSets, { changed: resourceVersionChanged, keys: (c) => this.replicaSetKeys(c) }),
        // Only a strategy that reads pods (Recreate waits for old pods to be gone or terminal) hears
        // of their deletions and phase changes, as upstream's deletePod only wakes a Recreate
        // Deployment. The others learn of pods from their ReplicaSets' status: a pass on each pod's
        // deletion would see the ReplicaSets' counts before the ReplicaSet controller updated them
        // and scale in more, smaller steps than upstream.
        watch(this.pods, {
          on: ['update', 'delete'],
          // The analysis' pod check (spec.analysis.podFailures) also hears of back-offs and restarts.
          changed: (old, pod) => old.status?.phase !== pod.status?.phase || containersChanged(old, pod),
          keys: ({ obj }) => this.podKeys(obj),
        }),
        // A run's progress concerns the Deployment it judges; a template's change those that name it.
        ...(runs && templates && clusterTemplates
          ? [
              watch(runs, { changed: resourceVersionChanged, keys: ({ obj }) => this.runKeys(obj) }),
              watch(templates, { keys: ({ obj }) => this.templateKeys(obj, false) }),
              watch(clusterTemplates, { keys: ({ obj }) => this.templateKeys(obj, true) }),
            ]
          : []),
        // Switching the freeze on or off concerns every Deployment.
        ...(opts.freeze ? [watch(opts.freeze, { keys: () => deployments.list().map(keyOf) })] : []),
      ],
    });
    this.queue = this.controller.queue;
    mgr.metrics?.trackDeployments(() => this.deployments.list());
    // Each phase kept between scrapes while its objects stay the same, which the caches' handlers
    // report (planmetrics.ts).
    if (mgr.metrics) {
      const planPhases = planPhaseSampler();
      this.pods.on({
        add: (p) => planPhases.pod(p),
        update: (old, p) => planPhases.pod(p, old),
        delete: (p) => planPhases.pod(p),
      });
      this.replicaSets.on({
        add: (rs) => planPhases.replicaSet(rs),
        update: (old, rs) => planPhases.replicaSet(rs, old),
        delete: (rs) => planPhases.replicaSet(rs),
      });
      mgr.metrics.trackPlanPhases(() =>
        // Sharded, the pods and ReplicaSets of a shard not held are not cached here: its Deployments'
        // phases are the holder's to report.
        planPhases.sample(
          this.deployments.list().filter((d) => mgr.cachesNamespace(d.metadata.namespace)),
          () => this.replicaSets.list(),
          () => this.pods.list(),
          mgr.clock.now(),
        ),
      );
    }
  }

  /** Set once another controller wrote an apps/v1 Deployment's status (native mode): why, and nothing more is written. */
  stoodDown?: string;

  private watchForOtherController(d: Deployment, since: number): void {
    if (this.stoodDown !== undefined) return;
    const manager = otherStatusWriter(d, since);
    if (manager === undefined) return;
    this.stoodDown = standDownMessage(manager, d);
    this.log.error(this.stoodDown);
    this.recorder.record(d, 'Warning', 'OtherDeploymentController', this.stoodDown);
  }

  /** The Deployment that controls `obj` (by controller ownerReference, uid-checked), if cached. */
  private owner(obj: { metadata: ReplicaSet['metadata'] }): Deployment | undefined {
    const ref = controllerOf(obj);
    if (ref?.kind !== 'Deployment' || ref.apiVersion !== this.ownerApiVersion) return undefined;
    const d = this.deployments.get(obj.metadata.namespace, ref.name);
    return d && d.metadata.uid === ref.uid ? d : undefined;
  }

  /** The Deployment an AnalysisRun judges (its controller). */
  private runKeys(run: AnalysisRun): string[] {
    const d = this.owner(run);
    return d ? [keyOf(d)] : [];
  }

  /** The Deployments whose spec.analysis (an apps/v1 one's pacer.dev/analysis) names a template (any namespace's for a ClusterAnalysisTemplate). */
  private templateKeys(t: AnalysisTemplate, clusterScope: boolean): string[] {
    const name = t.metadata.name;
    return this.deployments
      .list(clusterScope ? undefined : t.metadata.namespace)
      .filter((d) =>
        [...(analysisOf(d)?.templates ?? []), ...(analysisOf(d)?.canarySteps?.templates ?? [])].some(
          (r) => r.templateName === name && (r.clusterScope ?? false) === clusterScope,
        ),
      )
      .map(keyOf);
  }

  /** Deployments that could adopt an orphan ReplicaSet. */
  private adopters(rs: ReplicaSet): Deployment[] {
    return this.deployments
      .list(rs.metadata.namespace)
      .filter((d) => !isEmptySelector(d.spec?.selector) && selectorMatches(d.spec.selector, rs.metadata.labels));
  }

  /** Its controlling Deployment, or for an orphan those that may adopt it. */
  private replicaSetDeployments(rs: ReplicaSet): Deployment[] {
    if (controllerOf(rs)) {
      const d = this.owner(rs);
      return d ? [d] : [];
    }
    return this.adopters(rs);
  }

  /** The Deployments a stored change of a ReplicaSet concerns. */
  private replicaSetKeys({ type, obj: rs, old }: Change<ReplicaSet>): string[] {
    if (type === 'add') return this.replicaSetDeployments(rs).map(keyOf);
    if (type === 'delete') {
      const d = this.owner(rs);
      return d ? [keyOf(d)] : [];
    }
    const out: Deployment[] = [];
    const oldRef = controllerOf(old!);
    const newRef = controllerOf(rs);
    if (oldRef && (!newRef || oldRef.uid !== newRef.uid)) {
      const prev = this.owner(old!);
      if (prev) out.push(prev); // released or taken over: the old owner recomputes its status
    }
    out.push(...this.replicaSetDeployments(rs));
    // Labels changed on an orphan: Deployments that matched before may want to know too.
    if (!newRef && JSON.stringify(old!.metadata.labels) !== JSON.stringify(rs.metadata.labels))
      out.push(...this.adopters(old!));
    return out.map(keyOf);
  }

  /** The Deployment behind a pod whose strategy reads pods: pod → its controlling ReplicaSet → that ReplicaSet's Deployment. */
  private podKeys(pod: Pod): string[] {
    const ref = controllerOf(pod);
    if (ref?.kind !== 'ReplicaSet') return [];
    const rs = this.replicaSets.get(pod.metadata.namespace, ref.name);
    if (!rs || rs.metadata.uid !== ref.uid) return [];
    const d = this.owner(rs);
    return d && (strategyOf(d)?.readsPods || analysisOf(d)?.podFailures) ? [keyOf(d)] : [];
  }

  /** Feeds one stored change of a Deployment to the rollout rule; counts what ended. */
  private rolloutChanged(old: Deployment | undefined, d: Deployment): void {
    const uid = d.metadata.uid ?? '';
    const now = this.mgr.clock.now();
    const step = rolloutStep(this.rollouts.get(uid), old && rolloutView(old), rolloutView(d), now);
    if (step.inProgress) this.rollouts.set(uid, step.inProgress);
    else this.rollouts.delete(uid);
    // Every replica follows the rollouts; only the leader (sharded: the holder of its namespace's
    // shard) counts them: one count per rollout across replicas.
    if (!this.mgr.leads(d.metadata.namespace)) return;
    for (const end of step.ended) {
      const startedAt = end.startedAt ?? rolloutStartEstimate(d, this.revisionReplicaSet(d, end.revision));
      const seconds = startedAt === undefined ? undefined : Math.max(0, (now - startedAt) / 1000);
      const strategy = strategyTypeOf(d);
      this.mgr.metrics?.observeRollout(end.result, strategy, seconds);
      this.log.info('rollout ended', {
        namespace: d.metadata.namespace,
        name: d.metadata.name,
        revision: end.revision,
        result: end.result,
        ...(seconds !== undefined
          ? { durationSeconds: Math.round(seconds * 1000) / 1000, estimated: end.startedAt === undefined }
          : {}),
      });
    }
  }

  /** The ReplicaSet of `d` carrying `revision`. */
  private revisionReplicaSet(d: Deployment, revision: string): ReplicaSet | undefined {
    return this.replicaSets
      .byIndex(BY_CONTROLLER, controllerIndexValue(d.metadata.namespace, d.metadata.uid))
      .find((rs) => rs.metadata.annotations?.[REVISION_ANNOTATION] === revision);
  }

  /**
   * Whom a stored change of a Deployment concerns besides itself: the dependency index is brought
   * up to date, giving its dependents (and dependencies when its list changed); then the other
   * steps of the Plans naming it.
   */
  private relatedKeys({ type, obj: d, old }: Change<Deployment>): string[] {
    const gone = type === 'delete';
    return [
      ...this.dependencyIndex.update(keyOf(d), gone ? undefined : d),
      ...(gone ? this.planStepChanged(d, undefined) : this.planStepChanged(old, d)),
      // Its dependencies under analysis wait for it to settle, or go back when it fails (analysis/rollout.ts).
      ...(!gone && old ? this.dependenciesToWake(old, d) : []),
    ];
  }

  /** The dependencies of `d` when its status changed (only Deployments with dependencies pay for the compare). */
  private dependenciesToWake(old: Deployment, d: Deployment): string[] {
    const keys = dependencyKeys(d);
    if (keys.length === 0 || statusEqual(old.status, d.status ?? {})) return [];
    return keys;
  }

  /** The Deployments `p` names in its namespace. */
  private planStepKeys(p: PlanResource, except?: string): string[] {
    return planStepNames(p)
      .filter((name) => name !== except)
      .map((name) => `${p.metadata.namespace}/${name}`);
  }

  /**
   * A Deployment's step in the Plans that name it changed (created or deleted, its status as a
   * step, or its template: a new run): the other Deployments of those Plans may now take their
   * turn, or wait.
   */
  private planStepChanged(old: Deployment | undefined, d: Deployment | undefined): string[] {
    const any = d ?? old;
    if (!this.plans || !any) return [];
    const name = any.metadata.name ?? '';
    const plans = plansNaming(this.plans.list(any.metadata.namespace), name);
    if (plans.length === 0) return [];
    const step = (x: Deployment | undefined) => JSON.stringify(deploymentStepStatus(name, x));
    if (step(old) === step(d) && deploymentTarget(old) === deploymentTarget(d)) return [];
    return plans.flatMap((p) => this.planStepKeys(p, name));
  }
}
