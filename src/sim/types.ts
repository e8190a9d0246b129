// The simulated cluster's internal contract. The API layer (HTTP) and the simulated control plane
// (ReplicaSet controller, scheduler, kubelet, garbage collector, PDB controller, node lifecycle)
// both go through one Store, so that every write, from kubectl or from a simulated controller,
// gets the same semantics: resourceVersion, generation, status rules, finalizers, watch events.

import type { ObjectMeta } from '../api/types.ts';

/** Any Kubernetes object as JSON. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  /** The API's ObjectMeta, and whatever else a client stored there. */
  metadata: ObjectMeta & {
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
  constructor(code: number, reason: string, message: string, details?: ApiError['details']) {
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

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

export interface WatchOptions {
  /** Start after this resourceVersion ("" or "0": from now), unless sendInitialEvents. */
  resourceVersion?: string;
  /**
   * Start with a synthetic ADDED event for every object of the current state, then the changes
   * after it. Defaults to true when resourceVersion is unset, "" or "0" (the legacy watch).
   */
  sendInitialEvents?: boolean;
  labelSelector?: string;
  fieldSelector?: string;
}

/**
 * One store for the whole simulated cluster. Every method returns deep copies (callers may mutate
 * what they get; the one opt-in exception is a read-only subscriber) and throws ApiError with
 * Kubernetes semantics (404, 409, 410, 422, ...).
 * Writes by the simulated controllers and by HTTP clients go through the same methods.
 */
export interface StoreApi {
  /** The current global resourceVersion (one counter for every type, like etcd's revision). */
  currentResourceVersion(): number;
  get(ref: ResourceRef, namespace: string | undefined, name: string): KubeObject | undefined;
  list(ref: ResourceRef, namespace: string | undefined, opts?: ListOptions): ListResult;
  create(ref: ResourceRef, namespace: string | undefined, obj: KubeObject, opts?: WriteOptions): KubeObject;
  /** PUT semantics; a metadata.resourceVersion in `obj` is a precondition (409 on mismatch). */
  update(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    obj: KubeObject,
    opts?: WriteOptions & { subresource?: 'status' },
  ): KubeObject;
  patch(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    body: unknown,
    opts?: WriteOptions & { subresource?: 'status' },
  ): KubeObject;
  /**
   * Read-modify-write without a conflict, for the simulated controllers: `fn` gets a copy of the
   * stored object and returns the object to store (or undefined to leave it as it is).
   */
  mutate(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    fn: (obj: KubeObject) => KubeObject | undefined,
    opts?: WriteOptions & { subresource?: 'status' },
  ): KubeObject | undefined;
  /** Returns the deleted object, or the object now pending deletion (deletionTimestamp set). */
  delete(ref: ResourceRef, namespace: string | undefined, name: string, opts?: DeleteOptions): KubeObject;
  /**
   * Every committed change of every type, synchronously after commit, in resourceVersion order.
   * Each listener gets its own copy of the object, unless it subscribes with `{readonly: true}`:
   * then it gets the stored object itself, deep-frozen and shared with every reader (no copy per
   * listener per event). Read-only listeners must copy what they want to change.
   */
  subscribe(listener: (e: StoreEvent) => void, opts?: { readonly?: boolean }): () => void;
  /**
   * A watch of one type (namespace undefined = all). Replays history after `resourceVersion`, or
   * throws ApiError 410 Expired when that version is older than the history kept.
   */
  watch(
    ref: ResourceRef,
    namespace: string | undefined,
    opts: WatchOptions,
    listener: (e: StoreEvent) => void,
  ): () => void;
}
