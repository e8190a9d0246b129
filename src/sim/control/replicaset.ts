// The simulated ReplicaSet controller (upstream pkg/controller/replicaset): claims the pods its
// selector matches, creates pods from the template or deletes the ones upstream would delete
// first, and keeps status (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas with
// minReadySeconds, observedGeneration, ReplicaFailure) current.

import { jsonEqual } from '../../kube/jsonequal.ts';
import type { LabelSelector } from '../../api/types.ts';
import { selectorMatches } from '../../api/selector.ts';
import { REF } from '../resources.ts';
import { ApiError, type KubeObject } from '../types.ts';
import { keys, mutateStored, type ControlContext } from './context.ts';
import {
  controllerRef,
  isActivePod,
  isDeleting,
  isoTime,
  isPodAvailable,
  isPodReady,
  isTerminal,
  maxRestartCount,
  nodeNameOf,
  parseTime,
  phaseOf,
  podReadySince,
  randomSuffix,
  ANN_POD_DELETION_COST,
} from './util.ts';

const COMPONENT = 'replicaset-controller';
const ACTOR = `sim/${COMPONENT}`;
/** Upstream's burstReplicas: at most this many creations or deletions per sync. */
export const BURST_REPLICAS = 500;

// ------------------------------------------------------------------------------------------------
// Which pods go first (upstream controller.ActivePodsWithRanks, with LogarithmicScaleDown)

export interface RankedPod {
  pod: KubeObject;
  /** Active pods related to this one (same owner's ReplicaSets) on the same node. */
  rank: number;
}

const PHASE_ORDER: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

function deletionCost(pod: KubeObject): number {
  const v = pod.metadata.annotations?.[ANN_POD_DELETION_COST];
  if (v === undefined || !/^[+-]?\d+$/.test(v.trim())) return 0;
  const n = Number.parseInt(v, 10);
  return n >= -(2 ** 31) && n < 2 ** 31 ? n : 0;
}

/** Later first; a missing time goes before any time. Negative when `a` comes first. */
function laterOrMissingFirst(a: number | undefined, b: number | undefined): number {
  if (a === undefined || b === undefined) return (a === undefined ? -1 : 0) - (b === undefined ? -1 : 0);
  return b - a;
}

/**
 * Upstream buckets ages by powers of two (in nanoseconds) so that pods of similar age are
 * deleted in random order (by uid) rather than strictly newest first.
 */
function logAgeBucket(t: number, now: number): number {
  const ageNs = (now - t) * 1e6;
  return ageNs > 0 ? Math.trunc(Math.log2(ageNs)) : -1;
}

function compareTimes(a: number | undefined, b: number | undefined, now: number, uidA: string, uidB: string): number {
  if (a === b) return 0;
  if (a === undefined || b === undefined) return laterOrMissingFirst(a, b);
  const diff = logAgeBucket(a, now) - logAgeBucket(b, now);
  if (diff === 0) return uidA < uidB ? -1 : uidA > uidB ? 1 : 0;
  return diff;
}

/**
 * One comparator for the deletion order; pods sorted first are deleted first:
 * unscheduled before scheduled; Pending before Unknown before Running; not ready before ready;
 * lower pod-deletion-cost first; more related pods on the same node first; ready for less time
 * first; more container restarts first; newer first.
 */
export function compareForDeletion(a: RankedPod, b: RankedPod, now: number): number {
  const na = nodeNameOf(a.pod);
  const nb = nodeNameOf(b.pod);
  if (na !== nb && (na === '' || nb === '')) return na === '' ? -1 : 1;
  const pa = PHASE_ORDER[phaseOf(a.pod)] ?? 0;
  const pb = PHASE_ORDER[phaseOf(b.pod)] ?? 0;
  if (pa !== pb) return pa - pb;
  const ra = isPodReady(a.pod);
  const rb = isPodReady(b.pod);
  if (ra !== rb) return ra ? 1 : -1;
  const ca = deletionCost(a.pod);
  const cb = deletionCost(b.pod);
  if (ca !== cb) return ca - cb;
  if (a.rank !== b.rank) return b.rank - a.rank;
  const uidA = a.pod.metadata.uid ?? '';
  const uidB = b.pod.metadata.uid ?? '';
  if (ra && rb) {
    const c = compareTimes(podReadySince(a.pod), podReadySince(b.pod), now, uidA, uidB);
    if (c !== 0) return c;
  }
  const xa = maxRestartCount(a.pod);
  const xb = maxRestartCount(b.pod);
  if (xa !== xb) return xb - xa;
  return compareTimes(
    parseTime(a.pod.metadata.creationTimestamp),
    parseTime(b.pod.metadata.creationTimestamp),
    now,
    uidA,
    uidB,
  );
}

/**
 * The `count` pods to delete: all of them when every pod goes, otherwise the first ones in the
 * deletion order, ranked by how many related active pods share their node.
 */
export function podsToDelete(pods: KubeObject[], related: KubeObject[], count: number, now: number): KubeObject[] {
  if (count >= pods.length) return [...pods];
  const onNode = new Map<string, number>();
  for (const p of related) {
    if (!isActivePod(p)) continue;
    const n = nodeNameOf(p);
    onNode.set(n, (onNode.get(n) ?? 0) + 1);
  }
  const ranked = pods.map((pod) => ({ pod, rank: onNode.get(nodeNameOf(pod)) ?? 0 }));
  ranked.sort((x, y) => compareForDeletion(x, y, now));
  return ranked.slice(0, count).map((r) => r.pod);
}

// ------------------------------------------------------------------------------------------------
// Status

export interface ReplicaSetStatusResult {
  status: Record<string, unknown>;
  /** When availableReplicas may next change by the clock alone (a pod reaching minReadySeconds). */
  recheckAt?: number;
}

function templateLabels(rs: KubeObject): Record<string, string> {
  const t = (rs.spec as Record<string, any> | undefined)?.template;
  return (t?.metadata?.labels as Record<string, string> | undefined) ?? {};
}

/**
 * Upstream calculateStatus: counts over the active pods the ReplicaSet owns, and terminatingReplicas
 * (the pods it owns that are being deleted and not yet Succeeded or Failed: the
 * DeploymentReplicaSetTerminatingReplicas feature, beta and on by default since Kubernetes 1.35). A
 * ReplicaFailure condition appears with the error of the last failed create/delete and goes once one
 * succeeds.
 */
export function replicaSetStatus(
  rs: KubeObject,
  pods: KubeObject[],
  now: number,
  manageError?: { reason: 'FailedCreate' | 'FailedDelete'; message: string },
  terminating = 0,
): ReplicaSetStatusResult {
  const spec = (rs.spec as Record<string, any> | undefined) ?? {};
  const minReadySeconds = typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0;
  const tl = templateLabels(rs);
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  let recheckAt: number | undefined;
  for (const p of pods) {
    const labels = p.metadata.labels ?? {};
    if (Object.entries(tl).every(([k, v]) => labels[k] === v)) fullyLabeled++;
    if (!isPodReady(p)) continue;
    ready++;
    if (isPodAvailable(p, minReadySeconds, now)) {
      available++;
    } else {
      const since = podReadySince(p);
      if (since !== undefined) {
        const at = since + minReadySeconds * 1000 + 1;
        recheckAt = recheckAt === undefined ? at : Math.min(recheckAt, at);
      }
    }
  }
  const old = (rs.status as Record<string, any> | undefined) ?? {};
  let conditions: Array<Record<string, unknown>> = Array.isArray(old.conditions) ? [...old.conditions] : [];
  const failure = conditions.find((c) => c.type === 'ReplicaFailure');
  if (manageError && !failure) {
    conditions.push({
      type: 'ReplicaFailure',
      status: 'True',
      lastTransitionTime: isoTime(now),
      reason: manageError.reason,
      message: manageError.message,
    });
  } else if (!manageError && failure) {
    conditions = conditions.filter((c) => c !== failure);
  }
  const status: Record<string, unknown> = {
    replicas: pods.length,
    fullyLabeledReplicas: fullyLabeled,
    readyReplicas: ready,
    availableReplicas: available,
    terminatingReplicas: terminating,
    observedGeneration: rs.metadata.generation ?? 0,
  };
  if (conditions.length > 0) status.conditions = conditions;
  return { status, recheckAt };
}

// ------------------------------------------------------------------------------------------------
// Pods from the template

export function podFromTemplate(rs: KubeObject, name: string): KubeObject {
  const spec = (rs.spec as Record<string, any> | undefined) ?? {};
  const tmeta = (spec.template?.metadata as Record<string, any> | undefined) ?? {};
  const metadata: KubeObject['metadata'] = {
    name,
    generateName: `${rs.metadata.name}-`,
    namespace: rs.metadata.namespace,
    labels: { ...(tmeta.labels ?? {}) },
    ownerReferences: [controlledBy(rs)],
  };
  if (tmeta.annotations && Object.keys(tmeta.annotations).length > 0) metadata.annotations = { ...tmeta.annotations };
  if (Array.isArray(tmeta.finalizers) && tmeta.finalizers.length > 0) metadata.finalizers = [...tmeta.finalizers];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata,
    spec: structuredClone(spec.template?.spec ?? {}),
  };
}

// ------------------------------------------------------------------------------------------------
// The sync loop

function rsSelector(rs: KubeObject): LabelSelector | undefined {
  return (rs.spec as { selector?: LabelSelector } | undefined)?.selector;
}

/** Pods the ReplicaSet owns after adopting matching orphans and releasing owned pods that no longer match. */
function claimPods(ctx: ControlContext, rs: KubeObject): KubeObject[] {
  const ns = rs.metadata.namespace ?? '';
  const uid = rs.metadata.uid ?? '';
  const selector = rsSelector(rs);
  const rsDeleting = isDeleting(rs);
  const owned: KubeObject[] = [];
  for (const pod of ctx.cache.podsOf(ctx.cache.podsByController, uid)) {
    if (!isActivePod(pod)) continue;
    if (selectorMatches(selector, pod.metadata.labels)) {
      owned.push(pod);
    } else if (!rsDeleting) {
      release(ctx, pod, uid);
    }
  }
  if (rsDeleting) return owned;
  for (const pod of ctx.cache.podsOf(ctx.cache.podsByController, `orphan/${ns}`)) {
    if (!isActivePod(pod) || !selectorMatches(selector, pod.metadata.labels)) continue;
    const adopted = adopt(ctx, pod, rs);
    if (adopted) owned.push(adopted);
  }
  return owned;
}

function adopt(ctx: ControlContext, pod: KubeObject, rs: KubeObject): KubeObject | undefined {
  return mutateStored(
    ctx,
    REF.pods,
    pod,
    (p) => {
      if (controllerRef(p) || isDeleting(p)) return undefined;
      p.metadata.ownerReferences = [...(p.metadata.ownerReferences ?? []), controlledBy(rs)];
      return p;
    },
    { actor: ACTOR },
  );
}

/** The controller reference a ReplicaSet puts on its pods. */
function controlledBy(rs: KubeObject): NonNullable<KubeObject['metadata']['ownerReferences']>[number] {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    name: rs.metadata.name ?? '',
    uid: rs.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

function release(ctx: ControlContext, pod: KubeObject, uid: string): void {
  mutateStored(
    ctx,
    REF.pods,
    pod,
    (p) => {
      const refs = p.metadata.ownerReferences ?? [];
      if (!refs.some((r) => r.uid === uid)) return undefined;
      p.metadata.ownerReferences = refs.filter((r) => r.uid !== uid);
      return p;
    },
    { actor: ACTOR },
  );
}

/** Active pods of every ReplicaSet that shares this one's controller (a Deployment's other revisions). */
function relatedPods(ctx: ControlContext, rs: KubeObject, own: KubeObject[]): KubeObject[] {
  const owner = controllerRef(rs);
  if (!owner) return own;
  const out: KubeObject[] = [];
  for (const other of ctx.cache.replicaSetsOf(owner.uid)) {
    if (other.metadata.namespace !== rs.metadata.namespace) continue;
    if (other.metadata.uid === rs.metadata.uid) out.push(...own);
    else out.push(...ctx.cache.podsOf(ctx.cache.podsByController, other.metadata.uid ?? '').filter(isActivePod));
  }
  return out;
}

function createPod(ctx: ControlContext, rs: KubeObject): KubeObject {
  for (let attempt = 0; ; attempt++) {
    const name = `${rs.metadata.name}-${randomSuffix(() => ctx.random())}`;
    try {
      return ctx.store.create(REF.pods, rs.metadata.namespace, podFromTemplate(rs, name), { actor: ACTOR });
    } catch (err) {
      // A name clash is the only error worth another name; give up after a few.
      if (err instanceof ApiError && err.code === 409 && err.reason === 'AlreadyExists' && attempt < 5) continue;
      throw err;
    }
  }
}

export function syncReplicaSet(ctx: ControlContext, namespace: string, name: string): void {
  const rs = ctx.cache.replicasets.get(namespace, name);
  if (!rs) return;
  let pods = claimPods(ctx, rs);
  let manageError: { reason: 'FailedCreate' | 'FailedDelete'; message: string } | undefined;
  const spec = (rs.spec as Record<string, any> | undefined) ?? {};
  const desired = typeof spec.replicas === 'number' ? spec.replicas : 1;
  if (!isDeleting(rs)) {
    const diff = pods.length - desired;
    if (diff < 0) {
      const n = Math.min(-diff, BURST_REPLICAS);
      for (let i = 0; i < n; i++) {
        try {
          const pod = createPod(ctx, rs);
          ctx.events.record(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`, COMPONENT);
        } catch (err) {
          manageError = { reason: 'FailedCreate', message: err instanceof Error ? err.message : String(err) };
          ctx.events.record(rs, 'Warning', 'FailedCreate', `Error creating: ${manageError.message}`, COMPONENT);
          break;
        }
      }
    } else if (diff > 0) {
      const victims = podsToDelete(pods, relatedPods(ctx, rs, pods), Math.min(diff, BURST_REPLICAS), ctx.now());
      for (const v of victims) {
        try {
          ctx.store.delete(REF.pods, v.metadata.namespace, v.metadata.name ?? '', { actor: ACTOR });
          ctx.events.record(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${v.metadata.name}`, COMPONENT);
        } catch (err) {
          if (err instanceof ApiError && err.code === 404) continue;
          manageError = { reason: 'FailedDelete', message: err instanceof Error ? err.message : String(err) };
          ctx.events.record(rs, 'Warning', 'FailedDelete', `Error deleting: ${manageError.message}`, COMPONENT);
          break;
        }
      }
    }
    if (diff !== 0) pods = claimedNow(ctx, rs);
  }
  const now = ctx.now();
  const cur = ctx.cache.replicasets.get(namespace, name) ?? rs;
  const terminating = terminatingPods(ctx, rs);
  const { status, recheckAt } = replicaSetStatus(cur, pods, now, manageError, terminating);
  if (!jsonEqual(status, cur.status ?? {})) {
    try {
      ctx.store.mutate(
        REF.replicasets,
        namespace,
        name,
        (o) => {
          const next = replicaSetStatus(o, pods, now, manageError, terminating).status;
          if (jsonEqual(next, o.status ?? {})) return undefined;
          o.status = next;
          return o;
        },
        { subresource: 'status', actor: ACTOR },
      );
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }
  if (recheckAt !== undefined) ctx.wakeAt(keys.replicaSet(namespace, name), recheckAt);
  // A failed create (quota, terminating namespace) is retried later, as upstream requeues.
  if (manageError) ctx.wakeAt(keys.replicaSet(namespace, name), now + 1000);
}

/** How many pods the ReplicaSet owns that are being deleted and not yet Succeeded or Failed (upstream claims them by selector too). */
function terminatingPods(ctx: ControlContext, rs: KubeObject): number {
  const selector = rsSelector(rs);
  let n = 0;
  for (const p of ctx.cache.podsOf(ctx.cache.podsByController, rs.metadata.uid ?? '')) {
    if (isDeleting(p) && !isTerminal(p) && selectorMatches(selector, p.metadata.labels)) n++;
  }
  return n;
}

/** The active pods the ReplicaSet owns now (after its own creates and deletes). */
function claimedNow(ctx: ControlContext, rs: KubeObject): KubeObject[] {
  const selector = rsSelector(rs);
  return ctx.cache
    .podsOf(ctx.cache.podsByController, rs.metadata.uid ?? '')
    .filter((p) => isActivePod(p) && selectorMatches(selector, p.metadata.labels));
}
