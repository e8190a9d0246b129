// Recreate (apps/v1): every old pod stops before a new one starts
// (docs/semantics/kubernetes-deployments.md#recreate). No fenceposts and no budget: maxSurge and
// maxUnavailable are 0 (Available needs every replica), and the new ReplicaSet goes straight to
// spec.replicas (as far as the gates let it: the pass's limits). It is the one strategy that reads
// pods. The rules it uses are in src/engine/kubernetes/recreate.ts; it has no parameters
// (src/api/strategies/recreate.ts).

import { selectorMatches } from '../../api/selector.ts';
import { recreateRules } from '../../api/strategies/recreate.ts';
import { activeReplicaSets } from '../kubernetes/replicasets.ts';
import { getAllReplicaSetsAndSyncRevision } from '../kubernetes/newreplicaset.ts';
import type { DecisionPass } from '../kubernetes/pass.ts';
import { scaleReplicaSetAndRecordEvent } from '../kubernetes/pass.ts';
import { deploymentComplete } from '../kubernetes/progress.ts';
import { oldPodsRunning, scaleDownOldReplicaSetsForRecreate } from '../kubernetes/recreate.ts';
import { newReplicaSetTarget } from '../kubernetes/rolling.ts';
import { cleanupDeployment, current, currentAll, syncRolloutStatus } from '../kubernetes/steps.ts';
import type { RolloutStrategy, StrategyDetail } from './types.ts';

const NO_DETAILS: readonly StrategyDetail[] = Object.freeze([]);

/**
 * rolloutRecreate: old ReplicaSets to 0 (stop if one changed); wait while an old pod may still
 * run; then create the new ReplicaSet if needed and scale it to spec.replicas; clean up old
 * revisions if the Deployment was complete. The status comes last.
 */
export function rolloutRecreate(pass: DecisionPass): void {
  const startRSs = [...pass.rss];
  let { newRS, oldRSs } = getAllReplicaSetsAndSyncRevision(pass, false);
  if (scaleDownOldReplicaSetsForRecreate(pass, activeReplicaSets(oldRSs))) {
    syncRolloutStatus(pass, newRS);
    return;
  }
  const pods = pass.pods.filter((p) => selectorMatches(pass.d.spec.selector, p.metadata.labels));
  if (oldPodsRunning(newRS, currentAll(pass, oldRSs), startRSs, pods)) {
    syncRolloutStatus(pass, newRS);
    return;
  }
  if (!newRS) {
    ({ newRS, oldRSs } = getAllReplicaSetsAndSyncRevision(pass, true));
    if (pass.aborted || !newRS) return;
  }
  const fresh = current(pass, newRS) ?? newRS;
  // No budget: straight to spec.replicas, as far as the gates let it.
  scaleReplicaSetAndRecordEvent(pass, fresh, newReplicaSetTarget(pass.d, [], fresh, pass.limits));
  if (deploymentComplete(pass.d, pass.status)) cleanupDeployment(pass, oldRSs);
  syncRolloutStatus(pass, newRS);
}

export const recreate: RolloutStrategy<'Recreate'> = {
  ...recreateRules,
  readsPods: true,
  rollout: rolloutRecreate,
  describe: () => NO_DETAILS,
};
