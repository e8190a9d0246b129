// The engine's contract: a snapshot in, a decision out. No I/O, no clock, no logger.
// The controller builds a Snapshot from its caches, calls decide(), and carries out the actions in
// order, stopping at the first failure (the next pass recomputes everything: level-triggered).
// `pacer plan` prints the same Decision.

import type { Deployment, DeploymentStatus, Pod, ReplicaSet } from '../api/types.ts';

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
}

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
 * its template. `object` is the object as it should be stored after the write.
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
  /** One event per condition whose status or reason this write changes (recorded after it succeeded). */
  events?: EventRecord[];
}

export type Action = CreateAction | ScaleAction | UpdateAction | DeleteAction | UpdateStatusAction;

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
