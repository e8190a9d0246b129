// What gates a node roll (docs/semantics/node-roll.md): the health of every workload, and how many
// of a Pacer Deployment's pods may be evicted now.
//
//  * Healthy is the Mesos Slave Roller's definition: no rollout in progress and as many available as
//    desired. A Pacer Deployment: complete (every replica updated and available, its spec
//    observed); a ReplicaSet: available equals its spec.replicas and its spec is observed. By default
//    the gate covers every Pacer Deployment and every ReplicaSet; a label selector narrows it.
//  * An eviction never takes a Pacer Deployment below its minimum: replicas − maxUnavailable for a
//    rolling one, ceil(replicas × minimumHealthCapacity) for MinimumHealth (fenceposts.ts gives both;
//    Recreate promises none). PodDisruptionBudgets are the Eviction API's own (the shell meets them
//    as refusals and tries again).

import type { Deployment, LabelSelector, ReplicaSet } from '../../api/types.ts';
import { selectorMatches } from '../../api/selector.ts';
import { deploymentKey } from '../../api/dependencies.ts';
import { withDefaults } from '../../api/defaults.ts';
import { minAvailable } from '../fenceposts.ts';
import { deploymentComplete } from '../progress.ts';

const key = (o: { metadata: { namespace?: string; name?: string } }) => deploymentKey(o.metadata.namespace, o.metadata.name);

/** The workloads of the gate that are not healthy, each in words (empty: all healthy). */
export function unhealthyWorkloads(deployments: readonly Deployment[], replicaSets: readonly ReplicaSet[], selector?: LabelSelector): string[] {
  const inGate = (labels: Record<string, string> | undefined) => !selector || selectorMatches(selector, labels);
  const out: string[] = [];
  for (const d of deployments) {
    if (!inGate(d.metadata.labels)) continue;
    const st = d.status ?? {};
    if (deploymentComplete(withDefaults(d), st)) continue;
    const replicas = d.spec?.replicas ?? 1;
    const rolling = (st.updatedReplicas ?? 0) !== replicas || (st.replicas ?? 0) !== replicas || (st.observedGeneration ?? 0) < (d.metadata.generation ?? 0);
    out.push(rolling
      ? `deployment ${key(d)}: rollout in progress (${st.updatedReplicas ?? 0} of ${replicas} updated)`
      : `deployment ${key(d)}: ${st.availableReplicas ?? 0} of ${replicas} available`);
  }
  for (const rs of replicaSets) {
    if (!inGate(rs.metadata.labels)) continue;
    const want = rs.spec?.replicas ?? 1;
    const st = rs.status ?? { replicas: 0 };
    const observed = (st.observedGeneration ?? 0) >= (rs.metadata.generation ?? 0);
    if ((st.availableReplicas ?? 0) === want && observed) continue;
    out.push(`replicaset ${key(rs)}: ${st.availableReplicas ?? 0} of ${want} available`);
  }
  return out.sort();
}

/** A pod's workload and how many of its pods may be evicted now (why none, when none). */
export interface PodBudget {
  readonly workload: string;
  readonly allowed: number;
  readonly why?: string;
}

interface Owned { metadata: { namespace?: string; ownerReferences?: Array<{ uid: string; kind: string; controller?: boolean }> } }

/** The budget of a pod of a Pacer Deployment (through its ReplicaSet), or undefined for any other pod. */
export function pacerBudgets(deployments: readonly Deployment[], replicaSets: readonly ReplicaSet[]): (pod: Owned) => PodBudget | undefined {
  const rsByUid = new Map(replicaSets.map((rs) => [rs.metadata.uid ?? '', rs]));
  const dByUid = new Map(deployments.map((d) => [d.metadata.uid ?? '', d]));
  const controller = (o: Owned) => o.metadata.ownerReferences?.find((r) => r.controller);
  return (pod) => {
    const rsRef = controller(pod);
    const rs = rsRef?.kind === 'ReplicaSet' ? rsByUid.get(rsRef.uid) : undefined;
    const dRef = rs && controller(rs);
    const d = dRef?.kind === 'Deployment' ? dByUid.get(dRef.uid) : undefined;
    if (!d) return undefined;
    const min = minAvailable(withDefaults(d));
    const available = d.status?.availableReplicas ?? 0;
    const allowed = Math.max(0, available - min);
    return {
      workload: `deployment ${key(d)}`,
      allowed,
      ...(allowed === 0 ? { why: `deployment ${key(d)} would fall below its minimum of ${min} available (${available} available)` } : {}),
    };
  };
}
