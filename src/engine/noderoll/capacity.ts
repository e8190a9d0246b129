// Whether the group is left big enough for what it runs (docs/semantics/node-roll.md#capacity):
// checked once, before a roll starts, so that a roll that could never make its workloads healthy
// again is refused with a field path instead of evicting pods that have nowhere to go.
//
//  * What must move: the pods a drain evicts from the group's nodes (drainablePods: not DaemonSet
//    pods, which every node brings along, not mirror pods, not finished ones).
//  * A node of the group holds what its smallest member allocates (status.allocatable pods, cpu,
//    memory; a dimension no node reports is not checked), less what DaemonSet pods take on it (the
//    most any member runs): the new nodes are taken to be like the old ones.
//  * Replace: the desired count of new nodes must hold them all (the old ones are all going).
//    Drain: the group keeps its size, and while nodesAtATime nodes are drained the others must hold
//    everything.
// A pod's request is the sum of its containers' requests (init containers, which run before and not
// beside them, are left out).

import { parseQuantity } from '../../api/quantity.ts';
import type { NodeRollMode } from '../../api/noderoll.ts';
import { drainablePods } from './cluster.ts';
import type { RollNode, RollPod } from './types.ts';

const DIMENSIONS = ['pods', 'cpu', 'memory'] as const;
type Dimension = (typeof DIMENSIONS)[number];
type Amounts = Record<Dimension, number>;

/** A node with what it allocates to pods. */
export type SizedNode = RollNode & { status?: { allocatable?: Record<string, string> } };
/** A pod with its containers' requests. */
export type SizedPod = RollPod & {
  spec?: { containers?: Array<{ resources?: { requests?: Record<string, string> } }> };
};

export interface CapacityInput {
  mode: NodeRollMode;
  desiredNodes: number;
  nodesAtATime: number;
  /** The group's nodes (the selector's, before the roll starts). */
  nodes: readonly SizedNode[];
  pods: readonly SizedPod[];
}

/** A refusal: the field at fault, its value, and why. */
export interface CapacityError {
  field: 'spec.desiredNodes' | 'spec.nodesAtATime';
  value: number;
  detail: string;
}

function requests(p: SizedPod): Amounts {
  const out: Amounts = { pods: 1, cpu: 0, memory: 0 };
  for (const c of p.spec?.containers ?? []) {
    out.cpu += parseQuantity(c.resources?.requests?.cpu) ?? 0;
    out.memory += parseQuantity(c.resources?.requests?.memory) ?? 0;
  }
  return out;
}

const isDaemon = (p: RollPod) =>
  p.metadata.ownerReferences?.some((r) => r.controller && r.kind === 'DaemonSet') === true;

const say = (d: Dimension, v: number): string => {
  if (d === 'pods') return `${v} pods`;
  if (d === 'cpu') return `${Math.round(v * 1000) / 1000} cpu`;
  return `${Math.round((v / 2 ** 30) * 100) / 100}Gi memory`;
};

/** Why the roll would leave too little room for what the group runs, or undefined when it fits. */
export function capacityShortfall(i: CapacityInput): CapacityError | undefined {
  if (i.nodes.length === 0) return undefined;
  // The size of a node of the group, less its DaemonSet pods, per dimension (undefined: not reported).
  const perNode = {} as Partial<Amounts>;
  for (const d of DIMENSIONS) {
    let least: number | undefined;
    let daemons = 0;
    for (const n of i.nodes) {
      const v = parseQuantity(n.status?.allocatable?.[d]);
      if (v !== undefined) least = least === undefined ? v : Math.min(least, v);
      const onNode = i.pods
        .filter((p) => p.spec?.nodeName === n.metadata.name && isDaemon(p))
        .reduce((sum, p) => sum + requests(p)[d], 0);
      daemons = Math.max(daemons, onNode);
    }
    if (least !== undefined) perNode[d] = least - daemons;
  }
  const moving = i.nodes.flatMap((n) => drainablePods(i.pods, n.metadata.name ?? ''));
  const need: Amounts = { pods: 0, cpu: 0, memory: 0 };
  for (const p of moving) for (const [d, v] of Object.entries(requests(p)) as Array<[Dimension, number]>) need[d] += v;
  const room = i.mode === 'Replace' ? i.desiredNodes : i.nodes.length - i.nodesAtATime;
  for (const d of DIMENSIONS) {
    const size = perNode[d];
    if (size === undefined || need[d] === 0) continue;
    const needed = size > 0 ? Math.ceil(need[d] / size - 1e-9) : Infinity;
    if (room >= needed) continue;
    const what = `the group's nodes run ${moving.length} pod(s) needing ${say(d, need[d])}; a node like theirs holds ${say(d, Math.max(0, size))}`;
    if (i.mode === 'Replace') {
      return {
        field: 'spec.desiredNodes',
        value: i.desiredNodes,
        detail: `too few new nodes: ${what}, so at least ${Number.isFinite(needed) ? needed : 'more'} are needed`,
      };
    }
    return {
      field: 'spec.nodesAtATime',
      value: i.nodesAtATime,
      detail: `too many nodes at a time: ${what}, so ${Number.isFinite(needed) ? needed : 'more'} of the ${i.nodes.length} must stay up while the others drain`,
    };
  }
  return undefined;
}
