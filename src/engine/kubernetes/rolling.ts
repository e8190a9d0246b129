// RollingUpdate rules: how far the new ReplicaSet may grow (up to a total, never past
// spec.replicas), and how far the old ones may shrink (unhealthy replicas first, then down to
// a minimum available, oldest ReplicaSet first). One step per pass: the rollout step
// (strategies/rollingupdate.ts) stops after a scale-up. The bounds are the pass's limits
// (limits.ts): the strategy's budget (RollingUpdate's from maxSurge and maxUnavailable,
// MinimumHealth's from minimumhealth.ts; the machinery is the same) and what the gates hold back.

import type { Deployment, ReplicaSet } from '../../api/types.ts';
import type { PassLimits, RolloutBudget } from '../limits.ts';
import type { DecisionPass } from './pass.ts';
import { latest, scaleReplicaSetAndRecordEvent } from './pass.ts';
import {
  availableReplicaSum,
  availableReplicas,
  deploymentReplicas,
  sortByCreation,
  specReplicaSum,
  specReplicas,
} from './replicasets.ts';

/** The strategy's budget for the new ReplicaSet `newRS` as it is now (none: the type is not supported). */
function budgetOf(limits: PassLimits, newRS: ReplicaSet | undefined): RolloutBudget {
  const budget = limits.forNew(newRS).budget;
  if (!budget) throw new Error(limits.unsupported ?? 'no rollout budget');
  return budget;
}

/** `want` replicas for the new ReplicaSet within the gates' cap: growth stops there, nothing is taken away. */
function gated(want: number, own: number, cap: number): number {
  return Math.max(Math.min(want, own), Math.min(want, cap));
}

/**
 * The size the new ReplicaSet goes to now (its current size: nothing to do): spec.replicas when it
 * is at or above it, else upstream's NewRSNewReplicas within the pass's limits. A ReplicaSet about
 * to be created is sized by the same rule (newreplicaset.ts).
 */
export function newReplicaSetTarget(
  d: Deployment,
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet,
  limits: PassLimits,
): number {
  const replicas = deploymentReplicas(d);
  const own = specReplicas(newRS);
  if (own === replicas) return own;
  if (own > replicas) return replicas;
  const { cap } = limits.forNew(newRS);
  // A strategy without a budget (Recreate) starts the new ReplicaSet with every replica.
  if (limits.unsupported === undefined && !limits.forNew(newRS).budget) return gated(replicas, own, cap);
  const { maxTotal } = budgetOf(limits, newRS);
  const current = specReplicaSum(allRSs);
  if (current >= maxTotal) return own;
  return gated(own + Math.min(maxTotal - current, replicas - own), own, cap);
}

/** reconcileNewReplicaSet: true when the new ReplicaSet was scaled. */
export function reconcileNewReplicaSet(
  pass: DecisionPass,
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet,
): boolean {
  return scaleReplicaSetAndRecordEvent(pass, newRS, newReplicaSetTarget(pass.d, allRSs, newRS, pass.limits)).scaled;
}

/** Thrown where upstream returns an error that reconcileOldReplicaSets swallows. */
class InvalidScaleDown extends Error {}

/**
 * cleanupUnhealthyReplicas: scales old ReplicaSets (oldest first) down by their unavailable
 * replicas, at most `maxCleanupCount` in total. Returns the old ReplicaSets as updated and the count.
 */
export function cleanupUnhealthyReplicas(
  pass: DecisionPass,
  oldRSs: readonly ReplicaSet[],
  maxCleanupCount: number,
): { oldRSs: ReplicaSet[]; count: number } {
  const sorted = sortByCreation(oldRSs);
  let total = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (total >= maxCleanupCount) break;
    const rs = sorted[i];
    const spec = specReplicas(rs);
    if (spec === 0 || spec === availableReplicas(rs)) continue;
    const n = Math.min(maxCleanupCount - total, spec - availableReplicas(rs));
    const target = spec - n;
    if (target > spec)
      throw new InvalidScaleDown(
        `when cleaning up unhealthy replicas, got invalid request to scale down ${rs.metadata.namespace}/${rs.metadata.name} ${spec} -> ${target}`,
      );
    sorted[i] = scaleReplicaSetAndRecordEvent(pass, rs, target).rs;
    total += n;
  }
  return { oldRSs: sorted, count: total };
}

/**
 * scaleDownOldReplicaSetsForRollingUpdate: with more than `min` available (RollingUpdate's
 * minAvailable unless given), scales old ReplicaSets (oldest first) down by the excess. Returns the
 * count scaled down.
 */
export function scaleDownOldReplicaSetsForRollingUpdate(
  pass: DecisionPass,
  allRSs: readonly ReplicaSet[],
  oldRSs: readonly ReplicaSet[],
  min = deploymentReplicas(pass.d) - pass.limits.maxUnavailable,
  limit = Infinity,
): number {
  const available = availableReplicaSum(allRSs);
  if (available <= min) return 0;
  const toScale = Math.min(available - min, limit);
  let done = 0;
  for (const rs of sortByCreation(oldRSs)) {
    if (done >= toScale) break;
    const spec = specReplicas(rs);
    if (spec === 0) continue;
    const n = Math.min(spec, toScale - done);
    const target = spec - n;
    if (target > spec)
      throw new InvalidScaleDown(
        `when scaling down old replica sets, got invalid request to scale down ${rs.metadata.namespace}/${rs.metadata.name} ${spec} -> ${target}`,
      );
    scaleReplicaSetAndRecordEvent(pass, rs, target);
    done += n;
  }
  return done;
}

/**
 * reconcileOldReplicaSets(allRSs, active old RSs, newRS): true when an old ReplicaSet was scaled
 * down. Errors inside are swallowed as upstream does (no scaling reported, writes already issued stay).
 */
export function reconcileOldReplicaSets(
  pass: DecisionPass,
  allRSs: readonly ReplicaSet[],
  oldRSs: readonly ReplicaSet[],
  newRS: ReplicaSet,
): boolean {
  const oldPods = specReplicaSum(oldRSs);
  if (oldPods === 0) return false;
  const allPods = specReplicaSum(allRSs);
  const min = budgetOf(pass.limits, newRS).minAvailable;
  // The gates (limits.ts): force-completed slots count as available; the old ReplicaSets keep the
  // slots not yet released.
  const forcedAvailable = pass.limits.forNew(newRS).available - availableReplicas(newRS);
  const newUnavailable = specReplicas(newRS) - availableReplicas(newRS) - forcedAvailable;
  const maxScaledDown = Math.min(
    allPods - min - newUnavailable,
    oldPods - pass.limits.forNew(latest(pass, newRS) ?? newRS).oldFloor,
  );
  if (maxScaledDown <= 0) return false;
  try {
    const cleanup = cleanupUnhealthyReplicas(pass, oldRSs, maxScaledDown);
    const current = latest(pass, newRS) ?? newRS;
    const scaledDown = scaleDownOldReplicaSetsForRollingUpdate(
      pass,
      [...cleanup.oldRSs, current],
      cleanup.oldRSs,
      min - forcedAvailable,
      maxScaledDown - cleanup.count,
    );
    return cleanup.count + scaledDown > 0;
  } catch (e) {
    if (e instanceof InvalidScaleDown) return false;
    throw e;
  }
}
