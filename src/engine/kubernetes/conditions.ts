// Deployment conditions with upstream's helpers: a condition is replaced only when its status or
// reason changes (a new message alone is not news), keeps its lastTransitionTime while the status
// holds, and moves to the end of the list when replaced. Reasons and messages are upstream's.

import type { ConditionStatus, DeploymentCondition, DeploymentStatus, ReplicaSetCondition } from '../../api/types.ts';

export const AVAILABLE = 'Available';
export const PROGRESSING = 'Progressing';
export const REPLICA_FAILURE = 'ReplicaFailure';
/** Pacer's own condition for a spec that failed validation. */
export const INVALID_SPEC = 'InvalidSpec';
/** Pacer's own condition: whether every Deployment in spec.dependencies is complete (dependencies.ts). */
export const DEPENDENCIES_READY = 'DependenciesReady';

export const REASON = {
  newRSCreated: 'NewReplicaSetCreated',
  foundNewRS: 'FoundNewReplicaSet',
  rsUpdated: 'ReplicaSetUpdated',
  newRSAvailable: 'NewReplicaSetAvailable',
  timedOut: 'ProgressDeadlineExceeded',
  failedRSCreate: 'ReplicaSetCreateError',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
  minimumReplicasAvailable: 'MinimumReplicasAvailable',
  minimumReplicasUnavailable: 'MinimumReplicasUnavailable',
  invalidSpec: 'InvalidSpec',
  planWaiting: 'PlanWaiting',
  /** Held by a custom plan until the steps before it are COMPLETE (no operator needed). */
  planPending: 'PlanPending',
  planContinued: 'PlanContinued',
  /** Held by the freeze switch (freeze.ts), and released by lifting it. */
  frozen: 'Frozen',
  freezeLifted: 'FreezeLifted',
  /** Unknown: a rollout waits for its maintenance window (windows.ts); WindowOpened once it opens. */
  outsideWindow: 'OutsideWindow',
  windowOpened: 'WindowOpened',
  /** False: the new revision's analysis run failed or errored; the rollout went back (analysis/rollout.ts). */
  analysisFailed: 'AnalysisFailed',
  /** Unknown: held for a person after a failed run (onFailure Pause). */
  analysisPaused: 'AnalysisPaused',
  /** Unknown: the run was Inconclusive; held for a person. */
  analysisInconclusive: 'AnalysisInconclusive',
  /** Unknown: the analysis cannot be built (a template missing, an argument without a value); held. */
  analysisInvalid: 'AnalysisInvalid',
  /** Unknown: a canary step waits for its analysis run to succeed (analysis/canary.ts). */
  analysisRunning: 'AnalysisRunning',
  /** Unknown: an analysis hold was released (a new run); the deadline runs from now. */
  analysisContinued: 'AnalysisContinued',
} as const;

export const MESSAGE = {
  minimumAvailable: 'Deployment has minimum availability.',
  minimumUnavailable: 'Deployment does not have minimum availability.',
  paused: 'Deployment is paused',
  resumed: 'Deployment is resumed',
  planWaiting: (why: string) => `Deployment waits for an operator: ${why}`,
  planContinued: 'Deployment plan continues',
  analysisContinued: 'Deployment analysis continues',
  freezeLifted: 'Pacer is no longer frozen',
  windowOpened: 'A maintenance window is open: the rollout goes on',
  foundNewRS: (rs: string) => `Found new replica set "${rs}"`,
  newRSCreated: (rs: string) => `Created new replica set "${rs}"`,
  failedRSCreate: (rs: string, err: string) => `Failed to create new replica set "${rs}": ${err}`,
  rsProgressed: (rs: string) => `ReplicaSet "${rs}" has successfully progressed.`,
  deploymentProgressed: (d: string) => `Deployment "${d}" has successfully progressed.`,
  rsProgressing: (rs: string) => `ReplicaSet "${rs}" is progressing.`,
  deploymentProgressing: (d: string) => `Deployment "${d}" is progressing.`,
  rsTimedOut: (rs: string) => `ReplicaSet "${rs}" has timed out progressing.`,
  deploymentTimedOut: (d: string) => `Deployment "${d}" has timed out progressing.`,
} as const;

let lastFormatted = { ms: Number.NaN, text: '' };

/** RFC 3339 with milliseconds, UTC. (A pass formats the same instant many times: remember the last.) */
export function formatTime(ms: number): string {
  if (ms !== lastFormatted.ms) lastFormatted = { ms, text: new Date(ms).toISOString() };
  return lastFormatted.text;
}

const parsedTimes = new Map<string, number>();

/** A timestamp in ms (NaN when unparseable); the few distinct timestamps in play are remembered. */
export function parseTime(t: string | undefined): number {
  if (t === undefined) return Number.NaN;
  let ms = parsedTimes.get(t);
  if (ms === undefined) {
    if (parsedTimes.size > 10_000) parsedTimes.clear();
    ms = Date.parse(t);
    parsedTimes.set(t, ms);
  }
  return ms;
}

/** NewDeploymentCondition: both times are now. */
export function newCondition(
  type: string,
  status: ConditionStatus,
  reason: string,
  message: string,
  now: number,
): DeploymentCondition {
  const t = formatTime(now);
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

export function getCondition(status: DeploymentStatus | undefined, type: string): DeploymentCondition | undefined {
  const cs = status?.conditions;
  if (!cs) return undefined;
  for (const c of cs) if (c.type === type) return c;
  return undefined;
}

/**
 * SetDeploymentCondition on `status` (its conditions array is replaced, never mutated in place).
 * Returns true when the conditions changed.
 */
export function setCondition(status: DeploymentStatus, condition: DeploymentCondition): boolean {
  const current = getCondition(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return false;
  const next =
    current && current.status === condition.status
      ? { ...condition, lastTransitionTime: current.lastTransitionTime }
      : condition;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== condition.type), next];
  return true;
}

/** RemoveDeploymentCondition; true when one was removed. */
export function removeCondition(status: DeploymentStatus, type: string): boolean {
  if (!getCondition(status, type)) return false;
  status.conditions = (status.conditions ?? []).filter((c) => c.type !== type);
  return true;
}

/** ReplicaSetToDeploymentCondition: the RS condition's lastTransitionTime stands for both times. */
export function replicaSetToDeploymentCondition(c: ReplicaSetCondition): DeploymentCondition {
  const out: DeploymentCondition = { type: c.type, status: c.status };
  if (c.lastTransitionTime !== undefined) {
    out.lastUpdateTime = c.lastTransitionTime;
    out.lastTransitionTime = c.lastTransitionTime;
  }
  if (c.reason !== undefined) out.reason = c.reason;
  if (c.message !== undefined) out.message = c.message;
  return out;
}

/** Conditions whose changes are announced with an Event. */
export const EVENT_CONDITIONS: readonly string[] = [
  PROGRESSING,
  AVAILABLE,
  REPLICA_FAILURE,
  INVALID_SPEC,
  DEPENDENCIES_READY,
];

/** Reasons that mean something is wrong: their condition events are Warnings (a cycle never resolves by waiting). */
export const WARNING_REASONS: ReadonlySet<string> = new Set([
  REASON.timedOut,
  REASON.failedRSCreate,
  REASON.minimumReplicasUnavailable,
  REASON.invalidSpec,
  REASON.analysisFailed,
  REASON.analysisInconclusive,
  REASON.analysisInvalid,
  'DependencyCycle',
]);

/** Progressing's reasons while a rollout moves (True throughout). */
const IN_PROGRESS_REASONS: ReadonlySet<string> = new Set([REASON.newRSCreated, REASON.foundNewRS, REASON.rsUpdated]);

/** A rollout moves: Progressing says so, or pods of an older template are still counted (Recreate's old pods terminating). */
const rolling = (s: DeploymentStatus | undefined): boolean => {
  const p = getCondition(s, PROGRESSING);
  return (
    (p?.status === 'True' && IN_PROGRESS_REASONS.has(p.reason ?? '')) || (s?.replicas ?? 0) > (s?.updatedReplicas ?? 0)
  );
};

/**
 * The Events of a status write: what the ScalingReplicaSet events of the writes do not already tell.
 * A rollout that goes as planned (a create included) records only its scaling events, as upstream's
 * controller, which records no condition at all; its Progressing reasons stay in the status.
 * * Progressing: an event when its status changes or it appears other than True (the deadline
 *   exceeded, paused, resumed, moving again after either); a new reason under True is none.
 * * Available: an event when it changes while no rollout moves (rolling: Progressing True with an
 *   in-progress reason, or pods of an older template still counted): lost in a steady Deployment
 *   (Warning), regained after such a loss. Lost or regained during a rollout (a new Deployment's
 *   first pods, Recreate's planned gap, pods lost mid-rollout) is none: the progress deadline
 *   speaks for a rollout that does not get there. Its first appearance is none (no pods yet).
 * * ReplicaFailure, InvalidSpec, DependenciesReady: an event when it appears or changes.
 * A changed message alone is no event (setCondition does not treat it as news); a removed condition
 * has no reason to tell. Warning for the failure reasons above and for ReplicaFailure=True (the
 * ReplicaSet's own reason, e.g. FailedCreate), Normal otherwise.
 */
export function conditionChangeEvents(
  before: DeploymentStatus | undefined,
  after: DeploymentStatus,
): Array<{ type: 'Normal' | 'Warning'; reason: string; message: string }> {
  const out: Array<{ type: 'Normal' | 'Warning'; reason: string; message: string }> = [];
  for (const c of after.conditions ?? []) {
    if (!EVENT_CONDITIONS.includes(c.type)) continue;
    const prev = getCondition(before, c.type);
    if (prev && prev.status === c.status && prev.reason === c.reason) continue;
    if (c.type === PROGRESSING && (prev ? prev.status === c.status : c.status === 'True')) continue;
    // Regained: judged by the state it recovers from; lost: by either side (Recreate's old pods can
    // all be gone by the write that loses it, whose Progressing still reads NewReplicaSetAvailable).
    if (c.type === AVAILABLE && (!prev || rolling(before) || (c.status !== 'True' && rolling(after)))) continue;
    const reason = c.reason || c.type;
    const warning = WARNING_REASONS.has(reason) || (c.type === REPLICA_FAILURE && c.status === 'True');
    out.push({ type: warning ? 'Warning' : 'Normal', reason, message: c.message ?? '' });
  }
  return out;
}
