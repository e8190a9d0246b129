// The steps a strategy's rollout is made of (strategies/types.ts RolloutSteps): the pass
// machinery of rolling.ts, recreate.ts, newreplicaset.ts, pass.ts and progress.ts, plus the
// status sync and cleanup that every rollout path of sync.ts shares. sync.ts hands ROLLOUT_STEPS
// to the strategy's rollout step, which cannot import this machinery itself (the machinery asks
// the strategies for their fenceposts and budgets: see strategies/types.ts).

import type { ReplicaSet } from '../api/types.ts';
import { gatedNewReplicas } from './plan/gate.ts';
import type { DecisionPass } from './pass.ts';
import { deleteReplicaSet, latest, scaleReplicaSetAndRecordEvent } from './pass.ts';
import { getAllReplicaSetsAndSyncRevision } from './newreplicaset.ts';
import { deploymentComplete, requeueStuckDeployment, rolloutStatus } from './progress.ts';
import { oldPodsRunning, scaleDownOldReplicaSetsForRecreate } from './recreate.ts';
import { reconcileNewReplicaSet, reconcileOldReplicaSets } from './rolling.ts';
import { replicaSetsToCleanUp } from './history.ts';
import type { RolloutSteps } from './strategies/types.ts';

/** `rs` as it is after this pass's writes so far (undefined once deleted, or for none). */
export function current(pass: DecisionPass, rs: ReplicaSet | undefined): ReplicaSet | undefined {
  return rs ? latest(pass, rs) : undefined;
}

/** The ReplicaSets as they are after this pass's writes so far, deleted ones left out. */
export function currentAll(pass: DecisionPass, rss: readonly ReplicaSet[]): ReplicaSet[] {
  const out: ReplicaSet[] = [];
  for (const rs of rss) {
    const x = latest(pass, rs);
    if (x) out.push(x);
  }
  return out;
}

/** syncRolloutStatus: the status with progress estimated, and when to look again. */
export function syncRolloutStatus(pass: DecisionPass, newRS: ReplicaSet | undefined): void {
  pass.status = rolloutStatus(pass.d, pass.rss, current(pass, newRS), pass.status, pass.now, pass.hold);
  pass.requeueAfterSeconds = requeueStuckDeployment(pass.d, pass.status, pass.now);
}

/** cleanupDeployment: deletes the old ReplicaSets beyond revisionHistoryLimit. */
export function cleanupDeployment(pass: DecisionPass, oldRSs: readonly ReplicaSet[]): void {
  for (const rs of replicaSetsToCleanUp(pass.d, currentAll(pass, oldRSs))) deleteReplicaSet(pass, rs);
}

export const ROLLOUT_STEPS: RolloutSteps = {
  gatedNewReplicas,
  getAllReplicaSetsAndSyncRevision,
  reconcileNewReplicaSet,
  reconcileOldReplicaSets,
  scaleDownOldReplicaSetsForRecreate,
  oldPodsRunning,
  scaleReplicaSetAndRecordEvent,
  deploymentComplete,
  cleanupDeployment,
  syncRolloutStatus,
  current,
  currentAll,
};
