// Scaling a Deployment with several active ReplicaSets (a resize during a rollout, or while
// paused): each active ReplicaSet gets its proportion of the change, measured against the
// max-replicas it was sized for; the leftover goes to the first in order. Surge is allowed.

import type { Deployment, ReplicaSet } from '../../api/types.ts';
import { maxReplicasAnnotation, replicasAnnotationsNeedUpdate } from './annotations.ts';
import type { DecisionPass } from './pass.ts';
import { latest, scaleReplicaSet, scaleReplicaSetAndRecordEvent } from './pass.ts';
import { oldPodsRunning } from './recreate.ts';
import {
  activeReplicaSets,
  compareByCreation,
  deploymentReplicas,
  desiredReplicasOf,
  findActiveOrLatest,
  isActive,
  isSaturated,
  specReplicaSum,
  specReplicas,
} from './replicasets.ts';

/** math.Round: half away from zero. */
export function roundHalfAwayFromZero(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

/**
 * getReplicaSetFraction: how many replicas `rs` gains (or loses) when the Deployment's max size
 * moves from what `rs` was sized for (max-replicas, else status.replicas) to replicas + surge
 * (`maxSurge`, the pass's MaxSurge: limits.ts).
 */
export function replicaSetFraction(rs: ReplicaSet, d: Deployment, maxSurge: number): number {
  const spec = specReplicas(rs);
  const replicas = deploymentReplicas(d);
  if (replicas === 0) return -spec;
  const dMax = replicas + maxSurge;
  const annotated = maxReplicasAnnotation(rs);
  let before = annotated.valid ? annotated.value : 0;
  if (before === 0) {
    before = d.status?.replicas ?? 0;
    if (before === 0) return 0;
  }
  return roundHalfAwayFromZero((spec * dMax) / before) - spec;
}

/** GetReplicaSetProportion: the fraction, bounded by what is still left to add (or remove). */
export function replicaSetProportion(
  rs: ReplicaSet | undefined,
  d: Deployment,
  toAdd: number,
  added: number,
  maxSurge: number,
): number {
  if (!rs || specReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d, maxSurge);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/** Size descending; ties newer first (scaling up) or older first (scaling down). */
export function sortForProportionalScaling(rss: readonly ReplicaSet[], scalingUp: boolean): ReplicaSet[] {
  return [...rss].sort((a, b) => {
    const d = specReplicas(b) - specReplicas(a);
    if (d !== 0) return d;
    return scalingUp ? compareByCreation(b, a) : compareByCreation(a, b);
  });
}

/**
 * The new sizes of the active ReplicaSets under proportional scaling, in the order upstream
 * writes them. `toAdd` 0 leaves every size as it is (the writes then only refresh annotations).
 */
export function proportionalSizes(
  d: Deployment,
  active: readonly ReplicaSet[],
  maxSurge: number,
): Array<{ rs: ReplicaSet; replicas: number }> {
  const replicas = deploymentReplicas(d);
  const allowed = replicas > 0 ? replicas + maxSurge : 0;
  const toAdd = allowed - specReplicaSum(active);
  const ordered = toAdd === 0 ? [...active] : sortForProportionalScaling(active, toAdd > 0);
  let added = 0;
  const sizes = ordered.map((rs) => {
    if (toAdd === 0) return { rs, replicas: specReplicas(rs) };
    const p = replicaSetProportion(rs, d, toAdd, added, maxSurge);
    added += p;
    return { rs, replicas: specReplicas(rs) + p };
  });
  if (toAdd !== 0 && sizes.length > 0) {
    sizes[0].replicas = Math.max(0, sizes[0].replicas + toAdd - added);
  }
  return sizes;
}

/** isScalingEvent: an active ReplicaSet was sized for a different spec.replicas. */
export function isScalingEvent(d: Deployment, allRSs: readonly (ReplicaSet | undefined)[]): boolean {
  const replicas = deploymentReplicas(d);
  for (const rs of activeReplicaSets(allRSs)) {
    const desired = desiredReplicasOf(rs);
    if (desired !== undefined && desired !== replicas) return true;
  }
  return false;
}

/** Refreshes desired-/max-replicas on `rs` without resizing it (Pacer's departure, see scale()). */
function refreshAnnotations(pass: DecisionPass, rs: ReplicaSet): void {
  const replicas = deploymentReplicas(pass.d);
  if (replicasAnnotationsNeedUpdate(rs, replicas, replicas + pass.limits.maxSurge))
    scaleReplicaSet(pass, rs, specReplicas(rs));
}

/**
 * Recreate's promise on the scaling path: under a strategy that does not replace pods gradually,
 * `rs` may not grow while pods of the Deployment's other ReplicaSets may still run (recreate.ts
 * oldPodsRunning, with `rs` as the new one).
 */
function mustWaitForOldPods(
  pass: DecisionPass,
  rs: ReplicaSet,
  newRS: ReplicaSet | undefined,
  oldRSs: readonly ReplicaSet[],
): boolean {
  if (pass.limits.gradual || specReplicas(rs) >= deploymentReplicas(pass.d)) return false;
  const others = [newRS, ...oldRSs].filter(
    (x): x is ReplicaSet => x !== undefined && x.metadata.uid !== rs.metadata.uid,
  );
  return oldPodsRunning(rs, others, pass.rss, pass.pods);
}

/**
 * scale(): one active (or the latest) ReplicaSet takes spec.replicas; a saturated new ReplicaSet
 * lets the old ones go to 0; otherwise, under RollingUpdate (and MinimumHealth, with its surge),
 * every active ReplicaSet is resized proportionally.
 *
 * Departure from upstream (kubernetes#138036/#138840): when the only active ReplicaSet already has
 * the size, or the strategy is Recreate, upstream leaves a stale desired-replicas annotation and
 * every later pass is a scaling event again, so the rollout never finishes. Pacer refreshes the
 * annotations of the active ReplicaSets in those cases.
 *
 * Second departure: under Recreate, upstream's scale() grows the latest ReplicaSet when none is
 * active, even while the old pods it waits for are still terminating (a Deployment paused in that
 * wait, with its new ReplicaSet already there at 0: a template edited back). Pacer waits, as the
 * rollout does, until they are gone.
 */
export function scale(pass: DecisionPass, newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): void {
  const d = pass.d;
  const replicas = deploymentReplicas(d);
  const one = findActiveOrLatest(newRS, oldRSs);
  if (one) {
    if (specReplicas(one) === replicas) {
      if (isActive(one)) refreshAnnotations(pass, one);
      return;
    }
    if (mustWaitForOldPods(pass, one, newRS, oldRSs)) return;
    scaleReplicaSetAndRecordEvent(pass, one, replicas);
    return;
  }
  if (isSaturated(d, newRS)) {
    for (const old of activeReplicaSets(oldRSs)) scaleReplicaSetAndRecordEvent(pass, old, 0);
    return;
  }
  if (pass.limits.gradual) {
    for (const { rs, replicas: size } of proportionalSizes(
      d,
      activeReplicaSets([...oldRSs, newRS]),
      pass.limits.maxSurge,
    )) {
      scaleReplicaSet(pass, latest(pass, rs) ?? rs, size);
    }
    return;
  }
  for (const rs of activeReplicaSets([...oldRSs, newRS])) refreshAnnotations(pass, latest(pass, rs) ?? rs);
}
