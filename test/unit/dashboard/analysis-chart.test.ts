// The analysis pages' model (web/analysis-chart.ts) under Node: the runs a list shows and in which
// order, what a run judges in words, and a metric's chart: one point per kept measurement, placed by
// time and value, a line per threshold the conditions draw, the range holding both.

import { expect } from 'chai';
import type { AnalysisMetricView, AnalysisRunView, ConditionReading } from '../../../src/dashboard/api.ts';
import { analysisRuns, chartOf, drawnOn, judges, shortNumber } from '../../../web/analysis-chart.ts';
import type { Model } from '../../../web/state.ts';

const reading = (expression: string, threshold: ConditionReading['threshold']): ConditionReading => ({
  expression,
  threshold,
});

const metric = (o: Partial<AnalysisMetricView>): AnalysisMetricView => ({
  name: 'errors',
  phase: 'Running',
  message: '',
  dryRun: false,
  provider: '',
  plotted: 'result[0]',
  successCondition: reading('result[0] < 0.05', { op: '<', value: 0.05, index: 0 }),
  failureCondition: null,
  counts: { count: 0, successful: 0, failed: 0, inconclusive: 0, error: 0, consecutiveError: 0 },
  limits: { count: null, failureLimit: 0, inconclusiveLimit: 0, consecutiveErrorLimit: 4, problem: '' },
  measurements: [],
  ...o,
});

const at = (s: number) => new Date(Date.UTC(2026, 2, 1, 10, 0, s)).toISOString();
const measured = (s: number, number: number | null, phase = 'Successful') => ({
  phase,
  at: at(s),
  value: number === null ? '' : `[${number}]`,
  number,
  message: '',
});

const runView = (o: Partial<AnalysisRunView>): AnalysisRunView => ({
  uid: '',
  namespace: 'default',
  name: 'web-a-1',
  phase: 'Running',
  message: '',
  deployment: 'web',
  ownerUid: '',
  revision: 2,
  podTemplateHash: 'a',
  attempt: 1,
  canaryStep: null,
  nodeRoll: '',
  node: '',
  terminated: false,
  startedAt: '',
  createdAt: '',
  metrics: [],
  ...o,
});

describe('dashboard/analysis-chart: a metric over time', () => {
  it('one point per kept measurement, an Error without a value on the bottom edge, in time order left to right', () => {
    const g = chartOf(
      metric({ measurements: [measured(0, 0.01), measured(1, null, 'Error'), measured(3, 0.5, 'Failed')] }),
    );
    expect(g.points).to.have.length(3);
    expect(g.points.map((p) => p.noValue)).to.deep.equal([false, true, false]);
    expect(g.points[1].y).to.equal(g.bottom);
    expect(g.points[0].x).to.equal(g.left);
    expect(g.points[2].x).to.equal(g.right);
    // 1 s of 3 s along the axis.
    expect(g.points[1].x).to.be.closeTo(g.left + (g.right - g.left) / 3, 1e-9);
    // The bad value is higher on the chart (a smaller y) than the good one.
    expect(g.points[2].y).to.be.below(g.points[0].y);
  });

  it("the success condition's threshold is a line between the values it separates", () => {
    const g = chartOf(metric({ measurements: [measured(0, 0.01), measured(1, 0.5, 'Failed')] }));
    expect(g.thresholds.map((t) => [t.kind, t.value, t.label])).to.deep.equal([['success', 0.05, 'result[0] < 0.05']]);
    const [line] = g.thresholds;
    expect(line.y).to.be.below(g.points[0].y).and.above(g.points[1].y);
  });

  it('a threshold beyond every value still falls inside the chart', () => {
    const g = chartOf(metric({ measurements: [measured(0, 0.001), measured(1, 0.002)] }));
    expect(g.thresholds[0].y).to.be.within(g.top, g.bottom);
  });

  it('one measurement: in the middle; no measurement: no point, a range of 0 to 1', () => {
    expect(chartOf(metric({ measurements: [measured(0, 0.2)] })).points[0].x).to.equal((560 - 16 + 56) / 2);
    const empty = chartOf(metric({ successCondition: null }));
    expect(empty.points).to.deep.equal([]);
    expect(empty.ticks.map((t) => t.label)).to.deep.equal(['0', '0.5', '1']);
  });

  it('a condition on another element than the one plotted, or not a comparison, draws no line', () => {
    const other = metric({
      successCondition: reading('result[0] < 0.05', { op: '<', value: 0.05, index: 0 }),
      failureCondition: reading('result[1] > 0.5', { op: '>', value: 0.5, index: 1 }),
      measurements: [measured(0, 0.01)],
    });
    expect(chartOf(other).thresholds.map((t) => t.kind)).to.deep.equal(['success']);
    const text = metric({ successCondition: reading('isNaN(result[0]) || result[0] < 0.05', null) });
    expect(chartOf(text).thresholds).to.deep.equal([]);
  });

  const drawn: Array<[number | null, string, boolean]> = [
    [0, 'result[0]', true],
    [null, 'result', true],
    [null, 'result[0]', true],
    [1, 'result[0]', false],
    [1, 'result[1]', true],
  ];
  for (const [index, plotted, want] of drawn)
    it(`a threshold at ${index} on a chart of ${plotted}: ${want ? 'drawn' : 'not drawn'}`, () => {
      expect(drawnOn({ op: '<', value: 1, index }, plotted)).to.equal(want);
    });

  const numbers: Array<[number, string]> = [
    [0, '0'],
    [0.05, '0.05'],
    [0.123456, '0.1235'],
    [1234567, '1235000'],
    [-0.5, '-0.5'],
  ];
  for (const [n, want] of numbers) it(`${n} on an axis: ${want}`, () => expect(shortNumber(n)).to.equal(want));
});

describe('dashboard/analysis-chart: the runs listed', () => {
  const runs = [
    runView({ name: 'web-a-1', createdAt: at(1) }),
    runView({ name: 'web-b-1', createdAt: at(5), revision: 3 }),
    runView({ name: 'api-a-1', deployment: 'api', createdAt: at(3) }),
    runView({ name: 'web-a-1', namespace: 'other', createdAt: at(2) }),
  ];
  const model = { analysisRuns: new Map(runs.map((r) => [`${r.namespace}/${r.name}`, r])) } as unknown as Model;

  it('every run, newest first', () => {
    expect(analysisRuns(model).map((r) => `${r.namespace}/${r.name}`)).to.deep.equal([
      'default/web-b-1',
      'default/api-a-1',
      'other/web-a-1',
      'default/web-a-1',
    ]);
  });

  it("a Deployment's: only its namespace's runs labelled with its name", () => {
    expect(analysisRuns(model, { namespace: 'default', deployment: 'web' }).map((r) => r.name)).to.deep.equal([
      'web-b-1',
      'web-a-1',
    ]);
  });

  const words: Array<[Partial<AnalysisRunView>, string]> = [
    [{}, 'web revision 2, attempt 1'],
    [{ canaryStep: 2, attempt: 2 }, 'web revision 2, canary step 2, attempt 2'],
    [{ revision: null, attempt: null }, 'web'],
    [{ deployment: '', nodeRoll: 'upgrade', node: 'n1' }, 'node roll upgrade, node n1'],
    [{ deployment: '' }, '—'],
  ];
  for (const [o, want] of words) it(`judges: ${want}`, () => expect(judges(runView(o))).to.equal(want));
});
