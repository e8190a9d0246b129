// `kubectl pacer analysis list|show`, `rollout retry|abort` and `get` of a Deployment under analysis,
// through the plugin's program against the simulated API server. No controller runs: the test
// writes the Deployment (with spec.analysis and status.stableRS), its two revisions' ReplicaSets
// and the AnalysisRuns itself, so every line the plugin prints is known; it then reads back the
// annotations the engine acts on (docs/semantics/analysis.md#commands).

import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnalysisRun } from '../../src/api/analysis.ts';
import type { Deployment, ReplicaSet } from '../../src/api/types.ts';
import { readManifests } from '../../src/cli/up.ts';
import { ANALYSIS_RUNS, DEPLOYMENTS, KubeClient, REPLICASETS } from '../../src/kube/client.ts';
import { loadKubeConfig } from '../../src/kube/clientnode.ts';
import { startSim } from '../../src/sim/index.ts';
import type { SimCluster } from '../../src/sim/index.ts';
import { REF } from '../../src/sim/resources.ts';
import { createNamespace, eventually, pluginOn, podTemplate, sleep, TEST_USER_AGENT } from './fixtures/cluster.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** A ReplicaSet of `d`'s revision `revision`, template `image`, hash `hash`, scaled to 0 (no pods: known output). */
function revisionRS(d: Deployment, hash: string, revision: number, image: string): ReplicaSet {
  const labels = { app: 'web', 'pod-template-hash': hash };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `web-${hash}`,
      namespace: 'default',
      labels,
      annotations: { 'pacer.dev/revision': String(revision) },
      ownerReferences: [
        { apiVersion: 'pacer.dev/v1alpha1', kind: 'Deployment', name: 'web', uid: d.metadata.uid!, controller: true },
      ],
    },
    spec: {
      replicas: 0,
      selector: { matchLabels: labels },
      template: { ...podTemplate('web', image), metadata: { labels } },
    },
  };
}

function runObject(d: Deployment, hash: string, attempt: number, namespace = 'default'): AnalysisRun {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'AnalysisRun',
    metadata: {
      name: `${d.metadata.name}-${hash}-${attempt}`,
      namespace,
      labels: {
        'pacer.dev/deployment': d.metadata.name!,
        'pacer.dev/pod-template-hash': hash,
        'pacer.dev/attempt': String(attempt),
      },
      annotations: { 'pacer.dev/revision': '2' },
      ownerReferences: [
        {
          apiVersion: 'pacer.dev/v1alpha1',
          kind: 'Deployment',
          name: d.metadata.name!,
          uid: d.metadata.uid!,
          controller: true,
        },
      ],
    },
    spec: {
      metrics: [
        {
          name: 'error-rate',
          interval: '30s',
          count: 5,
          failureLimit: 1,
          failureCondition: 'result[0] >= 0.1',
          provider: { prometheus: { address: 'http://prometheus:9090', query: 'sum(rate(errors[1m]))' } },
        },
      ],
    },
  };
}

const FAILED_STATUS = {
  phase: 'Failed',
  message: 'Metric "error-rate" assessed Failed due to failed (2) > failureLimit (1)',
  startedAt: '2026-03-01T10:01:00Z',
  metricResults: [
    {
      name: 'error-rate',
      phase: 'Failed',
      count: 3,
      successful: 1,
      failed: 2,
      measurements: [
        { phase: 'Successful', value: '[0.01]', finishedAt: '2026-03-01T10:01:30Z' },
        { phase: 'Failed', value: '[0.2]', finishedAt: '2026-03-01T10:02:00Z' },
        { phase: 'Failed', value: '[0.3]', finishedAt: '2026-03-01T10:02:30Z' },
      ],
    },
  ],
};

describe('kubectl pacer analysis list|show, rollout retry|abort and get under analysis (simulated API server)', function () {
  this.timeout(60_000);
  let sim: SimCluster;
  let client: KubeClient;
  let dir: string;
  let kubeconfig: string;
  let web: Deployment;
  const plugin = pluginOn(() => kubeconfig);
  /** Ages depend on the clock: a list's AGE cells become "<age>", the tree's (all under 10 s here) "Ns". */
  const ageless = (s: string) => s.replace(/ +\d+s$/gm, '   <age>');
  const treeAges = (s: string) => s.replace(/\b\ds\b/g, 'Ns');
  const setRunStatus = async (name: string, status: object, namespace = 'default') => {
    const r = await client.get<AnalysisRun>(ANALYSIS_RUNS, namespace, name);
    await client.replace(ANALYSIS_RUNS, namespace, name, { ...r, status }, 'status');
  };

  before(async () => {
    sim = await startSim({ port: 0, podStartMs: 20, podReadyMs: 30 });
    const crds = await readManifests(join(ROOT, 'crds'));
    for (const crd of crds) sim.store.create(REF.customresourcedefinitions, undefined, crd);
    createNamespace(sim, 'prod');
    client = new KubeClient(loadKubeConfig({ kubeconfigText: sim.kubeconfig }), { userAgent: TEST_USER_AGENT });
    await eventually('the CRDs to be served', async () => {
      await client.list(DEPLOYMENTS, 'default');
      await client.list(ANALYSIS_RUNS, 'default');
      return true;
    });
    dir = mkdtempSync(join(tmpdir(), 'pacer-plugin-analysis-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, sim.kubeconfig);

    // web: revision 1 (nginx:1, stable) and revision 2 (nginx:2, the spec's), under analysis.
    web = await client.create<Deployment>(DEPLOYMENTS, 'default', {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        template: podTemplate('web', 'nginx:2'),
        analysis: { templates: [{ templateName: 'error-rate' }] },
      },
    } as Deployment);
    for (const rs of [revisionRS(web, 'aaaa', 1, 'nginx:1'), revisionRS(web, 'bbbb', 2, 'nginx:2')])
      await client.create(REPLICASETS, 'default', rs);
    web = await client.replace<Deployment>(
      DEPLOYMENTS,
      'default',
      'web',
      { ...web, status: { observedGeneration: 1, replicas: 0, stableRS: 'aaaa' } },
      'status',
    );
    expect(web.status?.stableRS).to.equal('aaaa');
    expect(web.spec.analysis?.templates).to.deep.equal([{ templateName: 'error-rate' }]);
  });
  after(async () => {
    await sim?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('no run yet: list finds none, retry has nothing to retry', async () => {
    expect(await plugin('analysis', 'list')).to.deep.equal({
      code: 0,
      stdout: '',
      stderr: 'No resources found in default namespace.\n',
    });
    expect(await plugin('rollout', 'retry', 'web')).to.deep.equal({
      code: 1,
      stdout: '',
      stderr:
        'error: deployments.pacer.dev "web" has no analysis run for its new revision (pod-template-hash bbbb) yet: nothing to retry\n',
    });
  });

  it('a Running run: listed, shown, not retried', async () => {
    await client.create(ANALYSIS_RUNS, 'default', runObject(web, 'bbbb', 1));
    await setRunStatus('web-bbbb-1', { phase: 'Running', startedAt: '2026-03-01T10:01:00Z' });
    const list = await plugin('analysis', 'list');
    expect(list.code).to.equal(0);
    expect(ageless(list.stdout)).to.equal(
      [
        'NAME         DEPLOYMENT   REVISION   PHASE     MEASUREMENTS   AGE',
        'web-bbbb-1   web          2          Running   0   <age>',
        '',
      ].join('\n'),
    );
    expect(await plugin('rollout', 'retry', 'web')).to.deep.equal({
      code: 1,
      stdout: '',
      stderr:
        'error: analysis run web-bbbb-1 is still Running: nothing to retry (only a run that ended Failed, Error or Inconclusive)\n',
    });
  });

  it('a Failed run: show lays out its metric and measurements, get shows it under the new revision', async () => {
    await setRunStatus('web-bbbb-1', FAILED_STATUS);
    expect(await plugin('analysis', 'show', 'web-bbbb-1')).to.deep.equal({
      code: 0,
      stderr: '',
      stdout: [
        'Name:        web-bbbb-1',
        'Namespace:   default',
        'Deployment:  web (revision 2, pod-template-hash bbbb, attempt 1)',
        'Phase:       ✖ Failed',
        'Message:     Metric "error-rate" assessed Failed due to failed (2) > failureLimit (1)',
        'Started:     2026-03-01T10:01:00Z',
        '',
        'Metrics:',
        '└─ error-rate (Failed)',
        '   Provider:  prometheus http://prometheus:9090',
        '   Query:     sum(rate(errors[1m]))',
        '   Failure:   result[0] >= 0.1',
        '   Schedule:  interval 30s, count 5',
        '   Limits:    failureLimit 1, inconclusiveLimit 0, consecutiveErrorLimit 4',
        '   Counts:    count 3, successful 1, failed 2, inconclusive 0, error 0',
        '   Measurements:',
        '   ├─ 2026-03-01T10:01:30Z  Successful  [0.01]',
        '   ├─ 2026-03-01T10:02:00Z  Failed      [0.2]',
        '   └─ 2026-03-01T10:02:30Z  Failed      [0.3]',
        '',
      ].join('\n'),
    });
    const json = await plugin('analysis', 'show', 'web-bbbb-1', '-o', 'json');
    expect(json.code).to.equal(0);
    expect(JSON.parse(json.stdout)).to.deep.include({ kind: 'AnalysisRun', status: FAILED_STATUS });

    const get = await plugin('get', 'web');
    expect(get.code).to.equal(0);
    const lines = treeAges(get.stdout).split('\n');
    expect(lines.slice(lines.indexOf('Analysis:          error-rate (onFailure Abort)'), -1)).to.deep.equal([
      'Analysis:          error-rate (onFailure Abort)',
      '  Stable:          revision 1 (web-aaaa)',
      '  Run:             web-bbbb-1 ✖ Failed',
      '',
      'NAME                KIND         STATUS         AGE  INFO',
      '⟳ web               Deployment   ◌ Progressing  Ns',
      '├──# revision:2',
      '│  ├──⧉ web-bbbb    ReplicaSet   • ScaledDown   Ns   replicas:0/0 ready:0 available:0',
      '│  └──α web-bbbb-1  AnalysisRun  ✖ Failed       Ns   successful:1 failed:2 inconclusive:0 error:0 message:Metric "error-rate" assessed Failed due to failed (2) > failureLimit (1)',
      '└──# revision:1                                      stable',
      '   └──⧉ web-aaaa    ReplicaSet   • ScaledDown   Ns   replicas:0/0 ready:0 available:0',
    ]);
  });

  it('retry names the run in pacer.dev/analysis-retry; a second retry finds it already retried', async () => {
    expect(await plugin('rollout', 'retry', 'web')).to.deep.equal({
      code: 0,
      stdout: 'deployment.pacer.dev/web retried (analysis run web-bbbb-1)\n',
      stderr: '',
    });
    const d = await client.getDeployment('default', 'web');
    expect(d.metadata.annotations?.['pacer.dev/analysis-retry']).to.equal('web-bbbb-1');
    expect(await plugin('rollout', 'retry', 'web')).to.deep.equal({
      code: 1,
      stdout: '',
      stderr:
        'error: analysis run web-bbbb-1 of deployments.pacer.dev "web" was already retried: the next attempt starts once enough new replicas are available\n',
    });
  });

  it('abort names the new revision in pacer.dev/abort; a second abort is refused', async () => {
    expect(await plugin('rollout', 'abort', 'web')).to.deep.equal({
      code: 0,
      stdout: 'deployment.pacer.dev/web aborted\n',
      stderr: '',
    });
    expect((await client.getDeployment('default', 'web')).metadata.annotations?.['pacer.dev/abort']).to.equal('bbbb');
    expect(await plugin('rollout', 'abort', 'web')).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: 'error: deployments.pacer.dev "web" is already aborted\n',
    });
  });

  it('get -w follows the runs: the next attempt appears under the new revision', async () => {
    const watching = plugin('get', 'web', '-w', '--timeout=2s');
    await sleep(500);
    await client.create(ANALYSIS_RUNS, 'default', runObject(web, 'bbbb', 2));
    await setRunStatus('web-bbbb-2', { phase: 'Running' });
    const got = await watching;
    expect(got.code).to.equal(0);
    const frames = got.stdout.trimEnd().split('\n\nName:');
    expect(frames[0]).to.contain('\n  Run:             <none>\n'); // web-bbbb-1 was retried
    expect(frames.at(-1)).to.contain('\n  Run:             web-bbbb-2 ◌ Running\n');
    expect(frames.at(-1)).to.match(/│ {2}└──α web-bbbb-2 +AnalysisRun +◌ Running +\ds +successful:0 failed:0/);
  });

  it('-n and -A: the runs of another namespace, with NAMESPACE', async () => {
    const api = await client.create<Deployment>(DEPLOYMENTS, 'prod', {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'Deployment',
      metadata: { name: 'api', namespace: 'prod' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'api' } }, template: podTemplate('api', 'nginx:1') },
    } as Deployment);
    await client.create(ANALYSIS_RUNS, 'prod', runObject(api, 'cccc', 1, 'prod'));
    expect(ageless((await plugin('analysis', 'list', '-n', 'prod')).stdout)).to.equal(
      [
        'NAME         DEPLOYMENT   REVISION   PHASE     MEASUREMENTS   AGE',
        'api-cccc-1   api          2          Pending   0   <age>',
        '',
      ].join('\n'),
    );
    const all = await plugin('analysis', 'list', '-A');
    expect(all.code).to.equal(0);
    expect(ageless(all.stdout)).to.equal(
      [
        'NAMESPACE   NAME         DEPLOYMENT   REVISION   PHASE     MEASUREMENTS   AGE',
        'default     web-bbbb-1   web          2          Failed    3   <age>',
        'default     web-bbbb-2   web          2          Running   0   <age>',
        'prod        api-cccc-1   api          2          Pending   0   <age>',
        '',
      ].join('\n'),
    );
    // Without spec.analysis neither command has anything to act on.
    expect(await plugin('-n', 'prod', 'rollout', 'abort', 'api')).to.deep.equal({
      code: 1,
      stdout: '',
      stderr:
        'error: deployments.pacer.dev "api" has no analysis (spec.analysis): nothing to abort (kubectl pacer rollout undo changes the spec instead)\n',
    });
  });

  it("a missing run or Deployment: kubectl's NotFound, exit 1", async () => {
    expect(await plugin('analysis', 'show', 'nope')).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: 'Error from server (NotFound): analysisruns.pacer.dev "nope" not found\n',
    });
    expect(await plugin('rollout', 'retry', 'nope')).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: 'Error from server (NotFound): deployments.pacer.dev "nope" not found\n',
    });
  });

  it('the analysis CRDs not installed: list and show say so, get shows the rest', async () => {
    sim.store.delete(REF.customresourcedefinitions, undefined, 'analysisruns.pacer.dev');
    await eventually('analysisruns to stop being served', async () => {
      try {
        await client.list(ANALYSIS_RUNS, 'default');
        return false;
      } catch {
        return true;
      }
    });
    const missing =
      'error: the server doesn\'t have a resource type "analysisruns" in group "pacer.dev": Pacer\'s analysis CRDs are not installed (from a Pacer clone: kubectl apply -f crds/)\n';
    expect(await plugin('analysis', 'list')).to.deep.equal({ code: 1, stdout: '', stderr: missing });
    expect(await plugin('analysis', 'show', 'web-bbbb-1')).to.deep.equal({ code: 1, stdout: '', stderr: missing });
    expect(await plugin('rollout', 'retry', 'web')).to.deep.equal({ code: 1, stdout: '', stderr: missing });
    const get = await plugin('get', 'web');
    expect(get.code).to.equal(0);
    expect(get.stdout).to.contain('\n  Run:             <unknown> (the analysis CRDs are not installed)\n');
  });
});
