// The analysis pages' model: which runs a list shows, in which order, and the geometry of a
// metric's chart (its measurements over time as points, its conditions' thresholds as lines). Pure
// functions, no DOM: test/unit/dashboard/analysis-chart.test.ts runs them under Node; analysis.tsx
// draws what they return as SVG.

import type { AnalysisMetricView, AnalysisRunView, Threshold } from '../src/dashboard/api.ts';
import type { Model } from './state.ts';

/** The runs of the namespaces served, newest first; only those of Deployment `namespace`/`deployment` when given. */
export function analysisRuns(m: Model, of?: { namespace: string; deployment: string }): AnalysisRunView[] {
  return [...m.analysisRuns.values()]
    .filter((r) => !of || (r.namespace === of.namespace && r.deployment === of.deployment))
    .sort(
      (a, b) =>
        (b.createdAt || b.startedAt).localeCompare(a.createdAt || a.startedAt) ||
        a.namespace.localeCompare(b.namespace) ||
        a.name.localeCompare(b.name),
    );
}

/** What a run judges, in words: `web revision 2, canary step 2, attempt 1` or `node roll upgrade, node n1`. */
export function judges(r: AnalysisRunView): string {
  if (r.nodeRoll) return `node roll ${r.nodeRoll}${r.node ? `, node ${r.node}` : ''}`;
  if (!r.deployment) return '—';
  return [
    `${r.deployment}${r.revision !== null ? ` revision ${r.revision}` : ''}`,
    r.canaryStep !== null ? `canary step ${r.canaryStep}` : '',
    r.attempt !== null ? `attempt ${r.attempt}` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

export interface ChartPoint {
  x: number;
  y: number;
  phase: string;
  /** The measurement had no finite number (an Error, NaN, a JSON object): drawn on the bottom edge. */
  noValue: boolean;
  /** The tooltip: when, the phase, the value, the message. */
  title: string;
}

export interface ChartLine {
  y: number;
  kind: 'success' | 'failure';
  /** `result[0] < 0.05`, as the condition reads. */
  label: string;
  value: number;
}

export interface ChartGeometry {
  width: number;
  height: number;
  /** The plotting area inside the axes' margins. */
  left: number;
  right: number;
  top: number;
  bottom: number;
  points: ChartPoint[];
  thresholds: ChartLine[];
  /** The y axis' ticks: the lowest, the middle and the highest value of the range. */
  ticks: Array<{ y: number; label: string }>;
  /** The x axis' ends: the first and the last measurement's time (or their numbers, without times). */
  from: string;
  to: string;
}

/** A number short enough for an axis: at most four significant digits. */
export function shortNumber(n: number): string {
  if (n === 0) return '0';
  return String(Number(n.toPrecision(4)));
}

/** Whether a threshold is drawn on a chart of `plotted`: it compares the same element the points are. */
export function drawnOn(t: Threshold, plotted: string): boolean {
  const index = plotted === 'result' ? 0 : Number(/\[(\d+)\]/.exec(plotted)?.[1] ?? 0);
  return (t.index ?? 0) === index;
}

/** The chart of a metric's kept measurements, in a `width` × `height` box. */
export function chartOf(metric: AnalysisMetricView, width = 560, height = 180): ChartGeometry {
  const left = 56;
  const right = width - 16;
  const top = 12;
  const bottom = height - 24;
  const ms = metric.measurements;
  const lines: Array<{ kind: 'success' | 'failure'; t: Threshold; expr: string }> = [];
  for (const [kind, c] of [
    ['success', metric.successCondition],
    ['failure', metric.failureCondition],
  ] as const)
    if (c?.threshold && drawnOn(c.threshold, metric.plotted)) lines.push({ kind, t: c.threshold, expr: c.expression });

  const values = [...ms.flatMap((x) => (x.number === null ? [] : [x.number])), ...lines.map((l) => l.t.value)];
  let lo = values.length > 0 ? Math.min(...values) : 0;
  let hi = values.length > 0 ? Math.max(...values) : 1;
  // Nothing to place keeps the range 0 to 1.
  if (values.length > 0 && lo === hi) {
    const pad = lo === 0 ? 1 : Math.abs(lo) * 0.5;
    lo -= pad;
    hi += pad;
  } else if (values.length > 0) {
    const pad = (hi - lo) * 0.1;
    // A range of values that are all at least 0 does not dip below 0 for its margin.
    lo = lo >= 0 && lo - pad < 0 ? 0 : lo - pad;
    hi += pad;
  }
  const yOf = (v: number) => bottom - ((v - lo) / (hi - lo)) * (bottom - top);

  const times = ms.map((x) => Date.parse(x.at));
  const byTime = times.every((t) => !Number.isNaN(t)) && new Set(times).size === times.length && times.length > 1;
  const t0 = byTime ? Math.min(...times) : 0;
  const t1 = byTime ? Math.max(...times) : 0;
  const xOf = (i: number) =>
    ms.length === 1
      ? (left + right) / 2
      : byTime
        ? left + ((times[i] - t0) / (t1 - t0)) * (right - left)
        : left + (i / (ms.length - 1)) * (right - left);

  const points = ms.map((x, i) => ({
    x: xOf(i),
    y: x.number === null ? bottom : yOf(x.number),
    phase: x.phase,
    noValue: x.number === null,
    title: [x.at || `measurement ${i + 1}`, x.phase, x.value || '(no value)', x.message].filter(Boolean).join(' · '),
  }));
  const first = ms[0];
  const last = ms[ms.length - 1];
  return {
    width,
    height,
    left,
    right,
    top,
    bottom,
    points,
    thresholds: lines.map((l) => ({ y: yOf(l.t.value), kind: l.kind, label: l.expr, value: l.t.value })),
    ticks: [lo, (lo + hi) / 2, hi].map((v) => ({ y: yOf(v), label: shortNumber(v) })),
    from: first ? (byTime ? first.at : '1') : '',
    to: last && ms.length > 1 ? (byTime ? last.at : String(ms.length)) : '',
  };
}
