// Measurements in flight across passes (docs/semantics/analysis.md#a-run-over-time): a
// job metric's measurement lasts as long as its Job, seconds to minutes, so the run controller
// records it as Running when the Job is made (recordMeasurement appends it uncounted) and records
// its outcome in its place once the Job has finished. This file says which measurements are in
// flight, which Job a measurement is (its number among the metric's measurements, the same after a
// restart), when the controller looks at one again, and what becomes of one when the run stops.
// Argo Rollouts keeps such a measurement the same way (phase Running with a startedAt, resumed at
// each reconcile: its analysis/analysis.go and metricproviders/job).

import type { AnalysisRun, AnalysisRunStatus, Measurement, Metric } from '../../api/analysis.ts';
import { isCompleted } from './assess.ts';
import { assessRun, nextDue, resultOf, stopping, withResult } from './measure.ts';

/** A measurement in flight: the metric's last kept measurement, not finished. */
export interface InFlight {
  metric: Metric;
  measurement: Measurement;
}

/** The run's measurements in flight, in the run's metric order. */
export function inFlight(run: AnalysisRun): InFlight[] {
  const out: InFlight[] = [];
  for (const metric of run.spec.metrics) {
    const last = resultOf(run.status, metric.name)?.measurements?.at(-1);
    if (last && !isCompleted(last.phase)) out.push({ metric, measurement: last });
  }
  return out;
}

/**
 * The number of metric `name`'s next measurement, from 1: the measurements it has taken (errors
 * included) plus one, as Argo Rollouts numbers a metric's Jobs. The counts live in the run's
 * status, so a controller that restarts before it recorded a measurement gets the same number, and
 * finds the Job it made rather than making a second one. A measurement in flight has the number
 * it was started with: it is not counted until it finishes.
 */
export function measurementNumber(run: AnalysisRun, name: string): number {
  const r = resultOf(run.status, name);
  return (r?.count ?? 0) + (r?.error ?? 0) + 1;
}

/** The shortest and longest wait before a measurement in flight is looked at again. */
export const RECHECK_MIN_MS = 1_000;
export const RECHECK_MAX_MS = 10_000;

/**
 * How long after `now` a measurement in flight is looked at again: a fifth of the time it has run
 * so far, at least RECHECK_MIN_MS and at most RECHECK_MAX_MS. A Job that takes seconds is seen to
 * end within about a second; one that takes minutes costs a read every 10 s, not one a second.
 */
export function recheckAfter(m: Measurement, now: number): number {
  const started = Date.parse(m.startedAt ?? '');
  const ran = Number.isNaN(started) ? 0 : Math.max(0, now - started);
  return Math.min(RECHECK_MAX_MS, Math.max(RECHECK_MIN_MS, Math.floor(ran / 5)));
}

/**
 * Milliseconds from `now` until the controller must look at the run again (0: now), or null when
 * nothing will change by itself: the next measurement due (nextDue), or the next look at a
 * measurement in flight, whichever comes first.
 */
export function nextCheck(run: AnalysisRun, now: number): number | null {
  let next = nextDue(run, now);
  for (const f of inFlight(run)) {
    const wait = stopping(run) ? 0 : recheckAfter(f.measurement, now);
    next = next === null ? wait : Math.min(next, wait);
  }
  return next;
}

/**
 * The status once metric `name`'s measurement in flight is given up because the run is stopping
 * (spec.terminate, a metric that counts ended badly): the controller has deleted its Job, and the
 * measurement is removed uncounted (it never finished), the run then assessed again (the metric,
 * still open, ends as a stopping run's open metrics do). Argo Rollouts records such a measurement
 * as Successful ("terminated"); Pacer counts only measurements that finished. Unchanged when the
 * run is not stopping or the metric has nothing in flight.
 */
export function abandonInFlight(run: AnalysisRun, name: string, now: number): AnalysisRunStatus {
  const r = resultOf(run.status, name);
  const last = r?.measurements?.at(-1);
  if (!r || !last || isCompleted(last.phase) || !stopping(run)) return assessRun(run, now);
  return withResult(run, { ...r, measurements: r.measurements!.slice(0, -1) }, now);
}
