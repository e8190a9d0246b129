// Rollout progress: complete, progressing, timed out (the Progressing condition and its deadline,
// measured from lastUpdateTime, or from when DependenciesReady last became True if later, with a
// strict comparison), the paused/resumed conditions, the
// ReplicaFailure copy from the ReplicaSets, and when to look again (requeueStuckDeployment).

import type { Deployment, DeploymentCondition, DeploymentStatus, ReplicaSet } from '../../api/types.ts';
import {
  DEPENDENCIES_READY,
  PROGRESSING,
  REPLICA_FAILURE,
  MESSAGE,
  REASON,
  getCondition,
  newCondition,
  parseTime,
  removeCondition,
  replicaSetToDeploymentCondition,
  setCondition,
} from './conditions.ts';
import type { PassLimits } from '../limits.ts';
import { deploymentReplicas } from './replicasets.ts';
import { calculateStatus } from './status.ts';

const MAX_INT32 = 2147483647;

/** progressDeadlineSeconds is set and not MaxInt32. */
export function hasProgressDeadline(d: Deployment): boolean {
  const s = d.spec.progressDeadlineSeconds;
  return s !== undefined && s !== null && s !== MAX_INT32;
}

/** DeploymentComplete: every replica updated and available, and the spec observed. */
export function deploymentComplete(d: Deployment, status: DeploymentStatus): boolean {
  const replicas = deploymentReplicas(d);
  return (
    (status.updatedReplicas ?? 0) === replicas &&
    (status.replicas ?? 0) === replicas &&
    (status.availableReplicas ?? 0) === replicas &&
    (status.observedGeneration ?? 0) >= (d.metadata.generation ?? 0)
  );
}

/** DeploymentProgressing: more updated, fewer old, more ready or more available than before. */
export function deploymentProgressing(old: DeploymentStatus, next: DeploymentStatus): boolean {
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (next.replicas ?? 0) - (next.updatedReplicas ?? 0);
  return (
    (next.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (next.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (next.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

const timeMs = parseTime;

/**
 * When the progress deadline is counted from: the Progressing condition's lastUpdateTime, or the
 * moment DependenciesReady last became True when that is later (a rollout that waited on its
 * dependencies has not been stuck meanwhile). NaN when the Progressing time is unreadable.
 */
export function progressDeadlineStart(status: DeploymentStatus): number {
  const from = timeMs(getCondition(status, PROGRESSING)?.lastUpdateTime);
  const deps = getCondition(status, DEPENDENCIES_READY);
  if (deps?.status !== 'True') return from;
  const ready = timeMs(deps.lastTransitionTime);
  return Number.isNaN(ready) || ready <= from ? from : ready;
}

/** The analysis holds (analysis/rollout.ts): a person must look, or a canary step's run is under way (canary.ts). */
const ANALYSIS_HOLDS: ReadonlySet<string | undefined> = new Set([
  REASON.analysisPaused,
  REASON.analysisInconclusive,
  REASON.analysisInvalid,
  REASON.analysisRunning,
]);

/**
 * Progressing Unknown while a gate holds the rollout: a plan, for an operator (PlanWaiting) or its
 * turn (PlanPending), the analysis, or its maintenance windows (OutsideWindow, windows.ts). No
 * deadline runs meanwhile.
 */
export function isPlanHold(reason: string | undefined): boolean {
  return (
    reason === REASON.outsideWindow ||
    reason === REASON.planWaiting ||
    reason === REASON.planPending ||
    ANALYSIS_HOLDS.has(reason)
  );
}

/** DeploymentTimedOut: lastUpdateTime (progressDeadlineStart) + deadline strictly before now. */
export function deploymentTimedOut(d: Deployment, status: DeploymentStatus, now: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getCondition(status, PROGRESSING);
  if (!c) return false;
  if (c.reason === REASON.newRSAvailable || isPlanHold(c.reason)) return false;
  if (c.reason === REASON.timedOut) return true;
  const from = progressDeadlineStart(status);
  if (Number.isNaN(from)) return false;
  return from + (d.spec.progressDeadlineSeconds ?? 0) * 1000 < now;
}

/** The ReplicaFailure to report: the new RS's first, else the first of any RS. */
export function replicaFailureCondition(
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
): DeploymentCondition | undefined {
  const first = (rs: ReplicaSet | undefined) => rs?.status?.conditions?.find((c) => c.type === REPLICA_FAILURE);
  const own = first(newRS);
  if (own) return replicaSetToDeploymentCondition(own);
  for (const rs of allRSs) {
    const c = first(rs);
    if (c) return replicaSetToDeploymentCondition(c);
  }
  return undefined;
}

/**
 * syncRolloutStatus's computation: the status after a rollout step, from the working status
 * `current` (whose Progressing condition is the one "as read"), within the pass's `limits`.
 */
export function rolloutStatus(
  d: Deployment,
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  current: DeploymentStatus,
  now: number,
  limits: PassLimits,
): DeploymentStatus {
  const next = calculateStatus(d, allRSs, newRS, current, now, limits.maxUnavailable);
  const deadline = hasProgressDeadline(d);
  if (!deadline) removeCondition(next, PROGRESSING);

  const currentCond = getCondition(current, PROGRESSING);
  const isComplete =
    (next.replicas ?? 0) === (next.updatedReplicas ?? 0) && currentCond?.reason === REASON.newRSAvailable;
  const waiting = deadline && !isComplete && !deploymentComplete(d, next);
  const wait = waiting ? limits.forNew(newRS).hold : undefined;
  if (wait !== undefined) {
    // Held by the plan gate for an operator or by a custom plan: like a pause, no deadline until it goes on.
    const cond = newCondition(PROGRESSING, 'Unknown', wait.reason, wait.message, now);
    const held = getCondition(next, PROGRESSING);
    if (held?.status === 'Unknown' && held.reason === wait.reason && held.message !== wait.message) {
      // What it waits for changed (the next canary step, a plan started): setCondition keeps a
      // condition of the same status and reason as it is, so the message is replaced here; the
      // transition time stays.
      cond.lastTransitionTime = held.lastTransitionTime;
      removeCondition(next, PROGRESSING);
    }
    setCondition(next, cond);
  } else if (deadline && !isComplete) {
    const name = d.metadata.name ?? '';
    if (isPlanHold(currentCond?.reason)) {
      // Continued: the deadline runs from now, as after a resume.
      const cond = ANALYSIS_HOLDS.has(currentCond?.reason)
        ? newCondition(PROGRESSING, 'Unknown', REASON.analysisContinued, MESSAGE.analysisContinued, now)
        : currentCond?.reason === REASON.outsideWindow
          ? newCondition(PROGRESSING, 'Unknown', REASON.windowOpened, MESSAGE.windowOpened, now)
          : newCondition(PROGRESSING, 'Unknown', REASON.planContinued, MESSAGE.planContinued, now);
      setCondition(next, cond);
    }
    if (deploymentComplete(d, next)) {
      const msg = newRS ? MESSAGE.rsProgressed(newRS.metadata.name ?? '') : MESSAGE.deploymentProgressed(name);
      setCondition(next, newCondition(PROGRESSING, 'True', REASON.newRSAvailable, msg, now));
    } else if (deploymentProgressing(current, next)) {
      const msg = newRS ? MESSAGE.rsProgressing(newRS.metadata.name ?? '') : MESSAGE.deploymentProgressing(name);
      const cond = newCondition(PROGRESSING, 'True', REASON.rsUpdated, msg, now);
      // Progress always refreshes lastUpdateTime: drop the old condition rather than "set" it.
      if (currentCond) {
        if (currentCond.status === 'True') cond.lastTransitionTime = currentCond.lastTransitionTime;
        removeCondition(next, PROGRESSING);
      }
      setCondition(next, cond);
    } else if (deploymentTimedOut(d, next, now)) {
      const msg = newRS ? MESSAGE.rsTimedOut(newRS.metadata.name ?? '') : MESSAGE.deploymentTimedOut(name);
      setCondition(next, newCondition(PROGRESSING, 'False', REASON.timedOut, msg, now));
    }
  }

  const failure = replicaFailureCondition(allRSs, newRS);
  if (failure) setCondition(next, failure);
  else removeCondition(next, REPLICA_FAILURE);
  return next;
}

/**
 * checkPausedConditions on the working `status`: Progressing=Unknown DeploymentPaused when paused,
 * DeploymentResumed when no longer paused; a timeout is never overwritten. True when changed.
 */
export function checkPausedConditions(d: Deployment, status: DeploymentStatus, now: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getCondition(status, PROGRESSING);
  if (c?.reason === REASON.timedOut) return false;
  const pausedCondExists = c?.reason === REASON.paused;
  if (d.spec.paused && !pausedCondExists) {
    return setCondition(status, newCondition(PROGRESSING, 'Unknown', REASON.paused, MESSAGE.paused, now));
  }
  if (!d.spec.paused && pausedCondExists) {
    return setCondition(status, newCondition(PROGRESSING, 'Unknown', REASON.resumed, MESSAGE.resumed, now));
  }
  return false;
}

/**
 * requeueStuckDeployment for the status a pass leaves: seconds until the progress deadline,
 * 0 when it is reached (less than a second left), null when no check is needed.
 */
export function requeueStuckDeployment(d: Deployment, status: DeploymentStatus, now: number): number | null {
  const c = getCondition(status, PROGRESSING);
  if (!hasProgressDeadline(d) || !c) return null;
  if (deploymentComplete(d, status) || c.reason === REASON.timedOut || isPlanHold(c.reason)) return null;
  const from = progressDeadlineStart(status);
  if (Number.isNaN(from)) return 0;
  const afterMs = from + (d.spec.progressDeadlineSeconds ?? 0) * 1000 - now;
  if (afterMs < 1000) return 0;
  return afterMs / 1000;
}
