// Rollout outcomes for pacer_rollouts_total and pacer_rollout_duration_seconds, derived from
// consecutive stored states of a Deployment (the informer's old → new on every change).
//
// A rollout of revision R STARTS when the Deployment's pacer.dev/revision annotation changes to R
// (the engine writes it when it creates or picks the new ReplicaSet; a new Deployment's first
// revision counts too). It ENDS with the first of:
//   * complete           the Progressing condition turns (or is renewed as) True/NewReplicaSetAvailable;
//   * deadline_exceeded  the Progressing condition turns False/ProgressDeadlineExceeded;
//   * superseded         the revision changes again before either.
// One outcome per rollout: a rollout that missed its deadline and then recovers is not counted again.
// A scale, or a pause and resume of a finished Deployment, changes Progressing but is no rollout.
//
// The only memory is which revision is in progress and since when (metrics only; nothing the
// controller decides depends on it). After a restart it is rebuilt from the cluster: a Deployment
// first seen with old pods still running (status.replicas > updatedReplicas) or with Progressing
// NewReplicaSetCreated/FoundNewReplicaSet is taken to be rolling out, start unknown; its duration is
// then estimated by rolloutStartEstimate(). Rollouts that end while no controller runs are not counted.

import type { Deployment, ReplicaSet } from '../../api/types.ts';
import { REVISION_ANNOTATION } from '../../engine/index.ts';
import type { RolloutResult } from '../../observe/metrics.ts';

/** What the rule reads from one stored state of a Deployment. */
export interface RolloutView {
  /** The pacer.dev/revision annotation ('' before the controller wrote one). */
  revision: string;
  progressing?: { status: string; reason?: string; lastUpdateTime?: string };
  /** Pods not of the newest template (status.replicas − status.updatedReplicas). */
  oldReplicas: number;
}

/** The rollout the controller believes is running. startedAt (ms) is unknown after a restart. */
export interface InProgress {
  revision: string;
  startedAt?: number;
}

export interface RolloutEnd {
  result: RolloutResult;
  revision: string;
  startedAt?: number;
}

export interface RolloutStep {
  inProgress?: InProgress;
  ended: RolloutEnd[];
}

const TERMINAL: Record<string, { status: string; result: RolloutResult }> = {
  NewReplicaSetAvailable: { status: 'True', result: 'complete' },
  ProgressDeadlineExceeded: { status: 'False', result: 'deadline_exceeded' },
};

function terminal(v: RolloutView): RolloutResult | undefined {
  const p = v.progressing;
  const t = p?.reason !== undefined ? TERMINAL[p.reason] : undefined;
  return t && t.status === p!.status ? t.result : undefined;
}

function sameProgressing(a: RolloutView['progressing'], b: RolloutView['progressing']): boolean {
  return a?.status === b?.status && a?.reason === b?.reason && a?.lastUpdateTime === b?.lastUpdateTime;
}

export function rolloutView(d: Deployment): RolloutView {
  const p = d.status?.conditions?.find((c) => c.type === 'Progressing');
  return {
    revision: d.metadata.annotations?.[REVISION_ANNOTATION] ?? '',
    ...(p ? { progressing: { status: p.status, reason: p.reason, lastUpdateTime: p.lastUpdateTime } } : {}),
    oldReplicas: Math.max(0, (d.status?.replicas ?? 0) - (d.status?.updatedReplicas ?? 0)),
  };
}

/**
 * One stored change of a Deployment: `before` is the previous state (undefined when first seen:
 * creation, or the first list after a restart), `after` the new one, `now` the time it was seen.
 */
export function rolloutStep(
  current: InProgress | undefined,
  before: RolloutView | undefined,
  after: RolloutView,
  now: number,
): RolloutStep {
  const ended: RolloutEnd[] = [];
  if (!before) {
    const rolling =
      after.revision !== '' &&
      terminal(after) === undefined &&
      (after.oldReplicas > 0 ||
        after.progressing?.reason === 'NewReplicaSetCreated' ||
        after.progressing?.reason === 'FoundNewReplicaSet');
    return { ...(rolling ? { inProgress: { revision: after.revision } } : {}), ended };
  }
  let inProgress = current;
  if (after.revision !== before.revision && after.revision !== '') {
    if (inProgress && inProgress.revision !== after.revision) ended.push({ result: 'superseded', ...inProgress });
    inProgress = { revision: after.revision, startedAt: now };
  }
  const result = terminal(after);
  if (
    inProgress &&
    inProgress.revision === after.revision &&
    result &&
    !sameProgressing(before.progressing, after.progressing)
  ) {
    ended.push({ result, ...inProgress });
    inProgress = undefined;
  }
  return { ...(inProgress ? { inProgress } : {}), ended };
}

/**
 * When a rollout whose start the controller did not see (a restart) probably started: the later of
 * the new ReplicaSet's creation (exact for a new template, too early for a rollback to a kept
 * ReplicaSet) and the Progressing condition's last transition to True (exact for a first rollout or
 * one after a missed deadline, too late when the rollout was paused and resumed). Undefined when
 * neither is known: the outcome is counted without a duration.
 */
export function rolloutStartEstimate(d: Deployment, newRS: ReplicaSet | undefined): number | undefined {
  const times: number[] = [];
  const created = Date.parse(newRS?.metadata.creationTimestamp ?? '');
  if (Number.isFinite(created)) times.push(created);
  const p = d.status?.conditions?.find((c) => c.type === 'Progressing');
  const transition = p?.status === 'True' ? Date.parse(p.lastTransitionTime ?? '') : Number.NaN;
  if (Number.isFinite(transition)) times.push(transition);
  return times.length > 0 ? Math.max(...times) : undefined;
}
