// The engine's contract: a snapshot in, a decision out. No I/O, no clock, no logger.
// The controller builds a Snapshot from its caches, calls decide(), and carries out the actions in
// order, stopping at the first failure (the next pass recomputes everything: level-triggered).
// `pacer plan` prints the same Decision.

import type { Deployment, DeploymentStatus, PlanResource, Pod, ReplicaSet } from '../api/types.ts';
import type { Freeze } from './freeze.ts';
import type { AnalysisRun, AnalysisTemplate, AnalysisTemplateRef } from '../api/analysis.ts';

export interface Snapshot {
  /** The Deployment as read (spec not yet defaulted: the engine applies the upstream defaults). */
  deployment: Deployment;
  /**
   * Every ReplicaSet in the Deployment's namespace that may belong to it: those it controls and
   * orphans that its selector matches. The engine decides adoption and release (claim.ts).
   */
  replicaSets: ReplicaSet[];
  /** Pods in the Deployment's namespace matching its selector (only Recreate reads them). */
  pods: Pod[];
  /** The current time, in milliseconds since the epoch. */
  now: number;
  /**
   * The Deployments named in spec.dependencies, as found (`ref` as written or "namespace/name";
   * `deployment` absent when not found). Absent: none known, so every dependency counts as missing.
   */
  dependencies?: Array<{ ref: string; deployment?: Deployment }>;
  /**
   * The Deployments whose spec.dependencies name this one (dependencies.ts keeps the
   * pacer.dev/dependents finalizer from it). Absent: unknown, finalizers are left alone.
   */
  dependents?: Deployment[];
  /** The dependency cycle through this Deployment (keys, first = last = it), when there is one. */
  dependencyCycle?: string[];
  /**
   * Every pacer.dev Deployment the source knows (this one included), present only while this one
   * carries a request that concerns the others (requests.ts: force, a cancel request or a cancel
   * stamp): a plain pass never pays for a scan of them all.
   */
  deployments?: Deployment[];
  /**
   * The custom plans (Plan resources) of the namespace that name this Deployment as a step, with
   * the Deployments their steps name (customPlanHold: a plan may hold this one's rollout).
   */
  plans?: { plans: PlanResource[]; deployments: Deployment[] };
  /** The freeze switch, while it is on (freeze.ts): no new rollout step. */
  freeze?: Freeze;
  /** With spec.analysis: the Deployment's AnalysisRuns and the templates it names (analysis/rollout.ts). */
  analysis?: AnalysisInputs;
}

/** The analysis inputs of a pass (analysis/rollout.ts): the Deployment's runs and the templates its spec.analysis names, as found. */
export interface AnalysisInputs {
  /** The AnalysisRuns this Deployment controls. */
  runs: AnalysisRun[];
  /** Each of spec.analysis.templates, with the template when it exists. */
  templates: Array<{ ref: AnalysisTemplateRef; template?: AnalysisTemplate }>;
  /** Each of spec.analysis.canarySteps.templates, with the template when it exists. */
  stepTemplates?: Array<{ ref: AnalysisTemplateRef; template?: AnalysisTemplate }>;
}

/** A write to an AnalysisRun. */
export type AnalysisRunWrite =
  | { verb: 'createAnalysisRun'; kind: 'AnalysisRun'; name: string; object: AnalysisRun }
  | { verb: 'terminateAnalysisRun'; kind: 'AnalysisRun'; name: string; resourceVersion?: string };

/** A Kubernetes Event the controller records once the action carrying it has succeeded. */
export interface EventRecord {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

interface ActionBase {
  /** Event to record after the action succeeded (upstream reasons and wording). */
  event?: EventRecord;
}

/** Create a ReplicaSet. `object` is complete: name, labels, annotations, ownerReference, template. */
export interface CreateAction extends ActionBase {
  verb: 'create';
  kind: 'ReplicaSet';
  name: string;
  replicas: number;
  object: ReplicaSet;
}

/**
 * Change a ReplicaSet's spec.replicas (and its desired-/max-replicas annotations with it).
 * `object` is the ReplicaSet as it should be stored after the write.
 */
export interface ScaleAction extends ActionBase {
  verb: 'scale';
  kind: 'ReplicaSet';
  name: string;
  from: number;
  replicas: number;
  object: ReplicaSet;
}

/**
 * Any other write of a whole object: a ReplicaSet's annotations or minReadySeconds, adoption or
 * release (ownerReferences), the Deployment's metadata (revision annotation) or, for a rollback,
 * its template, or, for a cancel that stops it, spec.paused. `object` is the object as it should be
 * stored after the write.
 */
export interface UpdateAction extends ActionBase {
  verb: 'update';
  kind: 'ReplicaSet' | 'Deployment';
  name: string;
  object: ReplicaSet | Deployment;
}

export interface DeleteAction extends ActionBase {
  verb: 'delete';
  kind: 'ReplicaSet';
  name: string;
  uid?: string;
  /** The resourceVersion the decision was made on, as a delete precondition. */
  resourceVersion?: string;
}

/** Write the Deployment's status through the /status subresource. */
export interface UpdateStatusAction extends ActionBase {
  verb: 'updateStatus';
  kind: 'Deployment';
  name: string;
  status: DeploymentStatus;
  /**
   * Annotation changes written with the status (merge patch: null removes one): an apps/v1
   * Deployment's stableRS and abortedRS, which its status has no field for (engine/native.ts).
   */
  annotations?: Record<string, string | null>;
  /** One event per condition whose status or reason this write changes (recorded after it succeeded). */
  events?: EventRecord[];
}

/**
 * A JSON merge patch of a Deployment's annotations (null removes one): the stamps of force and
 * cancel (requests.ts), on this Deployment or on another member of its deployment plan, which may be
 * in another namespace. Metadata only, so the lock never refuses it.
 */
export interface PatchAction extends ActionBase {
  verb: 'patch';
  kind: 'Deployment';
  namespace: string;
  name: string;
  annotations: Record<string, string | null>;
  /** Sent as a precondition when set: the patch fails with a conflict if the object changed since. */
  resourceVersion?: string;
}

/**
 * Start the run that judges the new revision (`object` complete), or stop one (spec.terminate: its
 * open metrics end Successful) once the rollout is done: analysis/rollout.ts.
 */
export type AnalysisRunAction = AnalysisRunWrite & ActionBase;

export type Action =
  | CreateAction
  | ScaleAction
  | UpdateAction
  | DeleteAction
  | UpdateStatusAction
  | PatchAction
  | AnalysisRunAction;

export interface Decision {
  /** "namespace/name" */
  deployment: string;
  /** Every write, once, in the order issued. */
  actions: Action[];
  /** The Deployment status after this pass (equal to the stored one when nothing changed). */
  status: DeploymentStatus;
  /**
   * What upstream's requeueStuckDeployment returns for the status this pass leaves: seconds left
   * until the progress deadline, 0 when it is reached now, null when no requeue is needed.
   */
  requeueAfterSeconds: number | null;
  /** Events not tied to a write (for example SelectingAll). */
  events: EventRecord[];
  /** The Deployment and all its ReplicaSets as they would be after the actions. */
  objects: { deployment: Deployment; replicaSets: ReplicaSet[] };
}
