// The job provider's pure parts (src/controllers/analysis/providers/job.ts): the Job's name, the Job
// made from a metric (Argo Rollouts' job metric: the metric's spec as given, its labels and
// annotations, controlled by the run), and the outcome read from a Job's conditions (Complete,
// Failed) as the Job controller sets them.

import { expect } from 'chai';
import type { AnalysisRun, Metric } from '../../../../../src/api/analysis.ts';
import {
  JOB_METRIC_ANNOTATION,
  JOB_RUN_ANNOTATION,
  JOB_RUN_UID_LABEL,
  type Job,
  type JobCondition,
  MAX_JOB_NAME,
  buildJob,
  jobName,
  jobOutcome,
} from '../../../../../src/controllers/analysis/providers/job.ts';
import { ProviderError } from '../../../../../src/controllers/analysis/providers/types.ts';

const run: AnalysisRun = {
  apiVersion: 'pacer.dev/v1alpha1',
  kind: 'AnalysisRun',
  metadata: { name: 'web-5d4f8b-1', namespace: 'shop', uid: 'c0ffee-1' },
  spec: { metrics: [] },
};
const spec = {
  backoffLimit: 0,
  template: { spec: { restartPolicy: 'Never', containers: [{ name: 'smoke', image: 'curl', args: ['http://web'] }] } },
};
const metric: Metric = {
  name: 'smoke',
  provider: { job: { metadata: { labels: { team: 'shop' }, annotations: { note: 'x' } }, spec } },
};

describe('analysis providers: job (the pure parts)', () => {
  describe('jobName', () => {
    it('<run>-<metric>-<n>', () => {
      expect(jobName('web-5d4f8b-1', 'smoke', 3)).to.equal('web-5d4f8b-1-smoke-3');
    });

    it('longer than 63: the start kept, then a hash of the run and the metric, then -<n>; the same every time', () => {
      const run = `checkout-service-with-a-long-name-${'a'.repeat(20)}-7c9d5f6b8-12`;
      const a = jobName(run, 'end-to-end-smoke', 4);
      expect(a.length).to.be.at.most(MAX_JOB_NAME);
      expect(a).to.match(/^checkout-service-with-a-long-name-a+-[0-9a-f]{8}-4$/);
      expect(jobName(run, 'end-to-end-smoke', 4)).to.equal(a);
      expect(jobName(run, 'end-to-end-smoke', 5)).to.equal(a.replace(/-4$/, '-5'));
      expect(jobName(run, 'end-to-end-smokes', 4), 'another metric, another hash').to.not.equal(a);
    });
  });

  describe('buildJob', () => {
    it("the metric's spec as given, its labels and annotations with the run's, controlled by the run", () => {
      const job = buildJob(run, metric, 2);
      expect(job).to.deep.equal({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {
          name: 'web-5d4f8b-1-smoke-2',
          namespace: 'shop',
          labels: { team: 'shop', [JOB_RUN_UID_LABEL]: 'c0ffee-1' },
          annotations: { note: 'x', [JOB_RUN_ANNOTATION]: 'web-5d4f8b-1', [JOB_METRIC_ANNOTATION]: 'smoke' },
          ownerReferences: [
            {
              apiVersion: 'pacer.dev/v1alpha1',
              kind: 'AnalysisRun',
              name: 'web-5d4f8b-1',
              uid: 'c0ffee-1',
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        spec,
      });
    });

    it("without metadata: only the run's label and annotations", () => {
      const job = buildJob(run, { name: 'smoke', provider: { job: { spec } } }, 1);
      expect(job.metadata.labels).to.deep.equal({ [JOB_RUN_UID_LABEL]: 'c0ffee-1' });
      expect(Object.keys(job.metadata.annotations ?? {})).to.deep.equal([JOB_RUN_ANNOTATION, JOB_METRIC_ANNOTATION]);
    });

    it('no spec: a ProviderError naming the field', () => {
      const bad = { name: 'smoke', provider: { job: {} } } as unknown as Metric;
      expect(() => buildJob(run, bad, 1))
        .to.throw(ProviderError)
        .with.property('message', 'metric "smoke": provider.job.spec: Required value: a batch/v1 JobSpec');
    });
  });

  describe("jobOutcome: the Job controller's conditions", () => {
    const c = (type: string, status = 'True', reason?: string, message?: string): JobCondition => ({
      type,
      status,
      ...(reason ? { reason } : {}),
      ...(message ? { message } : {}),
    });
    const rows: Array<[string, JobCondition[] | undefined, ReturnType<typeof jobOutcome>]> = [
      ['no status yet: still running', undefined, undefined],
      ['pods running, no condition: still running', [], undefined],
      ['SuccessCriteriaMet alone (pods still stopping): not yet', [c('SuccessCriteriaMet')], undefined],
      [
        'FailureTarget alone (pods still stopping): not yet',
        [c('FailureTarget', 'True', 'BackoffLimitExceeded')],
        undefined,
      ],
      [
        'Complete: Successful',
        [c('SuccessCriteriaMet', 'True', 'CompletionsReached'), c('Complete', 'True', 'CompletionsReached')],
        { phase: 'Successful' },
      ],
      ['Complete False: not an outcome', [c('Complete', 'False')], undefined],
      [
        'Failed: Failed, with its reason and message',
        [
          c('FailureTarget', 'True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'),
          c('Failed', 'True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'),
        ],
        {
          phase: 'Failed',
          message: 'job web-5d4f8b-1-smoke-1 failed: BackoffLimitExceeded: Job has reached the specified backoff limit',
        },
      ],
      [
        'Failed by its deadline, without a message',
        [c('Failed', 'True', 'DeadlineExceeded')],
        { phase: 'Failed', message: 'job web-5d4f8b-1-smoke-1 failed: DeadlineExceeded' },
      ],
    ];
    for (const [what, conditions, want] of rows)
      it(what, () => {
        const job: Job = {
          metadata: { name: 'web-5d4f8b-1-smoke-1' },
          spec,
          ...(conditions ? { status: { conditions } } : {}),
        };
        expect(jobOutcome(job)).to.deep.equal(want);
      });
  });
});
