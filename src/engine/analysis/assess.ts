// Analysis outcomes (docs/semantics/analysis.md): what one measurement's conditions make of it, what
// a metric's measurements add up to under its limits, and what a run's metrics add up to. Pure, with
// Argo Rollouts' phases and rules so that its users read the same outcomes; the conditions themselves
// are evaluated by the shell (CEL over `result`), which hands the booleans in.

import type { AnalysisPhase } from '../../api/analysis.ts';

export type { AnalysisPhase };

/** The phases that end a measurement, a metric or a run. */
export const COMPLETED_PHASES: readonly AnalysisPhase[] = ['Successful', 'Failed', 'Error', 'Inconclusive'];

export const isCompleted = (p: AnalysisPhase): boolean => COMPLETED_PHASES.includes(p);

/**
 * The phase of a measurement from its conditions, each true, false, or undefined when the metric
 * has none: with no condition it is Successful; with a success condition only, Failed unless it
 * holds; with a failure condition only, Successful unless it holds; with both, Failed when the
 * failure condition holds (whatever the other says), Successful when only the success condition
 * does, Inconclusive when neither does. A condition that cannot be evaluated is the shell's Error.
 */
export function measurementPhase(success: boolean | undefined, failure: boolean | undefined): AnalysisPhase {
  if (success === undefined && failure === undefined) return 'Successful';
  const failed = failure ?? !success;
  const succeeded = success ?? !failure;
  if (failed) return 'Failed';
  return succeeded ? 'Successful' : 'Inconclusive';
}

/** A metric's limits: how many of each outcome it tolerates, and how many measurements it takes. */
export interface MetricLimits {
  /** Failed measurements tolerated (default 0): one more fails the metric. */
  failureLimit?: number;
  /** Inconclusive measurements tolerated (default 0): one more makes it Inconclusive. */
  inconclusiveLimit?: number;
  /** Errors in a row tolerated (default 4): one more makes it Error. */
  consecutiveErrorLimit?: number;
  /**
   * Successful measurements in a row that end the metric Successful (0 or none: off). With it,
   * reaching `count` without such a streak ends the metric Inconclusive (Argo Rollouts 1.8).
   */
  consecutiveSuccessLimit?: number;
  /** Measurements to take (errors not counted); none: it measures until the run ends. */
  count?: number;
}

export const DEFAULT_CONSECUTIVE_ERROR_LIMIT = 4;

/**
 * The counts a metric's measurements add up to (errors are not counted towards `count`). A run's
 * status keeps them beside the measurements (measure.ts), since the retention limit trims the list.
 */
export interface Tally {
  count: number;
  successful: number;
  failed: number;
  inconclusive: number;
  error: number;
  /** Errors since the last measurement that was not one. */
  consecutiveError: number;
  /** Successful measurements since the last one that was not (an error breaks the streak too). */
  consecutiveSuccess: number;
  /** The latest measurement is still in flight (a Job that has not finished). */
  inFlight?: boolean;
}

/** The counts of measurements in the order they were taken (one in flight is not counted, only noted). */
export function tally(phases: readonly AnalysisPhase[]): Tally {
  const t: Tally = {
    count: 0,
    successful: 0,
    failed: 0,
    inconclusive: 0,
    error: 0,
    consecutiveError: 0,
    consecutiveSuccess: 0,
  };
  for (const p of phases) {
    if (p === 'Error') {
      t.error++;
      t.consecutiveError++;
      t.consecutiveSuccess = 0;
      continue;
    }
    if (p === 'Successful') t.successful++;
    else if (p === 'Failed') t.failed++;
    else if (p === 'Inconclusive') t.inconclusive++;
    else continue;
    t.count++;
    t.consecutiveError = 0;
    t.consecutiveSuccess = p === 'Successful' ? t.consecutiveSuccess + 1 : 0;
  }
  if (phases.length > 0 && !isCompleted(phases[phases.length - 1])) t.inFlight = true;
  return t;
}

/**
 * A metric's phase from the counts of its measurements. `stopping`: the run is stopping (asked
 * to, or another metric has already ended it), so a metric that is still open ends Successful. In
 * order: one in flight keeps it Running; no measurement yet is Pending; more failures than
 * failureLimit is Failed, more inconclusive ones than inconclusiveLimit Inconclusive, more errors
 * in a row than consecutiveErrorLimit Error; consecutiveSuccessLimit successes in a row is
 * Successful; `count` measurements taken is Successful (the failures it tolerated included), or
 * Inconclusive when a consecutiveSuccessLimit was set and not reached; else it is Running.
 */
export function metricPhase(limits: MetricLimits, t: Tally, stopping: boolean): AnalysisPhase {
  if (t.inFlight) return 'Running';
  if (t.count + t.error === 0) return stopping ? 'Successful' : 'Pending';
  if (t.failed > (limits.failureLimit ?? 0)) return 'Failed';
  if (t.inconclusive > (limits.inconclusiveLimit ?? 0)) return 'Inconclusive';
  if (t.consecutiveError > (limits.consecutiveErrorLimit ?? DEFAULT_CONSECUTIVE_ERROR_LIMIT)) return 'Error';
  const streak = limits.consecutiveSuccessLimit ?? 0;
  if (streak > 0 && t.consecutiveSuccess >= streak) return 'Successful';
  if (limits.count !== undefined && t.count >= limits.count) return streak > 0 ? 'Inconclusive' : 'Successful';
  return stopping ? 'Successful' : 'Running';
}

/** Completed phases from best to worst: a run is as bad as its worst metric. */
const BEST_TO_WORST: readonly AnalysisPhase[] = ['Successful', 'Running', 'Pending', 'Inconclusive', 'Error', 'Failed'];

/** The worse of two phases. */
export function worst(a: AnalysisPhase, b: AnalysisPhase): AnalysisPhase {
  return BEST_TO_WORST.indexOf(b) > BEST_TO_WORST.indexOf(a) ? b : a;
}

/** A run's phase: Running while any metric is open (or it has none), else its worst metric's. */
export function runPhase(metrics: readonly AnalysisPhase[]): AnalysisPhase {
  if (metrics.length === 0 || !metrics.every(isCompleted)) return 'Running';
  return metrics.reduce(worst);
}

/** Whether a run stops taking new measurements: one of its metrics has already Failed, errored or been Inconclusive. */
export function terminating(metrics: readonly AnalysisPhase[]): boolean {
  return metrics.some((p) => p === 'Failed' || p === 'Error' || p === 'Inconclusive');
}
