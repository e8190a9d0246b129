// Analysis outcomes, row by row as Argo Rollouts' analysis documentation and its assessment tests
// describe them (docs/semantics/analysis.md): a measurement from its conditions, a metric from its
// measurements under its limits, a run from its metrics.

import { expect } from 'chai';
import type { AnalysisPhase, MetricLimits } from '../../../../src/engine/analysis/assess.ts';
import { measurementPhase, metricPhase, runPhase, tally, terminating } from '../../../../src/engine/analysis/assess.ts';

describe('analysis: a measurement from its conditions', () => {
  const rows: Array<[string, boolean | undefined, boolean | undefined, AnalysisPhase]> = [
    ['no condition: Successful', undefined, undefined, 'Successful'],
    ['successCondition only, true: Successful', true, undefined, 'Successful'],
    ['successCondition only, false: Failed', false, undefined, 'Failed'],
    ['failureCondition only, true: Failed', undefined, true, 'Failed'],
    ['failureCondition only, false: Successful', undefined, false, 'Successful'],
    ['both, success true and failure false: Successful', true, false, 'Successful'],
    ['both, failure true: Failed, whatever success says', true, true, 'Failed'],
    ['both false: Inconclusive', false, false, 'Inconclusive'],
  ];
  for (const [what, success, failure, want] of rows) {
    it(what, () => expect(measurementPhase(success, failure)).to.equal(want));
  }
});

describe('analysis: a metric from its measurements', () => {
  const S: AnalysisPhase = 'Successful';
  const F: AnalysisPhase = 'Failed';
  const E: AnalysisPhase = 'Error';
  const I: AnalysisPhase = 'Inconclusive';
  const R: AnalysisPhase = 'Running';
  const rows: Array<[string, MetricLimits, AnalysisPhase[], boolean, AnalysisPhase]> = [
    ['no measurement yet: Pending', {}, [], false, 'Pending'],
    ['no measurement, the run terminating: Successful', {}, [], true, 'Successful'],
    ['a measurement in flight: Running', { count: 1 }, [S, R], false, 'Running'],
    ['one failure with failureLimit 0: Failed', {}, [S, F], false, 'Failed'],
    ['failureLimit 2 tolerates two failures', { failureLimit: 2 }, [F, S, F], false, 'Running'],
    ['failureLimit 2: the third failure fails it', { failureLimit: 2 }, [F, S, F, F], false, 'Failed'],
    ['one inconclusive with inconclusiveLimit 0: Inconclusive', {}, [S, I], false, 'Inconclusive'],
    ['inconclusiveLimit 1 tolerates one', { inconclusiveLimit: 1 }, [I, S], false, 'Running'],
    ['four errors in a row are tolerated (the default limit)', {}, [E, E, E, E], false, 'Running'],
    ['a fifth error in a row: Error', {}, [E, E, E, E, E], false, 'Error'],
    ['errors not in a row do not add up', {}, [E, E, E, S, E, E, E], false, 'Running'],
    ['consecutiveErrorLimit 0: the first error is Error', { consecutiveErrorLimit: 0 }, [S, E], false, 'Error'],
    [
      'count reached: Successful (a failure it tolerated included)',
      { count: 3, failureLimit: 1 },
      [S, F, S],
      false,
      'Successful',
    ],
    ['errors do not count towards count', { count: 2 }, [S, E], false, 'Running'],
    ['no count: runs until the run ends', {}, [S, S, S], false, 'Running'],
    ['no count, the run terminating: Successful', {}, [S, S, S], true, 'Successful'],
    ['a failure beyond the limit fails it even when count is reached', { count: 2 }, [S, F], false, 'Failed'],
    // consecutiveSuccessLimit (Argo Rollouts 1.8, "ConsecutiveSuccessLimit and FailureLimit").
    [
      'consecutiveSuccessLimit 3: three successes in a row end it Successful',
      { failureLimit: 1, consecutiveSuccessLimit: 3 },
      [F, S, S, S],
      false,
      'Successful',
    ],
    [
      'consecutiveSuccessLimit 3: two in a row go on',
      { consecutiveSuccessLimit: 3, failureLimit: 1 },
      [S, F, S, S],
      false,
      'Running',
    ],
    [
      'consecutiveSuccessLimit: an error breaks the streak',
      { consecutiveSuccessLimit: 2 },
      [S, E, S],
      false,
      'Running',
    ],
    [
      'consecutiveSuccessLimit: the streak ends it before count',
      { count: 10, consecutiveSuccessLimit: 2 },
      [S, S],
      false,
      'Successful',
    ],
    [
      'consecutiveSuccessLimit not reached by count: Inconclusive',
      { count: 4, failureLimit: 2, consecutiveSuccessLimit: 3 },
      [S, F, S, S],
      false,
      'Inconclusive',
    ],
    [
      'failureLimit still comes first with consecutiveSuccessLimit',
      { failureLimit: 1, consecutiveSuccessLimit: 2 },
      [F, S, F],
      false,
      'Failed',
    ],
    [
      'consecutiveSuccessLimit 0 is off: count decides',
      { count: 2, failureLimit: 1, consecutiveSuccessLimit: 0 },
      [S, F],
      false,
      'Successful',
    ],
    [
      'consecutiveSuccessLimit does not change a stop: Successful',
      { consecutiveSuccessLimit: 3 },
      [S],
      true,
      'Successful',
    ],
  ];
  for (const [what, limits, measurements, term, want] of rows) {
    it(what, () => expect(metricPhase(limits, tally(measurements), term)).to.equal(want));
  }

  it('tally: counts, errors apart, the errors and the successes in a row, one in flight noted', () => {
    expect(tally([S, E, F, E, E, I, R])).to.deep.equal({
      count: 3,
      successful: 1,
      failed: 1,
      inconclusive: 1,
      error: 3,
      consecutiveError: 0,
      consecutiveSuccess: 0,
      inFlight: true,
    });
    expect(tally([S, E, E])).to.deep.include({ count: 1, error: 2, consecutiveError: 2, consecutiveSuccess: 0 });
    expect(tally([F, S, S])).to.deep.equal({
      count: 3,
      successful: 2,
      failed: 1,
      inconclusive: 0,
      error: 0,
      consecutiveError: 0,
      consecutiveSuccess: 2,
    });
  });
});

describe('analysis: a run from its metrics', () => {
  const rows: Array<[string, AnalysisPhase[], AnalysisPhase, boolean]> = [
    ['every metric Successful: Successful', ['Successful', 'Successful'], 'Successful', false],
    ['a metric still Running: Running', ['Successful', 'Running'], 'Running', false],
    ['a metric still Pending: Running', ['Pending', 'Failed'], 'Running', true],
    ['no metric: Running', [], 'Running', false],
    [
      'the worst completed metric: Failed over Error over Inconclusive',
      ['Inconclusive', 'Error', 'Successful'],
      'Error',
      true,
    ],
    ['Failed is the worst', ['Error', 'Failed'], 'Failed', true],
    ['Inconclusive over Successful', ['Successful', 'Inconclusive'], 'Inconclusive', true],
  ];
  for (const [what, metrics, want, term] of rows) {
    it(what, () => {
      expect(runPhase(metrics)).to.equal(want);
      expect(terminating(metrics), 'the run stops measuring').to.equal(term);
    });
  }
});
