// What gates a node roll (docs/semantics/node-roll.md): the health of every workload, and how many
// of a Pacer Deployment's pods may be evicted now.
//
//  * Healthy is the Mesos Slave Roller's definition: no rollout in progress and as many available as
//    desired. A Pacer Deployment: complete (every replica updated and available, its spec
//    observed); a ReplicaSet: available equals its spec.replicas and its spec is observed. By default
//    the gate covers every Pacer Deployment and every ReplicaSet; a label selector narrows it.
//  * An eviction never takes a Pacer Deployment below its minimum: replicas − maxUnavailable for a
//    rolling one, ceil(replicas × minimumHealthCapacity) for MinimumHealth (fenceposts.ts gives both;
//    Recreate promises none), and is made only while the Deployment is at rest (pacerBudgets says
//    why). PodDisruptionBudgets are the Eviction API's own (the shell meets them as refusals and
//    tries again).

import type { Deployment, LabelSelector, ReplicaSet } from '../../api/types.ts';
import { selectorMatches } from '../../api/selector.ts';
import { deploymentKey } from '../../api/dependencies.ts';
import { withDefaults } from '../../api/defaults.ts';
import { minAvailable } from '../fenceposts.ts';
import { deploymentComplete } from '../kubernetes/progress.ts';

const key = (o: { metadata: { namespace?: string; name?: string } }) =>
  deploymentKey(o.metadata.namespace, o.metadata.name);

/** A rollout in progress: its spec not yet observed, or pods not all of the current template, or more or fewer than wanted. */
function rollingOut(d: Deployment): boolean {
  const st = d.status ?? {};
  const replicas = d.spec?.replicas ?? 1;
  return (
    (st.updatedReplicas ?? 0) !== replicas ||
    (st.replicas ?? 0) !== replicas ||
    (st.observedGeneration ?? 0) < (d.metadata.generation ?? 0)
  );
}

/** The workloads of the gate that are not healthy, each in words (empty: all healthy). */
export function unhealthyWorkloads(
  deployments: readonly Deployment[],
  replicaSets: readonly ReplicaSet[],
  selector?: LabelSelector,
): string[] {
  const inGate = (labels: Record<string, string> | undefined) => !selector || selectorMatches(selector, labels);
  const out: string[] = [];
  for (const d of deployments) {
    if (!inGate(d.metadata.labels)) continue;
    const st = d.status ?? {};
    if (deploymentComplete(withDefaults(d), st)) continue;
    const replicas = d.spec?.replicas ?? 1;
    out.push(
      rollingOut(d)
        ? `deployment ${key(d)}: rollout in progress (${st.updatedReplicas ?? 0} of ${replicas} updated)`
        : `deployment ${key(d)}: ${st.availableReplicas ?? 0} of ${replicas} available`,
    );
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

interface Owned {
  metadata: { namespace?: string; ownerReferences?: Array<{ uid?: string; kind: string; controller?: boolean }> };
}

/** A pod as the budget counts it: its owner, whether it is going, whether it is ready. */
export interface BudgetPod extends Owned {
  metadata: Owned['metadata'] & { deletionTimestamp?: string };
  status?: { phase?: string; conditions?: ReadonlyArray<{ type: string; status: string }> };
}

const isReady = (p: BudgetPod) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/**
 * The budget of a pod of a Pacer Deployment (through its ReplicaSet), or undefined for any other pod.
 * Two writers take pods away, the Deployment's rollout and the drain, each from what it has seen;
 * neither sees the other's last step at once (a ReplicaSet's status follows its pods). So a drain
 * evicts only from a Deployment at rest, whose rollout takes nothing away meanwhile: no rollout in
 * progress, its ReplicaSets' sizes reached, no pod of it terminating (an eviction or a scale-down not yet counted).
 * What it may lose is then its healthy pods less its minimum, healthy being the fewer of its
 * status' available replicas and its ready pods that stay (per ReplicaSet, at most its size).
 */
export function pacerBudgets(
  deployments: readonly Deployment[],
  replicaSets: readonly ReplicaSet[],
  pods: readonly BudgetPod[] = [],
): (pod: Owned) => PodBudget | undefined {
  const rsByUid = new Map(replicaSets.map((rs) => [rs.metadata.uid ?? '', rs]));
  const dByUid = new Map(deployments.map((d) => [d.metadata.uid ?? '', d]));
  const controller = (o: Owned) => o.metadata.ownerReferences?.find((r) => r.controller);
  const podsByRs = new Map<string, BudgetPod[]>();
  for (const p of pods) {
    const ref = controller(p);
    if (ref?.kind === 'ReplicaSet' && ref.uid)
      (podsByRs.get(ref.uid) ?? podsByRs.set(ref.uid, []).get(ref.uid)!).push(p);
  }
  const rsOf = new Map<string, ReplicaSet[]>();
  for (const rs of replicaSets) {
    const ref = controller(rs);
    if (ref?.kind === 'Deployment' && ref.uid) (rsOf.get(ref.uid) ?? rsOf.set(ref.uid, []).get(ref.uid)!).push(rs);
  }
  return (pod) => {
    const rsRef = controller(pod);
    const rs = rsRef?.kind === 'ReplicaSet' ? rsByUid.get(rsRef.uid ?? '') : undefined;
    const dRef = rs && controller(rs);
    const d = dRef?.kind === 'Deployment' ? dByUid.get(dRef.uid ?? '') : undefined;
    if (!d) return undefined;
    const workload = `deployment ${key(d)}`;
    const full = withDefaults(d);
    const min = minAvailable(full);
    const available = d.status?.availableReplicas ?? 0;
    const none = (why: string): PodBudget => ({ workload, allowed: 0, why });
    if (min === 0) return { workload, allowed: available }; // Recreate promises none
    if (rollingOut(d))
      return none(
        `${workload} is rolling out (${d.status?.updatedReplicas ?? 0} of ${d.spec.replicas ?? 1} updated, ${available} available)`,
      );
    const owned = rsOf.get(d.metadata.uid ?? '') ?? [];
    if (
      owned.some(
        (x) =>
          (x.status?.replicas ?? 0) !== (x.spec?.replicas ?? 1) ||
          (x.status?.observedGeneration ?? 0) < (x.metadata.generation ?? 0),
      )
    ) {
      return none(`${workload} is being scaled`);
    }
    const mine = owned.map((x) => ({ size: x.spec?.replicas ?? 1, pods: podsByRs.get(x.metadata.uid ?? '') ?? [] }));
    const going = mine.reduce((n, x) => n + x.pods.filter((p) => p.metadata.deletionTimestamp).length, 0);
    if (going > 0) return none(`${workload} has ${going} pod(s) terminating`);
    const ready = mine.reduce(
      (n, x) =>
        n +
        Math.min(
          x.size,
          x.pods.filter((p) => isReady(p) && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed').length,
        ),
      0,
    );
    const healthy = Math.min(available, ready);
    const allowed = Math.max(0, healthy - min);
    return allowed > 0
      ? { workload, allowed }
      : none(`${workload} would fall below its minimum of ${min} available (${healthy} available)`);
  };
}
