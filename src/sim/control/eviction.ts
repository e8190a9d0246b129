// POST …/pods/{name}/eviction (upstream pkg/registry/core/pod/storage/eviction.go): deletes the pod
// unless that would violate its PodDisruptionBudget, and then answers 429 with the cause.

import { selectorMatches } from '../../api/selector.ts';
import type { LabelSelector } from '../../api/types.ts';
import { REF } from '../resources.ts';
import { ApiError, type DeleteOptions, type KubeObject, type StoreApi } from '../types.ts';
import { isDeleting, isPodReady, isoTime, phaseOf, type Condition } from './util.ts';

const ACTOR = 'sim/eviction';
export const VIOLATION_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget.";
export const MULTIPLE_PDBS_MESSAGE =
  'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.';
/** Upstream refuses evictions once this many are waiting for the PDB controller. */
export const MAX_DISRUPTED_PODS = 2000;

export interface EvictionResult {
  code: number;
  body: object;
}

function tooManyRequests(cause: string): ApiError {
  return new ApiError(429, 'TooManyRequests', VIOLATION_MESSAGE, {
    causes: [{ reason: 'DisruptionBudget', message: cause }],
  });
}

function forbiddenPdb(name: string, why: string): ApiError {
  return new ApiError(403, 'Forbidden', `poddisruptionbudget.policy "${name}" is forbidden: ${why}`, {
    name,
    group: 'policy',
    kind: 'poddisruptionbudget',
  });
}

/** Terminal, pending and already-terminating pods are deleted without asking any budget. */
export function canIgnorePdb(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || isDeleting(pod);
}

interface PdbStatus {
  observedGeneration?: number;
  disruptionsAllowed?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  disruptedPods?: Record<string, string>;
  conditions?: Condition[];
}

/**
 * Whether the budget lets one more pod go: the checks of upstream checkAndDecrement, in order.
 * Returns the error to answer, or undefined when the eviction may proceed.
 */
export function checkBudget(pdb: KubeObject): ApiError | undefined {
  const name = pdb.metadata.name ?? '';
  const st = (pdb.status as PdbStatus | undefined) ?? {};
  if ((st.observedGeneration ?? 0) < (pdb.metadata.generation ?? 0)) {
    return tooManyRequests(`The disruption budget ${name} is still being processed by the server.`);
  }
  const allowed = st.disruptionsAllowed ?? 0;
  if (allowed < 0) return forbiddenPdb(name, 'pdb disruptions allowed is negative');
  if (Object.keys(st.disruptedPods ?? {}).length > MAX_DISRUPTED_PODS) {
    return forbiddenPdb(name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  }
  if (allowed === 0) {
    return tooManyRequests(
      `The disruption budget ${name} needs ${st.desiredHealthy ?? 0} healthy pods and has ${st.currentHealthy ?? 0} currently`,
    );
  }
  return undefined;
}

/** The budget's status after one eviction: one disruption fewer, the pod recorded as disrupted. */
export function decrementedStatus(pdb: KubeObject, podName: string, now: number): PdbStatus {
  const st: PdbStatus = { ...((pdb.status as PdbStatus | undefined) ?? {}) };
  st.disruptionsAllowed = (st.disruptionsAllowed ?? 0) - 1;
  if (st.disruptionsAllowed === 0) {
    const list = st.conditions ?? [];
    const old = list.find((c) => c.type === 'DisruptionAllowed');
    const cond: Condition = {
      ...(old ?? {}),
      type: 'DisruptionAllowed',
      status: 'False',
      reason: 'InsufficientPods',
      message: '',
      lastTransitionTime: old?.status === 'False' && old.lastTransitionTime ? old.lastTransitionTime : isoTime(now),
    };
    st.conditions = old ? list.map((c) => (c === old ? cond : c)) : [...list, cond];
  }
  st.disruptedPods = { ...(st.disruptedPods ?? {}), [podName]: isoTime(now) };
  return st;
}

function deleteOptionsOf(body: Record<string, any>): DeleteOptions {
  const d = (body.deleteOptions ?? {}) as Record<string, any>;
  const opts: DeleteOptions = { actor: ACTOR };
  if (typeof d.gracePeriodSeconds === 'number') opts.gracePeriodSeconds = d.gracePeriodSeconds;
  if (
    d.propagationPolicy === 'Background' ||
    d.propagationPolicy === 'Foreground' ||
    d.propagationPolicy === 'Orphan'
  ) {
    opts.propagationPolicy = d.propagationPolicy;
  }
  if (d.preconditions && typeof d.preconditions === 'object') opts.preconditions = { ...d.preconditions };
  if (Array.isArray(d.dryRun) && d.dryRun.includes('All')) opts.dryRun = true;
  return opts;
}

const SUCCESS = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };

function fail(err: unknown): EvictionResult {
  if (err instanceof ApiError) return { code: err.code, body: err.toStatus() };
  const msg = err instanceof Error ? err.message : String(err);
  const e = new ApiError(500, 'InternalError', `Internal error occurred: ${msg}`, { causes: [{ message: msg }] });
  return { code: 500, body: e.toStatus() };
}

/**
 * Evicts a pod. 201 and the pod deleted (with body.deleteOptions) when no budget objects; 404
 * when the pod is missing; 429 when its budget allows no disruption or has not caught up with its
 * spec; 500 when more than one budget matches.
 */
export function evictPod(store: StoreApi, namespace: string, name: string, body: unknown, now: number): EvictionResult {
  try {
    const b = (body && typeof body === 'object' ? body : {}) as Record<string, any>;
    const bodyName = b.metadata?.name;
    if (typeof bodyName === 'string' && bodyName !== '' && bodyName !== name) {
      throw new ApiError(400, 'BadRequest', 'name in URL does not match name in Eviction object');
    }
    const opts = deleteOptionsOf(b);
    const pod = store.get(REF.pods, namespace, name);
    if (!pod) throw new ApiError(404, 'NotFound', `pods "${name}" not found`, { name, kind: 'pods' });
    if (canIgnorePdb(pod)) return remove(store, namespace, name, opts);
    const pdbs = store
      .list(REF.poddisruptionbudgets, namespace)
      .items.filter((p) =>
        selectorMatches((p.spec as { selector?: LabelSelector } | undefined)?.selector, pod.metadata.labels),
      );
    if (pdbs.length === 0) return remove(store, namespace, name, opts);
    if (pdbs.length > 1) {
      throw new ApiError(500, 'InternalError', `Internal error occurred: ${MULTIPLE_PDBS_MESSAGE}`, {
        causes: [{ message: MULTIPLE_PDBS_MESSAGE }],
      });
    }
    const pdb = pdbs[0];
    const spec = (pdb.spec as { unhealthyPodEvictionPolicy?: string } | undefined) ?? {};
    const st = (pdb.status as PdbStatus | undefined) ?? {};
    if (!isPodReady(pod)) {
      // An unready pod does not count as healthy, so letting it go costs the budget nothing.
      const guarded = {
        ...opts,
        preconditions: { ...(opts.preconditions ?? {}), resourceVersion: pod.metadata.resourceVersion },
      };
      if (spec.unhealthyPodEvictionPolicy === 'AlwaysAllow') return remove(store, namespace, name, guarded);
      if ((st.desiredHealthy ?? 0) > 0 && (st.currentHealthy ?? 0) >= (st.desiredHealthy ?? 0))
        return remove(store, namespace, name, guarded);
    }
    const refusal = checkBudget(pdb);
    if (refusal) throw refusal;
    if (!opts.dryRun) {
      store.mutate(
        REF.poddisruptionbudgets,
        namespace,
        pdb.metadata.name ?? '',
        (o) => {
          o.status = decrementedStatus(o, name, now);
          return o;
        },
        { subresource: 'status', actor: ACTOR },
      );
    }
    return remove(store, namespace, name, opts);
  } catch (err) {
    return fail(err);
  }
}

function remove(store: StoreApi, namespace: string, name: string, opts: DeleteOptions): EvictionResult {
  store.delete(REF.pods, namespace, name, opts);
  return { code: 201, body: { ...SUCCESS } };
}
