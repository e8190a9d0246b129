// What a Deployment's spec.analysis does to its rollout (docs/semantics/analysis.md#a-rollout-under-analysis):
// which revision is judged (the new one, against the stable one: status.stableRS), when its run
// starts (startAfterAvailable) and ends (with the rollout, or postRollout later), the run built from
// the templates and the Deployment's arguments, and what a run's outcome makes of the rollout: go on,
// hold for a person (Pause, Inconclusive, an analysis that cannot be built), abort to the stable
// revision, or roll the spec back to it. Pure: the pass (decide.ts) carries the verdict out.

import type { AnalysisRun } from '../../api/analysis.ts';
import { parseGoDuration } from '../../api/duration.ts';
import { scaledValue } from '../../api/intstr.ts';
import type {
  Deployment,
  DeploymentAnalysis,
  DeploymentStatus,
  PodFailureCheck,
  Pod,
  ReplicaSet,
} from '../../api/types.ts';
import {
  getCondition,
  newCondition,
  PROGRESSING,
  REASON,
  removeCondition,
  setCondition,
} from '../kubernetes/conditions.ts';
import { getAllReplicaSetsAndSyncRevision, templateHash } from '../kubernetes/newreplicaset.ts';
import { deploymentComplete } from '../kubernetes/progress.ts';
import { latest } from '../kubernetes/pass.ts';
import type { DecisionPass } from '../kubernetes/pass.ts';
import { reconcileNewReplicaSet, reconcileOldReplicaSets } from '../kubernetes/rolling.ts';
import { rollbackTo } from '../kubernetes/rollback.ts';
import { calculateStatus } from '../kubernetes/status.ts';
import { POD_TEMPLATE_HASH_LABEL } from '../kubernetes/hash.ts';
import { REVISION_ANNOTATION, revisionOf } from '../kubernetes/annotations.ts';
import { activeReplicaSets, availableReplicas, deploymentReplicas } from '../kubernetes/replicasets.ts';
import type { PlanHold } from '../dcos/custom.ts';
import type { AnalysisInputs, AnalysisRunWrite, EventRecord } from '../types.ts';
import { type CanaryStepVerdict, canaryStepVerdict } from './canary.ts';
import { isCompleted } from './assess.ts';
import { ABORT_ANNOTATION, buildRun, currentRun, hashOf, nextAttempt, RETRY_ANNOTATION } from './runs.ts';

export type { AnalysisInputs, AnalysisRunWrite };

/** What the analysis makes of this pass. */
export interface AnalysisVerdict {
  /** Hold the new revision where it is (no growth; the old ones give up only the surge), Progressing Unknown. */
  hold?: PlanHold;
  /** Return to the stable revision: scale it back up and every other one down, within the budget. */
  abort?: { stable: ReplicaSet; message: string; rollback: boolean };
  /** Runs to start or stop. */
  writes: AnalysisRunWrite[];
  /** When to look again (post-rollout analysis ends then). */
  requeueAfterSeconds?: number;
  /** The run that judges the new revision, if there is one. */
  run?: AnalysisRun;
  /** The built-in pod check failed the new revision (kept in status.abortedRS). */
  podCheckFailed?: boolean;
  /** A canary step's run succeeded: the phase state (pacer.dev/plan-state) that continues it (canary.ts). */
  planState?: string;
  /** Recorded with the Deployment's update that writes planState. */
  event?: EventRecord;
}

/** The new available replicas after which the run starts: startAfterAvailable of spec.replicas (default 1), at least 1. */
export function startThreshold(a: DeploymentAnalysis, replicas: number): number {
  const v = a.startAfterAvailable ?? 1;
  let n: number;
  try {
    n = scaledValue(v, replicas, true);
  } catch {
    n = 1; // validation refuses such a value first
  }
  return Math.max(1, Math.min(n, replicas));
}

/** Waiting reasons that mean the kubelet backs off: the container will not start as it is. */
const BACK_OFF = new Set(['CrashLoopBackOff', 'ImagePullBackOff', 'ErrImagePull']);

interface ContainerStatusLite {
  name?: string;
  restartCount?: number;
  state?: { waiting?: { reason?: string; message?: string } };
}

export const DEFAULT_POD_FAILURE_WINDOW = '30s';
export const DEFAULT_POD_FAILURE_RESTARTS = 3;

/**
 * The built-in pod check over the new revision's pods (pod-template-hash `hash`): the first that
 * fails it, in words, or when to look again (a pod backing off that is younger than the window).
 */
export function podFailure(
  check: PodFailureCheck,
  pods: readonly Pod[],
  hash: string,
  now: number,
): { failure?: string; recheckSeconds?: number } {
  const windowMs = parseGoDuration(check.window ?? DEFAULT_POD_FAILURE_WINDOW) ?? 30_000;
  const restarts = check.restarts ?? DEFAULT_POD_FAILURE_RESTARTS;
  let recheck: number | undefined;
  for (const pod of pods) {
    if (pod.metadata.labels?.[POD_TEMPLATE_HASH_LABEL] !== hash || pod.metadata.deletionTimestamp) continue;
    const name = `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;
    const statuses = Array.isArray(pod.status?.containerStatuses)
      ? (pod.status.containerStatuses as ContainerStatusLite[])
      : [];
    for (const c of statuses) {
      if ((c.restartCount ?? 0) > restarts)
        return {
          failure: `pod ${name}: container ${c.name} restarted ${c.restartCount} times (more than ${restarts})`,
        };
    }
    const backingOff = statuses.find((c) => BACK_OFF.has(c.state?.waiting?.reason ?? ''));
    if (!backingOff) continue;
    const age = now - Date.parse(pod.metadata.creationTimestamp ?? '');
    if (!(age < windowMs)) {
      const why = backingOff.state?.waiting?.message ? `: ${backingOff.state.waiting.message}` : '';
      return {
        failure: `pod ${name}: container ${backingOff.name} is in ${backingOff.state?.waiting?.reason}${why}`,
      };
    }
    const left = (windowMs - age) / 1000;
    recheck = Math.min(recheck ?? Number.POSITIVE_INFINITY, left);
  }
  return recheck !== undefined ? { recheckSeconds: recheck } : {};
}

/** Where an aborted rollout went, in words. */
function wentBack(stable: ReplicaSet, rollback: boolean): string {
  const revision = stable.metadata.annotations?.[REVISION_ANNOTATION] ?? '?';
  return `the rollout ${rollback ? 'is rolled back' : 'was aborted'} to revision ${revision} (ReplicaSet "${stable.metadata.name}")`;
}

/** The stable ReplicaSet is gone (history cleaned up): nowhere to go back to, so the rollout is held. */
function goneHold(why: string, stable: string | undefined): PlanHold {
  return {
    reason: REASON.analysisPaused,
    message:
      stable === undefined
        ? `${why}; no revision has completed yet, so there is none to go back to and the rollout is paused`
        : `${why}; the stable revision (pod-template-hash ${stable}) is gone, so the rollout is paused`,
  };
}

/** When the rollout of the new revision completed (Progressing NewReplicaSetAvailable), in ms; NaN when it has not. */
function completedAt(status: DeploymentStatus | undefined): number {
  const c = getCondition(status, PROGRESSING);
  if (c?.reason !== REASON.newRSAvailable) return Number.NaN;
  return Date.parse(c.lastTransitionTime ?? '');
}

/**
 * The analysis verdict of a pass of `d` (defaulted, valid), whose new ReplicaSet is `newRS`
 * (undefined: not created yet) among `owned`, as the status was read.
 */
export function analysisVerdict(
  d: Deployment,
  owned: readonly ReplicaSet[],
  newRS: ReplicaSet | undefined,
  inputs: AnalysisInputs | undefined,
  pods: readonly Pod[],
  now: number,
  dependents?: readonly Deployment[],
): AnalysisVerdict {
  const a = d.spec.analysis;
  const verdict: AnalysisVerdict = { writes: [] };
  if (!a || !inputs) return verdict;
  const status = d.status ?? {};
  const stable = status.stableRS;
  const hash = hashOf(newRS);
  // Nothing to judge: the new revision is the stable one.
  if (hash === undefined || hash === stable || deploymentReplicas(d) === 0) return verdict;
  const stableRS = stable === undefined ? undefined : owned.find((rs) => hashOf(rs) === stable);
  /** What onFailure makes of a failure: hold (Pause, or nowhere to go back to), roll back, or abort. */
  const failed = (why: string): AnalysisVerdict => {
    const onFailure = a.onFailure ?? 'Abort';
    if (onFailure === 'Pause')
      return { ...verdict, hold: { reason: REASON.analysisPaused, message: `${why}; the rollout is paused` } };
    if (!stableRS) return { ...verdict, hold: goneHold(why, stable) };
    const rollback = onFailure === 'Rollback';
    return { ...verdict, abort: { stable: stableRS, rollback, message: `${why}; ${wentBack(stableRS, rollback)}` } };
  };
  // The first rollout (no revision completed yet) is judged only at its canary steps.
  if (stable === undefined) {
    const steps = canaryStepVerdict(d, newRS, inputs, stable);
    return steps.failure !== undefined ? failed(steps.failure) : withSteps(verdict, steps);
  }
  if (a.podFailures) {
    // A revision the check failed stays failed (its pods are gone once it is aborted): status.abortedRS.
    if (status.abortedRS === hash) {
      const said = getCondition(status, PROGRESSING);
      const why = said?.reason === REASON.analysisFailed ? said.message?.split('; the rollout')[0] : undefined;
      return { ...failed(why ?? `The pod check failed revision ${hash}`), podCheckFailed: true };
    }
    const check = podFailure(a.podFailures, pods, hash, now);
    if (check.failure) return { ...failed(`The pod check failed: ${check.failure}`), podCheckFailed: true };
    if (check.recheckSeconds !== undefined) verdict.requeueAfterSeconds = check.recheckSeconds;
  }
  if (d.metadata.annotations?.[ABORT_ANNOTATION] === hash) {
    const why = 'The rollout was aborted by a person (kubectl pacer rollout abort)';
    if (!stableRS) return { ...verdict, hold: goneHold(why, stable) };
    return {
      ...verdict,
      abort: { stable: stableRS, rollback: false, message: `${why}; ${wentBack(stableRS, false)}` },
    };
  }
  // A dependent aborted by its analysis aborts this one too (the whole Marathon-style deployment
  // goes back), once it is back itself: dependents first.
  const aborted = (dependents ?? []).filter(abortedByAnalysis);
  if (aborted.length > 0) {
    if (aborted.some((x) => (x.status?.updatedReplicas ?? 0) > 0)) return verdict;
    const names = aborted.map((x) => `${x.metadata.namespace ?? 'default'}/${x.metadata.name}`).join(', ');
    return failed(
      `Deployment ${names}, which depends on ${d.metadata.name}, failed its analysis and went back to its stable revision`,
    );
  }
  const steps = canaryStepVerdict(d, newRS, inputs, stable);
  if (steps.failure !== undefined) return failed(steps.failure);
  const background = backgroundVerdict(d, newRS, inputs, now, verdict, failed);
  return background.abort ? background : withSteps(background, steps);
}

/** A Deployment its analysis aborted (onFailure Abort): Progressing False, AnalysisFailed. */
function abortedByAnalysis(x: Deployment): boolean {
  const c = getCondition(x.status, PROGRESSING);
  return c?.status === 'False' && c.reason === REASON.analysisFailed;
}

/**
 * A dependent is settled once its own rollout is done: complete, and under analysis its revision
 * promoted to stable (which waits for its own dependents in turn). Until every dependent is, this
 * Deployment's new revision is not the stable one: a dependent's failure still takes it back.
 */
function settled(x: Deployment): boolean {
  const status = x.status ?? {};
  if (x.metadata.deletionTimestamp || !deploymentComplete(x, status)) return false;
  return !x.spec?.analysis || status.stableRS === templateHash(x, status.collisionCount);
}

/** The canary steps' verdict joined to the rest: its runs' writes, and its hold or continue unless the rest holds. */
function withSteps(verdict: AnalysisVerdict, steps: CanaryStepVerdict): AnalysisVerdict {
  const out: AnalysisVerdict = { ...verdict, writes: [...steps.writes, ...verdict.writes] };
  if (out.hold) return out;
  if (steps.hold) out.hold = steps.hold;
  if (steps.planState !== undefined) out.planState = steps.planState;
  if (steps.event) out.event = steps.event;
  return out;
}

/** The background run's verdict (spec.analysis.templates): start it, end it, or what its outcome makes of the rollout. */
function backgroundVerdict(
  d: Deployment,
  newRS: ReplicaSet | undefined,
  inputs: AnalysisInputs,
  now: number,
  verdict: AnalysisVerdict,
  failed: (why: string) => AnalysisVerdict,
): AnalysisVerdict {
  const a = d.spec.analysis!;
  const status = d.status ?? {};
  const stable = status.stableRS;
  const hash = hashOf(newRS)!;
  // The pod check or the canary steps alone: no background run.
  if ((a.templates ?? []).length === 0) return verdict;
  const run = currentRun(inputs.runs, hash, d.metadata.annotations?.[RETRY_ANNOTATION]);
  if (run) verdict.run = run;
  if (!run) {
    // Built on every pass until it starts, so that a broken analysis holds the rollout from its first step.
    const built = buildRun(
      d,
      inputs,
      hash,
      stable,
      newRS?.metadata.annotations?.[REVISION_ANNOTATION],
      nextAttempt(inputs.runs, hash),
    );
    if ('error' in built) {
      verdict.hold = { reason: REASON.analysisInvalid, message: `The analysis cannot start: ${built.error}` };
      return verdict;
    }
    if (newRS && availableReplicas(newRS) >= startThreshold(a, deploymentReplicas(d))) {
      verdict.writes.push({
        verb: 'createAnalysisRun',
        kind: 'AnalysisRun',
        name: built.run.metadata.name ?? '',
        object: built.run,
      });
    }
    return verdict;
  }
  const phase = run.status?.phase ?? 'Pending';
  const runName = run.metadata.name ?? '';
  if (phase === 'Failed' || phase === 'Error')
    return failed(
      `Analysis run ${runName} ${phase === 'Failed' ? 'failed' : 'errored'}: ${run.status?.message ?? phase}`,
    );
  if (phase === 'Inconclusive') {
    verdict.hold = {
      reason: REASON.analysisInconclusive,
      message: `Analysis run ${runName} was inconclusive: ${run.status?.message ?? 'Inconclusive'}; the rollout is paused`,
    };
    return verdict;
  }
  // Running (or done Successful): the rollout goes on; once it completes the run ends, postRollout later.
  if (!isCompleted(phase) && !run.spec.terminate) {
    const done = completedAt(status);
    if (!Number.isNaN(done)) {
      const keep = a.postRollout ? (parseGoDuration(a.postRollout) ?? 0) : 0;
      const left = done + keep - now;
      if (left <= 0)
        verdict.writes.push({
          verb: 'terminateAnalysisRun',
          kind: 'AnalysisRun',
          name: runName,
          ...(run.metadata.resourceVersion !== undefined ? { resourceVersion: run.metadata.resourceVersion } : {}),
        });
      else verdict.requeueAfterSeconds = Math.min(verdict.requeueAfterSeconds ?? Number.POSITIVE_INFINITY, left / 1000);
    }
  }
  return verdict;
}

/**
 * status.stableRS after the pass: the new revision's hash once it is complete and its run (if it
 * needed one) is Successful; the one before otherwise. Absent without spec.analysis.
 */
export function nextStableRS(
  d: Deployment,
  complete: boolean,
  newRS: ReplicaSet | undefined,
  verdict: AnalysisVerdict,
  dependents?: readonly Deployment[],
): string | undefined {
  if (!d.spec.analysis) return undefined;
  const stable = d.status?.stableRS;
  const hash = hashOf(newRS);
  if (!complete || hash === undefined || hash === stable) return stable;
  // The apps that depend on this one roll out after it (Marathon's order): until they are done, a
  // failure of theirs still takes this one back, so its revision is not the stable one yet.
  if (stable !== undefined && !(dependents ?? []).every(settled)) return stable;
  if (stable === undefined || (d.spec.analysis.templates ?? []).length === 0) return hash;
  if (verdict.run?.status?.phase === 'Successful') return hash;
  return stable;
}

/**
 * The rollout goes back to the stable revision (its run failed): with Rollback, the spec's template
 * becomes the stable one's (rollback.ts; the next pass rolls to it as revision n + 1); with Abort,
 * the spec keeps the new template and the pass moves as a rollout to the stable ReplicaSet would,
 * within the strategy's budget (rolling.ts): the stable one grows within maxSurge, then the others
 * shrink within maxUnavailable, one step a pass. Progressing is False, AnalysisFailed, until the spec
 * changes.
 */
export function abortRollout(pass: DecisionPass, abort: NonNullable<AnalysisVerdict['abort']>): void {
  const { newRS, oldRSs } = getAllReplicaSetsAndSyncRevision(pass, false);
  if (pass.aborted) return;
  if (abort.rollback) {
    rollbackTo(pass, abort.stable, revisionOf(abort.stable) ?? 0);
    return;
  }
  const all = [...oldRSs, ...(newRS ? [newRS] : [])];
  const stable = latest(pass, abort.stable) ?? abort.stable;
  const others = all.filter((rs) => rs.metadata.name !== stable.metadata.name);
  if (!reconcileNewReplicaSet(pass, all, stable)) {
    const now = pass.rss;
    const stableNow = latest(pass, stable) ?? stable;
    const othersNow = others.map((rs) => latest(pass, rs) ?? rs);
    reconcileOldReplicaSets(pass, now, activeReplicaSets(othersNow), stableNow);
  }
  pass.status = calculateStatus(
    pass.d,
    pass.rss,
    newRS ? (latest(pass, newRS) ?? newRS) : undefined,
    pass.status,
    pass.now,
    pass.limits.maxUnavailable,
  );
  const held = getCondition(pass.status, PROGRESSING);
  const cond = newCondition(PROGRESSING, 'False', REASON.analysisFailed, abort.message, pass.now);
  if (held?.status === 'False' && held.reason === REASON.analysisFailed) {
    cond.lastTransitionTime = held.lastTransitionTime;
    if (held.message === abort.message) cond.lastUpdateTime = held.lastUpdateTime;
  }
  removeCondition(pass.status, PROGRESSING);
  setCondition(pass.status, cond);
}
