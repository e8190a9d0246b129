// A run over time (docs/semantics/analysis.md#a-run-over-time): when each metric's next measurement
// is due, how a measurement is folded into the run's status (counts kept beside the measurements,
// which the retention limit trims), and the run's phase, message and summaries. Pure: the run
// controller (src/controllers/analysis/) takes the measurements and writes the status back; the
// time is handed in. Argo Rollouts' rules (its analysis controller, analysis/analysis.go) except
// where the docs say otherwise.

import type {
  AnalysisPhase,
  AnalysisRun,
  AnalysisRunStatus,
  Measurement,
  Metric,
  MetricResult,
  RunSummary,
} from '../../api/analysis.ts';
import { DEFAULT_MEASUREMENT_RETENTION, JOB_NAME_KEY } from '../../api/analysis.ts';
import { parseGoDuration } from '../../api/duration.ts';
import type { IntOrString } from '../../api/types.ts';
import type { MetricLimits, Tally } from './assess.ts';
import { DEFAULT_CONSECUTIVE_ERROR_LIMIT, isCompleted, metricPhase, terminating, worst } from './assess.ts';

/**
 * How long after an Error a metric is measured again at the latest (Argo Rollouts'
 * DefaultErrorRetryInterval), and the wait after a measurement of a metric with no interval.
 */
export const ERROR_RETRY_MS = 10_000;

/** A metric's schedule and limits, its `{{args.NAME}}` references replaced. */
export interface Schedule extends MetricLimits {
  /** Time between measurements; none: one measurement (count 1), unless count says more. */
  intervalMs?: number;
  /** Time from the run's start to the first measurement. */
  initialDelayMs: number;
}

/** `{{args.NAME}}` as the whole of a field (the only form a number or a duration may take). */
const WHOLE_ARG = /^\{\{\s*args\.([^{}\s]+)\s*\}\}$/;

/** The value of `v`, a whole `{{args.NAME}}` replaced by the run's literal argument. */
function argValue(run: AnalysisRun, v: string): string {
  const ref = WHOLE_ARG.exec(v.trim());
  if (!ref) return v;
  const arg = run.spec.args?.find((a) => a.name === ref[1]);
  if (arg?.value === undefined)
    throw new Error(
      arg
        ? `argument ${JSON.stringify(ref[1])} is read from a Secret`
        : `argument ${JSON.stringify(ref[1])} has no value`,
    );
  return arg.value;
}

function intField(run: AnalysisRun, v: IntOrString | undefined): number | undefined {
  if (v === undefined) return undefined;
  const text = typeof v === 'number' ? String(v) : argValue(run, v);
  if (!/^\s*\d+\s*$/.test(text)) throw new Error(`${JSON.stringify(text)} is not a whole number of at least 0`);
  return Number.parseInt(text, 10);
}

function durationField(run: AnalysisRun, v: string | undefined): number | undefined {
  if (v === undefined || v === '') return undefined;
  const ms = parseGoDuration(argValue(run, v));
  if (ms < 0) throw new Error(`${JSON.stringify(v)} is negative`);
  return ms;
}

/**
 * The schedule and limits of the run's `i`-th metric, or why they cannot be read (a field path and
 * the reason). Argo Rollouts' EffectiveCount: `count` as given (0 as none); without it, 1 when the
 * metric has no interval, else none (it measures until the run ends).
 */
export function scheduleOf(run: AnalysisRun, i: number): Schedule | { error: string } {
  const m = run.spec.metrics[i];
  const s: Schedule = { initialDelayMs: 0 };
  const fields: Array<[keyof Metric, (f: keyof Metric) => void]> = [
    ['interval', (f) => (s.intervalMs = durationField(run, m[f] as string | undefined))],
    ['initialDelay', (f) => (s.initialDelayMs = durationField(run, m[f] as string | undefined) ?? 0)],
    ['count', (f) => (s.count = intField(run, m[f] as IntOrString | undefined) || undefined)],
    ['failureLimit', (f) => (s.failureLimit = intField(run, m[f] as IntOrString | undefined))],
    ['inconclusiveLimit', (f) => (s.inconclusiveLimit = intField(run, m[f] as IntOrString | undefined))],
    ['consecutiveErrorLimit', (f) => (s.consecutiveErrorLimit = intField(run, m[f] as IntOrString | undefined))],
    ['consecutiveSuccessLimit', (f) => (s.consecutiveSuccessLimit = intField(run, m[f] as IntOrString | undefined))],
  ];
  for (const [f, read] of fields) {
    try {
      read(f);
    } catch (err) {
      return {
        error: `spec.metrics[${i}].${f}: Invalid value: ${JSON.stringify(m[f])}: ${(err as Error).message}`,
      };
    }
  }
  if (s.count === undefined && s.intervalMs === undefined) s.count = 1;
  for (const k of Object.keys(s) as Array<keyof Schedule>) if (s[k] === undefined) delete s[k];
  return s;
}

/**
 * A metric's schedule and limits read on their own (a `{{args.NAME}}` in them is not resolved: it
 * reads as absent); scheduleOf reads them in their run.
 */
export function limitsOf(metric: Metric): Schedule {
  const s = scheduleOf({ metadata: {}, spec: { metrics: [metric], args: [] } }, 0);
  return 'error' in s ? { initialDelayMs: 0, ...(metric.interval ? {} : { count: 1 }) } : s;
}

/** The first metric whose schedule or limits cannot be read, as the run's message; undefined when all can. */
export function specError(run: AnalysisRun): string | undefined {
  for (let i = 0; i < run.spec.metrics.length; i++) {
    const s = scheduleOf(run, i);
    if ('error' in s) return `The run cannot measure: ${s.error}`;
  }
  return undefined;
}

/** The result kept for metric `name`, if any. */
export function resultOf(status: AnalysisRunStatus | undefined, name: string): MetricResult | undefined {
  return status?.metricResults?.find((r) => r.name === name);
}

/** The counts a result keeps, as assess.ts reads them (an in-flight measurement is the last kept one). */
export function tallyOf(r: MetricResult | undefined): Tally {
  const last = r?.measurements?.at(-1);
  return {
    count: r?.count ?? 0,
    successful: r?.successful ?? 0,
    failed: r?.failed ?? 0,
    inconclusive: r?.inconclusive ?? 0,
    error: r?.error ?? 0,
    consecutiveError: r?.consecutiveError ?? 0,
    consecutiveSuccess: r?.consecutiveSuccess ?? 0,
    ...(last && !isCompleted(last.phase) ? { inFlight: true } : {}),
  };
}

const isDryRun = (run: AnalysisRun, name: string): boolean =>
  run.spec.dryRun?.some((x) => x.metricName === name) ?? false;

/** How many measurements of `name` the status keeps (a limit of 0 or none: the default, 10). */
export function retentionOf(run: AnalysisRun, name: string): number {
  const limit = run.spec.measurementRetention?.find((x) => x.metricName === name)?.limit ?? 0;
  return limit > 0 ? limit : DEFAULT_MEASUREMENT_RETENTION;
}

/**
 * The Jobs whose measurements `before` kept and `after` keeps no more: dropped past the retention
 * limit. Argo Rollouts' job provider deletes a run's oldest Jobs beyond the kept measurements'
 * limit; Pacer names them from the status (each Job is named by its measurement), so it needs no
 * list of Jobs. A measurement in flight is never dropped (it is the newest); a run stopping
 * removes one, and its Job is deleted by that path, not this one.
 */
export function droppedJobs(before: AnalysisRunStatus | undefined, after: AnalysisRunStatus | undefined): string[] {
  const out: string[] = [];
  for (const r of before?.metricResults ?? []) {
    const kept = new Set(resultOf(after, r.name)?.measurements?.map((m) => m.metadata?.[JOB_NAME_KEY]));
    for (const m of r.measurements ?? []) {
      const job = m.metadata?.[JOB_NAME_KEY];
      if (job && isCompleted(m.phase) && !kept.has(job)) out.push(job);
    }
  }
  return out;
}

const isBad = (p: AnalysisPhase): boolean => p === 'Failed' || p === 'Error' || p === 'Inconclusive';

/**
 * Whether the run takes no more measurements: it has ended, it was asked to stop (spec.terminate),
 * or one of its metrics that counts (not a dry run) has already Failed, errored or been Inconclusive.
 */
export function stopping(run: AnalysisRun): boolean {
  if (run.spec.terminate === true || isCompleted(run.status?.phase ?? 'Pending')) return true;
  return terminating((run.status?.metricResults ?? []).filter((r) => !r.dryRun).map((r) => r.phase));
}

/** The conditions a metric's values are judged by, in words. */
function conditionsOf(m: Metric): string {
  return [
    m.successCondition !== undefined ? `successCondition ${JSON.stringify(m.successCondition)}` : '',
    m.failureCondition !== undefined ? `failureCondition ${JSON.stringify(m.failureCondition)}` : '',
  ]
    .filter(Boolean)
    .join(' and ');
}

/**
 * Why a metric ended Failed, Error or Inconclusive: its counts against the limit that ended it, then
 * the last measurement's value against the conditions (for an Error, the last error instead).
 */
function metricMessage(m: Metric, s: Schedule, r: MetricResult): string {
  const t = tallyOf(r);
  const last = r.measurements?.at(-1);
  let why: string;
  if (r.phase === 'Failed') why = `${t.failed} of ${t.count} measurements failed (failureLimit ${s.failureLimit ?? 0})`;
  else if (r.phase === 'Error')
    why = `${t.consecutiveError} errors in a row (consecutiveErrorLimit ${s.consecutiveErrorLimit ?? DEFAULT_CONSECUTIVE_ERROR_LIMIT})${last?.message ? `: ${last.message}` : ''}`;
  else if (t.inconclusive > (s.inconclusiveLimit ?? 0))
    why = `${t.inconclusive} of ${t.count} measurements were inconclusive (inconclusiveLimit ${s.inconclusiveLimit ?? 0})`;
  else
    why = `count ${s.count} reached without ${s.consecutiveSuccessLimit} successful measurements in a row (consecutiveSuccessLimit ${s.consecutiveSuccessLimit})`;
  const against = conditionsOf(m);
  // A measurement with no value (a Job's outcome) says why in its message instead.
  const value =
    r.phase === 'Error'
      ? ''
      : last?.value !== undefined
        ? `; last value ${last.value}${against ? ` against ${against}` : ''}`
        : last?.message
          ? `; last: ${last.message}`
          : '';
  return `metric ${JSON.stringify(m.name)} assessed ${r.phase}: ${why}${value}`;
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

/** Pacer's message on a run that was asked to stop and ended Successful. */
export const TERMINATED_MESSAGE = 'Run terminated (spec.terminate): the metrics still measuring ended Successful';

/**
 * The run's status assessed at `now`: its start set if it has none (its first sight), each metric's
 * phase from its counts (a metric that has ended keeps its phase), and the run's phase, message and
 * summaries. A run that has ended is returned as it is. Once a metric that counts ends badly, the run
 * stops: its metrics still open end Successful, so the run ends as that metric did. The run is
 * Running while any metric (a dry run's included) is open, then as bad as its worst metric that
 * counts (Successful when only dry runs are left).
 */
export function assessRun(run: AnalysisRun, now: number): AnalysisRunStatus {
  const prior = run.status ?? {};
  if (isCompleted(prior.phase ?? 'Pending')) return prior;
  const status: AnalysisRunStatus = { ...prior, startedAt: prior.startedAt ?? new Date(now).toISOString() };
  const metrics = run.spec.metrics;
  const kept = metrics.map(
    (m): MetricResult =>
      resultOf(prior, m.name) ?? { name: m.name, phase: 'Pending', ...(isDryRun(run, m.name) ? { dryRun: true } : {}) },
  );
  const invalid = specError(run);
  if (invalid !== undefined) {
    // Argo Rollouts ends such a run Error at once ("Analysis spec invalid").
    return { ...status, phase: 'Error', message: invalid, metricResults: kept };
  }
  const schedules = metrics.map((_, i) => scheduleOf(run, i) as Schedule);
  const judge = (stop: boolean): MetricResult[] =>
    kept.map((r, i) => {
      if (isCompleted(r.phase)) return r;
      const phase = metricPhase(schedules[i], tallyOf(r), stop);
      const next: MetricResult = { ...r, phase };
      if (isBad(phase)) next.message = metricMessage(metrics[i], schedules[i], next);
      else delete next.message;
      return next;
    });
  let results = judge(run.spec.terminate === true);
  if (run.spec.terminate !== true && terminating(results.filter((r) => !r.dryRun).map((r) => r.phase)))
    results = judge(true);
  status.metricResults = results;
  const counted = results.filter((r) => !r.dryRun);
  const ended = results.every((r) => isCompleted(r.phase));
  status.phase = !ended ? 'Running' : counted.map((r) => r.phase).reduce(worst, 'Successful');
  const cause = isBad(status.phase) ? counted.find((r) => r.phase === status.phase) : undefined;
  if (cause?.message) status.message = cause.message;
  else if (status.phase === 'Successful' && run.spec.terminate === true) status.message = TERMINATED_MESSAGE;
  else delete status.message;
  status.runSummary = summary(counted);
  const dry = results.filter((r) => r.dryRun);
  if (dry.length > 0) status.dryRunSummary = summary(dry);
  else delete status.dryRunSummary;
  return status;
}

/**
 * The status with `m`, a measurement of metric `name`, recorded at `now`. A finished one is counted
 * (Argo Rollouts' counters: an Error counts apart and breaks both streaks) and takes the place of
 * the metric's measurement in flight if it has one (a Job's outcome), else it is appended; one in
 * flight (Running: a Job just created) is appended and not counted, and none is started beside
 * another in flight. The oldest are dropped past the retention limit, then the run is assessed
 * again. The counts, never the kept list, decide the phases. A metric or a run that has already
 * ended takes no more measurements: it is returned unchanged.
 */
export function recordMeasurement(
  run: AnalysisRun,
  metric: Metric | string,
  m: Measurement,
  now: number,
): AnalysisRunStatus {
  const name = typeof metric === 'string' ? metric : metric.name;
  const before = resultOf(run.status, name) ?? {
    name,
    phase: 'Pending' as AnalysisPhase,
    ...(isDryRun(run, name) ? { dryRun: true } : {}),
  };
  const ended = isCompleted(run.status?.phase ?? 'Pending') || isCompleted(before.phase);
  if (ended || !run.spec.metrics.some((x) => x.name === name)) return assessRun(run, now);
  // Every counter is written once the first measurement is (0 included), so a reader sees them all.
  const t = tallyOf(before);
  const kept = before.measurements ?? [];
  if (!isCompleted(m.phase)) {
    if (t.inFlight) return assessRun(run, now);
  } else if (m.phase === 'Error') {
    t.error++;
    t.consecutiveError++;
    t.consecutiveSuccess = 0;
  } else {
    t.count++;
    t.consecutiveError = 0;
    if (m.phase === 'Successful') {
      t.successful++;
      t.consecutiveSuccess++;
    } else {
      if (m.phase === 'Failed') t.failed++;
      else t.inconclusive++;
      t.consecutiveSuccess = 0;
    }
  }
  const { inFlight, ...counts } = t;
  const r: MetricResult = { ...before, ...counts };
  const all = [...(inFlight ? kept.slice(0, -1) : kept), m];
  r.measurements = all.slice(Math.max(0, all.length - retentionOf(run, name)));
  return withResult(run, r, now);
}

/** The run's status with `r` in place of the result of the same name, assessed again at `now`. */
export function withResult(run: AnalysisRun, r: MetricResult, now: number): AnalysisRunStatus {
  const others = (run.status?.metricResults ?? []).filter((x) => x.name !== r.name);
  return assessRun({ ...run, status: { ...run.status, metricResults: [...others, r] } }, now);
}

/**
 * When the run's `i`-th metric is next due (ms since the epoch), or undefined when it takes no more
 * measurement (the run stopping or not started, the metric ended, its count reached, a measurement
 * in flight): the first at the run's start plus initialDelay; after a measurement, its finishedAt
 * plus the interval (ERROR_RETRY_MS without one); after an Error, plus the interval or
 * ERROR_RETRY_MS, whichever is shorter.
 */
export function dueAt(run: AnalysisRun, metric: Metric | number): number | undefined {
  const i = typeof metric === 'number' ? metric : run.spec.metrics.findIndex((x) => x.name === metric.name);
  if (i < 0 || stopping(run)) return undefined;
  const s = scheduleOf(run, i);
  if ('error' in s) return undefined;
  const r = resultOf(run.status, run.spec.metrics[i].name);
  if (r && isCompleted(r.phase)) return undefined;
  const started = Date.parse(run.status?.startedAt ?? '');
  if (Number.isNaN(started)) return undefined;
  const t = tallyOf(r);
  if (t.inFlight || (s.count !== undefined && t.count >= s.count)) return undefined;
  const last = r?.measurements?.at(-1);
  if (!last) return started + s.initialDelayMs;
  const end = Date.parse(last.finishedAt ?? last.startedAt ?? '');
  const wait =
    last.phase === 'Error'
      ? Math.min(s.intervalMs ?? ERROR_RETRY_MS, ERROR_RETRY_MS)
      : (s.intervalMs ?? ERROR_RETRY_MS);
  return (Number.isNaN(end) ? started : end) + wait;
}

/** The metrics due at `now`, in the run's order. */
export function dueMetrics(run: AnalysisRun, now: number): Metric[] {
  return run.spec.metrics.filter((_, i) => {
    const at = dueAt(run, i);
    return at !== undefined && at <= now;
  });
}

/** Milliseconds from `now` until the next measurement is due (0: one is due now), or null when none will be. */
export function nextDue(run: AnalysisRun, now: number): number | null {
  let next: number | null = null;
  for (let i = 0; i < run.spec.metrics.length; i++) {
    const at = dueAt(run, i);
    if (at === undefined) continue;
    const wait = Math.max(0, at - now);
    next = next === null ? wait : Math.min(next, wait);
  }
  return next;
}

/**
 * A measurement's value as one number, for the pacer_analysis_metric_value series: a number as
 * the providers write it (`0.5`, `+Inf`, `-Inf`), or a list's first element (`[0.5,0.2]`); none for
 * NaN, an empty list, or anything else (a web call's JSON object, a word).
 */
export function numericValue(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  let text = value.trim();
  if (text.startsWith('[')) text = text.slice(1).split(/[,\]]/)[0].trim();
  if (text === '+Inf' || text === 'Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text)) return undefined;
  return Number(text);
}
