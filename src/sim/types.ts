// The simulated cluster's internal contract. The API layer (HTTP) and the simulated control plane
// (ReplicaSet controller, scheduler, kubelet, garbage collector, PDB controller, node lifecycle)
// both go through one Store, so that every write, from kubectl or from a simulated controller,
// gets the same semantics: resourceVersion, generation, status rules, finalizers, watch events.

/** Any Kubernetes object as JSON. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    generateName?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    deletionGracePeriodSeconds?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{
      apiVersion: string;
      kind: string;
      name: string;
      uid: string;
      controller?: boolean;
      blockOwnerDeletion?: boolean;
    }>;
    finalizers?: string[];
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** Identifies a resource type: `{group: 'apps', version: 'v1', resource: 'replicasets'}`; core group is ''. */
export interface ResourceRef {
  group: string;
  version: string;
  resource: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: WatchEventType;
  ref: ResourceRef;
  object: KubeObject;
  /** The global resourceVersion of this change. */
  resourceVersion: number;
}

/** A failure with the Kubernetes Status shape; the HTTP layer serialises it as is. */
export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

export class ApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: StatusCause[];
    retryAfterSeconds?: number;
  };
  constructor(
    code: number,
    reason: string,
    message: string,
    details?: ApiError['details'],
  ) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.details = details;
  }
  toStatus(): Record<string, unknown> {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
}

export interface WriteOptions {
  /** `dryRun=All`: validate and compute, persist nothing, emit nothing. */
  dryRun?: boolean;
  /** Who made the request (for the audit log and managedFields); e.g. "kubectl", "pacer", "sim/kubelet". */
  actor?: string;
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
}

export interface DeleteOptions extends WriteOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}
