// How the node roller reaches a node group (docs/semantics/node-roll.md#node-groups): one small
// provider interface, scale the group to N and terminate one node. The simulated cluster's
// NodeGroups (sim.pacer.dev) are the implementation here; a Cluster API MachineDeployment would be
// the next one the same way (spec.replicas, and the cluster.x-k8s.io/delete-machine annotation on
// the Machine before a scale-down), a cloud's group through its API.

import type { KubeClient } from '../../kube/client.ts';
import { NODES, SIM_NODEGROUPS } from '../../kube/client.ts';
import { isKind } from '../../kube/errors.ts';

export interface NodeGroupProvider {
  /** Sets the group's desired size. */
  scale(group: string, to: number): Promise<void>;
  /** Terminates `node`: the group shrinks by one (`shrink`), or replaces it (Drain). */
  terminate(group: string, node: string, shrink: boolean): Promise<void>;
  /**
   * Turns the group's own zone rebalancing off for the roll `roll`, noting on the group that the roll
   * did (nothing when it was off, or already held); release turns it back on only when this roll
   * held it. Both idempotent. An AWS group would suspend its AZRebalance process the same way.
   */
  holdRebalance(group: string, roll: string): Promise<void>;
  releaseRebalance(group: string, roll: string): Promise<void>;
}

/** On a node group: the NodeRoll that turned its rebalancing off, and will turn it back on. */
export const REBALANCE_HELD_BY = 'pacer.dev/rebalance-held-by';

const DELETE_NODE = 'sim.pacer.dev/delete-node';
const TERMINATED_AT = 'sim.pacer.dev/terminated-at';
const GROUP_LABEL = 'sim.pacer.dev/node-group';

/**
 * The simulated cluster's NodeGroups: scale is spec.replicas; terminate marks the node, then lowers
 * spec.replicas by one. Both are idempotent, so a pass repeated after a crash between them does no
 * harm: a node already terminated is left alone, and the size is lowered only while it still
 * counts the marked nodes (size > live members − marked ones).
 */
export function simNodeGroups(client: KubeClient): NodeGroupProvider {
  type Node = { metadata: { name?: string; annotations?: Record<string, string> } };
  type Group = {
    metadata: { resourceVersion?: string; annotations?: Record<string, string> };
    spec?: { rebalance?: boolean };
  };
  return {
    async scale(group, to) {
      await client.patch(SIM_NODEGROUPS, undefined, group, { spec: { replicas: to } }, 'merge');
    },
    async holdRebalance(group, roll) {
      const g = await client.get<Group>(SIM_NODEGROUPS, undefined, group);
      if (g.metadata.annotations?.[REBALANCE_HELD_BY] !== undefined || g.spec?.rebalance !== true) return;
      await client.patch(
        SIM_NODEGROUPS,
        undefined,
        group,
        {
          metadata: { resourceVersion: g.metadata.resourceVersion, annotations: { [REBALANCE_HELD_BY]: roll } },
          spec: { rebalance: false },
        },
        'merge',
      );
    },
    async releaseRebalance(group, roll) {
      const g = await client.get<Group>(SIM_NODEGROUPS, undefined, group);
      if (g.metadata.annotations?.[REBALANCE_HELD_BY] !== roll) return;
      await client.patch(
        SIM_NODEGROUPS,
        undefined,
        group,
        {
          metadata: { resourceVersion: g.metadata.resourceVersion, annotations: { [REBALANCE_HELD_BY]: null } },
          spec: { rebalance: true },
        },
        'merge',
      );
    },
    async terminate(group, node, shrink) {
      if (!shrink) {
        // The instance goes; the group, one short, launches its replacement.
        await client.delete(NODES, undefined, node).catch((err: unknown) => {
          if (!isKind(err, 'NotFound')) throw err;
        });
        return;
      }
      for (let attempt = 0; ; attempt++) {
        const members = (await client.list<Node>(NODES, undefined, { labelSelector: `${GROUP_LABEL}=${group}` })).items;
        const live = members.filter((n) => n.metadata.annotations?.[TERMINATED_AT] === undefined);
        const self = live.find((n) => n.metadata.name === node);
        if (!self) return; // terminated already, or gone
        if (self.metadata.annotations?.[DELETE_NODE] === undefined) {
          await client.patch(NODES, undefined, node, { metadata: { annotations: { [DELETE_NODE]: 'true' } } }, 'merge');
        }
        const marked = live.filter(
          (n) => n.metadata.name === node || n.metadata.annotations?.[DELETE_NODE] !== undefined,
        ).length;
        const g = await client.get<{ metadata: { resourceVersion?: string }; spec?: { replicas?: number } }>(
          SIM_NODEGROUPS,
          undefined,
          group,
        );
        const size = g.spec?.replicas ?? 0;
        if (size <= live.length - marked) return;
        try {
          await client.patch(
            SIM_NODEGROUPS,
            undefined,
            group,
            { metadata: { resourceVersion: g.metadata.resourceVersion }, spec: { replicas: size - 1 } },
            'merge',
          );
          return;
        } catch (err) {
          if (!isKind(err, 'Conflict') || attempt >= 4) throw err;
        }
      }
    },
  };
}
