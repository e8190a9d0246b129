// kubectl pacer rollout retry|abort (the patch each decides, its refusals, a lost race decided
// again), analysis list (the table) and show (the run as text), and the run and the stable revision
// in `kubectl pacer get`'s tree, against the plugin's fixtures and a fake client. What the engine
// does with the annotations: test/unit/engine/analysis/rollout.test.ts.

import { expect } from 'chai';
import type { AnalysisPhase, AnalysisRun } from '../../../src/api/analysis.ts';
import type { Deployment, ReplicaSet } from '../../../src/api/types.ts';
import { KubeError, fromResponse } from '../../../src/kube/errors.ts';
import {
  ANALYSIS_MESSAGES,
  abortPatch,
  describeRun,
  retryPatch,
  runAnalysisList,
  runAnalysisShow,
  runRolloutAbort,
  runRolloutRetry,
  runsTable,
} from '../../../src/plugin/analysis.ts';
import { describeError } from '../../../src/plugin/errors.ts';
import { deploymentAsEngineReads } from '../../../src/plugin/target.ts';
import { renderTree } from '../../../src/plugin/get.ts';
import type { Session } from '../../../src/plugin/options.ts';
import { T0, deployment, pod, replicaSet } from './fixtures.ts';

/** web at revision 2 (nginx:1.28, hash bbb) under analysis, its stable revision 1 (hash aaa). */
function analysed(o: { annotations?: Record<string, string>; stableRS?: string; analysis?: boolean } = {}): Deployment {
  const d = deployment('web', {
    image: 'nginx:1.28',
    status: {
      observedGeneration: 1,
      replicas: 3,
      updatedReplicas: 1,
      readyReplicas: 3,
      availableReplicas: 3,
      ...(o.stableRS !== undefined ? { stableRS: o.stableRS } : {}),
    },
    ...(o.annotations ? { annotations: o.annotations } : {}),
  });
  if (o.analysis !== false) d.spec.analysis = { templates: [{ templateName: 'error-rate' }] };
  return d;
}

function revisions(d: Deployment): ReplicaSet[] {
  return [
    replicaSet(d, 'aaa', { revision: 1, replicas: 2 }),
    replicaSet(d, 'bbb', { revision: 2, replicas: 1, image: 'nginx:1.28', ageSeconds: 30 }),
  ];
}

function run(hash: string, attempt: number, phase?: AnalysisPhase, o: { owner?: string } = {}): AnalysisRun {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'AnalysisRun',
    metadata: {
      name: `web-${hash}-${attempt}`,
      namespace: 'default',
      creationTimestamp: new Date(T0 + 60_000).toISOString(),
      labels: {
        'pacer.dev/deployment': 'web',
        'pacer.dev/pod-template-hash': hash,
        'pacer.dev/attempt': String(attempt),
      },
      annotations: { 'pacer.dev/revision': hash === 'aaa' ? '1' : '2' },
      ownerReferences: [
        {
          apiVersion: 'pacer.dev/v1alpha1',
          kind: 'Deployment',
          name: 'web',
          uid: o.owner ?? 'uid-web',
          controller: true,
        },
      ],
    },
    spec: { metrics: [{ name: 'error-rate', provider: { prometheus: { address: 'http://p:9090', query: 'up' } } }] },
    ...(phase ? { status: { phase, message: `run ${phase}` } } : {}),
  };
}

/** The run of canary step `step` (analysis/canary.ts). */
function stepRun(hash: string, step: number, attempt: number, phase?: AnalysisPhase): AnalysisRun {
  const r = run(hash, attempt, phase);
  r.metadata.name = `web-${hash}-step${step}-${attempt}`;
  r.metadata.labels = { ...r.metadata.labels, 'pacer.dev/canary-step': String(step) };
  return r;
}

const retryOf = (name: string) => ({
  metadata: { resourceVersion: '42', annotations: { 'pacer.dev/analysis-retry': name } },
});

describe('plugin/analysis: rollout retry', () => {
  const rows: Array<[string, Deployment, AnalysisRun[], string | { run: string }]> = [
    [
      'no spec.analysis',
      analysed({ analysis: false }),
      [],
      'deployments.pacer.dev "web" has no analysis (spec.analysis): nothing to retry',
    ],
    [
      'no run for the new revision yet (the old revision has one)',
      analysed(),
      [run('aaa', 1, 'Failed')],
      'deployments.pacer.dev "web" has no analysis run for its new revision (pod-template-hash bbb) yet: nothing to retry',
    ],
    [
      'a run still Running',
      analysed(),
      [run('bbb', 1, 'Running')],
      'analysis run web-bbb-1 is still Running: nothing to retry (only a run that ended Failed, Error or Inconclusive)',
    ],
    [
      'a run without a status yet',
      analysed(),
      [run('bbb', 1)],
      'analysis run web-bbb-1 is still Pending: nothing to retry',
    ],
    [
      'a Successful run',
      analysed(),
      [run('bbb', 1, 'Successful')],
      'analysis run web-bbb-1 was Successful: nothing to retry',
    ],
    ['a Failed run', analysed(), [run('bbb', 1, 'Failed')], { run: 'web-bbb-1' }],
    ['an Error run', analysed(), [run('bbb', 1, 'Error')], { run: 'web-bbb-1' }],
    ['an Inconclusive run', analysed(), [run('bbb', 1, 'Inconclusive')], { run: 'web-bbb-1' }],
    [
      'the latest attempt is the one retried',
      analysed({ annotations: { 'pacer.dev/analysis-retry': 'web-bbb-1' } }),
      [run('bbb', 1, 'Failed'), run('bbb', 2, 'Failed')],
      { run: 'web-bbb-2' },
    ],
    [
      'a canary step run Inconclusive beside a background run Running: the step run',
      analysed(),
      [run('bbb', 1, 'Running'), stepRun('bbb', 2, 1, 'Inconclusive')],
      { run: 'web-bbb-step2-1' },
    ],
    [
      'the background run Failed beside a Successful step run: the background run',
      analysed(),
      [run('bbb', 1, 'Failed'), stepRun('bbb', 2, 1, 'Successful')],
      { run: 'web-bbb-1' },
    ],
    [
      'retried already, the next attempt not started',
      analysed({ annotations: { 'pacer.dev/analysis-retry': 'web-bbb-1' } }),
      [run('bbb', 1, 'Failed')],
      'analysis run web-bbb-1 of deployments.pacer.dev "web" was already retried: the next attempt starts once enough new replicas are available',
    ],
  ];
  for (const [name, d, runs, want] of rows) {
    it(name, () => {
      if (typeof want === 'string') expect(() => retryPatch(d, revisions(d), runs)).to.throw(want);
      else expect(retryPatch(d, revisions(d), runs)).to.deep.equal({ patch: retryOf(want.run), run: want.run });
    });
  }

  it('pod check only (no templates): nothing to retry; no ReplicaSet for the template: nothing to retry', () => {
    const d = analysed();
    d.spec.analysis = { templates: [], podFailures: {} };
    expect(() => retryPatch(d, revisions(d), [])).to.throw(
      'deployments.pacer.dev "web" runs no analysis templates (spec.analysis.templates is empty): nothing to retry',
    );
    const e = analysed();
    expect(() => retryPatch(e, [revisions(e)[0]], [])).to.throw(
      'deployments.pacer.dev "web" has no ReplicaSet for its template yet: nothing to retry',
    );
  });
});

describe('plugin/analysis: rollout abort', () => {
  const abortOf = { metadata: { resourceVersion: '42', annotations: { 'pacer.dev/abort': 'bbb' } } };
  it('the new revision against a stable one: pacer.dev/abort = the new revision’s hash', () => {
    const d = analysed({ stableRS: 'aaa' });
    expect(abortPatch(d, revisions(d))).to.deep.equal({ patch: abortOf });
  });
  it('the stable ReplicaSet is gone: the same patch, with a warning that the rollout will be held', () => {
    const d = analysed({ stableRS: 'zzz' });
    expect(abortPatch(d, revisions(d))).to.deep.equal({
      patch: abortOf,
      warning:
        "Warning: the stable revision's ReplicaSet (pod-template-hash zzz) is gone: the rollout will be paused instead of going back",
    });
  });
  const refusals: Array<[string, Deployment, string]> = [
    [
      'no spec.analysis',
      analysed({ analysis: false, stableRS: 'aaa' }),
      'deployments.pacer.dev "web" has no analysis (spec.analysis): nothing to abort (kubectl pacer rollout undo changes the spec instead)',
    ],
    [
      'no stable revision yet',
      analysed(),
      'deployments.pacer.dev "web" has no stable revision to go back to (status.stableRS is unset or is the new revision): kubectl pacer rollout undo changes the spec instead',
    ],
    [
      'the new revision is the stable one',
      analysed({ stableRS: 'bbb' }),
      'deployments.pacer.dev "web" has no stable revision to go back to',
    ],
    [
      'already aborted',
      analysed({ stableRS: 'aaa', annotations: { 'pacer.dev/abort': 'bbb' } }),
      'deployments.pacer.dev "web" is already aborted',
    ],
  ];
  for (const [name, d, message] of refusals)
    it(`${name}: "${message}"`, () => expect(() => abortPatch(d, revisions(d))).to.throw(message));

  it('an apps/v1 Deployment (native mode): its analysis and stable revision are annotations, read as the engine reads them', () => {
    const apps = (annotations: Record<string, string>): Deployment => {
      const d = analysed({ annotations });
      d.apiVersion = 'apps/v1';
      delete d.spec.analysis;
      return deploymentAsEngineReads(d);
    };
    const d = apps({ 'pacer.dev/analysis': 'templates: [{templateName: error-rate}]', 'pacer.dev/stable-rs': 'aaa' });
    expect(abortPatch(d, revisions(d))).to.deep.equal({ patch: abortOf });
    const none = apps({ 'pacer.dev/stable-rs': 'aaa' });
    expect(() => abortPatch(none, revisions(none))).to.throw(
      'deployments.apps "web" has no analysis (annotation pacer.dev/analysis): nothing to abort',
    );
    const unstable = apps({ 'pacer.dev/analysis': 'templates: [{templateName: error-rate}]' });
    expect(() => abortPatch(unstable, revisions(unstable))).to.throw(
      'deployments.apps "web" has no stable revision to go back to (annotation pacer.dev/stable-rs is unset',
    );
  });

  it('an abort of an older revision does not count for the new one', () => {
    const d = analysed({ stableRS: 'aaa', annotations: { 'pacer.dev/abort': 'ccc' } });
    expect(abortPatch(d, revisions(d))).to.deep.equal({ patch: abortOf });
  });
});

/** A fake session: the Deployment (a new resourceVersion on every read), its ReplicaSets and runs; patches fail as `fails` says. */
function session(
  d: Deployment,
  runs: AnalysisRun[] | KubeError,
  o: { fails?: Array<() => Error>; served?: string[] } = {},
) {
  const out: string[] = [];
  const err: string[] = [];
  const patches: unknown[] = [];
  const lists: Array<{ plural: string; labelSelector?: string; namespace?: string }> = [];
  let rv = 41;
  const client = {
    getDeployment: async () => ({ ...d, metadata: { ...d.metadata, resourceVersion: String(++rv) } }),
    list: async (t: { plural: string }, namespace: string | undefined, q: { labelSelector?: string } = {}) => {
      lists.push({ plural: t.plural, namespace, labelSelector: q.labelSelector });
      if (t.plural === 'replicasets') return { items: revisions(d) };
      if (runs instanceof KubeError) throw runs;
      return { items: runs, resourceVersion: '7' };
    },
    get: async () => {
      if (runs instanceof KubeError) throw runs;
      return runs[0];
    },
    request: async () => ({ resources: (o.served ?? ['deployments', 'analysisruns']).map((name) => ({ name })) }),
    patchDeployment: async (_ns: string, _name: string, patch: unknown) => {
      patches.push(patch);
      const fail = o.fails?.shift();
      if (fail) throw fail();
      return d;
    },
  };
  const s = {
    client,
    namespace: 'default',
    io: { stdout: { write: (x: string) => out.push(x) }, stderr: { write: (x: string) => err.push(x) } },
  } as unknown as Session;
  return { s, out, err, patches, lists };
}

const conflict = () => new KubeError('Conflict', 'patch', { code: 409, reason: 'Conflict' });

describe('plugin/analysis: retry and abort through the API', () => {
  it('retry: runs listed by label, only those the Deployment controls count; a lost race is decided again from a fresh read', async () => {
    const f = session(analysed(), [run('bbb', 2, 'Failed', { owner: 'someone-else' }), run('bbb', 1, 'Failed')], {
      fails: [conflict],
    });
    expect(await runRolloutRetry(f.s, 'web')).to.equal(0);
    expect(f.lists.find((l) => l.plural === 'analysisruns')).to.deep.equal({
      plural: 'analysisruns',
      namespace: 'default',
      labelSelector: 'pacer.dev/deployment=web',
    });
    expect(f.patches).to.deep.equal([
      { metadata: { resourceVersion: '42', annotations: { 'pacer.dev/analysis-retry': 'web-bbb-1' } } },
      { metadata: { resourceVersion: '43', annotations: { 'pacer.dev/analysis-retry': 'web-bbb-1' } } },
    ]);
    expect(f.out.join('')).to.equal('deployment.pacer.dev/web retried (analysis run web-bbb-1)\n');
  });

  it('retry: a list of runs answered 404 while discovery does not serve them: the analysis CRDs are not installed', async () => {
    const f = session(analysed(), fromResponse(404, '404 page not found', 'list'), { served: ['deployments'] });
    let caught: unknown;
    await runRolloutRetry(f.s, 'web').catch((e) => {
      caught = e;
    });
    expect(describeError(caught)).to.equal(
      'error: the server doesn\'t have a resource type "analysisruns" in group "pacer.dev": Pacer\'s analysis CRDs are not installed (from a Pacer clone: kubectl apply -f crds/)',
    );
    expect(f.patches).to.deep.equal([]);
  });

  it('abort: the patch, the warning on stderr, kubectl’s message', async () => {
    const f = session(analysed({ stableRS: 'zzz' }), []);
    expect(await runRolloutAbort(f.s, 'web')).to.equal(0);
    expect(f.patches).to.deep.equal([
      { metadata: { resourceVersion: '42', annotations: { 'pacer.dev/abort': 'bbb' } } },
    ]);
    expect(f.out.join('')).to.equal('deployment.pacer.dev/web aborted\n');
    expect(f.err.join('')).to.match(/^Warning: the stable revision's ReplicaSet \(pod-template-hash zzz\) is gone/);
    expect(ANALYSIS_MESSAGES.aborted('web')).to.equal('deployment.pacer.dev/web aborted');
  });

  it('abort: five lost races give up with the conflict', async () => {
    const f = session(analysed({ stableRS: 'aaa' }), [], { fails: [conflict, conflict, conflict, conflict, conflict] });
    let caught: unknown;
    await runRolloutAbort(f.s, 'web').catch((e) => {
      caught = e;
    });
    expect((caught as KubeError).kind).to.equal('Conflict');
    expect(f.patches).to.have.length(5);
  });
});

/** A run that failed after three measurements of error-rate, with a dry-run smoke check not yet measured. */
function failedRun(): AnalysisRun {
  const r = run('bbb', 1);
  r.spec = {
    args: [
      { name: 'service', value: 'web' },
      { name: 'token', valueFrom: { secretKeyRef: { name: 'prom', key: 'token' } } },
    ],
    metrics: [
      {
        name: 'error-rate',
        interval: '30s',
        count: 5,
        failureLimit: 1,
        successCondition: 'result[0] < 0.05',
        failureCondition: 'result[0] >= 0.1',
        provider: {
          prometheus: { address: 'http://prometheus:9090', query: 'sum(rate(errors{service="{{args.service}}"}[1m]))' },
        },
      },
      { name: 'smoke', provider: { web: { url: 'http://web/healthz', jsonPath: '{$.ok}' } } },
    ],
    dryRun: [{ metricName: 'smoke' }],
  };
  r.status = {
    phase: 'Failed',
    message: 'Metric "error-rate" assessed Failed due to failed (2) > failureLimit (1)',
    startedAt: '2026-03-01T10:01:00Z',
    metricResults: [
      {
        name: 'error-rate',
        phase: 'Failed',
        message: 'failed (2) > failureLimit (1)',
        count: 3,
        successful: 1,
        failed: 2,
        error: 1,
        measurements: [
          {
            phase: 'Successful',
            value: '[0.01]',
            startedAt: '2026-03-01T10:01:30Z',
            finishedAt: '2026-03-01T10:01:30Z',
          },
          { phase: 'Failed', value: '[0.2]', finishedAt: '2026-03-01T10:02:00Z' },
          { phase: 'Failed', value: '[0.3]', finishedAt: '2026-03-01T10:02:30Z', message: 'result[0] >= 0.1' },
        ],
      },
    ],
  };
  return r;
}

describe('plugin/analysis: list and show', () => {
  it('list: kubectl get layout, NAMESPACE with -A, sorted, the revision annotation, measurements summed over metrics', () => {
    const other = run('aaa', 1);
    other.metadata = { ...other.metadata, name: 'db-aaa-1', namespace: 'prod', labels: {}, annotations: {} };
    expect(runsTable([failedRun(), other], true, T0 + 300_000)).to.equal(
      [
        'NAMESPACE   NAME        DEPLOYMENT   REVISION   PHASE     MEASUREMENTS   AGE',
        'default     web-bbb-1   web          2          Failed    3              4m',
        'prod        db-aaa-1    <none>       <none>     Pending   0              4m',
        '',
      ].join('\n'),
    );
    expect(runsTable([failedRun()], false, T0 + 300_000).split('\n')[0]).to.equal(
      'NAME        DEPLOYMENT   REVISION   PHASE    MEASUREMENTS   AGE',
    );
  });

  it("list: none in the namespace is kubectl's message on stderr, exit 0", async () => {
    const f = session(analysed(), []);
    expect(await runAnalysisList(f.s, { allNamespaces: false })).to.equal(0);
    expect(f.err.join('')).to.equal('No resources found in default namespace.\n');
    expect(f.out).to.deep.equal([]);
  });

  it('show: phase and message, arguments, then each metric with its provider, conditions, limits, counts and measurements', () => {
    expect(describeRun(failedRun())).to.equal(
      [
        'Name:        web-bbb-1',
        'Namespace:   default',
        'Deployment:  web (revision 2, pod-template-hash bbb, attempt 1)',
        'Phase:       ✖ Failed',
        'Message:     Metric "error-rate" assessed Failed due to failed (2) > failureLimit (1)',
        'Started:     2026-03-01T10:01:00Z',
        'Args:        service=web',
        '             token=<secret prom/token>',
        '',
        'Metrics:',
        '├─ error-rate (Failed)',
        '│  Provider:  prometheus http://prometheus:9090',
        '│  Query:     sum(rate(errors{service="{{args.service}}"}[1m]))',
        '│  Success:   result[0] < 0.05',
        '│  Failure:   result[0] >= 0.1',
        '│  Schedule:  interval 30s, count 5',
        '│  Limits:    failureLimit 1, inconclusiveLimit 0, consecutiveErrorLimit 4',
        '│  Message:   failed (2) > failureLimit (1)',
        '│  Counts:    count 3, successful 1, failed 2, inconclusive 0, error 1',
        '│  Measurements: (the latest 3 of 4)',
        '│  ├─ 2026-03-01T10:01:30Z  Successful  [0.01]',
        '│  ├─ 2026-03-01T10:02:00Z  Failed      [0.2]',
        '│  └─ 2026-03-01T10:02:30Z  Failed      [0.3]   result[0] >= 0.1',
        '└─ smoke (Pending) (dry run)',
        '   Provider:      web GET http://web/healthz',
        '   JSONPath:      {$.ok}',
        '   Conditions:    <none> (every measurement is Successful)',
        '   Schedule:      one measurement',
        '   Limits:        failureLimit 0, inconclusiveLimit 0, consecutiveErrorLimit 4',
        '   Counts:        count 0, successful 0, failed 0, inconclusive 0, error 0',
        '   Measurements:  <none>',
        '',
      ].join('\n'),
    );
  });

  it("show: a run that does not exist is kubectl's NotFound naming analysisruns.pacer.dev", async () => {
    const f = session(analysed(), fromResponse(404, '404 page not found', 'get'));
    let caught: unknown;
    await runAnalysisShow(f.s, 'nope', {}).catch((e) => {
      caught = e;
    });
    expect(describeError(caught)).to.equal('Error from server (NotFound): analysisruns.pacer.dev "nope" not found');
  });

  it('errors name the resource the command is about', () => {
    const notFound = fromResponse(404, '404 page not found', 'get');
    expect(describeError(notFound, { name: 'x', resource: 'analysisruns' })).to.equal(
      'Error from server (NotFound): analysisruns.pacer.dev "x" not found',
    );
    expect(describeError(notFound, { name: 'x', resource: 'analysisruns', crdMissing: true })).to.match(
      /^error: the server doesn't have a resource type "analysisruns" in group "pacer.dev": Pacer's analysis CRDs are not installed/,
    );
    expect(describeError(notFound, { name: 'web', crdMissing: true })).to.match(/Pacer's CRD is not installed/);
  });
});

describe('plugin/get: a Deployment under analysis', () => {
  const rendered = (d: Deployment, runs: AnalysisRun[] | undefined, more: { runsUnavailable?: string } = {}) => {
    const rss = revisions(d);
    return renderTree(
      {
        deployment: d,
        replicaSets: rss,
        pods: [pod(rss[1], 'n1'), pod(rss[0], 'o1')],
        ...(runs ? { runs } : {}),
        ...more,
      },
      T0 + 300_000,
    );
  };

  it('the stable revision and the current run in the header; the run under the new revision with its counts and message', () => {
    const r = failedRun();
    const lines = rendered(analysed({ stableRS: 'aaa' }), [run('bbb', 0, 'Running'), r]);
    expect(lines.slice(16, 20)).to.deep.equal([
      'Analysis:          error-rate (onFailure Abort)',
      '  Stable:          revision 1 (web-aaa)',
      '  Run:             web-bbb-1 ✖ Failed',
      '',
    ]);
    expect(lines.slice(20)).to.deep.equal([
      'NAME                   KIND         STATUS         AGE    INFO',
      '⟳ web                  Deployment   ◌ Progressing  5m',
      '├──# revision:2',
      '│  ├──⧉ web-bbb        ReplicaSet   ✔ Healthy      4m30s  replicas:1/1 ready:1 available:1',
      '│  │  └──□ web-bbb-n1  Pod          ✔ Running      4m30s  ready:1/1 restarts:0',
      '│  └──α web-bbb-1      AnalysisRun  ✖ Failed       4m     successful:1 failed:2 inconclusive:0 error:1 message:Metric "error-rate" assessed Failed due to failed (2) > failureLimit (1)',
      '└──# revision:1                                           stable',
      '   └──⧉ web-aaa        ReplicaSet   ✔ Healthy      5m     replicas:2/2 ready:2 available:2',
      '      └──□ web-aaa-o1  Pod          ✔ Running      5m     ready:1/1 restarts:0',
    ]);
  });

  it('a Running run shows no message; the run retried shows none until the next attempt', () => {
    const running = rendered(analysed({ stableRS: 'aaa' }), [run('bbb', 1, 'Running')]);
    expect(running.find((l) => l.includes('AnalysisRun'))).to.match(
      /└──α web-bbb-1 +AnalysisRun +◌ Running +4m +successful:0 failed:0 inconclusive:0 error:0$/,
    );
    const retried = rendered(analysed({ stableRS: 'aaa', annotations: { 'pacer.dev/analysis-retry': 'web-bbb-1' } }), [
      run('bbb', 1, 'Failed'),
    ]);
    expect(retried).to.include('  Run:             <none>');
    expect(retried.some((l) => l.includes('AnalysisRun'))).to.equal(false);
  });

  it('no stable revision yet, and runs that could not be read', () => {
    const lines = rendered(analysed(), undefined, { runsUnavailable: 'the analysis CRDs are not installed' });
    expect(lines).to.include('  Stable:          <none> (set once a revision completes)');
    expect(lines).to.include('  Run:             <unknown> (the analysis CRDs are not installed)');
    expect(lines.some((l) => l.endsWith('stable'))).to.equal(false);
  });

  it('without spec.analysis nothing changes: no Analysis header, no stable mark, no run', () => {
    const d = analysed({ analysis: false, stableRS: 'aaa' });
    const lines = rendered(d, [failedRun()]);
    expect(lines.some((l) => l.startsWith('Analysis:'))).to.equal(false);
    expect(lines.some((l) => l.includes('AnalysisRun') || l.endsWith('stable'))).to.equal(false);
    expect(lines).to.include(
      '│  └──⧉ web-bbb        ReplicaSet  ✔ Healthy      4m30s  replicas:1/1 ready:1 available:1',
    );
  });
});
