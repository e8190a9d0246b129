// Analysis at the canary steps of the deploy plan (docs/semantics/analysis.md#canary-steps): with
// spec.analysis.canarySteps on a Deployment whose phase strategy has a canary (serial-canary,
// parallel-canary: dcos/gate.ts), each canary step that waits for `kubectl pacer plan continue`
// waits instead for a run that judges the canary pods released before it. A Successful run
// continues the step as the command would (the phase state's proceeds, written to the same
// annotation, with a PlanContinue Event), which is Flagger's automatic promotion; a failed one is a
// failed analysis (onFailure); an Inconclusive one holds for a person. The first step has no new
// pod to judge: it is released from the start (dcos/gate.ts). A person may still continue or
// interrupt by hand: an interrupted plan starts no run, and a step continued by hand no longer waits
// for its run (which is stopped). Pure.

import { type AnalysisRun, RUN_TEMPLATE_HASH_LABEL } from '../../api/analysis.ts';
import type { Deployment, ReplicaSet } from '../../api/types.ts';
import type { PlanHold } from '../dcos/custom.ts';
import { canarySlots, countedAvailable, planStateFor, planStateReleasing, releasedCanarySlots } from '../dcos/gate.ts';
import { REVISION_ANNOTATION } from '../kubernetes/annotations.ts';
import { REASON } from '../kubernetes/conditions.ts';
import type { AnalysisInputs, AnalysisRunWrite, EventRecord } from '../types.ts';
import { isCompleted } from './assess.ts';
import { buildRun, currentRun, hashOf, nextAttempt, RETRY_ANNOTATION, stepOf } from './runs.ts';

export interface CanaryStepVerdict {
  /** The phase state to write (pacer.dev/plan-state): canary steps released up to a new count. */
  planState?: string;
  /** Recorded with that write. */
  event?: EventRecord;
  /** The step waits for its run (AnalysisRunning), or for a person (Inconclusive, a run that cannot be built). */
  hold?: PlanHold;
  /** The step's run failed or errored, in words: onFailure decides what follows (rollout.ts). */
  failure?: string;
  /** Runs to start or stop. */
  writes: AnalysisRunWrite[];
  /** The run of the step that waits, if there is one. */
  run?: AnalysisRun;
}

const NOTHING: CanaryStepVerdict = { writes: [] };

/** A running step run that no longer gates anything is stopped (its step was continued by hand). */
function stop(run: AnalysisRun): AnalysisRunWrite {
  return {
    verb: 'terminateAnalysisRun',
    kind: 'AnalysisRun',
    name: run.metadata.name ?? '',
    ...(run.metadata.resourceVersion !== undefined ? { resourceVersion: run.metadata.resourceVersion } : {}),
  };
}

/**
 * What the canary steps' analysis makes of a pass of `d` rolling out to `newRS` (judged against
 * the stable revision `stable`, undefined on the first rollout).
 */
export function canaryStepVerdict(
  d: Deployment,
  newRS: ReplicaSet | undefined,
  inputs: AnalysisInputs | undefined,
  stable: string | undefined,
): CanaryStepVerdict {
  const hash = hashOf(newRS);
  const canary = canarySlots(d);
  if (!d.spec.analysis?.canarySteps || !inputs || hash === undefined || canary === 0) return NOTHING;
  const state = planStateFor(d, newRS);
  // An interrupted plan (or a phase state nobody can read) is a person's to continue: no run starts.
  if (state.planInterrupted || state.unreadable !== undefined) return NOTHING;
  const released = releasedCanarySlots(d, newRS);
  const step = released + 1;
  const out: CanaryStepVerdict = { writes: [] };
  for (const r of inputs.runs) {
    const s = stepOf(r);
    if (r.metadata.labels?.[RUN_TEMPLATE_HASH_LABEL] !== hash || s === undefined || s === step) continue;
    if (!isCompleted(r.status?.phase ?? 'Pending') && !r.spec.terminate) out.writes.push(stop(r));
  }
  if (released >= canary) return out;
  const of = `canary step ${step} of ${canary}`;
  const run = currentRun(inputs.runs, hash, d.metadata.annotations?.[RETRY_ANNOTATION], step);
  if (!run) {
    // The released canary pods are not all available yet: the step does not wait yet. (A run once
    // started is read whatever the pods do: a failed one stays failed after its pods are gone.)
    if (countedAvailable(d, newRS) < released) return out;
    const built = buildRun(
      d,
      inputs,
      hash,
      stable,
      newRS?.metadata.annotations?.[REVISION_ANNOTATION],
      nextAttempt(inputs.runs, hash, step),
      step,
    );
    if ('error' in built) {
      out.hold = { reason: REASON.analysisInvalid, message: `The analysis of ${of} cannot start: ${built.error}` };
      return out;
    }
    const name = built.run.metadata.name ?? '';
    out.writes.push({ verb: 'createAnalysisRun', kind: 'AnalysisRun', name, object: built.run });
    out.hold = { reason: REASON.analysisRunning, message: `${of} waits for analysis run ${name}` };
    return out;
  }
  out.run = run;
  const name = run.metadata.name ?? '';
  const phase = run.status?.phase ?? 'Pending';
  const message = run.status?.message ?? phase;
  if (phase === 'Successful') {
    out.planState = planStateReleasing(d, newRS, step);
    out.event = {
      type: 'Normal',
      reason: 'PlanContinue',
      message: `${of} continues: analysis run ${name} was successful`,
    };
  } else if (phase === 'Failed' || phase === 'Error') {
    out.failure = `Analysis run ${name} of ${of} ${phase === 'Failed' ? 'failed' : 'errored'}: ${message}`;
  } else if (phase === 'Inconclusive') {
    out.hold = {
      reason: REASON.analysisInconclusive,
      message: `Analysis run ${name} of ${of} was inconclusive: ${message}; the rollout is paused (kubectl pacer rollout retry starts a new run, kubectl pacer plan continue releases the step)`,
    };
  } else {
    out.hold = { reason: REASON.analysisRunning, message: `${of} waits for analysis run ${name}` };
  }
  return out;
}
