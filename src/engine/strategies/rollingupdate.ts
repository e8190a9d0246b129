// RollingUpdate (apps/v1): pods are replaced gradually within maxSurge and maxUnavailable
// (docs/semantics/kubernetes-deployments.md#rolling-update-arithmetic). This module answers the
// strategy's questions: its fenceposts (ResolveFenceposts), its budget for rolling.ts, and its
// rollout step (rolloutRolling), which MinimumHealth reuses with its own budget. Defaults and
// validation: src/api/strategies/rollingupdate.ts.

import type { Deployment, IntOrString } from '../../api/types.ts';
import { scaledValue } from '../../api/intstr.ts';
import { DEFAULT_MAX_SURGE, DEFAULT_MAX_UNAVAILABLE, rollingUpdateRules } from '../../api/strategies/rollingupdate.ts';
import { activeReplicaSets, deploymentReplicas } from '../kubernetes/replicasets.ts';
import type { Fenceposts, RolloutBudget } from '../limits.ts';
import { getAllReplicaSetsAndSyncRevision } from '../kubernetes/newreplicaset.ts';
import type { DecisionPass } from '../kubernetes/pass.ts';
import { deploymentComplete } from '../kubernetes/progress.ts';
import { reconcileNewReplicaSet, reconcileOldReplicaSets } from '../kubernetes/rolling.ts';
import { cleanupDeployment, syncRolloutStatus } from '../kubernetes/steps.ts';
import type { RolloutStrategy } from './types.ts';

/**
 * ResolveFenceposts: surge rounds up, unavailable rounds down, and both at 0 would deadlock a
 * rollout, so unavailable becomes 1. Throws on an unparseable value (validation rejects those first).
 */
export function resolveFenceposts(
  maxSurge: IntOrString | undefined,
  maxUnavailable: IntOrString | undefined,
  desired: number,
): Fenceposts {
  const surge = scaledValue(maxSurge ?? 0, desired, true);
  let unavailable = scaledValue(maxUnavailable ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

interface CacheEntry {
  replicas: number;
  maxSurge: IntOrString | undefined;
  maxUnavailable: IntOrString | undefined;
  result: Fenceposts;
}

// A pass asks for the fenceposts of one spec many times: remember them per spec object, checked
// against the inputs so that a spec changed in place is never answered from the cache.
const cache = new WeakMap<object, CacheEntry>();

function rollingUpdateFenceposts(d: Deployment): Fenceposts {
  const ru = d.spec.strategy?.rollingUpdate;
  const replicas = deploymentReplicas(d);
  const hit = cache.get(d.spec);
  if (hit && hit.replicas === replicas && hit.maxSurge === ru?.maxSurge && hit.maxUnavailable === ru?.maxUnavailable)
    return hit.result;
  let result: Fenceposts;
  try {
    result = resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, replicas);
  } catch {
    result = { surge: 0, unavailable: 0 }; // caught by validation; upstream ignores the error here
  }
  cache.set(d.spec, { replicas, maxSurge: ru?.maxSurge, maxUnavailable: ru?.maxUnavailable, result });
  return result;
}

/**
 * replicas + the raw maxSurge (the fencepost rule, both 0 → unavailable 1, does not apply to the
 * surge here), and replicas − MaxUnavailable(d) (capped at replicas, 0 with no replicas, as in
 * fenceposts.ts).
 */
export function rollingUpdateBudget(d: Deployment): RolloutBudget {
  const replicas = deploymentReplicas(d);
  const surge = scaledValue(d.spec.strategy?.rollingUpdate?.maxSurge ?? 0, replicas, true);
  const unavailable = replicas === 0 ? 0 : Math.min(rollingUpdateFenceposts(d).unavailable, replicas);
  return { maxTotal: replicas + surge, minAvailable: replicas - unavailable };
}

/**
 * rolloutRolling: one step per pass. Find or create the new ReplicaSet; scale it within the
 * budget, and stop if it changed; else scale old ones down, and stop if one changed; else, if the
 * Deployment was complete as the pass started, clean up old revisions. The status comes last.
 */
export function rolloutRolling(pass: DecisionPass): void {
  const { newRS, oldRSs } = getAllReplicaSetsAndSyncRevision(pass, true);
  if (pass.aborted || !newRS) return;
  const allRSs = [...oldRSs, newRS];
  if (reconcileNewReplicaSet(pass, allRSs, newRS)) {
    syncRolloutStatus(pass, newRS);
    return;
  }
  if (reconcileOldReplicaSets(pass, allRSs, activeReplicaSets(oldRSs), newRS)) {
    syncRolloutStatus(pass, newRS);
    return;
  }
  // Complete as of the status read at the start of the pass.
  if (deploymentComplete(pass.d, pass.status)) cleanupDeployment(pass, oldRSs);
  syncRolloutStatus(pass, newRS);
}

export const rollingUpdate: RolloutStrategy<'RollingUpdate'> = {
  ...rollingUpdateRules,
  readsPods: false,
  fenceposts: rollingUpdateFenceposts,
  budget: rollingUpdateBudget,
  rollout: rolloutRolling,
  describe(d) {
    const ru = d.spec.strategy?.rollingUpdate ?? {};
    return [
      { name: 'MaxSurge', value: String(ru.maxSurge ?? DEFAULT_MAX_SURGE) },
      { name: 'MaxUnavailable', value: String(ru.maxUnavailable ?? DEFAULT_MAX_UNAVAILABLE) },
    ];
  },
};
