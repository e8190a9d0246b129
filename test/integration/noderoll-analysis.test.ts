// Analysis at a node roll's health gate on the simulated cluster, with a real Prometheus
// (docs/semantics/node-roll.md#analysis-at-the-health-gate): a group of 3 nodes under one Deployment
// is replaced; after each node a run of the gate's template reads that node's error ratio from
// Prometheus (the node's name is the template's argument). The roll proceeds while the ratio is
// good; the test turns workers-2's bad once workers-1 is done, and the roll pauses on workers-2's run
// naming it, before workers-3 is taken; with the ratio good again, `kubectl pacer node-roll resume`
// starts attempt 2 of workers-2's run and the roll completes.

import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnalysisRun, AnalysisTemplate } from '../../src/api/analysis.ts';
import type { NodeRoll } from '../../src/api/noderoll.ts';
import { ANALYSIS_RUNS, ANALYSIS_TEMPLATES, DEPLOYMENTS, NODEROLLS } from '../../src/kube/client.ts';
import { REF } from '../../src/sim/resources.ts';
import type { KubeObject } from '../../src/sim/types.ts';
import { startMetricsEndpoint, startPrometheus, waitForValue } from '../fixtures/prometheus-server.ts';
import type { MetricsEndpoint, PrometheusServer } from '../fixtures/prometheus-server.ts';
import { deploymentManifest, eventually, pluginOn, startCluster, waitComplete } from './fixtures/cluster.ts';
import type { Cluster } from './fixtures/cluster.ts';

const NS = 'default';
const GOOD = 0.01;
const BAD = 0.3;
const OLD = ['workers-1', 'workers-2', 'workers-3'];

describe('node roll: analysis at the health gate, with a real Prometheus (simulated cluster)', function () {
  this.timeout(240_000);
  let c: Cluster;
  let endpoint: MetricsEndpoint;
  let prom: PrometheusServer;
  let dir: string;

  before(async function () {
    endpoint = await startMetricsEndpoint();
    prom = await startPrometheus(this, { targets: [endpoint.target] });
    c = await startCluster({ nodes: 0, zones: ['a', 'b', 'c'], podStartMs: 20, podReadyMs: 30 });
    dir = mkdtempSync(join(tmpdir(), 'pacer-noderoll-analysis-'));
    writeFileSync(join(dir, 'kubeconfig'), c.sim.kubeconfig);
  });
  after(async () => {
    await c?.stop();
    await prom?.stop();
    await endpoint?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const plugin = pluginOn(() => join(dir, 'kubeconfig'));
  const ratio = (node: string, v: number) => endpoint.setGauge('node_errors_ratio', { node }, v);
  /** Prometheus answers `v` for the node's ratio (it scrapes every second). */
  const seen = (node: string, v: number) =>
    waitForValue(prom, `node_errors_ratio{node="${node}"}`, (r) => r.length === 1 && Number(r[0].value[1]) === v);
  const roll = async () => (await c.client.get<NodeRoll>(NODEROLLS, undefined, 'upgrade')).status ?? {};
  const runOf = (name: string) => c.client.get<AnalysisRun>(ANALYSIS_RUNS, NS, name);
  const stepOf = async (node: string) => (await roll()).nodes?.find((n) => n.name === node)?.step;

  it('proceeds while the metric is good, pauses naming the run when it turns bad (before the next node), and a resume once it is good again starts attempt 2 and completes', async () => {
    for (const node of OLD) ratio(node, GOOD);
    for (const node of OLD) await seen(node, GOOD);
    c.sim.store.create(REF.nodegroups, undefined, {
      apiVersion: 'sim.pacer.dev/v1',
      kind: 'NodeGroup',
      metadata: { name: 'workers' },
      spec: { replicas: 3, zones: ['a', 'b', 'c'], launchDelayMs: 50, deregistrationDelayMs: 50 },
    } as KubeObject);
    await c.client.create(
      DEPLOYMENTS,
      NS,
      deploymentManifest(NS, 'web', {
        replicas: 3,
        // A drain lasts at least 2 s: Prometheus (scraping every second) has the new value before
        // the run after the next node takes its first measurement.
        podAnnotations: { 'sim.pacer.dev/stop-after-ms': '2000' },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } },
      }),
    );
    await waitComplete(c.client, NS, 'web', '1');
    const template: AnalysisTemplate = {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'AnalysisTemplate',
      metadata: { name: 'node-errors', namespace: NS },
      spec: {
        args: [{ name: 'node' }],
        metrics: [
          {
            name: 'errors',
            interval: '1s',
            count: 2,
            successCondition: 'result[0] < 0.05',
            provider: { prometheus: { address: prom.url, query: 'node_errors_ratio{node="{{args.node}}"}' } },
          },
        ],
      },
    };
    await c.client.create(ANALYSIS_TEMPLATES, NS, template);
    const created = await c.client.create<NodeRoll>(NODEROLLS, undefined, {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'NodeRoll',
      metadata: { name: 'upgrade' },
      spec: {
        nodeSelector: { matchLabels: { 'sim.pacer.dev/node-group': 'workers' } },
        nodeGroup: 'workers',
        desiredNodes: 3,
        healthGate: {
          analysis: {
            templates: [{ templateName: 'node-errors' }],
            args: [{ name: 'node', valueFrom: { nodeName: true } }],
          },
        },
      },
    });

    // workers-1 (the first taken: names in order) is done once its run is Successful.
    await eventually('workers-1 done', async () => (await stepOf('workers-1')) === 'Done', 90_000);
    const first = await runOf('upgrade-workers-1-1');
    expect(first.status?.phase).to.equal('Successful');
    expect(first.spec.args).to.deep.equal([{ name: 'node', value: 'workers-1' }]);
    expect(first.metadata.labels).to.include({
      'pacer.dev/noderoll': 'upgrade',
      'pacer.dev/node': 'workers-1',
      'pacer.dev/attempt': '1',
    });
    expect(first.metadata.ownerReferences).to.deep.equal([
      {
        apiVersion: 'pacer.dev/v1alpha1',
        kind: 'NodeRoll',
        name: 'upgrade',
        uid: created.metadata.uid,
        controller: true,
      },
    ]);
    expect(first.status?.metricResults?.[0]).to.include({ count: 2, successful: 2 });

    // The metric turns bad for the node taken next.
    ratio('workers-2', BAD);
    await seen('workers-2', BAD);
    const paused = await eventually(
      'paused on the analysis of workers-2',
      async () => {
        const st = await roll();
        return st.paused?.wait === 'analysis' && st;
      },
      90_000,
    );
    expect(paused.paused).to.deep.include({ node: 'workers-2', run: 'upgrade-workers-2-1', reason: 'AnalysisFailed' });
    expect(paused.paused!.message).to.match(
      /^node workers-2: analysis run default\/upgrade-workers-2-1 failed: metric "errors" assessed Failed: 1 of [12] measurements failed \(failureLimit 0\); last value \[0\.3\] against successCondition "result\[0\] < 0\.05"$/,
    );
    expect(paused.conditions?.find((x) => x.type === 'Paused')).to.deep.include({
      status: 'True',
      reason: 'AnalysisFailed',
    });
    expect(
      Object.fromEntries((paused.nodes ?? []).map((n) => [n.name, n.step])),
      'workers-3 not taken while workers-2 is judged',
    ).to.deep.equal({ 'workers-1': 'Done', 'workers-2': 'Deregistered', 'workers-3': 'Pending' });
    expect((await runOf('upgrade-workers-2-1')).status?.phase).to.equal('Failed');
    const events = await eventually('the NodeRollPaused Event', async () => {
      const list = await c.client.request<{
        items: Array<{ reason: string; type: string; message: string; involvedObject: { name?: string } }>;
      }>('GET' as never, `/api/v1/namespaces/${NS}/events`, { what: 'events' });
      const mine = list.items.filter((e) => e.involvedObject.name === 'upgrade' && e.reason === 'NodeRollPaused');
      return mine.length > 0 && mine;
    });
    expect(events[0]).to.include({ type: 'Warning', message: paused.paused!.message });
    const status = await plugin('node-roll', 'status', 'upgrade');
    expect(status.stdout).to.match(/^NodeRoll upgrade: Paused\n/);
    expect(status.stdout).to.match(/\nworkers-2 +Deregistered +\S+ +upgrade-workers-2-1\n/);

    // Good again; a person resumes: attempt 2 of workers-2's run, then workers-3, then done.
    ratio('workers-2', GOOD);
    await seen('workers-2', GOOD);
    const resumed = await plugin('node-roll', 'resume', 'upgrade');
    expect([resumed.code, resumed.stdout, resumed.stderr]).to.deep.equal([
      0,
      'noderoll.pacer.dev/upgrade resumed (node workers-2: a new analysis run, attempt 2)\n',
      '',
    ]);
    await eventually('the roll to complete', async () => (await roll()).phase === 'Complete', 120_000);
    expect((await runOf('upgrade-workers-2-2')).status?.phase).to.equal('Successful');
    expect((await runOf('upgrade-workers-3-1')).status?.phase).to.equal('Successful');
    expect((await runOf('upgrade-workers-2-1')).status?.phase, 'the failed attempt is kept as it was').to.equal(
      'Failed',
    );
    const done = await roll();
    expect(done.nodes?.map((n) => [n.name, n.step, n.analysis?.attempt ?? 1])).to.deep.equal([
      ['workers-1', 'Done', 1],
      ['workers-2', 'Done', 2],
      ['workers-3', 'Done', 1],
    ]);
    expect(
      (await c.client.list<AnalysisRun>(ANALYSIS_RUNS, NS)).items
        .filter((r) => r.metadata.labels?.['pacer.dev/noderoll'] === 'upgrade')
        .map((r) => r.metadata.name)
        .sort(),
      'one run per node and attempt, none for the new nodes',
    ).to.deep.equal(['upgrade-workers-1-1', 'upgrade-workers-2-1', 'upgrade-workers-2-2', 'upgrade-workers-3-1']);
  });
});
