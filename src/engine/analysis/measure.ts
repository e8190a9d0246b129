// A run over time (docs/semantics/analysis.md#a-run-over-time): when each metric's next measurement
// is due, how a measurement is folded into the run's status (the counts kept beside the measurements,
// which the retention limit trims), and the run's phase, message and summaries. Pure: the run
// controller (src/controllers/analysis/) takes the measurements and writes the status back.

import type {
  AnalysisPhase,
  AnalysisRun,
  AnalysisRunStatus,
  Measurement,
  Metric,
  MetricResult,
  RunSummary,
} from '../../api/analysis.ts';
import { DEFAULT_MEASUREMENT_RETENTION } from '../../api/analysis.ts';
import { parseGoDuration } from '../../api/duration.ts';
import type { IntOrString } from '../../api/types.ts';
import { isCompleted, metricPhaseOf, runPhase, terminating } from './assess.ts';
import type { MetricLimits, Tally } from './assess.ts';

/** An Error is measured again after the metric's interval, or after this long without one (Argo Rollouts' default). */
export const ERROR_RETRY_MS = 10_000;

/** An IntOrString limit as a number (a `{{args.NAME}}` is replaced before the run is measured). */
function intOf(v: IntOrString | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === 'number' ? v : Number.parseInt(v, 10);
  return Number.isFinite(n) ? n : undefined;
}

/** A metric's limits; without an interval it takes one measurement (count 1), as Argo Rollouts does. */
export function limitsOf(m: Metric): MetricLimits & { consecutiveSuccessLimit?: number } {
  const count = intOf(m.count) ?? (m.interval ? undefined : 1);
  const out: MetricLimits & { consecutiveSuccessLimit?: number } = {};
  const failureLimit = intOf(m.failureLimit);
  const inconclusiveLimit = intOf(m.inconclusiveLimit);
  const consecutiveErrorLimit = intOf(m.consecutiveErrorLimit);
  const consecutiveSuccessLimit = intOf(m.consecutiveSuccessLimit);
  if (failureLimit !== undefined) out.failureLimit = failureLimit;
  if (inconclusiveLimit !== undefined) out.inconclusiveLimit = inconclusiveLimit;
  if (consecutiveErrorLimit !== undefined) out.consecutiveErrorLimit = consecutiveErrorLimit;
  if (consecutiveSuccessLimit !== undefined) out.consecutiveSuccessLimit = consecutiveSuccessLimit;
  if (count !== undefined) out.count = count;
  return out;
}

const ms = (d: string | undefined): number => (d ? (parseGoDuration(d) ?? 0) : 0);

const time = (t: string | undefined): number => Date.parse(t ?? '');

/** The result kept for `name`, if any. */
export function resultOf(status: AnalysisRunStatus | undefined, name: string): MetricResult | undefined {
  return status?.metricResults?.find((r) => r.name === name);
}

/** The counts a result keeps, as assess.ts reads them. */
function tallyOf(r: MetricResult | undefined): Tally {
  return {
    count: r?.count ?? 0,
    successful: r?.successful ?? 0,
    failed: r?.failed ?? 0,
    inconclusive: r?.inconclusive ?? 0,
    error: r?.error ?? 0,
    consecutiveError: r?.consecutiveError ?? 0,
  };
}

/** Whether the run takes no more measurements: asked to stop, or a metric already ended it badly. */
export function stopping(run: AnalysisRun): boolean {
  const phases = (run.status?.metricResults ?? []).filter((r) => !r.dryRun).map((r) => r.phase);
  return run.spec.terminate === true || terminating(phases) || isCompleted(run.status?.phase ?? 'Pending');
}

/**
 * When `metric`'s next measurement is due (ms since the epoch), or undefined when it takes no more:
 * the first at the run's start plus initialDelay; the next at the last one's end plus the interval
 * (an Error: plus the interval, or ERROR_RETRY_MS without one).
 */
export function dueAt(run: AnalysisRun, metric: Metric): number | undefined {
  if (stopping(run)) return undefined;
  const r = resultOf(run.status, metric.name);
  if (r && isCompleted(r.phase)) return undefined;
  const started = time(run.status?.startedAt);
  if (Number.isNaN(started)) return undefined;
  const last = r?.measurements?.at(-1);
  if (!last) return started + ms(metric.initialDelay);
  const end = time(last.finishedAt);
  const after = Number.isNaN(end) ? started : end;
  if (last.phase === 'Error') return after + (metric.interval ? ms(metric.interval) : ERROR_RETRY_MS);
  return after + ms(metric.interval);
}

/** The metrics due at `now`, in the run's order. */
export function dueMetrics(run: AnalysisRun, now: number): Metric[] {
  return run.spec.metrics.filter((m) => {
    const at = dueAt(run, m);
    return at !== undefined && at <= now;
  });
}

/** Milliseconds until the next measurement is due (0: now), or null when none is. */
export function nextDue(run: AnalysisRun, now: number): number | null {
  let next: number | null = null;
  for (const m of run.spec.metrics) {
    const at = dueAt(run, m);
    if (at === undefined) continue;
    const wait = Math.max(0, at - now);
    next = next === null ? wait : Math.min(next, wait);
  }
  return next;
}

/** How many measurements of `name` the status keeps. */
function retentionOf(run: AnalysisRun, name: string): number {
  return run.spec.measurementRetention?.find((x) => x.metricName === name)?.limit ?? DEFAULT_MEASUREMENT_RETENTION;
}

const isDryRun = (run: AnalysisRun, name: string): boolean =>
  run.spec.dryRun?.some((x) => x.metricName === name) ?? false;

/** A metric's phase from its counts, consecutiveSuccessLimit included (a streak that long ends it Successful). */
function phaseOf(metric: Metric, r: MetricResult, stop: boolean): AnalysisPhase {
  const limits = limitsOf(metric);
  const phase = metricPhaseOf(limits, tallyOf(r), stop);
  if (
    phase === 'Running' &&
    limits.consecutiveSuccessLimit !== undefined &&
    (r.consecutiveSuccess ?? 0) >= limits.consecutiveSuccessLimit
  )
    return 'Successful';
  return phase;
}

/** The words for a metric that ended badly: its counts against its limit, and its last value against its conditions. */
function metricMessage(metric: Metric, r: MetricResult): string {
  const limits = limitsOf(metric);
  const last = r.measurements?.at(-1);
  const against = [
    metric.successCondition ? `successCondition ${JSON.stringify(metric.successCondition)}` : '',
    metric.failureCondition ? `failureCondition ${JSON.stringify(metric.failureCondition)}` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  let why: string;
  if (r.phase === 'Failed')
    why = `${r.failed} of ${r.count} measurements failed (failureLimit ${limits.failureLimit ?? 0})`;
  else if (r.phase === 'Inconclusive')
    why = `${r.inconclusive} of ${r.count} measurements were inconclusive (inconclusiveLimit ${limits.inconclusiveLimit ?? 0})`;
  else
    why = `${r.consecutiveError} errors in a row (consecutiveErrorLimit ${limits.consecutiveErrorLimit ?? 4})${last?.message ? `: ${last.message}` : ''}`;
  const value =
    last?.value !== undefined && r.phase !== 'Error'
      ? `; last value ${last.value}${against ? ` against ${against}` : ''}`
      : '';
  return `metric ${JSON.stringify(metric.name)} assessed ${r.phase}: ${why}${value}`;
}

/**
 * The status with every metric's and the run's phase recomputed from the counts (the run's start
 * set if it has none), its message and summaries. Measuring stops once one metric ends the run.
 */
export function assessRun(run: AnalysisRun, now: number): AnalysisRunStatus {
  const status: AnalysisRunStatus = { ...run.status };
  if (!status.startedAt) status.startedAt = new Date(now).toISOString();
  const byName = new Map((status.metricResults ?? []).map((r) => [r.name, r]));
  let results: MetricResult[] = run.spec.metrics.map(
    (m) => byName.get(m.name) ?? { name: m.name, phase: 'Pending', ...(isDryRun(run, m.name) ? { dryRun: true } : {}) },
  );
  // Twice: once a metric ends the run badly, the others still open end (Successful) with it.
  for (let i = 0; i < 2; i++) {
    const stop = run.spec.terminate === true || terminating(results.filter((r) => !r.dryRun).map((r) => r.phase));
    results = results.map((r, j) => {
      const phase = phaseOf(run.spec.metrics[j], r, stop);
      const next: MetricResult = { ...r, phase };
      if (phase === 'Failed' || phase === 'Error' || phase === 'Inconclusive')
        next.message = metricMessage(run.spec.metrics[j], next);
      return next;
    });
  }
  status.metricResults = results;
  const counted = results.filter((r) => !r.dryRun);
  status.phase = runPhase(counted.map((r) => r.phase));
  const bad = counted.find((r) => r.phase === status.phase && r.message);
  if (bad && isCompleted(status.phase) && status.phase !== 'Successful') status.message = bad.message;
  else delete status.message;
  status.runSummary = summary(counted);
  const dry = results.filter((r) => r.dryRun);
  if (dry.length > 0) status.dryRunSummary = summary(dry);
  return status;
}

function summary(results: readonly MetricResult[]): RunSummary {
  const s: RunSummary = { count: results.length, successful: 0, failed: 0, inconclusive: 0, error: 0 };
  for (const r of results) {
    if (r.phase === 'Successful') s.successful! += 1;
    else if (r.phase === 'Failed') s.failed! += 1;
    else if (r.phase === 'Inconclusive') s.inconclusive! += 1;
    else if (r.phase === 'Error') s.error! += 1;
  }
  return s;
}

/**
 * `m` taken for `metric`: appended (the oldest dropped past the retention limit) and counted, then
 * the run assessed again (assessRun).
 */
export function recordMeasurement(run: AnalysisRun, metric: Metric, m: Measurement, now: number): AnalysisRunStatus {
  const before = resultOf(run.status, metric.name) ?? { name: metric.name, phase: 'Pending' as AnalysisPhase };
  const r: MetricResult = { ...before, phase: before.phase };
  if (isDryRun(run, metric.name)) r.dryRun = true;
  const kept = [...(before.measurements ?? []), m];
  r.measurements = kept.slice(Math.max(0, kept.length - retentionOf(run, metric.name)));
  const add = (k: 'count' | 'successful' | 'failed' | 'inconclusive' | 'error') => {
    r[k] = (r[k] ?? 0) + 1;
  };
  if (m.phase === 'Error') {
    add('error');
    r.consecutiveError = (r.consecutiveError ?? 0) + 1;
  } else {
    add('count');
    r.consecutiveError = 0;
    if (m.phase === 'Successful') {
      add('successful');
      r.consecutiveSuccess = (r.consecutiveSuccess ?? 0) + 1;
    } else {
      r.consecutiveSuccess = 0;
      if (m.phase === 'Failed') add('failed');
      else if (m.phase === 'Inconclusive') add('inconclusive');
    }
  }
  const results = [...(run.status?.metricResults ?? []).filter((x) => x.name !== metric.name), r];
  return assessRun({ ...run, status: { ...run.status, metricResults: results } }, now);
}
