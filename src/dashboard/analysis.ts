// What the dashboard shows of an AnalysisRun, as pure functions: what it judges (a Deployment's
// revision, a canary step, or a node roll's node), its phase and message, and for each metric its
// conditions (with the threshold a simple comparison draws), its counts against its limits, and its
// kept measurements as points over time. docs/semantics/analysis.md says what the fields mean;
// docs/dashboard.md shows the page.

import type { AnalysisRun, Measurement, Metric, MetricResult } from '../api/analysis.ts';
import {
  RUN_ATTEMPT_LABEL,
  RUN_CANARY_STEP_LABEL,
  RUN_DEPLOYMENT_LABEL,
  RUN_NODE_LABEL,
  RUN_NODEROLL_LABEL,
  RUN_TEMPLATE_HASH_LABEL,
} from '../api/analysis.ts';
import { controllerOf } from '../api/owners.ts';
import { REVISION_ANNOTATION, numericValue, scheduleOf, tallyOf } from '../engine/index.ts';
import type { Tally } from '../engine/index.ts';
import type {
  AnalysisMeasurementView,
  AnalysisMetricView,
  AnalysisRunView,
  ConditionReading,
  Threshold,
} from './api.ts';

/** The comparisons a threshold is drawn for, and each one seen from the other side (`0.05 > x` is `x < 0.05`). */
const MIRRORED: Readonly<Record<Threshold['op'], Threshold['op']>> = {
  '<': '>',
  '<=': '>=',
  '>': '<',
  '>=': '<=',
  '==': '==',
};

/** A CEL number literal: a whole number or a fraction, with an exponent, signed. */
const NUMBER = String.raw`[+-]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?`;
/** `result` or `result[N]`. */
const SUBJECT = String.raw`result(?:\s*\[\s*(\d{1,6})\s*\])?`;
const OP = '(<=|>=|==|<|>)';
const SUBJECT_FIRST = new RegExp(`^${SUBJECT}\\s*${OP}\\s*(${NUMBER})$`);
const NUMBER_FIRST = new RegExp(`^(${NUMBER})\\s*${OP}\\s*${SUBJECT}$`);

/** `expr` without the pairs of parentheses that wrap all of it. */
function unwrap(expr: string): string {
  let e = expr.trim();
  for (;;) {
    if (!e.startsWith('(') || !e.endsWith(')')) return e;
    // Only when the first parenthesis closes at the very end: `(a) < (b)` is not wrapped.
    let depth = 0;
    for (let i = 0; i < e.length; i++) {
      if (e[i] === '(') depth++;
      else if (e[i] === ')') depth--;
      if (depth === 0 && i < e.length - 1) return e;
    }
    e = e.slice(1, -1).trim();
  }
}

/**
 * The threshold a condition draws: `result` (or `result[N]`) compared with one number, in either
 * order (`result[0] < 0.05`, `0.05 > result[0]`), read as the result against the number. Anything
 * else (two comparisons, a function such as `isNaN`, a field of a web call's JSON, `!=`) draws no
 * line: undefined, and the page shows the condition as text.
 */
export function thresholdOf(expr: string): Threshold | undefined {
  const e = unwrap(expr);
  let m = SUBJECT_FIRST.exec(e);
  if (m) {
    const value = Number(m[3]);
    if (!Number.isFinite(value)) return undefined;
    return { op: m[2] as Threshold['op'], value, index: m[1] === undefined ? null : Number(m[1]) };
  }
  m = NUMBER_FIRST.exec(e);
  if (m) {
    const value = Number(m[1]);
    if (!Number.isFinite(value)) return undefined;
    return { op: MIRRORED[m[2] as Threshold['op']], value, index: m[3] === undefined ? null : Number(m[3]) };
  }
  return undefined;
}

function reading(expr: string | undefined): ConditionReading | null {
  if (expr === undefined || expr.trim() === '') return null;
  return { expression: expr, threshold: thresholdOf(expr) ?? null };
}

/**
 * The number a measurement's value plots as: the value itself when it is a number, else the
 * `index`-th element of a list (the first when no condition names one); null for what is no finite
 * number (NaN, an infinity, an empty list, a web call's JSON object, no value at all).
 */
export function plottedNumber(value: string | undefined, index: number | null): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  let n: number | undefined;
  if (text.startsWith('[') && index !== null && index > 0) {
    try {
      const list: unknown = JSON.parse(text);
      const x = Array.isArray(list) ? list[index] : undefined;
      n = typeof x === 'number' ? x : typeof x === 'string' ? numericValue(x) : undefined;
    } catch {
      n = undefined;
    }
  } else n = numericValue(text);
  return n !== undefined && Number.isFinite(n) ? n : null;
}

function measurementView(x: Measurement, index: number | null): AnalysisMeasurementView {
  return {
    phase: x.phase,
    at: x.finishedAt ?? x.startedAt ?? '',
    value: x.value ?? '',
    number: plottedNumber(x.value, index),
    message: x.message ?? '',
  };
}

const label = (labels: Record<string, string> | undefined, key: string) => labels?.[key] ?? '';
const whole = (text: string): number | null => (/^\d{1,15}$/.test(text) ? Number(text) : null);

function metricView(
  run: AnalysisRun,
  i: number,
  m: Metric,
  r: MetricResult | undefined,
  dry: boolean,
): AnalysisMetricView {
  const success = reading(m.successCondition);
  const failure = reading(m.failureCondition);
  // The element the conditions read (result[N]); the first when they name none.
  const index = success?.threshold?.index ?? failure?.threshold?.index ?? null;
  const s = scheduleOf(run, i);
  const limits =
    'error' in s
      ? { count: null, failureLimit: 0, inconclusiveLimit: 0, consecutiveErrorLimit: 4, problem: s.error }
      : {
          count: s.count ?? null,
          failureLimit: s.failureLimit ?? 0,
          inconclusiveLimit: s.inconclusiveLimit ?? 0,
          consecutiveErrorLimit: s.consecutiveErrorLimit ?? 4,
          problem: '',
        };
  const p = m.provider ?? {};
  const provider = p.prometheus
    ? `prometheus ${p.prometheus.address}: ${p.prometheus.query}`
    : p.web
      ? `web ${p.web.method ?? 'GET'} ${p.web.url}${p.web.jsonPath ? ` ${p.web.jsonPath}` : ''}`
      : p.job
        ? 'job'
        : '';
  return {
    name: m.name,
    phase: r?.phase ?? 'Pending',
    message: r?.message ?? '',
    dryRun: dry || r?.dryRun === true,
    provider,
    plotted: index === null ? 'result' : `result[${index}]`,
    successCondition: success,
    failureCondition: failure,
    counts: countsOf(tallyOf(r)),
    limits,
    measurements: (r?.measurements ?? []).map((x) => measurementView(x, index)),
  };
}

/** The counts the page shows of a metric's tally (the view's schema has no more). */
function countsOf(t: Tally): AnalysisMetricView['counts'] {
  const { count, successful, failed, inconclusive, error, consecutiveError } = t;
  return { count, successful, failed, inconclusive, error, consecutiveError };
}

/** A run's view: what it judges, its phase and message, and each metric of its spec with its status. */
export function analysisRunView(run: AnalysisRun): AnalysisRunView {
  const labels = run.metadata.labels;
  const results = new Map((run.status?.metricResults ?? []).map((r) => [r.name, r]));
  const dry = new Set((run.spec?.dryRun ?? []).map((d) => d.metricName));
  const owner = controllerOf(run);
  return {
    uid: run.metadata.uid ?? '',
    namespace: run.metadata.namespace ?? '',
    name: run.metadata.name ?? '',
    phase: run.status?.phase ?? 'Pending',
    message: run.status?.message ?? '',
    deployment: label(labels, RUN_DEPLOYMENT_LABEL),
    ownerUid: owner?.uid ?? '',
    revision: whole(run.metadata.annotations?.[REVISION_ANNOTATION] ?? ''),
    podTemplateHash: label(labels, RUN_TEMPLATE_HASH_LABEL),
    attempt: whole(label(labels, RUN_ATTEMPT_LABEL)),
    canaryStep: whole(label(labels, RUN_CANARY_STEP_LABEL)),
    nodeRoll: label(labels, RUN_NODEROLL_LABEL),
    node: label(labels, RUN_NODE_LABEL),
    terminated: run.spec?.terminate === true,
    startedAt: run.status?.startedAt ?? '',
    createdAt: run.metadata.creationTimestamp ?? '',
    metrics: (run.spec?.metrics ?? []).map((m, i) => metricView(run, i, m, results.get(m.name), dry.has(m.name))),
  };
}
