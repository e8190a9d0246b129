// The simulated disruption controller (upstream pkg/controller/disruption): keeps each
// PodDisruptionBudget's status current, which the eviction subresource reads.

import type { IntOrString, LabelSelector } from '../../api/types.ts';
import { scaledValue } from '../../api/intstr.ts';
import { selectorMatches } from '../../api/selector.ts';
import { jsonEqual } from '../../kube/jsonequal.ts';
import { REF } from '../resources.ts';
import { ApiError, type KubeObject } from '../types.ts';
import { keys, type ControlContext } from './context.ts';
import { controllerRef, isDeleting, isPodReady, isoTime, parseTime, type Condition } from './util.ts';

const ACTOR = 'sim/disruption-controller';
/** A pod in disruptedPods that is not deleted within this time counts again. */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;

interface PdbSpec {
  selector?: LabelSelector;
  minAvailable?: IntOrString;
  maxUnavailable?: IntOrString;
}

export interface PdbNumbers {
  expectedPods: number;
  currentHealthy: number;
  desiredHealthy: number;
  disruptionsAllowed: number;
  disruptedPods: Record<string, string>;
  /** When an entry of disruptedPods expires. */
  recheckAt?: number;
}

/**
 * The desired healthy count and the expected pod count: minAvailable as an integer expects every
 * matching pod; a percentage, or maxUnavailable, expects the controllers' scale (`scaleOf`), and
 * both round up.
 */
export function desiredHealthy(
  spec: PdbSpec,
  matchingPods: number,
  scaleOf: () => number,
): { expected: number; desired: number } {
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    const expected = scaleOf();
    const maxUnavailable = scaledValue(spec.maxUnavailable, expected, true);
    return { expected, desired: Math.max(0, expected - maxUnavailable) };
  }
  if (spec.minAvailable !== undefined && spec.minAvailable !== null) {
    if (typeof spec.minAvailable === 'number') return { expected: matchingPods, desired: spec.minAvailable };
    const expected = scaleOf();
    return { expected, desired: scaledValue(spec.minAvailable, expected, true) };
  }
  return { expected: 0, desired: 0 };
}

/** The numbers of a PDB's status over the pods its selector matches. */
export function pdbNumbers(pdb: KubeObject, pods: KubeObject[], scaleOf: () => number, now: number): PdbNumbers {
  const spec = (pdb.spec as PdbSpec | undefined) ?? {};
  const old = (pdb.status as { disruptedPods?: Record<string, string> } | undefined)?.disruptedPods ?? {};
  const disruptedPods: Record<string, string> = {};
  let recheckAt: number | undefined;
  for (const p of pods) {
    const name = p.metadata.name ?? '';
    if (isDeleting(p) || !(name in old)) continue;
    const at = parseTime(old[name]);
    if (at === undefined) continue;
    const expires = at + DELETION_TIMEOUT_MS;
    if (expires < now) continue;
    disruptedPods[name] = old[name];
    recheckAt = recheckAt === undefined ? expires : Math.min(recheckAt, expires);
  }
  let currentHealthy = 0;
  for (const p of pods) {
    if (isDeleting(p) || (p.metadata.name ?? '') in disruptedPods) continue;
    if (isPodReady(p)) currentHealthy++;
  }
  const { expected, desired } = desiredHealthy(spec, pods.length, scaleOf);
  const allowed = currentHealthy - desired;
  return {
    expectedPods: expected,
    currentHealthy,
    desiredHealthy: desired,
    disruptionsAllowed: expected <= 0 || allowed <= 0 ? 0 : allowed,
    disruptedPods,
    recheckAt,
  };
}

/** The DisruptionAllowed condition, keeping lastTransitionTime while its status holds. */
export function disruptionAllowedCondition(
  old: Condition | undefined,
  status: 'True' | 'False',
  reason: string,
  message: string,
  generation: number,
  now: number,
): Condition {
  return {
    type: 'DisruptionAllowed',
    status,
    observedGeneration: generation,
    lastTransitionTime: old && old.status === status && old.lastTransitionTime ? old.lastTransitionTime : isoTime(now),
    reason,
    message,
  };
}

function withCondition(conditions: unknown, cond: Condition): Condition[] {
  const list: Condition[] = Array.isArray(conditions) ? conditions : [];
  return list.some((c) => c.type === cond.type) ? list.map((c) => (c.type === cond.type ? cond : c)) : [...list, cond];
}

export function pdbStatus(pdb: KubeObject, n: PdbNumbers, now: number): Record<string, unknown> {
  const old = (pdb.status as Record<string, any> | undefined) ?? {};
  const oldCond = (Array.isArray(old.conditions) ? old.conditions : []).find(
    (c: Condition) => c.type === 'DisruptionAllowed',
  );
  const generation = pdb.metadata.generation ?? 0;
  const cond =
    n.disruptionsAllowed > 0
      ? disruptionAllowedCondition(oldCond, 'True', 'SufficientPods', '', generation, now)
      : disruptionAllowedCondition(oldCond, 'False', 'InsufficientPods', '', generation, now);
  const status: Record<string, unknown> = {
    ...old,
    observedGeneration: generation,
    disruptionsAllowed: n.disruptionsAllowed,
    currentHealthy: n.currentHealthy,
    desiredHealthy: n.desiredHealthy,
    expectedPods: n.expectedPods,
    conditions: withCondition(old.conditions, cond),
  };
  if (Object.keys(n.disruptedPods).length > 0) status.disruptedPods = n.disruptedPods;
  else delete status.disruptedPods;
  return status;
}

/**
 * Upstream's failSafe: when the expected scale cannot be found, no disruption is allowed and the
 * condition says why; observedGeneration stays behind.
 */
export function failSafeStatus(pdb: KubeObject, message: string, now: number): Record<string, unknown> {
  const old = (pdb.status as Record<string, any> | undefined) ?? {};
  const oldCond = (Array.isArray(old.conditions) ? old.conditions : []).find(
    (c: Condition) => c.type === 'DisruptionAllowed',
  );
  const cond = disruptionAllowedCondition(oldCond, 'False', 'SyncFailed', message, old.observedGeneration ?? 0, now);
  return { ...old, disruptionsAllowed: 0, conditions: withCondition(old.conditions, cond) };
}

/**
 * The apps/v1 Deployment that controls `rs` (its controller reference names one that exists with
 * that uid), as upstream's getPodDeployment finds it; a pacer.dev Deployment is not one.
 */
function deploymentOf(ctx: ControlContext, rs: KubeObject): KubeObject | undefined {
  const c = controllerRef(rs);
  if (c?.kind !== 'Deployment' || !/^(apps|extensions)\//.test(c.apiVersion ?? '')) return undefined;
  const d = ctx.store.get(REF.deployments, rs.metadata.namespace, c.name);
  return d && d.metadata.uid === c.uid ? d : undefined;
}

/**
 * The controllers' scale for the matching pods: each distinct controlling ReplicaSet counts its
 * spec.replicas, or, when an apps/v1 Deployment controls it, that Deployment counts its own once
 * (upstream's finders: a Deployment's ReplicaSets are not counted on their own); another
 * controller counts its spec.replicas when it has one. Pods without a controller are not counted
 * (upstream reports them as unmanaged). Throws when a controller cannot be found, as upstream fails
 * the sync.
 */
function controllersScale(ctx: ControlContext, pods: KubeObject[]): number {
  const seen = new Map<string, number>();
  for (const p of pods) {
    let c = controllerRef(p);
    if (!c || seen.has(c.uid)) continue;
    let scale: number | undefined;
    const rs = c.kind === 'ReplicaSet' ? ctx.cache.replicasets.get(p.metadata.namespace, c.name) : undefined;
    const deployment = rs && rs.metadata.uid === c.uid ? deploymentOf(ctx, rs) : undefined;
    if (deployment) {
      c = { ...c, uid: deployment.metadata.uid ?? '' };
      if (seen.has(c.uid)) continue;
      const r = (deployment.spec as { replicas?: number } | undefined)?.replicas;
      scale = typeof r === 'number' ? r : 1;
    } else if (rs && rs.metadata.uid === c.uid) {
      const r = (rs.spec as { replicas?: number } | undefined)?.replicas;
      scale = typeof r === 'number' ? r : 1;
    } else {
      const node = ctx.cache.gcNodes.get(c.uid);
      const owner = node ? ctx.store.get(node.ref, node.namespace, node.name) : undefined;
      const r = (owner?.spec as { replicas?: unknown } | undefined)?.replicas;
      if (typeof r === 'number') scale = r;
    }
    if (scale === undefined) throw new Error(`found no controllers for pod "${p.metadata.name}"`);
    seen.set(c.uid, scale);
  }
  let total = 0;
  for (const v of seen.values()) total += v;
  return total;
}

export function matchingPods(ctx: ControlContext, pdb: KubeObject): KubeObject[] {
  const selector = (pdb.spec as PdbSpec | undefined)?.selector;
  return ctx.cache.pods.inNamespace(pdb.metadata.namespace).filter((p) => selectorMatches(selector, p.metadata.labels));
}

export function syncPdb(ctx: ControlContext, namespace: string, name: string): void {
  const pdb = ctx.cache.pdbs.get(namespace, name);
  if (!pdb) return;
  const now = ctx.now();
  const pods = matchingPods(ctx, pdb);
  let status: Record<string, unknown>;
  let recheckAt: number | undefined;
  try {
    const n = pdbNumbers(pdb, pods, () => controllersScale(ctx, pods), now);
    status = pdbStatus(pdb, n, now);
    recheckAt = n.recheckAt;
  } catch (err) {
    status = failSafeStatus(pdb, err instanceof Error ? err.message : String(err), now);
    recheckAt = now + 5000;
  }
  if (!jsonEqual(status, pdb.status ?? {})) {
    try {
      ctx.store.mutate(
        REF.poddisruptionbudgets,
        namespace,
        name,
        (o) => {
          if (o.metadata.uid !== pdb.metadata.uid) return undefined;
          o.status = status;
          return o;
        },
        { subresource: 'status', actor: ACTOR },
      );
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }
  if (recheckAt !== undefined) ctx.wakeAt(keys.pdb(namespace, name), recheckAt + 1);
}
