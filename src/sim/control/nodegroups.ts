// Node groups: the simulated cluster's cloud, shaped like an auto scaling group
// (docs/semantics/node-roll.md#node-groups). A NodeGroup (sim.pacer.dev/v1, cluster-scoped) wants
// spec.replicas nodes spread over spec.zones; its nodes are the Nodes labelled
// sim.pacer.dev/node-group=<name>, named <name>-<n>.
//
//  * launch: a missing node is launched in the zone with the fewest (ties by name) and registers
//    after spec.launchDelayMs (the Node object appears, with spec.taints if the group has any; its
//    kubelet then reports Ready);
//  * scale-down: launches not yet done are dropped first; then nodes marked for deletion
//    (the annotation sim.pacer.dev/delete-node, as Cluster API's delete-machine annotation), then
//    the newest node of the fullest zone;
//  * terminate: the instance is gone at once (its kubelet stops: the node turns NotReady) and the
//    Node deregisters after spec.deregistrationDelayMs (deleted; the pod garbage collector then
//    removes the pods bound to it, and their ReplicaSets replace them);
//  * rebalance (spec.rebalance, AWS's AZRebalance): when no launch or termination is under way and
//    the zones differ by more than one node, the newest node of the fullest zone is terminated, and
//    the group relaunches in the emptiest zone. The seed's hazard: it can take a service down.
//
// The roller's provider for these groups scales spec.replicas, and terminates a chosen node by
// marking it and lowering spec.replicas by one (one merge patch each).

import { REF } from '../resources.ts';
import type { KubeObject } from '../types.ts';
import { keys, type ControlContext } from './context.ts';
import { ANN_NODE_NOT_READY, LABEL_HOSTNAME, LABEL_ZONE } from './util.ts';
import { isNodeReady } from './nodes.ts';

const ACTOR = 'sim/node-groups';
export const NODE_GROUP_LABEL = 'sim.pacer.dev/node-group';
/** Marks a node for removal at the group's next scale-down. */
export const ANN_DELETE_NODE = 'sim.pacer.dev/delete-node';
/** When the node's instance was terminated (ms since the epoch); it deregisters after the group's delay. */
export const ANN_TERMINATED_AT = 'sim.pacer.dev/terminated-at';

export interface NodeGroupSpec {
  replicas?: number;
  zones?: string[];
  launchDelayMs?: number;
  deregistrationDelayMs?: number;
  rebalance?: boolean;
  /** Taints every node of the group registers with (a cloud group's node template, as a managed node group's). */
  taints?: Array<{ key: string; value?: string; effect: string }>;
}

interface Launch {
  zone: string;
  at: number;
  name: string;
}

export interface NodeGroupStatus {
  replicas: number;
  readyReplicas: number;
  zones: Record<string, number>;
  launching: Launch[];
  nextOrdinal: number;
}

const terminatedAt = (n: KubeObject) => Number(n.metadata.annotations?.[ANN_TERMINATED_AT] ?? Number.NaN);
const zoneOfNode = (n: KubeObject) => n.metadata.labels?.[LABEL_ZONE] ?? '';

/** The zone with the fewest nodes (live and launching), ties by name. */
function emptiest(zones: readonly string[], count: (z: string) => number): string {
  return [...zones].sort((a, b) => count(a) - count(b) || a.localeCompare(b))[0] ?? '';
}

/** Victims for a scale-down of `n`: marked nodes first, then the newest of the fullest zone, one at a time. */
function victims(live: KubeObject[], zones: readonly string[], n: number): KubeObject[] {
  const left = [...live];
  const out: KubeObject[] = [];
  const take = (v: KubeObject) => {
    out.push(v);
    left.splice(left.indexOf(v), 1);
  };
  for (const v of live.filter((x) => x.metadata.annotations?.[ANN_DELETE_NODE] !== undefined))
    if (out.length < n) take(v);
  while (out.length < n && left.length > 0) {
    const count = (z: string) => left.filter((x) => zoneOfNode(x) === z).length;
    const fullest = [...new Set([...zones, ...left.map(zoneOfNode)])].sort(
      (a, b) => count(b) - count(a) || a.localeCompare(b),
    )[0];
    const inZone = left
      .filter((x) => zoneOfNode(x) === fullest)
      .sort(
        (a, b) =>
          (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '') ||
          (b.metadata.name ?? '').localeCompare(a.metadata.name ?? ''),
      );
    take(inZone[0] ?? left[0]);
  }
  return out;
}

/** One pass over the group `name`. */
export function syncNodeGroup(ctx: ControlContext, name: string): void {
  const group = ctx.store.get(REF.nodegroups, undefined, name);
  if (!group) return;
  const spec = (group.spec ?? {}) as NodeGroupSpec;
  const prev = (group.status ?? {}) as Partial<NodeGroupStatus>;
  const now = ctx.now();
  const zones = spec.zones && spec.zones.length > 0 ? spec.zones : ctx.config.zones;
  const want = Math.max(0, spec.replicas ?? 0);
  const members = ctx.cache.nodes.all().filter((n) => n.metadata.labels?.[NODE_GROUP_LABEL] === name);
  // Deregistration: terminated instances leave the cluster after the delay.
  const dereg = spec.deregistrationDelayMs ?? 0;
  for (const n of members.filter((x) => !Number.isNaN(terminatedAt(x)))) {
    const at = terminatedAt(n) + dereg;
    if (at <= now) ctx.store.delete(REF.nodes, undefined, n.metadata.name ?? '', { actor: ACTOR });
    else ctx.wakeAt(keys.nodeGroup(name), at);
  }
  const live = members.filter((x) => Number.isNaN(terminatedAt(x)));
  let launching = [...(prev.launching ?? [])];
  let nextOrdinal = prev.nextOrdinal ?? 1;
  // Launches that are due register their node.
  for (const l of launching.filter((x) => x.at <= now)) {
    const labels: Record<string, string> = {
      [LABEL_HOSTNAME]: l.name,
      [NODE_GROUP_LABEL]: name,
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      ...(l.zone ? { [LABEL_ZONE]: l.zone } : {}),
    };
    if (!ctx.cache.nodes.get(undefined, l.name))
      ctx.store.create(
        REF.nodes,
        undefined,
        {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name: l.name, labels },
          spec: spec.taints?.length ? { taints: structuredClone(spec.taints) } : {},
        },
        { actor: ACTOR },
      );
    live.push({ metadata: { name: l.name, labels } } as KubeObject);
  }
  launching = launching.filter((x) => x.at > now);
  const count = (z: string) =>
    live.filter((n) => zoneOfNode(n) === z).length + launching.filter((l) => l.zone === z).length;
  const terminate = (n: KubeObject) => {
    ctx.store.mutate(
      REF.nodes,
      undefined,
      n.metadata.name ?? '',
      (x) => {
        x.metadata.annotations = {
          ...(x.metadata.annotations ?? {}),
          [ANN_TERMINATED_AT]: String(now),
          [ANN_NODE_NOT_READY]: 'true',
        };
        return x;
      },
      { actor: ACTOR },
    );
    live.splice(live.indexOf(n), 1);
    ctx.wakeAt(keys.nodeGroup(name), now + dereg);
  };
  let have = live.length + launching.length;
  if (have > want) {
    // Scale down: pending launches first, then victims.
    while (have > want && launching.length > 0) {
      launching.pop();
      have--;
    }
    for (const v of victims(live, zones, have - want)) terminate(v);
  } else if (have < want) {
    for (; have < want; have++) {
      const zone = emptiest(zones, count);
      launching.push({ zone, at: now + (spec.launchDelayMs ?? 0), name: `${name}-${nextOrdinal++}` });
    }
  } else if (spec.rebalance && launching.length === 0 && members.every((n) => Number.isNaN(terminatedAt(n)))) {
    const counts = zones.map((z) => live.filter((n) => zoneOfNode(n) === z).length);
    if (counts.length > 0 && Math.max(...counts) - Math.min(...counts) > 1) terminate(victims(live, zones, 1)[0]);
  }
  for (const l of launching) ctx.wakeAt(keys.nodeGroup(name), l.at);
  if (have < want || launching.some((l) => l.at <= now)) ctx.enqueue(keys.nodeGroup(name));
  const status: NodeGroupStatus = {
    replicas: live.length,
    readyReplicas: live.filter((n) => {
      const stored = ctx.cache.nodes.get(undefined, n.metadata.name ?? '');
      return stored !== undefined && isNodeReady(stored);
    }).length,
    zones: Object.fromEntries(zones.map((z) => [z, live.filter((n) => zoneOfNode(n) === z).length])),
    launching,
    nextOrdinal,
  };
  if (JSON.stringify(status) !== JSON.stringify(prev)) {
    ctx.store.mutate(REF.nodegroups, undefined, name, (g) => ({ ...g, status }), {
      subresource: 'status',
      actor: ACTOR,
    });
  }
}
