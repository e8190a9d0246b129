// The simulated scheduler: binds pending pods to Ready, schedulable nodes with room, spreading a
// workload's pods across zones (least loaded zone, then least loaded node). A pod that fits
// nowhere stays Pending with PodScheduled=False/Unschedulable and the upstream-style message, and
// is retried whenever a node or a pod changes.

import { REF } from '../resources.ts';
import { ApiError, type KubeObject } from '../types.ts';
import type { ControlContext } from './context.ts';
import { isCordoned, isNodeReady, podCapacity } from './nodes.ts';
import {
  LABEL_ZONE, controllerRef, isActivePod, isDeleting, isTerminal, isoTime, nodeNameOf, parseTime, podSpec, setCondition,
  type Condition,
} from './util.ts';

const COMPONENT = 'default-scheduler';
const ACTOR = 'sim/scheduler';

export interface Taint { key: string; value?: string; effect: string }
interface Toleration { key?: string; operator?: string; value?: string; effect?: string }

export const NOT_READY_TAINT: Taint = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };

/** One node as the scheduler sees it in a pass. */
export interface NodeInfo {
  node: KubeObject;
  zone: string;
  /** Non-terminal pods bound to the node (terminating pods still hold their slot). */
  pods: number;
  capacity: number;
}

export type Placement = { node: string } | { unschedulable: string };

function tolerates(tols: Toleration[], t: Taint): boolean {
  return tols.some((tol) => {
    if (tol.effect && tol.effect !== t.effect) return false;
    if (tol.operator === 'Exists') return !tol.key || tol.key === t.key;
    return tol.key === t.key && (tol.value ?? '') === (t.value ?? '');
  });
}

/** Why a node cannot take the pod (the first failing filter, upstream's order), or undefined when it can. */
export function filterNode(pod: KubeObject, info: NodeInfo): { reason: string; resolvable: boolean } | undefined {
  const spec = podSpec(pod);
  const tols: Toleration[] = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  if (isCordoned(info.node) && !tolerates(tols, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' })) {
    return { reason: 'node(s) were unschedulable', resolvable: false };
  }
  const taints: Taint[] = [...(((info.node.spec as { taints?: Taint[] } | undefined)?.taints) ?? [])];
  if (!isNodeReady(info.node) && !taints.some((t) => t.key === NOT_READY_TAINT.key)) taints.push(NOT_READY_TAINT);
  for (const t of taints) {
    if (t.effect !== 'NoSchedule' && t.effect !== 'NoExecute') continue;
    if (!tolerates(tols, t)) return { reason: `node(s) had untolerated taint {${t.key}: ${t.value ?? ''}}`, resolvable: false };
  }
  const selector = (spec.nodeSelector ?? {}) as Record<string, string>;
  const labels = info.node.metadata.labels ?? {};
  if (Object.entries(selector).some(([k, v]) => labels[k] !== v)) {
    return { reason: "node(s) didn't match Pod's node affinity/selector", resolvable: false };
  }
  if (info.pods >= info.capacity) return { reason: 'Too many pods', resolvable: true };
  return undefined;
}

/** "3 Too many pods, 1 node(s) were unschedulable" sorted as upstream sorts its histogram. */
function histogram(reasons: string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([r, n]) => `${n} ${r}`).sort().join(', ');
}

/** The FailedScheduling message: filter reasons, then what preemption found. */
export function unschedulableMessage(total: number, failures: Array<{ reason: string; resolvable: boolean }>): string {
  if (total === 0) return 'no nodes available to schedule pods';
  const preemption = failures.map((f) => (f.resolvable ? 'No preemption victims found for incoming pod' : 'Preemption is not helpful for scheduling'));
  return `0/${total} nodes are available: ${histogram(failures.map((f) => f.reason))}. ` +
    `preemption: 0/${total} nodes are available: ${histogram(preemption)}.`;
}

/**
 * Chooses a node: among the nodes that pass every filter, the zone holding the fewest of the
 * pod's siblings (then the fewest pods), and in it the node holding the fewest siblings (then
 * the fewest pods, then by name).
 */
export function placePod(pod: KubeObject, nodes: NodeInfo[], siblingsOnNode: (node: string) => number): Placement {
  const feasible: NodeInfo[] = [];
  const failures: Array<{ reason: string; resolvable: boolean }> = [];
  for (const info of nodes) {
    const f = filterNode(pod, info);
    if (f) failures.push(f);
    else feasible.push(info);
  }
  if (feasible.length === 0) return { unschedulable: unschedulableMessage(nodes.length, failures) };
  const zoneLoad = new Map<string, { siblings: number; pods: number }>();
  for (const info of nodes) {
    const z = zoneLoad.get(info.zone) ?? { siblings: 0, pods: 0 };
    z.siblings += siblingsOnNode(info.node.metadata.name ?? '');
    z.pods += info.pods;
    zoneLoad.set(info.zone, z);
  }
  const score = (info: NodeInfo) => {
    const z = zoneLoad.get(info.zone)!;
    return [z.siblings, z.pods, siblingsOnNode(info.node.metadata.name ?? ''), info.pods];
  };
  let best = feasible[0];
  let bestScore = score(best);
  for (const info of feasible.slice(1)) {
    const s = score(info);
    let cmp = 0;
    for (let i = 0; i < s.length && cmp === 0; i++) cmp = s[i] - bestScore[i];
    if (cmp < 0 || (cmp === 0 && (info.node.metadata.name ?? '') < (best.node.metadata.name ?? ''))) {
      best = info;
      bestScore = s;
    }
  }
  return { node: best.node.metadata.name ?? '' };
}

function siblingKey(pod: KubeObject): string {
  return controllerRef(pod)?.uid ?? `pod/${pod.metadata.namespace}/${pod.metadata.name}`;
}

/** One scheduling pass over every unscheduled pod, oldest first. */
export function schedulePending(ctx: ControlContext): void {
  const { cache } = ctx;
  if (cache.unscheduled.size === 0) return;
  const nodes: NodeInfo[] = cache.nodes.all()
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '', 'en', { numeric: true }))
    .map((node) => ({
      node,
      zone: node.metadata.labels?.[LABEL_ZONE] ?? '',
      pods: cache.podsOf(cache.podsByNode, node.metadata.name ?? '').filter((p) => !isTerminal(p)).length,
      capacity: podCapacity(node, ctx.config.podsPerNode),
    }));
  const byName = new Map(nodes.map((n) => [n.node.metadata.name ?? '', n]));
  // Siblings per node, per workload, computed once per pass and kept current as pods are bound.
  const siblings = new Map<string, Map<string, number>>();
  const siblingsOf = (pod: KubeObject) => {
    const k = siblingKey(pod);
    let m = siblings.get(k);
    if (!m) {
      m = new Map();
      const c = controllerRef(pod);
      for (const p of c ? cache.podsOf(cache.podsByController, c.uid) : []) {
        const n = nodeNameOf(p);
        if (n && !isTerminal(p)) m.set(n, (m.get(n) ?? 0) + 1);
      }
      siblings.set(k, m);
    }
    return m;
  };
  const pending = [...cache.unscheduled].map((k) => cache.podByKey(k)).filter((p): p is KubeObject => !!p)
    .filter((p) => isActivePod(p) && !nodeNameOf(p) && ((podSpec(p).schedulerName ?? 'default-scheduler') === 'default-scheduler'))
    .sort((a, b) => (parseTime(a.metadata.creationTimestamp) ?? 0) - (parseTime(b.metadata.creationTimestamp) ?? 0));
  const now = ctx.now();
  for (const pod of pending) {
    const sib = siblingsOf(pod);
    const placement = placePod(pod, nodes, (n) => sib.get(n) ?? 0);
    if ('node' in placement) {
      if (bind(ctx, pod, placement.node, now)) {
        byName.get(placement.node)!.pods++;
        sib.set(placement.node, (sib.get(placement.node) ?? 0) + 1);
      }
    } else {
      const changed = setPodScheduled(ctx, pod, { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: isoTime(now), reason: 'Unschedulable', message: placement.unschedulable });
      if (changed) ctx.events.record(pod, 'Warning', 'FailedScheduling', placement.unschedulable, COMPONENT);
    }
  }
}

function bind(ctx: ControlContext, pod: KubeObject, node: string, now: number): boolean {
  const ns = pod.metadata.namespace;
  const name = pod.metadata.name ?? '';
  let bound: KubeObject | undefined;
  try {
    bound = ctx.store.mutate(REF.pods, ns, name, (p) => {
      if (nodeNameOf(p) || isDeleting(p) || p.metadata.uid !== pod.metadata.uid) return undefined;
      p.spec = { ...podSpec(p), nodeName: node };
      return p;
    }, { actor: ACTOR });
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return false;
    throw err;
  }
  if (!bound || nodeNameOf(bound) !== node) return false;
  setPodScheduled(ctx, bound, { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: isoTime(now) });
  ctx.events.record(bound, 'Normal', 'Scheduled', `Successfully assigned ${ns}/${name} to ${node}`, COMPONENT);
  return true;
}

/** Sets the PodScheduled condition; true when it changed. */
function setPodScheduled(ctx: ControlContext, pod: KubeObject, cond: Condition): boolean {
  let changed = false;
  try {
    ctx.store.mutate(REF.pods, pod.metadata.namespace, pod.metadata.name ?? '', (p) => {
      if (p.metadata.uid !== pod.metadata.uid) return undefined;
      const st = { ...((p.status ?? {}) as Record<string, any>) };
      const list = Array.isArray(st.conditions) ? st.conditions : [];
      const old = list.find((c: { type: string }) => c.type === 'PodScheduled');
      if (old && old.status === cond.status && old.reason === cond.reason && old.message === cond.message) return undefined;
      st.conditions = setCondition(list, cond);
      st.phase ??= 'Pending';
      p.status = st;
      changed = true;
      return p;
    }, { subresource: 'status', actor: ACTOR });
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 404)) throw err;
  }
  return changed;
}
