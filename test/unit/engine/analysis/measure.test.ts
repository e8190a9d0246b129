// A run over time (src/engine/analysis/measure.ts), in rows that read like Argo Rollouts' documented
// examples (docs/semantics/analysis.md#a-run-over-time): when each metric is due, how measurements
// add up under the limits when only the latest are kept, and what the run says when it ends badly.

import { expect } from 'chai';
import type { AnalysisPhase, AnalysisRun, AnalysisRunSpec, Measurement, Metric } from '../../../../src/api/analysis.ts';
import {
  assessRun,
  dueAt,
  droppedJobs,
  dueMetrics,
  ERROR_RETRY_MS,
  limitsOf,
  nextDue,
  numericValue,
  recordMeasurement,
  scheduleOf,
  stopping,
  TERMINATED_MESSAGE,
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

// The same rules played over time: each row runs a run through the engine alone, the way the run
// controller does (assess at first sight, measure what is due, record it, wait until the next is
// due), with the providers' answers scripted, and checks when each measurement was taken and how the
// run ended. Rows read like Argo Rollouts' documented examples
// (https://argo-rollouts.readthedocs.io/en/stable/features/analysis/).

const START = Date.parse('2026-01-01T00:00:00Z');
const S = 'Successful';
const F = 'Failed';
const E = 'Error';
const I = 'Inconclusive';
type Answer = AnalysisPhase | [AnalysisPhase, string];

const prom = { prometheus: { address: 'http://prom:9090', query: 'q' } };
const named = (name: string, over: Partial<Metric> = {}): Metric => ({ name, provider: prom, ...over });
const runOf = (spec: Partial<AnalysisRunSpec> & { metrics: Metric[] }): AnalysisRun => ({
  apiVersion: 'pacer.dev/v1alpha1',
  kind: 'AnalysisRun',
  metadata: { name: 'web-abc-1', namespace: 'default' },
  spec,
});

interface Played {
  run: AnalysisRun;
  /** Seconds after the start at which each metric was measured. */
  at: Record<string, number[]>;
  /** Seconds after the start at which the run ended (undefined: still running at the horizon). */
  endedAt?: number;
}

/**
 * Plays `run` from START: the controller's loop over the engine. Each metric answers from its script
 * in order (then Successful); `terminateAt` (seconds) sets spec.terminate then. Stops when nothing
 * more is due, or at `horizon` seconds.
 */
function play(
  r: AnalysisRun,
  script: Record<string, Answer[]>,
  opts: { terminateAt?: number; horizon?: number } = {},
): Played {
  let current: AnalysisRun = { ...r, status: assessRun(r, START) };
  let now = START;
  const taken: Record<string, number[]> = {};
  const horizon = START + (opts.horizon ?? 3600) * 1000;
  let endedAt: number | undefined;
  for (let step = 0; step < 1000; step++) {
    if (opts.terminateAt !== undefined && now >= START + opts.terminateAt * 1000 && !current.spec.terminate) {
      current = { ...current, spec: { ...current.spec, terminate: true } };
      current = { ...current, status: assessRun(current, now) };
    }
    for (const m of dueMetrics(current, now)) {
      const next = script[m.name]?.shift() ?? S;
      const [phase, value] = Array.isArray(next) ? next : [next, phase0Value(next)];
      const iso = new Date(now).toISOString();
      const m1: Measurement = {
        phase,
        startedAt: iso,
        finishedAt: iso,
        ...(phase === E ? { message: 'prometheus at http://prom:9090: connect ECONNREFUSED' } : { value }),
      };
      (taken[m.name] ??= []).push((now - START) / 1000);
      current = { ...current, status: recordMeasurement(current, m.name, m1, now) };
    }
    if (endedAt === undefined && ['Successful', 'Failed', 'Error', 'Inconclusive'].includes(current.status!.phase!))
      endedAt = (now - START) / 1000;
    let wait = nextDue(current, now);
    if (opts.terminateAt !== undefined && !current.spec.terminate) {
      const toTerminate = START + opts.terminateAt * 1000 - now;
      wait = wait === null ? toTerminate : Math.min(wait, toTerminate);
    }
    if (wait === null || now + wait > horizon) break;
    now += wait;
  }
  return { run: current, at: taken, ...(endedAt !== undefined ? { endedAt } : {}) };
}

function phase0Value(p: AnalysisPhase): string {
  return p === S ? '0.01' : p === F ? '0.12' : '0.04';
}

const played = (p: Played, name: string) => p.run.status!.metricResults!.find((r) => r.name === name)!;

describe('analysis: a run over time (engine/analysis/measure.ts)', () => {
  describe('when each measurement is due', () => {
    const rows: Array<[string, Metric, Answer[], number[], AnalysisPhase]> = [
      [
        'interval 5m, count 3: at the start, then 5 minutes after each, Successful after the third',
        named('m', { interval: '5m', count: 3 }),
        [S, S, S],
        [0, 300, 600],
        S,
      ],
      ['no interval, no count: one measurement (count 1), as Argo Rollouts', named('m'), [S], [0], S],
      [
        'initialDelay 1m: the first measurement a minute after the run started',
        named('m', { initialDelay: '1m', interval: '30s', count: 2 }),
        [S, S],
        [60, 90],
        S,
      ],
      [
        'an Error with a 5m interval is retried after 10 s (Argo Rollouts: DefaultErrorRetryInterval)',
        named('m', { interval: '5m', count: 2 }),
        [S, E, S],
        [0, 300, 310],
        S,
      ],
      [
        'an Error with a 2s interval is retried after the interval (the shorter wait)',
        named('m', { interval: '2s', count: 2 }),
        [E, S, S],
        [0, 2, 4],
        S,
      ],
      [
        'an Error without interval is retried after 10 s, until the one measurement is taken',
        named('m'),
        [E, E, S],
        [0, 10, 20],
        S,
      ],
      [
        'a metric without count measures until the run ends (here, its failure)',
        named('m', { interval: '1m' }),
        [S, S, S, F],
        [0, 60, 120, 180],
        F,
      ],
    ];
    for (const [what, m, answers, times, want] of rows)
      it(what, () => {
        const p = play(runOf({ metrics: [m] }), { m: [...answers] });
        expect(p.at.m).to.deep.equal(times);
        expect(p.run.status!.phase).to.equal(want);
        expect(nextDue(p.run, START + 86_400_000), 'nothing more is due').to.equal(null);
      });
  });

  describe('how a metric ends (failureLimit, inconclusiveLimit, consecutiveErrorLimit, count)', () => {
    const rows: Array<[string, Metric, Answer[], number, AnalysisPhase, string | undefined]> = [
      [
        "Argo's total-errors example: interval 5m, failureLimit 3: Failed at the fourth failure",
        named('total-errors', { interval: '5m', failureCondition: 'result[0] >= 10', failureLimit: 3 }),
        [F, S, F, F, F],
        5,
        F,
        'metric "total-errors" assessed Failed: 4 of 5 measurements failed (failureLimit 3); last value 0.12 against failureCondition "result[0] >= 10"',
      ],
      [
        'count 3, failureLimit 1: one failure tolerated, Successful once the count is reached',
        named('m', { interval: '1m', count: 3, failureLimit: 1 }),
        [S, F, S],
        3,
        S,
        undefined,
      ],
      [
        'both conditions and neither holds: Inconclusive (inconclusiveLimit 0)',
        named('m', {
          interval: '1m',
          count: 5,
          successCondition: 'result[0] < 0.02',
          failureCondition: 'result[0] > 0.05',
        }),
        [S, I],
        2,
        I,
        'metric "m" assessed Inconclusive: 1 of 2 measurements were inconclusive (inconclusiveLimit 0); last value 0.04 against successCondition "result[0] < 0.02" and failureCondition "result[0] > 0.05"',
      ],
      [
        'inconclusiveLimit 1 tolerates one',
        named('m', { interval: '1m', count: 3, inconclusiveLimit: 1 }),
        [I, S, S],
        3,
        S,
        undefined,
      ],
      [
        'five errors in a row with the default consecutiveErrorLimit 4: Error, naming the last error',
        named('m', { interval: '1m', count: 3 }),
        [S, E, E, E, E, E],
        6,
        E,
        'metric "m" assessed Error: 5 errors in a row (consecutiveErrorLimit 4): prometheus at http://prom:9090: connect ECONNREFUSED',
      ],
      [
        'errors not in a row do not add up; they do not count towards count',
        named('m', { interval: '1m', count: 3, consecutiveErrorLimit: 1 }),
        [E, S, E, S, E, S],
        6,
        S,
        undefined,
      ],
      [
        'consecutiveErrorLimit 0: the first error ends it',
        named('m', { interval: '1m', consecutiveErrorLimit: 0 }),
        [S, E],
        2,
        E,
        'metric "m" assessed Error: 1 errors in a row (consecutiveErrorLimit 0): prometheus at http://prom:9090: connect ECONNREFUSED',
      ],
      [
        'consecutiveSuccessLimit 2 without count: Successful at the second success in a row',
        named('m', { interval: '1m', failureLimit: 3, consecutiveSuccessLimit: 2 }),
        [F, S, F, S, S],
        5,
        S,
        undefined,
      ],
      [
        'consecutiveSuccessLimit 3 not reached by count 4: Inconclusive (Argo Rollouts 1.8)',
        named('m', { interval: '1m', count: 4, failureLimit: 2, consecutiveSuccessLimit: 3 }),
        [S, S, F, S],
        4,
        I,
        'metric "m" assessed Inconclusive: count 4 reached without 3 successful measurements in a row (consecutiveSuccessLimit 3); last value 0.01',
      ],
    ];
    for (const [what, m, answers, taken, want, message] of rows)
      it(what, () => {
        const p = play(runOf({ metrics: [m] }), { [m.name]: [...answers] });
        expect(p.at[m.name], 'measurements taken').to.have.length(taken);
        expect(played(p, m.name).phase).to.equal(want);
        expect(p.run.status!.phase).to.equal(want);
        expect(p.run.status!.message).to.equal(message);
      });
  });

  describe('the counts, kept beside the measurements', () => {
    it('retention 2 keeps the last two measurements while the counts go on: the third failure still fails it', () => {
      const m = named('m', { interval: '1m', count: 10, failureLimit: 2 });
      const p = play(runOf({ metrics: [m], measurementRetention: [{ metricName: 'm', limit: 2 }] }), {
        m: [F, S, S, F, S, S, F],
      });
      const r = played(p, 'm');
      expect(r.measurements!.map((x) => x.phase)).to.deep.equal([S, F]);
      expect(r).to.deep.include({
        phase: F,
        count: 7,
        successful: 4,
        failed: 3,
        inconclusive: 0,
        error: 0,
        consecutiveError: 0,
        consecutiveSuccess: 0,
      });
      expect(p.at.m).to.have.length(7);
    });

    it('the default retention keeps 10; the count 12 is still reached from the counts', () => {
      const p = play(runOf({ metrics: [named('m', { interval: '10s', count: 12 })] }), { m: [] });
      const r = played(p, 'm');
      expect(r.measurements).to.have.length(10);
      expect(r).to.deep.include({ phase: S, count: 12, successful: 12, consecutiveSuccess: 12 });
      expect(p.at.m).to.have.length(12);
    });

    it('an Error resets the successes in a row and counts apart; a measurement resets the errors in a row', () => {
      const p = play(runOf({ metrics: [named('m', { interval: '1s', count: 3 })] }), { m: [S, S, E, E, S] });
      expect(played(p, 'm')).to.deep.include({
        count: 3,
        successful: 3,
        error: 2,
        consecutiveError: 0,
        consecutiveSuccess: 1,
      });
    });

    it('a measurement for a metric that has ended, or a run that has ended, changes nothing', () => {
      const p = play(runOf({ metrics: [named('m')] }), { m: [S] });
      const late: Measurement = { phase: F, value: '1', finishedAt: new Date(START + 5000).toISOString() };
      expect(recordMeasurement(p.run, 'm', late, START + 5000)).to.deep.equal(p.run.status);
    });
  });

  describe('a run of several metrics', () => {
    it('two metrics on their own schedules: Running until both end, Successful; the summary counts them', () => {
      const p = play(
        runOf({
          metrics: [named('a', { interval: '200ms', count: 3 }), named('b', { interval: '300ms', count: 3 })],
        }),
        {},
      );
      expect(p.at).to.deep.equal({ a: [0, 0.2, 0.4], b: [0, 0.3, 0.6] });
      expect(p.endedAt).to.equal(0.6);
      expect(p.run.status).to.deep.include({
        phase: S,
        runSummary: { count: 2, successful: 2, failed: 0, inconclusive: 0, error: 0 },
      });
      expect(p.run.status!.message).to.equal(undefined);
    });

    it('a failing metric stops the run: the other, without count, ends Successful; the run is Failed, with its message', () => {
      const p = play(
        runOf({
          metrics: [
            named('latency', { interval: '1m' }),
            named('error-rate', { interval: '1m', successCondition: 'result < 0.05', failureLimit: 1 }),
          ],
        }),
        { 'error-rate': [F, F] },
      );
      expect(p.at).to.deep.equal({ latency: [0, 60], 'error-rate': [0, 60] });
      expect(played(p, 'latency').phase).to.equal(S);
      expect(p.run.status).to.deep.include({
        phase: F,
        message:
          'metric "error-rate" assessed Failed: 2 of 2 measurements failed (failureLimit 1); last value 0.12 against successCondition "result < 0.05"',
        runSummary: { count: 2, successful: 1, failed: 1, inconclusive: 0, error: 0 },
      });
      expect(stopping(p.run)).to.equal(true);
    });

    it('a failing dry-run metric does not fail the run: it is counted in dryRunSummary', () => {
      const p = play(
        runOf({
          metrics: [named('real', { interval: '1m', count: 2 }), named('trial', { interval: '1m', count: 2 })],
          dryRun: [{ metricName: 'trial' }],
        }),
        { trial: [F] },
      );
      expect(played(p, 'trial')).to.deep.include({ phase: F, dryRun: true });
      expect(p.at.real).to.deep.equal([0, 60]);
      expect(p.run.status).to.deep.include({
        phase: S,
        runSummary: { count: 1, successful: 1, failed: 0, inconclusive: 0, error: 0 },
        dryRunSummary: { count: 1, successful: 0, failed: 1, inconclusive: 0, error: 0 },
      });
    });
  });

  describe('spec.terminate', () => {
    it('open metrics end Successful, one that never measured too; the run is Successful and says why', () => {
      const p = play(
        runOf({ metrics: [named('m', { interval: '1m' }), named('later', { initialDelay: '10m' })] }),
        {},
        { terminateAt: 150 },
      );
      expect(p.at).to.deep.equal({ m: [0, 60, 120] });
      expect(p.endedAt).to.equal(150);
      expect(p.run.status!.metricResults!.map((r) => [r.name, r.phase, r.count ?? 0])).to.deep.equal([
        ['m', S, 3],
        ['later', S, 0],
      ]);
      expect(p.run.status).to.deep.include({ phase: S, message: TERMINATED_MESSAGE });
    });

    it('a run that already Failed stays Failed when terminated afterwards', () => {
      const p = play(runOf({ metrics: [named('m', { interval: '1m' })] }), { m: [F] });
      const terminated = { ...p.run, spec: { ...p.run.spec, terminate: true } };
      expect(assessRun(terminated, START + 600_000)).to.equal(p.run.status);
    });
  });

  describe('nextDue and the run as it starts', () => {
    it('first sight: startedAt set, the metrics Pending, the run Running, the first measurement due now', () => {
      const r = runOf({ metrics: [named('m', { interval: '1m', initialDelay: '30s' }), named('n')] });
      const status = assessRun(r, START);
      expect(status).to.deep.include({ phase: 'Running', startedAt: '2026-01-01T00:00:00.000Z' });
      expect(status.metricResults!.map((x) => x.phase)).to.deep.equal(['Pending', 'Pending']);
      const run = { ...r, status };
      expect(dueMetrics(run, START).map((m) => m.name)).to.deep.equal(['n']);
      expect(nextDue(run, START)).to.equal(0);
      expect(nextDue(run, START + 1000), 'n is overdue').to.equal(0);
      const afterN = { ...run, status: recordMeasurement(run, 'n', { phase: S, finishedAt: status.startedAt }, START) };
      expect(nextDue(afterN, START + 1000)).to.equal(29_000);
      expect(assessRun(afterN, START + 5000).startedAt, 'the start is kept').to.equal(status.startedAt);
    });

    it('a run not yet started (no startedAt) has nothing due; a completed run neither', () => {
      const r = runOf({ metrics: [named('m')] });
      expect(nextDue(r, START)).to.equal(null);
      const done = play(r, {}).run;
      expect(done.status!.phase).to.equal(S);
      expect(nextDue(done, START)).to.equal(null);
      expect(ERROR_RETRY_MS).to.equal(10_000);
    });
  });

  describe("the run's arguments in a metric's schedule and limits", () => {
    it('a whole {{args.NAME}} reference takes the literal argument', () => {
      const r = runOf({
        metrics: [named('m', { interval: '{{args.every}}', count: '{{ args.n }}', failureLimit: '2' })],
        args: [
          { name: 'every', value: '30s' },
          { name: 'n', value: '4' },
        ],
      });
      expect(scheduleOf(r, 0)).to.deep.equal({ intervalMs: 30_000, initialDelayMs: 0, count: 4, failureLimit: 2 });
      expect(play(r, {}).at.m).to.deep.equal([0, 30, 60, 90]);
    });

    it('an argument read from a Secret, or none, cannot give a number: the run ends Error naming the field', () => {
      const r = runOf({
        metrics: [named('m', { interval: '1m' }), named('n', { count: '{{args.n}}', interval: '1m' })],
        args: [{ name: 'n', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
      });
      const status = assessRun(r, START);
      expect(status).to.deep.include({
        phase: E,
        message:
          'The run cannot measure: spec.metrics[1].count: Invalid value: "{{args.n}}": argument "n" is read from a Secret',
      });
      expect(nextDue({ ...r, status }, START)).to.equal(null);
      const bad = runOf({ metrics: [named('m', { interval: 'soon' })] });
      expect(assessRun(bad, START).message).to.equal(
        'The run cannot measure: spec.metrics[0].interval: Invalid value: "soon": time: invalid duration "soon"',
      );
    });
  });

  describe('a measurement value as a number (pacer_analysis_metric_value)', () => {
    const rows: Array<[string | undefined, number | undefined]> = [
      ['0.75', 0.75],
      ['3', 3],
      ['-1.5e-3', -0.0015],
      ['+Inf', Number.POSITIVE_INFINITY],
      ['-Inf', Number.NEGATIVE_INFINITY],
      ['NaN', undefined],
      ['[0.5,0.2]', 0.5],
      ['[NaN,0.2]', undefined],
      ['[-Inf]', Number.NEGATIVE_INFINITY],
      ['[]', undefined],
      ['{"ok":true}', undefined],
      ['true', undefined],
      ['', undefined],
      [undefined, undefined],
    ];
    for (const [value, want] of rows)
      it(`${JSON.stringify(value)} → ${want}`, () => expect(numericValue(value)).to.equal(want));
  });
});

describe("analysis: the Jobs of measurements no longer kept (engine/analysis/measure.ts's droppedJobs)", () => {
  const job = (m: Partial<Metric> = {}) =>
    metric({ name: 'smoke', interval: '1m', successCondition: undefined, provider: { job: { spec: {} } }, ...m });
  /** A run of one job metric whose measurements are `phases`, the n-th naming Job web-abc-1-smoke-n. */
  const jobRun = (phases: AnalysisPhase[], limit?: number): AnalysisRun => {
    const r = run([job()], limit ? { measurementRetention: [{ metricName: 'smoke', limit }] } : {});
    let out = r;
    phases.forEach((phase, i) => {
      const m: Measurement = { phase, startedAt: at(i * 60), metadata: { 'job-name': `web-abc-1-smoke-${i + 1}` } };
      out = { ...out, status: recordMeasurement(out, 'smoke', m, T0 + i * 60_000) };
    });
    return out;
  };
  const next = (r: AnalysisRun, phase: AnalysisPhase, n: number): AnalysisRun['status'] =>
    recordMeasurement(r, 'smoke', { phase, metadata: { 'job-name': `web-abc-1-smoke-${n}` } }, T0 + n * 60_000);

  const rows: Array<[string, AnalysisRun, AnalysisPhase, number, string[]]> = [
    [
      'retention 2, a third Job started: the first one, finished, is no longer kept',
      jobRun(['Successful', 'Successful'], 2),
      'Running',
      3,
      ['web-abc-1-smoke-1'],
    ],
    [
      'retention 2, the Job in flight ends: the same Job takes its place, none dropped',
      jobRun(['Successful', 'Running'], 2),
      'Successful',
      2,
      [],
    ],
    [
      'retention 1, the second Job started: the first is dropped',
      jobRun(['Successful'], 1),
      'Running',
      2,
      ['web-abc-1-smoke-1'],
    ],
    [
      'the default retention (10): the tenth Job keeps all nine before it',
      jobRun(Array<AnalysisPhase>(9).fill('Successful')),
      'Running',
      10,
      [],
    ],
    [
      'the default retention (10): the eleventh drops the first',
      jobRun(Array<AnalysisPhase>(10).fill('Successful')),
      'Running',
      11,
      ['web-abc-1-smoke-1'],
    ],
  ];
  for (const [title, before, phase, n, want] of rows)
    it(title, () => expect(droppedJobs(before.status, next(before, phase, n))).to.deep.equal(want));

  it('a measurement in flight removed as the run stops is not among them (the stopping path deletes its Job)', () => {
    const before = jobRun(['Successful', 'Running'], 2);
    const after = structuredClone(before.status!);
    after.metricResults![0].measurements = after.metricResults![0].measurements!.slice(0, 1);
    expect(droppedJobs(before.status, after)).to.deep.equal([]);
  });

  it('measurements without a Job (other providers) name none', () => {
    const r = measured(run([metric()], { measurementRetention: [{ metricName: 'errors', limit: 1 }] }), ['Successful']);
    const after = measured(r, ['Successful', 'Successful']).status;
    expect(droppedJobs(r.status, after)).to.deep.equal([]);
  });
});
