// The steps every rollout path shares (upstream's DeploymentController methods of the same
// names): the ReplicaSets as this pass has written them so far, the status sync that ends each
// rollout step, and the cleanup of old revisions. decide.ts and the strategies' rollout steps call them.

import type { ReplicaSet } from '../../api/types.ts';
import type { DecisionPass } from './pass.ts';
import { deleteReplicaSet, latest } from './pass.ts';
import { requeueStuckDeployment, rolloutStatus } from './progress.ts';
import { replicaSetsToCleanUp } from './history.ts';

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
  pass.status = rolloutStatus(pass.d, pass.rss, current(pass, newRS), pass.status, pass.now, pass.limits);
  pass.requeueAfterSeconds = requeueStuckDeployment(pass.d, pass.status, pass.now);
}

/** cleanupDeployment: deletes the old ReplicaSets beyond revisionHistoryLimit. */
export function cleanupDeployment(pass: DecisionPass, oldRSs: readonly ReplicaSet[]): void {
  for (const rs of replicaSetsToCleanUp(pass.d, currentAll(pass, oldRSs))) deleteReplicaSet(pass, rs);
}
