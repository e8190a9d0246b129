// The analysis run controller, a reconciler on the manager (docs/semantics/analysis.md#a-run-over-time):
// for each AnalysisRun, the engine says which metrics are due (engine/analysis/measure.ts); this
// takes their measurements (the run's arguments resolved, Secrets read; providers/), judges each by
// its conditions (api/conditions.ts) and writes the status back, guarded by its resourceVersion. State
// lives only in the run's status: a measurement whose status write fails (409) was never counted and
// is simply taken again, so a restarted controller or a new leader neither counts one twice nor
// loses one.

import type { AnalysisRun, Measurement, Metric } from '../../api/analysis.ts';
import { RUN_DEPLOYMENT_LABEL } from '../../api/analysis.ts';
import type { AnalysisRunSample } from '../../observe/metrics.ts';
import { evaluateCondition } from '../../api/conditions.ts';
import { ANALYSIS_RUNS } from '../../kube/client.ts';
import type { ResourceType } from '../../kube/client.ts';
import { isKind } from '../../kube/errors.ts';
import type { Logger } from '../../observe/logger.ts';
import { register } from '../../manager/controller.ts';
import type { Controller } from '../../manager/controller.ts';
import type { Manager } from '../../manager/manager.ts';
import { keyOf } from '../../manager/informer.ts';
import type { Informer } from '../../manager/informer.ts';
import { watch } from '../../manager/watches.ts';
import type { ReconcileResult } from '../../manager/workqueue.ts';
import {
  assessRun,
  dueMetrics,
  measurementPhase,
  nextDue,
  recordMeasurement,
  semanticEqual,
} from '../../engine/index.ts';
import { substituteArgs } from './providers/args.ts';
import { measure as measureWithProviders } from './providers/index.ts';
import type { MeasureInput, ProviderResult } from './providers/types.ts';

export const ANALYSIS_CONTROLLER_NAME = 'analysis';

const SECRETS: ResourceType = { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true };

export interface AnalysisControllerOptions {
  /** Takes one measurement (default: the providers); tests script it. */
  measure?: (input: MeasureInput) => Promise<ProviderResult>;
  /** Measurements taken at once across runs (default 4). */
  workers?: number;
}

/** What the metrics record of each measurement (observe/metrics.ts). */
export interface MeasurementSample {
  namespace: string;
  run: string;
  metric: string;
  phase: string;
  value?: string;
}

/** The first number of a measurement's value: a number, or a list's first element (JSON). */
export function numericValue(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  let v: unknown = value;
  try {
    v = JSON.parse(value);
  } catch {
    // "NaN", "+Inf": not JSON
  }
  if (Array.isArray(v)) v = v[0];
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v.replace(/^\+Inf$/, 'Infinity')) : Number.NaN;
  return Number.isNaN(n) ? undefined : n;
}

/** A run as the pacer_analysis_* series show it (from its status). */
export function runSample(r: AnalysisRun): AnalysisRunSample {
  return {
    namespace: r.metadata.namespace ?? 'default',
    name: r.metadata.name ?? '',
    deployment: r.metadata.labels?.[RUN_DEPLOYMENT_LABEL] ?? '',
    phase: r.status?.phase ?? 'Pending',
    metrics: (r.status?.metricResults ?? []).map((m) => {
      const value = numericValue(m.measurements?.at(-1)?.value);
      return { name: m.name, phase: m.phase, ...(value !== undefined ? { value } : {}) };
    }),
  };
}

export class AnalysisRunController {
  readonly runs: Informer<AnalysisRun>;
  readonly controller: Controller;
  private readonly mgr: Manager;
  private readonly measure: (input: MeasureInput) => Promise<ProviderResult>;
  /** Aborted on stop: a measurement in flight ends (and is not counted). */
  private readonly stopping = new AbortController();

  /** Registers the run controller with `mgr`: the runs' informer, its watch, queue and workers. */
  constructor(mgr: Manager, opts: AnalysisControllerOptions = {}) {
    this.mgr = mgr;
    this.measure = opts.measure ?? measureWithProviders;
    this.runs = mgr.informer<AnalysisRun>(ANALYSIS_RUNS);
    this.controller = register(mgr, {
      name: ANALYSIS_CONTROLLER_NAME,
      workers: opts.workers ?? 4,
      reconcile: (key, log, stats) => this.reconcile(key, log, stats),
      watches: [watch(this.runs, { on: ['add', 'update'], keys: ({ obj }) => [keyOf(obj)] })],
    });
    mgr.metrics?.trackAnalysisRuns(() => this.runs.list().map(runSample));
  }

  /** Ends measurements in flight (the manager stops the workers). */
  stop(): void {
    this.stopping.abort();
  }

  private async reconcile(key: string, log: Logger, stats: { writes: number }): Promise<ReconcileResult> {
    const cached = this.runs.get(key);
    if (!cached) return {};
    const now = this.mgr.clock.now();
    let status = assessRun(cached, now);
    let run: AnalysisRun = { ...cached, status };
    const due = dueMetrics(run, now);
    const taken: MeasurementSample[] = [];
    for (const metric of due) {
      const m = await this.take(run, metric);
      status = recordMeasurement(run, metric, m, this.mgr.clock.now());
      run = { ...run, status };
      taken.push({
        namespace: run.metadata.namespace ?? 'default',
        run: run.metadata.name ?? '',
        metric: metric.name,
        phase: m.phase,
        ...(m.value !== undefined ? { value: m.value } : {}),
      });
    }
    // Stopped mid-measurement: nothing of this pass is counted.
    if (this.stopping.signal.aborted) return {};
    if (!semanticEqual(status, cached.status ?? {})) {
      try {
        const written = await this.mgr.client.replace<AnalysisRun>(
          ANALYSIS_RUNS,
          run.metadata.namespace,
          run.metadata.name ?? '',
          run,
          'status',
        );
        this.runs.assume(written);
        stats.writes++;
      } catch (err) {
        // A newer run (409) or none (404): what was measured is not counted; the next pass takes it again.
        if (isKind(err, 'Conflict')) return { requeue: true };
        if (isKind(err, 'NotFound')) return {};
        throw err;
      }
      for (const t of taken) this.mgr.metrics?.observeMeasurement(t);
      if (taken.length > 0)
        log.info('measured', {
          measurements: taken
            .map((t) => `${t.metric}=${t.phase}${t.value !== undefined ? `(${t.value})` : ''}`)
            .join(','),
          phase: status.phase,
        });
    }
    const wait = nextDue(run, this.mgr.clock.now());
    return wait === null ? {} : { requeueAfterMs: Math.max(wait, 50) };
  }

  /** One measurement of `metric`: the provider's answer judged by the conditions, or an Error naming why. */
  private async take(run: AnalysisRun, metric: Metric): Promise<Measurement> {
    const startedAt = new Date(this.mgr.clock.now()).toISOString();
    const done = (m: Omit<Measurement, 'startedAt' | 'finishedAt'>): Measurement => ({
      ...m,
      startedAt,
      finishedAt: new Date(this.mgr.clock.now()).toISOString(),
    });
    try {
      const args = await this.args(run);
      const resolved = await this.withSecretHeaders(run, substituteArgs(metric, args));
      const answer = await this.measure({
        metric: resolved,
        namespace: run.metadata.namespace ?? 'default',
        signal: this.stopping.signal,
      });
      const success =
        resolved.successCondition !== undefined
          ? evaluateCondition(resolved.successCondition, answer.result)
          : undefined;
      const failure =
        resolved.failureCondition !== undefined
          ? evaluateCondition(resolved.failureCondition, answer.result)
          : undefined;
      return done({
        phase: measurementPhase(success, failure),
        value: answer.value,
        ...(answer.metadata ? { metadata: answer.metadata } : {}),
      });
    } catch (err) {
      return done({ phase: 'Error', message: err instanceof Error ? err.message : String(err) });
    }
  }

  /** A Secret's key in the run's namespace, read now; an error names `what` needs it and why it failed. */
  private async secretValue(run: AnalysisRun, ref: { name: string; key: string }, what: string): Promise<string> {
    let secret: { data?: Record<string, string> };
    try {
      secret = await this.mgr.client.get(SECRETS, run.metadata.namespace, ref.name);
    } catch (err) {
      throw new Error(
        `${what}: secret ${JSON.stringify(ref.name)}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    const v = secret.data?.[ref.key];
    if (v === undefined)
      throw new Error(`${what}: secret ${JSON.stringify(ref.name)} has no key ${JSON.stringify(ref.key)}`);
    return Buffer.from(v, 'base64').toString('utf8');
  }

  /** A web metric's headers with their Secrets' values filled in. */
  private async withSecretHeaders(run: AnalysisRun, metric: Metric): Promise<Metric> {
    const web = metric.provider.web;
    if (!web?.headers?.some((h) => h.valueFrom)) return metric;
    const headers = [];
    for (const h of web.headers) {
      const ref = h.valueFrom?.secretKeyRef;
      headers.push(
        ref ? { key: h.key, value: await this.secretValue(run, ref, `header ${JSON.stringify(h.key)}`) } : h,
      );
    }
    return { ...metric, provider: { ...metric.provider, web: { ...web, headers } } };
  }

  /** The run's arguments by name: values as given, Secrets' keys read now (never stored in the run). */
  private async args(run: AnalysisRun): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const a of run.spec.args ?? []) {
      if (a.value !== undefined) {
        out[a.name] = a.value;
        continue;
      }
      const ref = a.valueFrom?.secretKeyRef;
      if (!ref) throw new Error(`argument ${JSON.stringify(a.name)} has no value`);
      out[a.name] = await this.secretValue(run, ref, `argument ${JSON.stringify(a.name)}`);
    }
    return out;
  }
}
