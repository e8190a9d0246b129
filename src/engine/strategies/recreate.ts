// Recreate (apps/v1): every old pod stops before a new one starts
// (docs/semantics/kubernetes-deployments.md#recreate). No fenceposts and no budget: maxSurge and
// maxUnavailable are 0 (Available needs every replica), and the new ReplicaSet goes straight to
// spec.replicas. It is the one strategy that reads pods. The rules it uses are in
// src/engine/recreate.ts; it has no parameters (src/api/strategies/recreate.ts).

import { selectorMatches } from '../../api/selector.ts';
import { recreateRules } from '../../api/strategies/recreate.ts';
import { activeReplicaSets, deploymentReplicas } from '../replicasets.ts';
import type { DecisionPass } from '../pass.ts';
import type { RolloutSteps, RolloutStrategy, StrategyDetail } from './types.ts';

const NO_DETAILS: readonly StrategyDetail[] = Object.freeze([]);

/**
 * rolloutRecreate: old ReplicaSets to 0 (stop if one changed); wait while an old pod may still
 * run; then create the new ReplicaSet if needed and scale it to spec.replicas; clean up old
 * revisions if the Deployment was complete. The status comes last.
 */
export function rolloutRecreate(pass: DecisionPass, steps: RolloutSteps): void {
  const startRSs = [...pass.rss];
  let { newRS, oldRSs } = steps.getAllReplicaSetsAndSyncRevision(pass, false);
  if (steps.scaleDownOldReplicaSetsForRecreate(pass, activeReplicaSets(oldRSs))) {
    steps.syncRolloutStatus(pass, newRS);
    return;
  }
  const pods = pass.pods.filter((p) => selectorMatches(pass.d.spec.selector, p.metadata.labels));
  if (steps.oldPodsRunning(newRS, steps.currentAll(pass, oldRSs), startRSs, pods)) {
    steps.syncRolloutStatus(pass, newRS);
    return;
  }
  if (!newRS) {
    ({ newRS, oldRSs } = steps.getAllReplicaSetsAndSyncRevision(pass, true));
    if (pass.aborted || !newRS) return;
  }
  const fresh = steps.current(pass, newRS) ?? newRS;
  steps.scaleReplicaSetAndRecordEvent(pass, fresh, steps.gatedNewReplicas(pass.d, fresh, deploymentReplicas(pass.d), pass.hold));
  if (steps.deploymentComplete(pass.d, pass.status)) steps.cleanupDeployment(pass, oldRSs);
  steps.syncRolloutStatus(pass, newRS);
}

export const recreate: RolloutStrategy<'Recreate'> = {
  ...recreateRules,
  readsPods: true,
  rollout: rolloutRecreate,
  describe: () => NO_DETAILS,
};
