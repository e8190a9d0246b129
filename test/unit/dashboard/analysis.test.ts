// What the dashboard shows of an AnalysisRun (src/dashboard/analysis.ts): which conditions draw a
// threshold on the run's chart and which are shown as text, the number each measurement plots as,
// and a run's view (what it judges, its limits with their defaults, its measurements), one row per
// case, written as the analysis docs' examples read (docs/semantics/analysis.md).

import { expect } from 'chai';
import type { AnalysisRun } from '../../../src/api/analysis.ts';
import type { Deployment, Pod, ReplicaSet } from '../../../src/api/types.ts';
import { analysisRunView, plottedNumber, thresholdOf } from '../../../src/dashboard/analysis.ts';
import type { Change, Threshold } from '../../../src/dashboard/api.ts';
import { Hub } from '../../../src/dashboard/hub.ts';
import type { ListWatchSource } from '../../../src/manager/informer.ts';
import type { WatchEvent } from '../../../src/kube/client.ts';
import { eventually } from '../../integration/fixtures/cluster.ts';

describe('dashboard/analysis: a condition read as a threshold', () => {
  const rows: Array<[string, Threshold | undefined]> = [
    // The docs' own examples.
    ['result[0] < 0.05', { op: '<', value: 0.05, index: 0 }],
    ['result < 0.05', { op: '<', value: 0.05, index: null }],
    ['result[0] >= 0.95', { op: '>=', value: 0.95, index: 0 }],
    ['result > 100', { op: '>', value: 100, index: null }],
    ['result[1] <= 2.5e-1', { op: '<=', value: 0.25, index: 1 }],
    ['result == 0', { op: '==', value: 0, index: null }],
    ['result[0] > -1', { op: '>', value: -1, index: 0 }],
    // Spaces and parentheses change nothing.
    ['  ( result [ 0 ]<0.05 )  ', { op: '<', value: 0.05, index: 0 }],
    ['((result[0] < 0.05))', { op: '<', value: 0.05, index: 0 }],
    // The number first: read from the result's side.
    ['0.05 > result[0]', { op: '<', value: 0.05, index: 0 }],
    ['10 <= result', { op: '>=', value: 10, index: null }],
    ['1 == result[2]', { op: '==', value: 1, index: 2 }],
    // Not one comparison of the result with a number: shown as text.
    ['isNaN(result[0]) || result[0] < 0.05', undefined],
    ['result[0] < 0.05 && result[1] < 0.1', undefined],
    ['(result[0]) < (0.05)', undefined],
    ['result[0] != 0', undefined],
    ['result.ok == true', undefined],
    ['result == true', undefined],
    ['result[0] < result[1]', undefined],
    ['size(result) == 0', undefined],
    ['result[0] < 1/0', undefined],
    ['', undefined],
  ];
  for (const [expr, want] of rows)
    it(`${JSON.stringify(expr)} → ${want ? `${want.op} ${want.value} at ${want.index}` : 'text'}`, () => {
      expect(thresholdOf(expr)).to.deep.equal(want);
    });
});

describe('dashboard/analysis: the number a measurement plots as', () => {
  const rows: Array<[string | undefined, number | null, number | null]> = [
    ['0.75', null, 0.75],
    ['[0.5,0.2]', null, 0.5],
    ['[0.5,0.2]', 0, 0.5],
    ['[0.5,0.2]', 1, 0.2],
    ['[0.5]', 3, null],
    ['[]', null, null],
    ['NaN', null, null],
    ['[NaN]', null, null],
    ['+Inf', null, null],
    ['-Inf', null, null],
    ['{"ok":true}', null, null],
    ['up', null, null],
    [undefined, null, null],
  ];
  for (const [value, index, want] of rows)
    it(`${JSON.stringify(value)}${index !== null ? ` [${index}]` : ''} → ${want}`, () => {
      expect(plottedNumber(value, index)).to.equal(want);
    });
});

describe("dashboard/analysis: a run's view", () => {
  const run = (o: {
    spec?: Partial<AnalysisRun['spec']>;
    status?: AnalysisRun['status'];
    labels?: Record<string, string>;
  }) =>
    ({
      metadata: {
        name: 'web-5d4f-1',
        namespace: 'default',
        uid: 'u1',
        labels: o.labels ?? {
          'pacer.dev/deployment': 'web',
          'pacer.dev/pod-template-hash': '5d4f',
          'pacer.dev/attempt': '1',
        },
        annotations: { 'pacer.dev/revision': '2' },
        ownerReferences: [
          { apiVersion: 'pacer.dev/v1alpha1', kind: 'Deployment', name: 'web', uid: 'd1', controller: true },
        ],
        creationTimestamp: '2026-03-01T10:00:00Z',
      },
      spec: {
        metrics: [
          {
            name: 'errors',
            interval: '1s',
            failureLimit: 1,
            successCondition: 'result[1] < 0.05',
            provider: { prometheus: { address: 'http://prom:9090', query: 'errors' } },
          },
        ],
        ...o.spec,
      },
      ...(o.status ? { status: o.status } : {}),
    }) as AnalysisRun;

  it("a Deployment's run: what it judges, the limits with their defaults, the element the condition reads plotted", () => {
    const v = analysisRunView(
      run({
        status: {
          phase: 'Failed',
          message: 'metric "errors" assessed Failed: 2 of 2 measurements failed (failureLimit 1)',
          startedAt: '2026-03-01T10:00:01Z',
          metricResults: [
            {
              name: 'errors',
              phase: 'Failed',
              count: 2,
              failed: 2,
              measurements: [
                { phase: 'Failed', value: '[0.5,0.4]', finishedAt: '2026-03-01T10:00:02Z' },
                { phase: 'Failed', value: '[0.5,0.6]', finishedAt: '2026-03-01T10:00:03Z' },
              ],
            },
          ],
        },
      }),
    );
    expect([v.deployment, v.ownerUid, v.revision, v.podTemplateHash, v.attempt, v.canaryStep, v.phase]).to.deep.equal([
      'web',
      'd1',
      2,
      '5d4f',
      1,
      null,
      'Failed',
    ]);
    const m = v.metrics[0];
    expect(m.plotted).to.equal('result[1]');
    expect(m.successCondition).to.deep.equal({
      expression: 'result[1] < 0.05',
      threshold: { op: '<', value: 0.05, index: 1 },
    });
    expect(m.failureCondition).to.equal(null);
    expect(m.limits).to.deep.equal({
      count: null,
      failureLimit: 1,
      inconclusiveLimit: 0,
      consecutiveErrorLimit: 4,
      problem: '',
    });
    expect(m.measurements.map((x) => [x.at, x.number])).to.deep.equal([
      ['2026-03-01T10:00:02Z', 0.4],
      ['2026-03-01T10:00:03Z', 0.6],
    ]);
    expect(m.provider).to.equal('prometheus http://prom:9090: errors');
  });

  it('a metric not measured yet: Pending, no measurement; a count from an argument is resolved, one from a Secret is the problem', () => {
    const v = analysisRunView(
      run({
        spec: {
          args: [
            { name: 'n', value: '5' },
            { name: 's', valueFrom: { secretKeyRef: { name: 'creds', key: 'k' } } },
          ],
          metrics: [
            { name: 'a', interval: '1s', count: '{{args.n}}', provider: { web: { url: 'https://x' } } },
            { name: 'b', interval: '1s', count: '{{args.s}}', provider: { web: { url: 'https://x' } } },
          ],
        },
      }),
    );
    expect(v.phase).to.equal('Pending');
    expect(v.metrics.map((m) => [m.name, m.phase, m.measurements.length, m.limits.count])).to.deep.equal([
      ['a', 'Pending', 0, 5],
      ['b', 'Pending', 0, null],
    ]);
    expect(v.metrics[1].limits.problem).to.match(/^spec\.metrics\[1\]\.count: .*argument "s" is read from a Secret/);
  });

  it("a node roll's run: the roll and the node, no revision", () => {
    const v = analysisRunView(run({ labels: { 'pacer.dev/noderoll': 'upgrade', 'pacer.dev/node': 'n1' } }));
    expect([v.nodeRoll, v.node, v.deployment]).to.deep.equal(['upgrade', 'n1', '']);
  });

  it('a dry-run metric is marked', () => {
    const v = analysisRunView(run({ spec: { dryRun: [{ metricName: 'errors' }] } }));
    expect(v.metrics[0].dryRun).to.equal(true);
  });
});

describe('dashboard/analysis: runs in the hub, pushed as they change', () => {
  const empty = <T>(): ListWatchSource<T> => ({
    list: async () => ({ items: [], resourceVersion: '1' }),
    watch: (_rv, _onEvent, signal) =>
      new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
  });
  it('a new measurement is a put of the run; the same version again nothing; a deletion a delete', async () => {
    let send: ((e: WatchEvent<AnalysisRun>) => void) | undefined;
    const runs: ListWatchSource<AnalysisRun> = {
      list: async () => ({ items: [], resourceVersion: '1' }),
      watch: (_rv, onEvent, signal) => {
        send = onEvent;
        return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      },
    };
    const hub = new Hub({
      deployments: empty<Deployment>(),
      replicaSets: empty<ReplicaSet>(),
      pods: empty<Pod>(),
      analysisRuns: runs,
    });
    const seen: Change[] = [];
    hub.subscribe((c) => {
      if (c.change.kind === 'analysisRun') seen.push(c.change);
    });
    hub.start();
    try {
      await eventually('the runs watched', () => send !== undefined);
      const run = (rv: string, values: string[]): AnalysisRun => ({
        metadata: { name: 'web-a-1', namespace: 'default', resourceVersion: rv },
        spec: {
          metrics: [{ name: 'errors', successCondition: 'result < 1', provider: { web: { url: 'https://x' } } }],
        },
        status: {
          phase: 'Running',
          metricResults: [
            { name: 'errors', phase: 'Running', measurements: values.map((value) => ({ phase: 'Successful', value })) },
          ],
        },
      });
      send?.({ type: 'ADDED', object: run('2', ['0.1']) });
      send?.({ type: 'MODIFIED', object: run('3', ['0.1', '0.2']) });
      send?.({ type: 'MODIFIED', object: run('3', ['0.1', '0.2']) });
      send?.({ type: 'DELETED', object: run('4', ['0.1', '0.2']) });
      await eventually('three changes', () => seen.length >= 3);
      expect(
        seen.map((c) =>
          c.op === 'put' && c.kind === 'analysisRun' ? c.obj.metrics[0].measurements.map((m) => m.number) : c.op,
        ),
      ).to.deep.equal([[0.1], [0.1, 0.2], 'delete']);
      expect(hub.snapshot().analysisRuns).to.deep.equal([]);
    } finally {
      await hub.stop();
    }
  });
});
