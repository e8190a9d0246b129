// The analysis run controller, a reconciler on the manager (docs/semantics/analysis.md#a-run-over-time):
// for each AnalysisRun, the engine says which metrics are due (engine/analysis/measure.ts); this
// takes their measurements (the run's arguments resolved, Secrets read at that moment; providers/),
// judges each by its conditions (api/conditions.ts, the engine's measurementPhase), folds them into
// the status with the engine's recordMeasurement and writes the status back, guarded by the
// resourceVersion it was computed from. State lives only in the run's status: a measurement whose
// status write fails (409) was never counted and is simply taken again, so a restarted controller or
// a new leader neither counts one twice nor loses one. A job metric's measurement spans passes
// (engine/analysis/inflight.ts): its Job is made and the measurement stored Running; later passes
// read the Job until it has an outcome, recorded in its place; a run that stops deletes it first.

import type { AnalysisRun, Measurement, Metric } from '../../api/analysis.ts';
import { JOB_NAME_KEY, RUN_DEPLOYMENT_LABEL } from '../../api/analysis.ts';
import { evaluateCondition } from '../../api/conditions.ts';
import type { AnalysisRunSample } from '../../observe/metrics.ts';
import { ANALYSIS_RUNS } from '../../kube/client.ts';
import type { ResourceType } from '../../kube/client.ts';
import { isKind } from '../../kube/errors.ts';
import type { Logger } from '../../observe/logger.ts';
import { register } from '../../manager/controller.ts';
import type { Controller } from '../../manager/controller.ts';
import type { EventRecorder } from '../../manager/events.ts';
import type { Manager } from '../../manager/manager.ts';
import { keyOf } from '../../manager/informer.ts';
import type { Informer } from '../../manager/informer.ts';
import { watch } from '../../manager/watches.ts';
import type { ReconcileResult } from '../../manager/workqueue.ts';
import {
  abandonInFlight,
  assessRun,
  droppedJobs,
  dueMetrics,
  inFlight,
  isCompleted,
  measurementNumber,
  measurementPhase,
  nextCheck,
  numericValue,
  recordMeasurement,
  semanticEqual,
  stopping,
} from '../../engine/index.ts';
import { JobProvider } from './providers/job.ts';
import { substituteArgs } from './providers/args.ts';
import { measure as measureWithProviders } from './providers/index.ts';
import type { MeasureInput, ProviderResult } from './providers/types.ts';

export const ANALYSIS_CONTROLLER_NAME = 'analysis';

const SECRETS: ResourceType = { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true };

export interface AnalysisControllerOptions {
  /** Takes one measurement (default: the providers, providers/index.ts); tests script it. Not job metrics': providers/job.ts. */
  measure?: (input: MeasureInput) => Promise<ProviderResult>;
  /** Runs measured at once (default 4); one run is never measured by two workers. */
  workers?: number;
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

/** `{{args.NAME}}` as providers/args.ts reads it. */
const ARG_REFERENCE = /\{\{\s*args\.([A-Za-z0-9_.-]+?)\s*\}\}/g;

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** What one pass did, for the log and the measurement counter once its status is stored. */
interface Pass {
  /** Measurements with an outcome (metric name, measurement). */
  finished: Array<[string, Measurement]>;
  /** Jobs made (measurements now in flight). */
  started: string[];
  /** Jobs deleted because the run is stopping (their measurements dropped). */
  abandoned: string[];
  /** A Job could not be deleted for a passing reason: try again soon. */
  retry: boolean;
}

export class AnalysisRunController {
  readonly runs: Informer<AnalysisRun>;
  readonly controller: Controller;
  private readonly mgr: Manager;
  private readonly recorder: EventRecorder;
  private readonly measure: (input: MeasureInput) => Promise<ProviderResult>;
  private readonly jobs: JobProvider;
  /** Aborted when this replica stops leading or stops: measurements in flight end, uncounted. */
  private readonly leading = new AbortController();

  /** Registers the run controller with `mgr`: the runs' informer, its watch, queue and workers. */
  constructor(mgr: Manager, opts: AnalysisControllerOptions = {}) {
    this.mgr = mgr;
    this.measure = opts.measure ?? measureWithProviders;
    this.jobs = new JobProvider(mgr.client);
    this.recorder = mgr.eventRecorder();
    this.runs = mgr.informer<AnalysisRun>(ANALYSIS_RUNS);
    this.controller = register(mgr, {
      name: ANALYSIS_CONTROLLER_NAME,
      workers: opts.workers ?? 4,
      reconcile: (key, log, stats) => this.reconcile(key, log, stats),
      watches: [watch(this.runs, { on: ['add', 'update'], keys: ({ obj }) => [keyOf(obj)] })],
    });
    // Stopped with the workers (leader-only runnables stop first): a provider's request in flight
    // is aborted, so the pass ends without writing and the next leader takes that measurement.
    mgr.add({
      name: 'analysis-measurements',
      needLeaderElection: true,
      start: (signal) =>
        new Promise<void>((resolve) => {
          const stop = () => {
            this.leading.abort();
            resolve();
          };
          if (signal.aborted) stop();
          else signal.addEventListener('abort', stop, { once: true });
        }),
    });
    mgr.metrics?.trackAnalysisRuns(() => this.runs.list().map(runSample));
  }

  private async reconcile(key: string, log: Logger, stats: { writes: number }): Promise<ReconcileResult> {
    const cached = this.runs.get(key);
    // Gone, or ended: nothing more to do, ever (a completed run is left alone).
    if (!cached || isCompleted(cached.status?.phase ?? 'Pending')) return {};
    const now = this.mgr.clock.now();
    let run: AnalysisRun = { ...cached, status: assessRun(cached, now) };
    const pass: Pass = { finished: [], started: [], abandoned: [], retry: false };
    // Measurements in flight: a Job's outcome, once it has one (a stopping run's are ended below).
    if (!stopping(run))
      for (const f of inFlight(run)) {
        const outcome = await this.jobs.check(run, f.measurement);
        if (!outcome) continue;
        const m: Measurement = { ...f.measurement, ...outcome, finishedAt: this.isoNow() };
        run = { ...run, status: recordMeasurement(run, f.metric.name, m, this.mgr.clock.now()) };
        pass.finished.push([f.metric.name, m]);
      }
    const due = dueMetrics(run, now);
    const taken = await Promise.all(due.map((m) => this.take(run, m)));
    // Stopping: nothing of this pass is written or counted; the next leader measures again.
    if (this.leading.signal.aborted) return {};
    for (const [i, m] of taken.entries()) {
      run = { ...run, status: recordMeasurement(run, due[i].name, m, this.mgr.clock.now()) };
      if (isCompleted(m.phase)) pass.finished.push([due[i].name, m]);
      else pass.started.push(m.metadata?.[JOB_NAME_KEY] ?? due[i].name);
    }
    // A stopping run ends what is in flight: the Job deleted first, then the measurement dropped
    // uncounted, so a status write that is lost leaves it in flight for the next pass to end.
    if (stopping(run))
      for (const f of inFlight(run)) {
        const job = f.measurement.metadata?.[JOB_NAME_KEY] ?? f.metric.name;
        try {
          const leftBecause = await this.jobs.terminate(run, f.measurement);
          if (leftBecause) log.info('job left to the garbage collector', { job, reason: leftBecause });
        } catch (err) {
          log.info('job not deleted yet', { job, reason: messageOf(err) });
          pass.retry = true;
          continue;
        }
        run = { ...run, status: abandonInFlight(run, f.metric.name, this.mgr.clock.now()) };
        pass.abandoned.push(job);
      }
    if (this.leading.signal.aborted) return {};
    const status = run.status!;
    if (!semanticEqual(status, cached.status ?? {})) {
      try {
        // The status subresource, with the resourceVersion the pass read: a newer run (409) loses
        // this pass's measurements, which the next pass takes again; none is counted twice.
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
        if (isKind(err, 'Conflict')) return { requeue: true };
        if (isKind(err, 'NotFound')) return {};
        throw err;
      }
      this.afterWrite(run, pass, cached, log);
      // The Jobs of measurements the stored status no longer keeps (past the retention limit).
      for (const job of droppedJobs(cached.status, status)) {
        const leftBecause = await this.jobs.forget(run, job);
        if (leftBecause) log.info('job left to the garbage collector', { job, reason: leftBecause });
        else log.info('job deleted: its measurement is no longer kept', { job });
      }
    }
    if (pass.retry) return { requeue: true };
    const wait = nextCheck(run, this.mgr.clock.now());
    return wait === null ? {} : { requeueAfterMs: Math.max(wait, 1) };
  }

  private isoNow(): string {
    return new Date(this.mgr.clock.now()).toISOString();
  }

  /** The metrics, the log lines and the Event of a status that was stored. */
  private afterWrite(run: AnalysisRun, pass: Pass, before: AnalysisRun, log: Logger): void {
    const namespace = run.metadata.namespace ?? 'default';
    const name = run.metadata.name ?? '';
    for (const [metric, m] of pass.finished)
      this.mgr.metrics?.observeMeasurement({ namespace, run: name, metric, phase: m.phase });
    const status = run.status!;
    if (pass.started.length > 0) log.info('jobs started', { jobs: pass.started.join(',') });
    if (pass.abandoned.length > 0)
      log.info('jobs deleted, their measurements not counted: the run is stopping', {
        jobs: pass.abandoned.join(','),
      });
    if (pass.finished.length > 0)
      log.info('measured', {
        measurements: pass.finished
          .map(([metric, m]) => `${metric}=${m.phase}${m.value !== undefined ? `(${m.value})` : ''}`)
          .join(','),
        phase: status.phase,
      });
    const phase = status.phase ?? 'Running';
    if (isCompleted(phase) && phase !== before.status?.phase) {
      const bad = phase === 'Failed' || phase === 'Error';
      this.recorder.record(
        run,
        bad ? 'Warning' : 'Normal',
        `AnalysisRun${phase}`,
        `Analysis run ${phase}${status.message ? `: ${status.message}` : ''}`,
      );
    }
  }

  /** One measurement of `metric`: the provider's answer judged by the conditions, or an Error naming why. */
  private async take(run: AnalysisRun, metric: Metric): Promise<Measurement> {
    const startedAt = new Date(this.mgr.clock.now()).toISOString();
    const done = (m: Omit<Measurement, 'startedAt' | 'finishedAt'>): Measurement => ({
      ...m,
      startedAt,
      finishedAt: new Date(this.mgr.clock.now()).toISOString(),
    });
    if (metric.provider?.job) {
      // A job metric's measurement starts here and ends in a later pass (reconcile).
      try {
        const resolved = substituteArgs(metric, await this.args(run, metric));
        return { ...(await this.jobs.start(run, resolved, measurementNumber(run, metric.name))), startedAt };
      } catch (err) {
        return done({ phase: 'Error', message: messageOf(err) });
      }
    }
    let answer: ProviderResult;
    let resolved: Metric;
    try {
      resolved = await this.withSecretHeaders(run, substituteArgs(metric, await this.args(run, metric)));
      answer = await this.measure({
        metric: resolved,
        namespace: run.metadata.namespace ?? 'default',
        signal: this.leading.signal,
      });
    } catch (err) {
      return done({ phase: 'Error', message: messageOf(err) });
    }
    const kept = { value: answer.value, ...(answer.metadata ? { metadata: answer.metadata } : {}) };
    try {
      const holds = (expr: string | undefined) =>
        expr === undefined ? undefined : evaluateCondition(expr, answer.result);
      return done({
        phase: measurementPhase(holds(resolved.successCondition), holds(resolved.failureCondition)),
        ...kept,
      });
    } catch (err) {
      // A condition that cannot be evaluated for this result: an Error, with the value it was given.
      return done({ phase: 'Error', message: messageOf(err), ...kept });
    }
  }

  /** A Secret's key in the run's namespace, read now; an error names what needs it and why it failed. */
  private async secretValue(run: AnalysisRun, ref: { name: string; key: string }, what: string): Promise<string> {
    let secret: { data?: Record<string, string>; stringData?: Record<string, string> };
    try {
      secret = await this.mgr.client.get(SECRETS, run.metadata.namespace, ref.name);
    } catch (err) {
      if (isKind(err, 'NotFound'))
        throw new Error(`${what}: secret ${JSON.stringify(ref.name)} not found in namespace ${run.metadata.namespace}`);
      throw new Error(`${what}: secret ${JSON.stringify(ref.name)}: ${messageOf(err)}`);
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

  /**
   * The run's arguments by name: values as given, and the Secrets' keys that `metric`'s provider
   * refers to, read now (never stored in the run); an argument the metric does not use is not read.
   */
  private async args(run: AnalysisRun, metric: Metric): Promise<Record<string, string>> {
    const used = new Set([...JSON.stringify(metric.provider).matchAll(ARG_REFERENCE)].map((m) => m[1]));
    const out: Record<string, string> = {};
    for (const a of run.spec.args ?? []) {
      if (a.value !== undefined) {
        out[a.name] = a.value;
        continue;
      }
      if (!used.has(a.name)) continue;
      const ref = a.valueFrom?.secretKeyRef;
      if (!ref) throw new Error(`argument ${JSON.stringify(a.name)} has no value`);
      out[a.name] = await this.secretValue(run, ref, `argument ${JSON.stringify(a.name)}`);
    }
    return out;
  }
}
