// Analysis on the simulated cluster (docs/semantics/analysis.md), with a real Prometheus where a
// metric is read: Prometheus stopped in the middle of a run (Error measurements up to the limit,
// then the configured outcome, named by its address); an Inconclusive run that pauses until
// `kubectl pacer rollout retry`; a crash-looping image stopped by the built-in pod check long before
// its progress deadline; and a run whose controller process is SIGKILLed mid-run, resumed by the next
// one with its measurement count exact.

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnalysisRun, AnalysisTemplate, DeploymentAnalysis } from '../../src/api/analysis.ts';
import type { Deployment, Pod } from '../../src/api/types.ts';
import { ANALYSIS_RUNS, ANALYSIS_TEMPLATES, DEPLOYMENTS, PODS } from '../../src/kube/client.ts';
import { runPlugin } from '../../src/plugin/program.ts';
import { startMetricsEndpoint, startPrometheus, waitForValue } from '../fixtures/prometheus-server.ts';
import type { MetricsEndpoint, PrometheusServer } from '../fixtures/prometheus-server.ts';
import {
  condition,
  deploymentManifest,
  eventually,
  startCluster,
  startSimWithCrds,
  waitComplete,
} from './fixtures/cluster.ts';
import type { Cluster } from './fixtures/cluster.ts';

const NS = 'default';

function template(name: string, prom: string, extra: Record<string, unknown>): AnalysisTemplate {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'AnalysisTemplate',
    metadata: { name, namespace: NS },
    spec: {
      args: [{ name: 'app' }],
      metrics: [
        {
          name: 'errors',
          interval: '500ms',
          successCondition: 'result[0] < 0.05',
          provider: { prometheus: { address: prom, query: 'app_errors_ratio{app="{{args.app}}"}' } },
          ...extra,
        },
      ],
    },
  };
}

function judged(name: string, analysis: DeploymentAnalysis, o: { maxUnavailable?: number } = {}): Deployment {
  const d = deploymentManifest(NS, name, { replicas: 3 });
  d.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: o.maxUnavailable ?? 1 } };
  d.spec.analysis = analysis;
  // Each new pod takes 2 s to count as available: the rollout lasts long enough to be judged.
  d.spec.minReadySeconds = 2;
  return d;
}

const setImage = (c: Cluster, name: string, image: string, annotations?: Record<string, string>) =>
  c.client.patch(
    DEPLOYMENTS,
    NS,
    name,
    {
      spec: {
        template: {
          ...(annotations ? { metadata: { annotations } } : {}),
          spec: { containers: [{ name: 'web', image }] },
        },
      },
    },
    'merge',
  );

const progressing = async (c: Cluster, name: string) =>
  condition(await c.client.getDeployment(NS, name), 'Progressing');

describe('analysis on the simulated cluster, with a real Prometheus', function () {
  this.timeout(180_000);
  let c: Cluster;
  let endpoint: MetricsEndpoint;
  let prom: PrometheusServer;

  before(async function () {
    endpoint = await startMetricsEndpoint();
    prom = await startPrometheus(this, { targets: [endpoint.target] });
    c = await startCluster({ podStartMs: 50, podReadyMs: 100 });
  });
  after(async () => {
    await c?.stop();
    await prom?.stop();
    await endpoint?.close();
  });

  it('Prometheus stopped in the middle: Error measurements up to consecutiveErrorLimit, then the run is Error and the rollout aborted, naming the address', async function () {
    endpoint.setGauge('app_errors_ratio', { app: 'down' }, 0.01);
    await c.client.create(ANALYSIS_TEMPLATES, NS, template('down', prom.url, { consecutiveErrorLimit: 2 }));
    await c.client.create(
      DEPLOYMENTS,
      NS,
      judged('down', { templates: [{ templateName: 'down' }], args: [{ name: 'app', value: 'down' }] }),
    );
    await waitComplete(c.client, NS, 'down', '1');
    await waitForValue(prom, 'app_errors_ratio{app="down"}', (r) => r.length === 1);
    await setImage(c, 'down', 'nginx:2');
    const run = await eventually('the run measuring', async () => {
      const runs = (await c.client.list<AnalysisRun>(ANALYSIS_RUNS, NS)).items;
      const r = runs.find((x) => x.metadata.labels?.['pacer.dev/deployment'] === 'down');
      return (r?.status?.metricResults?.[0]?.successful ?? 0) >= 1 && r;
    });
    await prom.stop();
    const cond = await eventually('aborted', async () => {
      const p = await progressing(c, 'down');
      return p?.reason === 'AnalysisFailed' && p;
    });
    const stored = await c.client.get<AnalysisRun>(ANALYSIS_RUNS, NS, run.metadata.name!);
    expect(stored.status?.phase).to.equal('Error');
    expect(stored.status?.metricResults?.[0]).to.include({ consecutiveError: 3 });
    expect(cond.message).to.include(
      `Analysis run ${run.metadata.name} errored: metric "errors" assessed Error: 3 errors in a row (consecutiveErrorLimit 2): prometheus at ${prom.url}`,
    );
    expect(cond.message).to.match(/ECONNREFUSED/);
    // A fresh Prometheus for the rest (same scrape target).
    prom = await startPrometheus(this, { targets: [endpoint.target] });
  });

  it('Inconclusive pauses the rollout; kubectl pacer rollout retry starts attempt 2, which (good now) lets it complete', async () => {
    endpoint.setGauge('app_errors_ratio', { app: 'unsure' }, 0.01);
    await c.client.create(
      ANALYSIS_TEMPLATES,
      NS,
      template('unsure', prom.url, { failureCondition: 'result[0] > 0.2', count: 4 }),
    );
    await c.client.create(
      DEPLOYMENTS,
      NS,
      judged('unsure', { templates: [{ templateName: 'unsure' }], args: [{ name: 'app', value: 'unsure' }] }),
    );
    await waitComplete(c.client, NS, 'unsure', '1');
    endpoint.setGauge('app_errors_ratio', { app: 'unsure' }, 0.1); // neither condition holds
    await waitForValue(prom, 'app_errors_ratio{app="unsure"}', (r) => r[0]?.value?.[1] === '0.1');
    await setImage(c, 'unsure', 'nginx:2');
    const held = await eventually('held', async () => {
      const p = await progressing(c, 'unsure');
      return p?.reason === 'AnalysisInconclusive' && p;
    });
    expect(held.status).to.equal('Unknown');
    endpoint.setGauge('app_errors_ratio', { app: 'unsure' }, 0.01);
    await waitForValue(prom, 'app_errors_ratio{app="unsure"}', (r) => r[0]?.value?.[1] === '0.01');
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) } };
    const kubeconfig = join(mkdtempSync(join(tmpdir(), 'pacer-analysis-')), 'kubeconfig');
    writeFileSync(kubeconfig, c.sim.kubeconfig);
    const code = await runPlugin(['rollout', 'retry', 'unsure', '--kubeconfig', kubeconfig], io);
    expect([code, err.join('')]).to.deep.equal([0, '']);
    const retried = /^deployment\.pacer\.dev\/unsure retried \(analysis run unsure-(\w+)-1\)\n$/.exec(out.join(''));
    expect(retried, out.join('')).to.not.equal(null);
    // Revision 2's pod-template-hash (its run is named after it): the stable one once attempt 2's
    // run has passed, which may be after the rollout is complete (the run takes 4 measurements).
    const revision2 = retried![1];
    await waitComplete(c.client, NS, 'unsure', '2');
    await eventually('the stable revision moved on to revision 2', async () => {
      const d = await c.client.getDeployment(NS, 'unsure');
      return d.status?.stableRS === revision2 && d;
    });
    const runs = (await c.client.list<AnalysisRun>(ANALYSIS_RUNS, NS)).items
      .filter((r) => r.metadata.labels?.['pacer.dev/deployment'] === 'unsure')
      .map((r) => `${r.metadata.labels?.['pacer.dev/attempt']}:${r.status?.phase}`)
      .sort();
    expect(runs).to.deep.equal(['1:Inconclusive', '2:Successful']);
  });

  it('a crash-looping image is stopped by the pod check in seconds (deadline 10 minutes), no old pod lost', async () => {
    await c.client.create(
      DEPLOYMENTS,
      NS,
      judged('crashy', { templates: [], podFailures: { window: '2s', restarts: 3 } }, { maxUnavailable: 0 }),
    );
    await waitComplete(c.client, NS, 'crashy', '1');
    const oldPods = (await c.client.list<Pod>(PODS, NS)).items
      .filter((p) => p.metadata.labels?.app === 'crashy')
      .map((p) => p.metadata.name)
      .sort();
    const changedAt = Date.now();
    await setImage(c, 'crashy', 'nginx:broken', { 'sim.pacer.dev/crash-loop': 'true' });
    const cond = await eventually(
      'aborted by the pod check',
      async () => {
        const p = await progressing(c, 'crashy');
        return p?.reason === 'AnalysisFailed' && p;
      },
      30_000,
    );
    expect(Date.now() - changedAt, 'ms to the abort').to.be.below(20_000);
    expect(cond.message).to.match(
      /^The pod check failed: pod default\/crashy-\w+-\w+: container web is in CrashLoopBackOff/,
    );
    await eventually('no new pod left', async () => {
      const pods = (await c.client.list<Pod>(PODS, NS)).items.filter((p) => p.metadata.labels?.app === 'crashy');
      return pods.every((p) => oldPods.includes(p.metadata.name));
    });
    const now = (await c.client.list<Pod>(PODS, NS)).items
      .filter((p) => p.metadata.labels?.app === 'crashy')
      .map((p) => p.metadata.name)
      .sort();
    expect(now, 'every old pod still there').to.deep.equal(oldPods);
    expect((await c.client.getDeployment(NS, 'crashy')).status?.abortedRS).to.be.a('string');
  });
});

describe('analysis: a controller SIGKILLed mid-run', function () {
  this.timeout(120_000);
  const FIXTURE = new URL('./fixtures/pacer-controller.ts', import.meta.url).pathname;
  let dir: string;
  let stop: () => Promise<void>;
  const children: ChildProcess[] = [];
  const served: number[] = [];
  const server = createServer((_req, res) => {
    served.push(Date.now());
    res.writeHead(200).end('0.01');
  });

  after(async () => {
    for (const ch of children) ch.kill('SIGKILL');
    server.closeAllConnections();
    server.close();
    await stop?.();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function controller(kubeconfig: string): ChildProcess {
    const child = spawn(
      process.execPath,
      [
        FIXTURE,
        'controller',
        '--kubeconfig',
        kubeconfig,
        '--leader-elect=false',
        ...['--metrics-bind-address', '0', '--health-probe-bind-address', '0'],
        ...['--api-bind-address', '0', '--webhook-bind-address', '0', '--log-format', 'json'],
      ],
      { stdio: ['ignore', 'ignore', 'ignore'], env: { ...process.env, KUBECONFIG: '' } },
    );
    children.push(child);
    return child;
  }

  it('the next process resumes the run from its status: 6 measurements, none counted twice, none lost', async () => {
    const { sim, client } = await startSimWithCrds();
    stop = () => sim.stop();
    dir = mkdtempSync(join(tmpdir(), 'pacer-analysis-kill-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, sim.kubeconfig);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    await client.create<AnalysisRun>(ANALYSIS_RUNS, NS, {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'AnalysisRun',
      metadata: { name: 'steady', namespace: NS },
      spec: {
        metrics: [
          { name: 'ok', interval: '400ms', count: 6, successCondition: 'result < 0.05', provider: { web: { url } } },
        ],
      },
    });
    const first = controller(kubeconfig);
    await eventually('two measurements stored', async () => {
      const r = await client.get<AnalysisRun>(ANALYSIS_RUNS, NS, 'steady');
      return (r.status?.metricResults?.[0]?.count ?? 0) >= 2;
    });
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    controller(kubeconfig);
    const done = await eventually(
      'the run Successful',
      async () => {
        const r = await client.get<AnalysisRun>(ANALYSIS_RUNS, NS, 'steady');
        return r.status?.phase === 'Successful' && r;
      },
      60_000,
    );
    const result = done.status!.metricResults![0];
    expect(result).to.include({ count: 6, successful: 6 });
    expect(result.error ?? 0, 'errors').to.equal(0);
    const started = result.measurements!.map((m) => Date.parse(m.startedAt!));
    expect(started.length).to.equal(6);
    for (let i = 1; i < started.length; i++)
      expect(started[i] - started[i - 1], `measurement ${i + 1} after ${i}`).to.be.at.least(400);
    // At most one request was answered and never stored (the one in flight when the process died).
    expect(served.length).to.be.within(6, 7);
  });
});
