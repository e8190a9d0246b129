// Measurements in flight across passes (src/engine/analysis/inflight.ts and recordMeasurement), in
// rows that read like a job metric's life in Argo Rollouts (its analysis controller stores a Job's
// measurement as Running with a startedAt and resumes it at each reconcile): the Job made, its
// outcome recorded in its place exactly once, a restart finding the same Job by its number, and a
// run that stops giving up the Job uncounted.

import { expect } from 'chai';
import type { AnalysisRun, Measurement, Metric } from '../../../../src/api/analysis.ts';
import {
  RECHECK_MAX_MS,
  RECHECK_MIN_MS,
  abandonInFlight,
  inFlight,
  measurementNumber,
  nextCheck,
  recheckAfter,
} from '../../../../src/engine/analysis/inflight.ts';
import { assessRun, dueAt, dueMetrics, nextDue, recordMeasurement } from '../../../../src/engine/analysis/measure.ts';

const T0 = Date.parse('2026-02-01T08:00:00.000Z');
const iso = (s: number) => new Date(T0 + s * 1000).toISOString();

const job = (m: Partial<Metric> = {}): Metric => ({
  name: 'smoke',
  provider: { job: { spec: { template: { spec: { restartPolicy: 'Never', containers: [] } } } } },
  ...m,
});
const prom = (m: Partial<Metric> = {}): Metric => ({
  name: 'errors',
  interval: '10s',
  successCondition: 'result < 0.05',
  provider: { prometheus: { address: 'http://p:9090', query: 'x' } },
  ...m,
});

function runOf(metrics: Metric[], extra: Partial<AnalysisRun['spec']> = {}): AnalysisRun {
  const r: AnalysisRun = { metadata: { name: 'web-abc-1', namespace: 'default' }, spec: { metrics, ...extra } };
  return { ...r, status: assessRun(r, T0) };
}

/** The run with measurement `m` of metric `name` recorded at second `s`. */
function record(r: AnalysisRun, name: string, m: Measurement, s: number): AnalysisRun {
  return { ...r, status: recordMeasurement(r, name, m, T0 + s * 1000) };
}
const started = (s: number, n = 1): Measurement => ({
  phase: 'Running',
  startedAt: iso(s),
  metadata: { 'job-name': `web-abc-1-smoke-${n}` },
});
/** The outcome of the measurement started at `from`, at `to`. */
const ended = (phase: Measurement['phase'], from: number, to: number, n = 1, message?: string): Measurement => ({
  phase,
  startedAt: iso(from),
  finishedAt: iso(to),
  metadata: { 'job-name': `web-abc-1-smoke-${n}` },
  ...(message ? { message } : {}),
});
const result = (r: AnalysisRun, name = 'smoke') => r.status!.metricResults!.find((x) => x.name === name)!;
const stop = (r: AnalysisRun, s: number): AnalysisRun => {
  const t: AnalysisRun = { ...r, spec: { ...r.spec, terminate: true } };
  return { ...t, status: assessRun(t, T0 + s * 1000) };
};

describe('engine/analysis/inflight: a measurement in flight across passes', () => {
  describe('started, then its outcome recorded in its place', () => {
    it('a Job made: the measurement is stored Running and not counted; the metric and the run are Running; nothing more is due', () => {
      const r = record(runOf([job()]), 'smoke', started(0), 0);
      expect(result(r)).to.deep.include({ phase: 'Running', count: 0, error: 0 });
      expect(result(r).measurements).to.deep.equal([started(0)]);
      expect(r.status!.phase).to.equal('Running');
      expect(dueAt(r, job())).to.equal(undefined);
      expect(nextDue(r, T0)).to.equal(null);
      expect(inFlight(r).map((f) => [f.metric.name, f.measurement.metadata?.['job-name']])).to.deep.equal([
        ['smoke', 'web-abc-1-smoke-1'],
      ]);
    });

    it('a second start beside one in flight is not recorded', () => {
      const r = record(record(runOf([job()]), 'smoke', started(0), 0), 'smoke', started(5, 2), 5);
      expect(result(r).measurements).to.deep.equal([started(0)]);
    });

    it('the Job completes: Successful replaces the one in flight, counted once; a one-measurement metric ends the run Successful', () => {
      const r = record(record(runOf([job()]), 'smoke', started(0), 0), 'smoke', ended('Successful', 0, 40), 40);
      expect(result(r).measurements).to.deep.equal([ended('Successful', 0, 40)]);
      expect(result(r)).to.deep.include({ phase: 'Successful', count: 1, successful: 1 });
      expect(r.status!.phase).to.equal('Successful');
      expect(inFlight(r)).to.deep.equal([]);
    });

    it("the Job fails: Failed, and the run says why in the Job's words (a Job has no value)", () => {
      const why = 'job web-abc-1-smoke-1 failed: BackoffLimitExceeded: Job has reached the specified backoff limit';
      const r = record(record(runOf([job()]), 'smoke', started(0), 0), 'smoke', ended('Failed', 0, 12, 1, why), 12);
      expect(r.status!.phase).to.equal('Failed');
      expect(r.status!.message).to.equal(
        `metric "smoke" assessed Failed: 1 of 1 measurements failed (failureLimit 0); last: ${why}`,
      );
    });

    it('interval 10s, count 3, each Job taking 25 s: the next Job 10 s after the previous one finished', () => {
      const m = job({ interval: '10s', count: 3 });
      let r = runOf([m]);
      const startedAt: number[] = [];
      let now = 0;
      for (let n = 1; n <= 3; n++) {
        expect(dueMetrics(r, T0 + now * 1000).map((x) => x.name)).to.deep.equal(['smoke']);
        expect(measurementNumber(r, 'smoke')).to.equal(n);
        r = record(r, 'smoke', started(now, n), now);
        startedAt.push(now);
        expect(dueMetrics(r, T0 + (now + 24) * 1000), 'nothing due while in flight').to.deep.equal([]);
        r = record(r, 'smoke', ended('Successful', now, now + 25, n), now + 25);
        const next = dueAt(r, m);
        if (n === 3) expect(next, 'count reached').to.equal(undefined);
        else now = (next! - T0) / 1000;
      }
      expect(startedAt).to.deep.equal([0, 35, 70]);
      expect(result(r)).to.deep.include({ phase: 'Successful', count: 3, successful: 3 });
      expect(r.status!.phase).to.equal('Successful');
    });

    it('retention 2: the one in flight is kept among the two; its outcome takes its place', () => {
      const m = job({ interval: '1s', count: 5 });
      let r = runOf([m], { measurementRetention: [{ metricName: 'smoke', limit: 2 }] });
      r = record(record(r, 'smoke', started(0, 1), 0), 'smoke', ended('Successful', 0, 2, 1), 2);
      r = record(record(r, 'smoke', started(3, 2), 3), 'smoke', ended('Successful', 3, 5, 2), 5);
      r = record(r, 'smoke', started(6, 3), 6);
      expect(result(r).measurements!.map((x) => x.phase)).to.deep.equal(['Successful', 'Running']);
      r = record(r, 'smoke', ended('Failed', 6, 8, 3), 8);
      expect(result(r).measurements!.map((x) => x.metadata?.['job-name'])).to.deep.equal([
        'web-abc-1-smoke-2',
        'web-abc-1-smoke-3',
      ]);
      expect(result(r)).to.deep.include({ count: 3, successful: 2, failed: 1, phase: 'Failed' });
    });
  });

  describe("the measurement's number, which names its Job", () => {
    const rows: Array<[string, Array<Measurement['phase']>, number]> = [
      ['none taken yet: 1', [], 1],
      ['two taken: 3', ['Successful', 'Failed'], 3],
      ['an Error (a Job that could not be made) takes a number too: 3', ['Successful', 'Error'], 3],
    ];
    for (const [what, phases, want] of rows)
      it(what, () => {
        let r = runOf([job({ interval: '1s', failureLimit: 5 })]);
        phases.forEach((p, i) => {
          r = record(r, 'smoke', ended(p, i * 2, i * 2 + 1, i + 1), i * 2 + 1);
        });
        expect(measurementNumber(r, 'smoke')).to.equal(want);
      });

    it('a pass whose status write was lost (409, a restart) computes the same number again; the one in flight keeps it until it ends', () => {
      const r = runOf([job()]);
      const inFlightRun = record(r, 'smoke', started(0), 0);
      expect(measurementNumber(r, 'smoke')).to.equal(1);
      expect(measurementNumber(inFlightRun, 'smoke'), 'in flight: not counted yet').to.equal(1);
    });
  });

  describe('when the controller looks at it again', () => {
    const rows: Array<[string, number, number]> = [
      ['just made: after 1 s', 0, RECHECK_MIN_MS],
      ['running 3 s: after 1 s', 3, RECHECK_MIN_MS],
      ['running 10 s: after 2 s (a fifth)', 10, 2_000],
      ['running 1 minute: after 10 s', 60, RECHECK_MAX_MS],
      ['running 10 minutes: still after 10 s', 600, RECHECK_MAX_MS],
    ];
    for (const [what, ran, want] of rows)
      it(what, () => expect(recheckAfter(started(0), T0 + ran * 1000)).to.equal(want));

    it('nextCheck: the sooner of the next measurement due and the next look at one in flight', () => {
      const r = record(record(runOf([job(), prom()]), 'errors', ended('Successful', 0, 0), 0), 'smoke', started(0), 0);
      expect(nextDue(r, T0 + 9_000), 'errors at 10 s').to.equal(1_000);
      expect(nextCheck(r, T0 + 5_000)).to.equal(RECHECK_MIN_MS);
      expect(nextCheck(r, T0 + 9_500)).to.equal(500);
    });

    it('nextCheck: a stopping run with one in flight is looked at now (its Job is to be deleted)', () => {
      expect(nextCheck(stop(record(runOf([job()]), 'smoke', started(0), 0), 3), T0 + 3_000)).to.equal(0);
    });
  });

  describe('the run stops with a measurement in flight', () => {
    it('spec.terminate: the run stays Running until the Job is given up; then it is dropped uncounted and the run ends Successful', () => {
      const r = stop(record(runOf([job()]), 'smoke', started(0), 0), 3);
      expect(r.status!.phase, 'still Running: the Job is not deleted yet').to.equal('Running');
      const after = { ...r, status: abandonInFlight(r, 'smoke', T0 + 3_000) };
      expect(result(after).measurements).to.deep.equal([]);
      expect(result(after)).to.deep.include({ phase: 'Successful', count: 0, successful: 0 });
      expect(after.status!.phase).to.equal('Successful');
      expect(inFlight(after)).to.deep.equal([]);
    });

    it('another metric fails while a Job runs: the run stops; once the Job is given up it ends Failed, the job metric Successful with its earlier counts', () => {
      let r = runOf([job({ interval: '10s' }), prom()]);
      r = record(record(r, 'smoke', started(0, 1), 0), 'smoke', ended('Successful', 0, 4, 1), 4);
      r = record(r, 'smoke', started(14, 2), 14);
      r = record(r, 'errors', { phase: 'Failed', startedAt: iso(15), finishedAt: iso(15), value: '0.4' }, 15);
      expect(r.status!.phase).to.equal('Running');
      expect(result(r, 'errors').phase).to.equal('Failed');
      const after = { ...r, status: abandonInFlight(r, 'smoke', T0 + 15_000) };
      expect(after.status!.phase).to.equal('Failed');
      expect(result(after)).to.deep.include({ phase: 'Successful', count: 1, successful: 1 });
      expect(result(after).measurements!.map((x) => x.metadata?.['job-name'])).to.deep.equal(['web-abc-1-smoke-1']);
    });

    it('a run that is not stopping keeps its measurement in flight', () => {
      const r = record(runOf([job()]), 'smoke', started(0), 0);
      expect(result({ ...r, status: abandonInFlight(r, 'smoke', T0 + 1_000) }).measurements).to.deep.equal([
        started(0),
      ]);
    });

    it('an outcome that comes after the run ended is not recorded', () => {
      const r = stop(record(runOf([job()]), 'smoke', started(0), 0), 3);
      const done = { ...r, status: abandonInFlight(r, 'smoke', T0 + 3_000) };
      expect(record(done, 'smoke', ended('Failed', 0, 5), 5).status).to.deep.equal(done.status);
    });
  });
});
