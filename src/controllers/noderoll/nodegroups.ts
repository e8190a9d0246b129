// How the node roller reaches a node group (docs/semantics/node-roll.md#node-groups): one small
// provider interface, scale the group to N and terminate one node. Two implementations: the
// simulated cluster's NodeGroups (sim.pacer.dev), and Cluster API's MachineDeployments and
// MachineSets (spec.replicas, and the cluster.x-k8s.io/delete-machine annotation on the Machine
// before a scale-down); nodeGroupProviders picks one by the form of spec.nodeGroup.

import type { KubeClient } from '../../kube/client.ts';
import { CAPI_MACHINEDEPLOYMENTS, CAPI_MACHINES, CAPI_MACHINESETS, NODES, SIM_NODEGROUPS } from '../../kube/client.ts';
import { parseNodeGroup } from '../../api/noderoll.ts';
import type { ClusterAPINodeGroupKind } from '../../api/noderoll.ts';
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

/** On a Machine: delete this one first when its MachineSet scales down (Cluster API's own annotation). */
export const DELETE_MACHINE = 'cluster.x-k8s.io/delete-machine';

const CAPI_GROUPS = {
  MachineDeployment: { resource: CAPI_MACHINEDEPLOYMENTS, label: 'cluster.x-k8s.io/deployment-name' },
  MachineSet: { resource: CAPI_MACHINESETS, label: 'cluster.x-k8s.io/set-name' },
} as const satisfies Record<ClusterAPINodeGroupKind, unknown>;

type CAPIGroup = {
  metadata: { resourceVersion?: string; annotations?: Record<string, string> };
  spec?: { replicas?: number; paused?: boolean };
};
type Machine = {
  metadata: { name: string; deletionTimestamp?: string; annotations?: Record<string, string> };
  status?: { nodeRef?: { name?: string } };
};

/**
 * Cluster API's node groups, named KIND/NAMESPACE/NAME (parseNodeGroup), through Cluster API's own
 * contract (https://cluster-api.sigs.k8s.io/): scale is spec.replicas; a Machine is found by its
 * status.nodeRef (the Node it became); terminate marks the Machine with cluster.x-k8s.io/delete-machine,
 * which its MachineSet deletes before any other on a scale-down, then lowers spec.replicas by one, the
 * same idempotent way as the simulated groups (a Machine already deleting is left alone; the size is
 * lowered only while it still counts the marked Machines). Drain mode deletes the Machine, and its
 * MachineSet makes another. A MachineDeployment's own rollout is held by spec.paused, which stops a
 * rollout to a new template but not scaling; a MachineSet has no rollout to hold.
 */
export function clusterAPINodeGroups(client: KubeClient): NodeGroupProvider {
  const refOf = (group: string) => {
    const ref = parseNodeGroup(group);
    if ('errors' in ref || ref.kind === 'NodeGroup')
      throw new Error(
        `node group "${group}" is not a Cluster API MachineDeployment or MachineSet (KIND/NAMESPACE/NAME)`,
      );
    return { ...ref, ...CAPI_GROUPS[ref.kind] };
  };
  const patchGroup = (group: string, body: object) => {
    const r = refOf(group);
    return client.patch(r.resource, r.namespace, r.name, body, 'merge');
  };
  return {
    async scale(group, to) {
      await patchGroup(group, { spec: { replicas: to } });
    },
    async holdRebalance(group, roll) {
      const r = refOf(group);
      if (r.kind !== 'MachineDeployment') return;
      const g = await client.get<CAPIGroup>(r.resource, r.namespace, r.name);
      if (g.metadata.annotations?.[REBALANCE_HELD_BY] !== undefined || g.spec?.paused === true) return;
      await patchGroup(group, {
        metadata: { resourceVersion: g.metadata.resourceVersion, annotations: { [REBALANCE_HELD_BY]: roll } },
        spec: { paused: true },
      });
    },
    async releaseRebalance(group, roll) {
      const r = refOf(group);
      if (r.kind !== 'MachineDeployment') return;
      const g = await client.get<CAPIGroup>(r.resource, r.namespace, r.name);
      if (g.metadata.annotations?.[REBALANCE_HELD_BY] !== roll) return;
      await patchGroup(group, {
        metadata: { resourceVersion: g.metadata.resourceVersion, annotations: { [REBALANCE_HELD_BY]: null } },
        spec: { paused: false },
      });
    },
    async terminate(group, node, shrink) {
      const r = refOf(group);
      for (let attempt = 0; ; attempt++) {
        const machines = (
          await client.list<Machine>(CAPI_MACHINES, r.namespace, { labelSelector: `${r.label}=${r.name}` })
        ).items;
        const live = machines.filter((m) => m.metadata.deletionTimestamp === undefined);
        const self = live.find((m) => m.status?.nodeRef?.name === node);
        if (!self) return; // its Machine is deleting already, or gone
        if (!shrink) {
          // Drain: the Machine goes; its MachineSet, one short, makes its replacement.
          await client.delete(CAPI_MACHINES, r.namespace, self.metadata.name).catch((err: unknown) => {
            if (!isKind(err, 'NotFound')) throw err;
          });
          return;
        }
        if (self.metadata.annotations?.[DELETE_MACHINE] === undefined)
          await client.patch(
            CAPI_MACHINES,
            r.namespace,
            self.metadata.name,
            { metadata: { annotations: { [DELETE_MACHINE]: 'true' } } },
            'merge',
          );
        const marked = live.filter(
          (m) => m.metadata.name === self.metadata.name || m.metadata.annotations?.[DELETE_MACHINE] !== undefined,
        ).length;
        const g = await client.get<CAPIGroup>(r.resource, r.namespace, r.name);
        const size = g.spec?.replicas ?? live.length;
        if (size <= live.length - marked) return;
        try {
          await client.patch(
            r.resource,
            r.namespace,
            r.name,
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

/** The provider for each group: Cluster API's for KIND/NAMESPACE/NAME, the simulated cluster's for a bare name. */
export function nodeGroupProviders(providers: {
  sim: NodeGroupProvider;
  clusterAPI: NodeGroupProvider;
}): NodeGroupProvider {
  const of = (group: string) => (group.includes('/') ? providers.clusterAPI : providers.sim);
  return {
    scale: (group, to) => of(group).scale(group, to),
    terminate: (group, node, shrink) => of(group).terminate(group, node, shrink),
    holdRebalance: (group, roll) => of(group).holdRebalance(group, roll),
    releaseRebalance: (group, roll) => of(group).releaseRebalance(group, roll),
  };
}
