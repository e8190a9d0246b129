// The simulated scheduler: binds pending pods to Ready, schedulable nodes with room, spreading a
// workload's pods across zones (least loaded zone, then least loaded node). A pod that fits
// nowhere stays Pending with PodScheduled=False/Unschedulable and the upstream-style message, and
// is retried whenever a node or a pod changes.

import { REF } from '../resources.ts';
import { ApiError, type KubeObject } from '../types.ts';
import type { ControlContext } from './context.ts';
import { mutateSamePod } from './context.ts';
import { isCordoned, isNodeReady, podCapacity } from './nodes.ts';
import {
  LABEL_ZONE,
  controllerRef,
  isActivePod,
  isDeleting,
  isTerminal,
  isoTime,
  nodeNameOf,
  parseTime,
  podSpec,
  setCondition,
  type Condition,
} from './util.ts';

const COMPONENT = 'default-scheduler';
const ACTOR = 'sim/scheduler';

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}
interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

export const NOT_READY_TAINT: Taint = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };

/** One node as the scheduler sees it in a pass. */
export interface NodeInfo {
  node: KubeObject;
  zone: string;
  /** Non-terminal pods bound to the node (terminating pods still hold their slot). */
  pods: number;
  capacity: number;
  /** Filled by the first filterNode of a pass: whether cordoned, and the taints that keep pods off (not-ready included). */
  cordoned?: boolean;
  taints?: Taint[];
}

export type Placement = { node: string } | { unschedulable: string };

function tolerates(tols: Toleration[], t: Taint): boolean {
  return tols.some((tol) => {
    if (tol.effect && tol.effect !== t.effect) return false;
    if (tol.operator === 'Exists') return !tol.key || tol.key === t.key;
    return tol.key === t.key && (tol.value ?? '') === (t.value ?? '');
  });
}

/** What of a pod the filters read, taken once per pod rather than once per node. */
interface PodConstraints {
  tolerations: Toleration[];
  nodeSelector: Array<[string, string]>;
}

function constraintsOf(pod: KubeObject): PodConstraints {
  const spec = podSpec(pod);
  return {
    tolerations: Array.isArray(spec.tolerations) ? spec.tolerations : [],
    nodeSelector: Object.entries((spec.nodeSelector ?? {}) as Record<string, string>),
  };
}

/** Why a node cannot take the pod (the first failing filter, upstream's order), or undefined when it can. */
function filterNode(pod: PodConstraints, info: NodeInfo): { reason: string; resolvable: boolean } | undefined {
  const tols = pod.tolerations;
  info.cordoned ??= isCordoned(info.node);
  if (info.cordoned && !tolerates(tols, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' })) {
    return { reason: 'node(s) were unschedulable', resolvable: false };
  }
  info.taints ??= nodeTaints(info.node);
  for (const t of info.taints) {
    if (t.effect !== 'NoSchedule' && t.effect !== 'NoExecute') continue;
    if (!tolerates(tols, t))
      return { reason: `node(s) had untolerated taint {${t.key}: ${t.value ?? ''}}`, resolvable: false };
  }
  const labels = info.node.metadata.labels ?? {};
  if (pod.nodeSelector.some(([k, v]) => labels[k] !== v)) {
    return { reason: "node(s) didn't match Pod's node affinity/selector", resolvable: false };
  }
  if (info.pods >= info.capacity) return { reason: 'Too many pods', resolvable: true };
  return undefined;
}

function nodeTaints(node: KubeObject): Taint[] {
  const taints: Taint[] = [...((node.spec as { taints?: Taint[] } | undefined)?.taints ?? [])];
  if (!isNodeReady(node) && !taints.some((t) => t.key === NOT_READY_TAINT.key)) taints.push(NOT_READY_TAINT);
  return taints;
}

/** "3 Too many pods, 1 node(s) were unschedulable" sorted as upstream sorts its histogram. */
function histogram(reasons: string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts]
    .map(([r, n]) => `${n} ${r}`)
    .sort()
    .join(', ');
}

/** The FailedScheduling message: filter reasons, then what preemption found. */
export function unschedulableMessage(total: number, failures: Array<{ reason: string; resolvable: boolean }>): string {
  if (total === 0) return 'no nodes available to schedule pods';
  const preemption = failures.map((f) =>
    f.resolvable ? 'No preemption victims found for incoming pod' : 'Preemption is not helpful for scheduling',
  );
  return (
    `0/${total} nodes are available: ${histogram(failures.map((f) => f.reason))}. ` +
    `preemption: 0/${total} nodes are available: ${histogram(preemption)}.`
  );
}

/**
 * Chooses a node: among the nodes that pass every filter, the zone holding the fewest of the
 * pod's siblings (then the fewest pods), and in it the node holding the fewest siblings (then
 * the fewest pods, then by name).
 */
export function placePod(pod: KubeObject, nodes: NodeInfo[], siblingsOnNode: (node: string) => number): Placement {
  return placeWith(constraintsOf(pod), nodes, siblingsOnNode);
}

function placeWith(
  constraints: PodConstraints,
  nodes: NodeInfo[],
  siblingsOnNode: (node: string) => number,
): Placement {
  const feasible: Array<{ info: NodeInfo; siblings: number }> = [];
  const failures: Array<{ reason: string; resolvable: boolean }> = [];
  const zoneLoad = new Map<string, { siblings: number; pods: number }>();
  for (const info of nodes) {
    const siblings = siblingsOnNode(info.node.metadata.name ?? '');
    const z = zoneLoad.get(info.zone);
    if (z) {
      z.siblings += siblings;
      z.pods += info.pods;
    } else zoneLoad.set(info.zone, { siblings, pods: info.pods });
    const f = filterNode(constraints, info);
    if (f) failures.push(f);
    else feasible.push({ info, siblings });
  }
  if (feasible.length === 0) return { unschedulable: unschedulableMessage(nodes.length, failures) };
  // Lower is better, in this order: the zone's siblings, the zone's pods, the node's siblings, the node's pods, its name.
  const better = (a: { info: NodeInfo; siblings: number }, b: { info: NodeInfo; siblings: number }) => {
    const za = zoneLoad.get(a.info.zone)!;
    const zb = zoneLoad.get(b.info.zone)!;
    const cmp = za.siblings - zb.siblings || za.pods - zb.pods || a.siblings - b.siblings || a.info.pods - b.info.pods;
    return cmp < 0 || (cmp === 0 && (a.info.node.metadata.name ?? '') < (b.info.node.metadata.name ?? ''));
  };
  let best = feasible[0];
  for (let i = 1; i < feasible.length; i++) if (better(feasible[i], best)) best = feasible[i];
  return { node: best.info.node.metadata.name ?? '' };
}

function siblingKey(pod: KubeObject): string {
  return controllerRef(pod)?.uid ?? `pod/${pod.metadata.namespace}/${pod.metadata.name}`;
}

/** One scheduling pass over every unscheduled pod, oldest first. */
export function schedulePending(ctx: ControlContext): void {
  const { cache } = ctx;
  if (cache.unscheduled.size === 0) return;
  const nodes: NodeInfo[] = cache.nodesInOrder().map((node) => ({
    node,
    zone: node.metadata.labels?.[LABEL_ZONE] ?? '',
    pods: cache.livePodsByNode.get(node.metadata.name ?? '') ?? 0,
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
  const pending = [...cache.unscheduled]
    .map((k) => cache.podByKey(k))
    .filter((p): p is KubeObject => !!p)
    .filter(
      (p) =>
        isActivePod(p) && !nodeNameOf(p) && (podSpec(p).schedulerName ?? 'default-scheduler') === 'default-scheduler',
    )
    .sort((a, b) => (parseTime(a.metadata.creationTimestamp) ?? 0) - (parseTime(b.metadata.creationTimestamp) ?? 0));
  const now = ctx.now();
  // A pod that fits nowhere: every later pod with the same constraints fits nowhere either in this
  // pass (binding only fills nodes), with the same message, so it is not weighed again node by node.
  const nowhere = new Map<string, Placement>();
  for (const pod of pending) {
    const sib = siblingsOf(pod);
    const constraints = constraintsOf(pod);
    const sig = JSON.stringify(constraints);
    const placement = nowhere.get(sig) ?? placeWith(constraints, nodes, (n) => sib.get(n) ?? 0);
    if ('unschedulable' in placement) nowhere.set(sig, placement);
    if ('node' in placement) {
      if (bind(ctx, pod, placement.node, now)) {
        byName.get(placement.node)!.pods++;
        sib.set(placement.node, (sib.get(placement.node) ?? 0) + 1);
      }
    } else {
      const changed = setPodScheduled(ctx, pod, {
        type: 'PodScheduled',
        status: 'False',
        lastProbeTime: null,
        lastTransitionTime: isoTime(now),
        reason: 'Unschedulable',
        message: placement.unschedulable,
      });
      if (changed) ctx.events.record(pod, 'Warning', 'FailedScheduling', placement.unschedulable, COMPONENT);
    }
  }
}

function bind(ctx: ControlContext, pod: KubeObject, node: string, now: number): boolean {
  const ns = pod.metadata.namespace;
  const name = pod.metadata.name ?? '';
  let bound: KubeObject | undefined;
  try {
    bound = ctx.store.mutate(
      REF.pods,
      ns,
      name,
      (p) => {
        if (nodeNameOf(p) || isDeleting(p) || p.metadata.uid !== pod.metadata.uid) return undefined;
        p.spec = { ...podSpec(p), nodeName: node };
        return p;
      },
      { actor: ACTOR },
    );
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return false;
    throw err;
  }
  if (!bound || nodeNameOf(bound) !== node) return false;
  setPodScheduled(ctx, bound, {
    type: 'PodScheduled',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: isoTime(now),
  });
  ctx.events.record(bound, 'Normal', 'Scheduled', `Successfully assigned ${ns}/${name} to ${node}`, COMPONENT);
  return true;
}

/** Sets the PodScheduled condition; true when it changed. */
function setPodScheduled(ctx: ControlContext, pod: KubeObject, cond: Condition): boolean {
  let changed = false;
  mutateSamePod(
    ctx,
    pod,
    (p) => {
      const st = { ...((p.status ?? {}) as Record<string, any>) };
      const list = Array.isArray(st.conditions) ? st.conditions : [];
      const old = list.find((c: { type: string }) => c.type === 'PodScheduled');
      if (old && old.status === cond.status && old.reason === cond.reason && old.message === cond.message)
        return undefined;
      st.conditions = setCondition(list, cond);
      st.phase ??= 'Pending';
      p.status = st;
      changed = true;
      return p;
    },
    { subresource: 'status', actor: ACTOR },
  );
  return changed;
}
