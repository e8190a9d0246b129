// The job provider (docs/semantics/analysis.md#job): a measurement is a batch/v1 Job made from the
// metric's `provider.job` (its metadata's labels and annotations, its spec), in the run's namespace
// and controlled by the run (deleted with it); Successful when the Job completes (condition
// Complete), Failed when it fails (condition Failed), Error when it cannot be made. A Job lasts
// seconds to minutes, so the measurement spans passes (engine/analysis/inflight.ts): `start` makes
// the Job, `check` reads it until it has an outcome, `terminate` deletes it when the run stops.
// Argo Rollouts' job metric is the model (https://argo-rollouts.readthedocs.io/en/stable/analysis/job/).

import { createHash } from 'node:crypto';
import { HttpMethod } from '../../../kube/client.ts';
import type { AnalysisRun, Measurement, Metric } from '../../../api/analysis.ts';
import { ANALYSIS_RUN_KIND, JOB_NAME_KEY } from '../../../api/analysis.ts';
import type { ObjectMeta } from '../../../api/types.ts';
import type { KubeClient, ResourceType } from '../../../kube/client.ts';
import { isKind } from '../../../kube/errors.ts';
import { ProviderError } from './types.ts';

export const JOBS: ResourceType = { group: 'batch', version: 'v1', plural: 'jobs', kind: 'Job', namespaced: true };

/** On each Job: the uid of the run it measures for (a label, so Jobs can be selected by run). */
export const JOB_RUN_UID_LABEL = 'pacer.dev/analysis-run-uid';
/** On each Job: the run's name and the metric's. */
export const JOB_RUN_ANNOTATION = 'pacer.dev/analysis-run';
export const JOB_METRIC_ANNOTATION = 'pacer.dev/metric';

/** The longest Job name: the Job controller puts it in its pods' job-name label, a label value. */
export const MAX_JOB_NAME = 63;

export interface JobCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** A batch/v1 Job as this provider reads and writes it. */
export interface Job {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: Record<string, unknown>;
  status?: { conditions?: JobCondition[]; active?: number; succeeded?: number; failed?: number };
}

/**
 * The name of the Job of measurement `n` of `metric` in `run`: `<run>-<metric>-<n>`, the same in
 * every pass (n is measurementNumber's), so a restarted controller finds the Job it made. A name
 * longer than 63 characters keeps its start, then 8 hex digits of a hash of the run's and the
 * metric's names, then `-<n>`.
 */
export function jobName(run: string, metric: string, n: number): string {
  const suffix = `-${n}`;
  const whole = `${run}-${metric}`;
  if (whole.length + suffix.length <= MAX_JOB_NAME) return whole + suffix;
  const hash = createHash('sha256').update(`${run}/${metric}`).digest('hex').slice(0, 8);
  const keep = whole.slice(0, MAX_JOB_NAME - suffix.length - hash.length - 1).replace(/[-.]+$/, '');
  return `${keep}-${hash}${suffix}`;
}

/**
 * The Job of measurement `n` of `metric` (its `{{args.NAME}}` already replaced) in `run`: the
 * metric's spec as given; its labels and annotations, and the run's uid label and name and
 * metric annotations; controlled by the run, so the garbage collector deletes it with the run.
 */
export function buildJob(run: AnalysisRun, metric: Metric, n: number): Job {
  const job = metric.provider.job;
  if (!job?.spec || typeof job.spec !== 'object')
    throw new ProviderError(
      `metric ${JSON.stringify(metric.name)}: provider.job.spec: Required value: a batch/v1 JobSpec`,
    );
  const runName = run.metadata.name ?? '';
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobName(runName, metric.name, n),
      namespace: run.metadata.namespace ?? 'default',
      labels: { ...job.metadata?.labels, [JOB_RUN_UID_LABEL]: run.metadata.uid ?? '' },
      annotations: {
        ...job.metadata?.annotations,
        [JOB_RUN_ANNOTATION]: runName,
        [JOB_METRIC_ANNOTATION]: metric.name,
      },
      ownerReferences: [
        {
          apiVersion: run.apiVersion ?? 'pacer.dev/v1alpha1',
          kind: ANALYSIS_RUN_KIND,
          name: runName,
          uid: run.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: job.spec,
  };
}

/**
 * A Job's outcome from its conditions, or undefined while it has none: Failed when its `Failed`
 * condition is True (with the condition's reason and message), else Successful when `Complete`
 * is. The Job controller sets these only once the Job's pods have stopped (SuccessCriteriaMet and
 * FailureTarget come first and are not outcomes yet).
 */
export function jobOutcome(job: Job): Pick<Measurement, 'phase' | 'message'> | undefined {
  const holds = (type: string) => job.status?.conditions?.find((c) => c.type === type && c.status === 'True');
  const failed = holds('Failed');
  if (failed) {
    const why = [failed.reason, failed.message].filter(Boolean).join(': ');
    return { phase: 'Failed', message: `job ${job.metadata.name} failed${why ? `: ${why}` : ''}` };
  }
  if (holds('Complete')) return { phase: 'Successful' };
  return undefined;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Errors that say nothing about the Job: the next look may succeed. */
const passing = (err: unknown) => isKind(err, 'Transient') || isKind(err, 'Unreachable');

/** The job provider's calls to the API server. */
export class JobProvider {
  private readonly client: KubeClient;

  constructor(client: KubeClient) {
    this.client = client;
  }

  /**
   * Makes the Job of measurement `n` of `metric` (arguments replaced) and answers the measurement
   * in flight (Running, its Job's name in metadata.job-name), or throws a ProviderError naming the
   * Job and why it could not be made. A Job of that name that the run already controls (made by a
   * pass whose status write was lost, or by a controller that died before writing it) is taken as
   * this measurement's; one controlled by anything else is an error.
   */
  async start(run: AnalysisRun, metric: Metric, n: number): Promise<Pick<Measurement, 'phase' | 'metadata'>> {
    const job = buildJob(run, metric, n);
    const name = job.metadata.name!;
    const ns = job.metadata.namespace!;
    const where = `job ${name} in namespace ${ns}`;
    try {
      await this.client.create<Job>(JOBS, ns, job);
    } catch (err) {
      if (isKind(err, 'NotFound') && !(await this.served()))
        throw new ProviderError(
          `${where}: the API server at ${this.client.server} does not serve batch/v1 jobs: a job metric needs a cluster that runs Jobs`,
        );
      if (!isKind(err, 'AlreadyExists')) throw new ProviderError(`${where}: ${messageOf(err)}`);
      let existing: Job;
      try {
        existing = await this.client.get<Job>(JOBS, ns, name);
      } catch (e) {
        throw new ProviderError(`${where}: it exists but cannot be read: ${messageOf(e)}`);
      }
      const owner = existing.metadata.ownerReferences?.find((r) => r.controller);
      if (owner?.uid !== run.metadata.uid)
        throw new ProviderError(
          `${where} already exists and is not controlled by analysis run ${run.metadata.name} (its controller: ${owner ? `${owner.kind} ${owner.name}` : 'none'})`,
        );
    }
    return { phase: 'Running', metadata: { [JOB_NAME_KEY]: name } };
  }

  /**
   * The outcome of measurement `m` in flight, or undefined while its Job runs or cannot be read for
   * a passing reason (the API server unreachable or overloaded: looked at again later). A Job gone
   * before it finished, or a measurement that names no Job, is an Error.
   */
  async check(run: AnalysisRun, m: Measurement): Promise<Pick<Measurement, 'phase' | 'message'> | undefined> {
    const name = m.metadata?.[JOB_NAME_KEY];
    const ns = run.metadata.namespace ?? 'default';
    if (!name) return { phase: 'Error', message: `the measurement in flight names no Job (metadata.${JOB_NAME_KEY})` };
    let job: Job;
    try {
      job = await this.client.get<Job>(JOBS, ns, name);
    } catch (err) {
      if (isKind(err, 'NotFound'))
        return { phase: 'Error', message: `job ${name} in namespace ${ns}: deleted before it finished` };
      if (passing(err)) return undefined;
      return { phase: 'Error', message: `job ${name} in namespace ${ns}: ${messageOf(err)}` };
    }
    return jobOutcome(job);
  }

  /**
   * Deletes the Job of measurement `m` in flight (propagation Background: its pods go after it);
   * one already gone is fine. Throws on a passing failure, so that the run keeps it and tries again;
   * answers the reason of any other failure (the Job is then left to the garbage collector, which
   * deletes it with the run).
   */
  async terminate(run: AnalysisRun, m: Measurement): Promise<string | undefined> {
    const name = m.metadata?.[JOB_NAME_KEY];
    if (!name) return undefined;
    const err = await this.deleteJob(run, name);
    if (err === undefined) return undefined;
    if (passing(err)) throw err;
    return messageOf(err);
  }

  /**
   * Deletes the Job of a finished measurement the run's status no longer keeps (past the retention
   * limit; propagation Background). One already gone is fine; the reason of any other failure is
   * answered, and the Job is then left to the garbage collector, which deletes it with its run.
   */
  async forget(run: AnalysisRun, name: string): Promise<string | undefined> {
    const err = await this.deleteJob(run, name);
    return err === undefined ? undefined : messageOf(err);
  }

  /** Deletes Job `name` of `run`'s namespace (propagation Background: its pods go after it): the failure, or undefined once it is gone. */
  private async deleteJob(run: AnalysisRun, name: string): Promise<unknown> {
    try {
      await this.client.delete(JOBS, run.metadata.namespace, name, { propagationPolicy: 'Background' });
    } catch (err) {
      return isKind(err, 'NotFound') ? undefined : err;
    }
    return undefined;
  }

  /** Whether the API server serves batch/v1 (its discovery document for the group version). */
  private async served(): Promise<boolean> {
    try {
      const list = await this.client.request<{ resources?: Array<{ name?: string }> }>(
        HttpMethod.GET,
        '/apis/batch/v1',
        { what: 'discovery of batch/v1' },
      );
      return (list.resources ?? []).some((r) => r.name === 'jobs');
    } catch (err) {
      return !isKind(err, 'NotFound');
    }
  }
}
