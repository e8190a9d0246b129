// What the controller's caches keep of each object (docs/architecture.md#the-manager): client-go's
// informer transform (SetTransform) with controller-runtime's default of dropping
// metadata.managedFields, which is often the larger half of an object on a real API server and
// which nothing in Pacer reads. Pods, by far the most numerous objects, keep only the fields Pacer
// reads from a cached pod:
//   metadata     identity, labels, annotations, owners, deletion (everything but managedFields)
//   spec         nodeName (drains, plans), each container's name, image and resource requests
//                (capacity of a node roll)
//   status       phase, reason, the Ready condition only (its status and lastTransitionTime:
//                availability and minReadySeconds), startTime, and each container's name, ready, started,
//                restartCount, state and lastState (crash loops, the plans' step statuses)
// A reader that needs another field of a pod must add it here (test/unit/kube/slim.test.ts lists
// what is kept); anything else reads pods from the API server. cacheKeep (below) is what the
// controller's caches hold: the same fields, with equal strings and parts held once (kube/intern.ts).

import type { ResourceType } from './client.ts';
import { Interner } from './intern.ts';
import type { Shape } from './intern.ts';

type Obj = { metadata?: Record<string, unknown> } & Record<string, unknown>;

/** The object without metadata.managedFields (the same object when it has none). */
export function dropManagedFields<T>(obj: T): T {
  const o = obj as Obj;
  if (!o?.metadata || !('managedFields' in o.metadata)) return obj;
  const { managedFields: _dropped, ...metadata } = o.metadata;
  return { ...o, metadata } as T;
}

const pick = (o: unknown, keys: readonly string[]): Record<string, unknown> | undefined => {
  if (!o || typeof o !== 'object') return undefined;
  const src = o as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of keys) if (src[k] !== undefined) out[k] = src[k];
  return out;
};
const each = (xs: unknown, f: (x: unknown) => unknown) => (Array.isArray(xs) ? xs.map(f) : undefined);

/** A pod as the caches keep it: the fields above, nothing else. */
export function slimPod<T>(pod: T): T {
  const p = dropManagedFields(pod) as Obj;
  const spec = p.spec as Record<string, unknown> | undefined;
  const status = p.status as Record<string, unknown> | undefined;
  const out: Record<string, unknown> = { ...pick(p, ['apiVersion', 'kind', 'metadata']) };
  if (spec) {
    out.spec = {
      ...pick(spec, ['nodeName']),
      ...(spec.containers !== undefined
        ? {
            containers: each(spec.containers, (c) => {
              const kept = pick(c, ['name', 'image']) ?? {};
              const requests = (c as { resources?: { requests?: unknown } } | undefined)?.resources?.requests;
              return requests !== undefined ? { ...kept, resources: { requests } } : kept;
            }),
          }
        : {}),
    };
  }
  if (status) {
    out.status = {
      ...pick(status, ['phase', 'reason', 'startTime']),
      ...(Array.isArray(status.conditions)
        ? {
            // Only Ready is read (availability, minReadySeconds, drains, the plans' steps); a
            // running pod has four more, each with its own timestamps.
            conditions: (status.conditions as Array<{ type?: unknown }>)
              .filter((c) => c?.type === 'Ready')
              .map((c) => pick(c, ['type', 'status', 'reason', 'lastTransitionTime'])),
          }
        : {}),
      ...(status.containerStatuses !== undefined
        ? {
            containerStatuses: each(status.containerStatuses, (c) =>
              pick(c, ['name', 'ready', 'started', 'restartCount', 'state', 'lastState']),
            ),
          }
        : {}),
    };
  }
  return out as T;
}

/**
 * An apps/v1 Deployment without managedFields, its apiVersion and kind stamped: a list's items
 * come without them, and the engine tells a native Deployment by its apiVersion (native mode).
 */
function appsDeployment<T>(obj: T): T {
  const o = obj as Obj;
  // Who last wrote the status, and when, is kept (without the field sets): native mode notices a
  // built-in Deployment controller switched on after Pacer started by it (cli/native.ts).
  const status = Array.isArray(o?.metadata?.managedFields)
    ? (o.metadata.managedFields as Obj[])
        .filter((f) => f?.subresource === 'status')
        .map((f) => ({ manager: f.manager, operation: f.operation, subresource: f.subresource, time: f.time }))
    : [];
  const out = dropManagedFields(obj) as Obj & { apiVersion?: string; kind?: string };
  const stamped =
    out.apiVersion === 'apps/v1' && out.kind === 'Deployment'
      ? out
      : { ...out, apiVersion: 'apps/v1', kind: 'Deployment' };
  if (status.length === 0) return stamped as T;
  return { ...stamped, metadata: { ...stamped.metadata, managedFields: status } } as T;
}

/** The transform of a cache of `type`: pods slimmed, everything else without managedFields. */
export function cacheTransform(type: Pick<ResourceType, 'group' | 'plural'>): <T>(obj: T) => T {
  if (type.group === '' && type.plural === 'pods') return slimPod;
  if (type.group === 'apps' && type.plural === 'deployments') return appsDeployment;
  return dropManagedFields;
}

// ---- compaction: what is kept, held once (kube/intern.ts) ------------------------------------------

/**
 * The caches' one Interner: one per process, so that the pods of a ReplicaSet, the ReplicaSets of a
 * Deployment and the Deployment itself share their equal parts (labels, owners, templates).
 */
export const cacheInterner = new Interner();

// What is unique to each object is kept as it is (interning it would only fill the table); parts
// that are often equal between objects are shared whole (a part unique to its object is not: its
// entry in the table would cost as much as the part); every other string is interned.
const METADATA: Shape = {
  name: 'keep',
  uid: 'keep',
  resourceVersion: 'keep',
  annotations: 'share',
  ownerReferences: 'share',
  finalizers: 'share',
  managedFields: 'share',
};
// A container's state is its own (its start time); its last state is often none ({}).
const CONTAINER_STATUS: Shape = { state: {}, lastState: 'share' };
const POD: Shape = {
  // The pods of a ReplicaSet have its labels, its owner reference and its containers.
  metadata: { ...METADATA, labels: 'share' },
  spec: { containers: 'share' },
  status: { containerStatuses: [CONTAINER_STATUS] },
};
// Labels, selectors and a template's metadata carry the ReplicaSet's pod-template-hash (or are the
// Deployment's own); a template's spec is the same in every ReplicaSet of a revision and often
// between Deployments of one application.
const TEMPLATE: Shape = { metadata: {}, spec: 'share' };
const REPLICASET: Shape = { metadata: METADATA, spec: { template: TEMPLATE } };
// A Deployment's annotations are its own (kubectl's last-applied configuration is the whole object).
const DEPLOYMENT: Shape = {
  metadata: { ...METADATA, annotations: {} },
  spec: { template: TEMPLATE, strategy: 'share' },
};

function shapeOf(type: Pick<ResourceType, 'group' | 'plural'>): Shape {
  if (type.group === '' && type.plural === 'pods') return POD;
  if (type.plural === 'replicasets') return REPLICASET;
  if (type.plural === 'deployments') return DEPLOYMENT;
  return { metadata: METADATA };
}

/**
 * What the caches keep of each object of `type`, held compactly: cacheTransform's fields, with
 * equal strings and equal parts held once (kube/intern.ts). Deep-equal to cacheTransform's result.
 * For ReplicaSets and Deployments, `prev`, the version of the same object the cache holds (kept
 * by this function), lends the new version every part the two have equal: their templates stay the
 * same objects across status writes, and what is remembered per template (its hash, its defaulted
 * pod spec) is found again. A pod's new version differs from the cached one in most of what it
 * holds (status, resourceVersion), where comparing costs as much as copying: it is kept anew.
 */
export function cacheKeep(type: Pick<ResourceType, 'group' | 'plural'>): <T>(obj: T, prev?: T) => T {
  const transform = cacheTransform(type);
  const shape = shapeOf(type);
  const intern = cacheInterner;
  const beside = keptBesideCached(type);
  return <T>(obj: T, prev?: T): T => intern.compact(transform(obj), shape, beside ? prev : undefined);
}

/** Whether cacheKeep(type) reads the cached version it is given (so that a caller need not look it up). */
export function keptBesideCached(type: Pick<ResourceType, 'group' | 'plural'>): boolean {
  const shape = shapeOf(type);
  return shape === REPLICASET || shape === DEPLOYMENT;
}
