// Recreate rules: every old ReplicaSet goes to 0 first, and the new one is only created or scaled
// up once no old pod may still be running (Unknown and empty phases count as running).

import type { Pod, ReplicaSet } from '../../api/types.ts';
import { controllerOf } from '../../api/owners.ts';
import type { DecisionPass } from './pass.ts';
import { scaleReplicaSetAndRecordEvent } from './pass.ts';
import { specReplicas, statusReplicaSum } from './replicasets.ts';

/**
 * oldPodsRunning: old ReplicaSets still report replicas, or a pod controlled by one of the
 * Deployment's ReplicaSets other than the new one is not Failed or Succeeded. Pacer adds two
 * checks on the old ReplicaSets' status, for pods the pod cache does not show yet (the pod watch
 * lags the ReplicaSet watch: a dropped watch, a restart's separate lists): an old ReplicaSet whose
 * status has not yet observed its spec counts as running (it was just scaled up, then down, by a
 * quick second change), and so does one whose status counts terminating pods
 * (status.terminatingReplicas, which the ReplicaSet controller reports since Kubernetes 1.35).
 * Upstream's check lets the new ReplicaSet start beside such pods (the chaos run caught both:
 * docs/testing.md#chaos).
 */
export function oldPodsRunning(
  newRS: ReplicaSet | undefined,
  oldRSs: readonly ReplicaSet[],
  allRSs: readonly ReplicaSet[],
  pods: readonly Pod[],
): boolean {
  if (statusReplicaSum(oldRSs) > 0) return true;
  if (oldRSs.some((rs) => (rs.status?.observedGeneration ?? 0) < (rs.metadata.generation ?? 0))) return true;
  if (oldRSs.some((rs) => (rs.status?.terminatingReplicas ?? 0) > 0)) return true;
  // The pod map only holds pods of the Deployment's own ReplicaSets.
  const owned = new Set<string>();
  for (const rs of allRSs) if (rs.metadata.uid) owned.add(rs.metadata.uid);
  const newUid = newRS?.metadata.uid;
  for (const pod of pods) {
    const uid = controllerOf(pod)?.uid;
    if (uid === undefined || !owned.has(uid) || uid === newUid) continue;
    const phase = pod.status?.phase;
    if (phase === 'Failed' || phase === 'Succeeded') continue;
    return true;
  }
  return false;
}

/** scaleDownOldReplicaSetsForRecreate: every active old ReplicaSet to 0; true when one was scaled. */
export function scaleDownOldReplicaSetsForRecreate(pass: DecisionPass, activeOldRSs: readonly ReplicaSet[]): boolean {
  let scaled = false;
  for (const rs of activeOldRSs) {
    if (specReplicas(rs) === 0) continue;
    if (scaleReplicaSetAndRecordEvent(pass, rs, 0).scaled) scaled = true;
  }
  return scaled;
}
