// A run over time (src/engine/analysis/measure.ts), in rows that read like Argo Rollouts' documented
// examples (docs/semantics/analysis.md#a-run-over-time): when each metric is due, how measurements
// add up under the limits when only the latest are kept, and what the run says when it ends badly.

import { expect } from 'chai';
import type { AnalysisPhase, AnalysisRun, Metric } from '../../../../src/api/analysis.ts';
import {
  assessRun,
  dueAt,
  dueMetrics,
  ERROR_RETRY_MS,
  limitsOf,
  nextDue,
  recordMeasurement,
} from '../../../../src/engine/analysis/measure.ts';

const T0 = Date.parse('2025-03-01T10:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

const metric = (m: Partial<Metric> = {}): Metric => ({
  name: 'errors',
  interval: '10s',
  successCondition: 'result < 0.05',
  provider: { prometheus: { address: 'http://p:9090', query: 'x' } },
  ...m,
});

function run(metrics: Metric[], extra: Partial<AnalysisRun['spec']> = {}): AnalysisRun {
  const r: AnalysisRun = { metadata: { name: 'web-abc-1', namespace: 'default' }, spec: { metrics, ...extra } };
  r.status = assessRun(r, T0);
  return r;
}

/** The run after `phases` were measured for metric `name`, one every 10 s from T0 (value: the index). */
function measured(r: AnalysisRun, phases: AnalysisPhase[], name = r.spec.metrics[0].name): AnalysisRun {
  let out = r;
  const m = r.spec.metrics.find((x) => x.name === name)!;
  phases.forEach((phase, i) => {
    const status = recordMeasurement(
      out,
      m,
      {
        phase,
        startedAt: at(i * 10),
        finishedAt: at(i * 10),
        value: String(i),
        ...(phase === 'Error' ? { message: 'prometheus at http://p:9090: connect ECONNREFUSED' } : {}),
      },
      T0 + i * 10_000,
    );
    out = { ...out, status };
  });
  return out;
}

const result = (r: AnalysisRun, name = 'errors') => r.status?.metricResults?.find((x) => x.name === name);

describe('engine/analysis/measure: a run over time', () => {
  describe('when a metric is due', () => {
    it('the first measurement at the start, or initialDelay later', () => {
      expect(dueAt(run([metric()]), metric())).to.equal(T0);
      const delayed = metric({ initialDelay: '30s' });
      expect(dueAt(run([delayed]), delayed)).to.equal(T0 + 30_000);
    });

    it('the next one interval after the last one ended', () => {
      const r = measured(run([metric()]), ['Successful']);
      expect(dueAt(r, metric())).to.equal(T0 + 10_000);
      expect(dueMetrics(r, T0 + 9_999)).to.deep.equal([]);
      expect(dueMetrics(r, T0 + 10_000).map((m) => m.name)).to.deep.equal(['errors']);
      expect(nextDue(r, T0 + 4_000)).to.equal(6_000);
    });

    it('without an interval one measurement is taken (count 1), an Error retried after 10 s', () => {
      const once = metric({ interval: undefined });
      expect(limitsOf(once).count).to.equal(1);
      const errored = measured(run([once]), ['Error']);
      expect(dueAt(errored, once)).to.equal(T0 + ERROR_RETRY_MS);
      const done = measured(run([once]), ['Successful']);
      expect(result(done)?.phase).to.equal('Successful');
      expect(dueAt(done, once)).to.equal(undefined);
      expect(done.status?.phase).to.equal('Successful');
    });

    it('nothing is due once the run is terminated or has ended', () => {
      const r = run([metric()], { terminate: true });
      expect(nextDue(r, T0)).to.equal(null);
      expect(r.status?.phase).to.equal('Successful');
    });
  });

  describe("measurements under the limits (Argo Rollouts' rules)", () => {
    const rows: Array<[string, Partial<Metric>, AnalysisPhase[], AnalysisPhase]> = [
      ['failureLimit 1: one failure is tolerated', { failureLimit: 1 }, ['Successful', 'Failed'], 'Running'],
      [
        'failureLimit 1: the second failure fails it',
        { failureLimit: 1 },
        ['Failed', 'Successful', 'Failed'],
        'Failed',
      ],
      [
        'count 3 reached with a tolerated failure: Successful',
        { count: 3, failureLimit: 1 },
        ['Successful', 'Failed', 'Successful'],
        'Successful',
      ],
      ['inconclusiveLimit 0: one inconclusive ends it', {}, ['Inconclusive'], 'Inconclusive'],
      [
        'consecutiveErrorLimit 2: three errors in a row',
        { consecutiveErrorLimit: 2 },
        ['Error', 'Error', 'Error'],
        'Error',
      ],
      [
        'an error streak broken by a success starts again',
        { consecutiveErrorLimit: 2 },
        ['Error', 'Error', 'Successful', 'Error', 'Error'],
        'Running',
      ],
      [
        'consecutiveSuccessLimit 2 does not forgive a failure past failureLimit 0',
        { consecutiveSuccessLimit: 2, count: 10 },
        ['Successful', 'Failed', 'Successful', 'Successful'],
        'Failed',
      ],
      [
        'consecutiveSuccessLimit 2 with failureLimit 1',
        { consecutiveSuccessLimit: 2, failureLimit: 1 },
        ['Failed', 'Successful', 'Successful'],
        'Successful',
      ],
      ['errors do not count towards count', { count: 2 }, ['Successful', 'Error', 'Successful'], 'Successful'],
    ];
    for (const [name, limits, phases, want] of rows)
      it(`${name}: ${phases.join(', ')} → ${want}`, () => {
        const m = metric(limits);
        expect(result(measured(run([m]), phases))?.phase).to.equal(want);
      });

    it('retention 2 keeps the last two measurements, while the counts keep all of them', () => {
      const m = metric({ failureLimit: 2 });
      const r = measured(run([m], { measurementRetention: [{ metricName: 'errors', limit: 2 }] }), [
        'Failed',
        'Successful',
        'Failed',
        'Failed',
      ]);
      expect(result(r)?.measurements?.map((x) => x.value)).to.deep.equal(['2', '3']);
      expect(result(r)).to.include({ count: 4, failed: 3, successful: 1, phase: 'Failed' });
    });
  });

  describe('the run', () => {
    it('one metric failing ends the run Failed; the others still open end Successful; the message names the metric, its counts and its last value', () => {
      const r0 = run([metric({ failureLimit: 1 }), metric({ name: 'latency', successCondition: 'result < 0.3' })]);
      const r = measured(r0, ['Failed', 'Failed']);
      expect(r.status?.phase).to.equal('Failed');
      expect(result(r, 'latency')?.phase).to.equal('Successful');
      expect(r.status?.message).to.equal(
        'metric "errors" assessed Failed: 2 of 2 measurements failed (failureLimit 1); last value 1 against successCondition "result < 0.05"',
      );
      expect(nextDue(r, T0 + 60_000)).to.equal(null);
      expect(r.status?.runSummary).to.deep.equal({ count: 2, successful: 1, failed: 1, inconclusive: 0, error: 0 });
    });

    it("errors past the limit: Error, with the provider's reason", () => {
      const r = measured(run([metric({ consecutiveErrorLimit: 1 })]), ['Error', 'Error']);
      expect(r.status?.phase).to.equal('Error');
      expect(r.status?.message).to.equal(
        'metric "errors" assessed Error: 2 errors in a row (consecutiveErrorLimit 1): prometheus at http://p:9090: connect ECONNREFUSED',
      );
    });

    it('a dry-run metric that fails does not fail the run; it is counted apart', () => {
      const r0 = run([metric(), metric({ name: 'latency', interval: undefined })], {
        dryRun: [{ metricName: 'errors' }],
      });
      const r = measured(measured(r0, ['Failed']), ['Successful'], 'latency');
      expect(result(r)?.dryRun).to.equal(true);
      expect(result(r)?.phase).to.equal('Failed');
      expect(r.status?.phase).to.equal('Successful');
      expect(r.status?.dryRunSummary).to.include({ count: 1, failed: 1 });
    });

    it('terminate: the metrics still open end Successful', () => {
      const r = measured(run([metric()]), ['Successful']);
      const stopped = assessRun({ ...r, spec: { ...r.spec, terminate: true } }, T0 + 20_000);
      expect(stopped.phase).to.equal('Successful');
    });
  });
});
