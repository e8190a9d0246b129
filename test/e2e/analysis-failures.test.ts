// Analysis when things go wrong, on both beds, through the real kubectl, `kubectl pacer` and a real
// Prometheus (docs/semantics/analysis.md), the "Done when" cases of issue 25 that
// test/integration/analysis.test.ts checks in-process:
// * an Inconclusive run holds the rollout (Progressing Unknown, AnalysisInconclusive, no further new
//   pod) until `kubectl pacer rollout retry` starts attempt 2, which, the metric good again, lets it
//   complete;
// * Prometheus stopped in the middle of a run: Error measurements up to consecutiveErrorLimit, then
//   onFailure Abort takes the rollout back, the condition and `kubectl pacer analysis show` naming
//   Prometheus' address;
// * a crash-looping image (the sim.pacer.dev/crash-loop annotation: the simulated kubelet, or
//   kube-bed's kwok Stage, keeps its container in CrashLoopBackOff) is aborted by the built-in pod
//   check within minutes of a 10-minute progress deadline, the old ReplicaSet never below its size;
// * the controller, run as its own process (bin/pacer.js controller, on the real bed with the
//   ServiceAccount's token as the in-process one), SIGKILLed in the middle of a run: the next process
//   resumes it, and every measurement in its status is one query Prometheus answered (a proxy in
//   front of it counts them), none stored twice, none lost.

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { AnalysisRun } from '../../src/api/analysis.ts';
import type { ReplicaSet } from '../../src/api/types.ts';
import { eventually } from '../integration/fixtures/cluster.ts';
import { startMetricsEndpoint, startPrometheus, waitForValue } from '../fixtures/prometheus-server.ts';
import type { MetricsEndpoint, PrometheusServer } from '../fixtures/prometheus-server.ts';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';

const REPLICAS = 3;
const INTERVAL_MS = 1000;
/** The SIGKILL case's run: this many measurements, one a second. */
const KILL_COUNT = 8;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A proxy in front of Prometheus that notes when each instant query reached it (127.0.0.1, a free port). */
interface CountingProxy {
  url: string;
  /** Arrival times (ms) of the queries of `query` forwarded so far. */
  queries(query: string): number[];
  close(): Promise<void>;
}

async function startCountingProxy(upstream: string): Promise<CountingProxy> {
  const seen: Array<{ at: number; query: string }> = [];
  const server: Server = createServer((req, res) => {
    const at = Date.now();
    const url = new URL(req.url ?? '/', upstream);
    if (url.pathname === '/api/v1/query') seen.push({ at, query: url.searchParams.get('query') ?? '' });
    fetch(`${upstream}${url.pathname}${url.search}`, { method: req.method })
      .then(async (r) => {
        res.writeHead(r.status, { 'Content-Type': r.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await r.arrayBuffer()));
      })
      .catch((err: Error) => res.writeHead(502).end(err.message));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  server.unref();
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    queries: (query) => seen.filter((s) => s.query === query).map((s) => s.at),
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

for (const bed of BEDS)
  describe(`e2e (${bed}): analysis that cannot decide, loses Prometheus, meets a crash-looping image or a killed controller`, function () {
    this.timeout(240_000);
    const k = kubectlEnv({
      bed,
      tmpPrefix: 'pacer-analysis-failures-',
      plugin: true,
      // One node, as in analysis.test.ts: the ReplicaSet controller then scales down by its own
      // order only, and availability moves only as the Deployment controller decides.
      sim: { nodes: 1, podStartMs: 100, podReadyMs: 100 },
      timeoutMs: 60_000,
    });
    const { kubectl, ok } = k;
    let endpoint: MetricsEndpoint;
    /** The Prometheus every case reads, but the one that loses it. */
    let prom: PrometheusServer;
    /** The Prometheus stopped in the middle of a run (both scrape the same endpoint). */
    let doomed: PrometheusServer;
    let proxy: CountingProxy | undefined;
    const errors = (app: string, ratio: number) => endpoint.setGauge('app_errors_ratio', { app }, ratio);
    const jsonpath = async (what: string, path: string) =>
      ok(kubectl('get', ...what.split(' '), '-o', `jsonpath=${path}`));
    /** The Progressing condition, in one read. */
    const progressing = async (app: string): Promise<{ status?: string; reason?: string; message?: string }> =>
      JSON.parse((await jsonpath(`pdeploy ${app}`, '{.status.conditions[?(@.type=="Progressing")]}')) || '{}');

    before(async function () {
      await k.start(this);
      endpoint = await startMetricsEndpoint();
      [prom, doomed] = await Promise.all([
        startPrometheus(this, { targets: [endpoint.target] }),
        startPrometheus(this, { targets: [endpoint.target] }),
      ]);
      await ok(kubectl('apply', '-f', join(ROOT, 'crds')));
      await eventually('the analysis CRDs served', async () => (await kubectl('get', 'analysisruns')).code === 0);
      await k.startController();
    });
    after(async () => {
      await k.stop();
      await proxy?.close();
      await prom?.stop();
      await doomed?.stop();
      await endpoint?.close();
    });

    async function apply(name: string, yaml: string): Promise<void> {
      const file = join(k.dir, `${name}.yaml`);
      await writeFile(file, yaml);
      await ok(kubectl('apply', '-f', file));
    }

    /** An AnalysisTemplate `name` reading app_errors_ratio of its `app` argument at `address`, every second. */
    const template = (name: string, address: string, extra: string) => `apiVersion: pacer.dev/v1alpha1
kind: AnalysisTemplate
metadata:
  name: ${name}
spec:
  args:
    - name: app
  metrics:
    - name: errors
      interval: 1s
      successCondition: result[0] < 0.05
${extra}      provider:
        prometheus:
          address: ${address}
          query: app_errors_ratio{app="{{args.app}}"}
`;

    /** A Deployment `app` of REPLICAS nginx:1 pods (maxSurge 1) with `analysis` (YAML under spec.analysis). */
    const deployment = (app: string, o: { maxUnavailable: number; minReadySeconds: number; analysis: string }) =>
      `apiVersion: pacer.dev/v1alpha1
kind: Deployment
metadata:
  name: ${app}
spec:
  replicas: ${REPLICAS}
  minReadySeconds: ${o.minReadySeconds}
  progressDeadlineSeconds: 600
  selector: {matchLabels: {app: ${app}}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: ${o.maxUnavailable}}}
  template:
    metadata: {labels: {app: ${app}}}
    spec: {containers: [{name: ${app}, image: "nginx:1"}]}
  analysis:
${o.analysis}`;

    /** Revision 1 (no analysis: nothing to compare with) complete, and the stable one. */
    const stable = (app: string) =>
      eventually(
        'a stable revision',
        async () => (await jsonpath(`pdeploy ${app}`, '{.status.stableRS}')) || false,
        90_000,
      );

    /** Sets the image (and template annotations); the new ReplicaSet's pod-template-hash. */
    async function release(app: string, image: string, annotations?: Record<string, string>): Promise<string> {
      const template = {
        ...(annotations ? { metadata: { annotations } } : {}),
        spec: { containers: [{ name: app, image }] },
      };
      await ok(kubectl('patch', 'pdeploy', app, '--type=merge', '-p', JSON.stringify({ spec: { template } })));
      return eventually(
        'the new ReplicaSet',
        async () =>
          (await jsonpath(
            `rs -l app=${app}`,
            `{.items[?(@.spec.template.spec.containers[0].image=="${image}")].metadata.labels.pod-template-hash}`,
          )) || false,
        30_000,
      );
    }

    /** "revision=replicas" of `app`'s ReplicaSets: "1=3 2=0". */
    async function sizes(app: string): Promise<string> {
      const out = await jsonpath(
        `rs -l app=${app}`,
        '{range .items[*]}{.metadata.annotations.pacer\\.dev/revision}={.spec.replicas}{"\\n"}{end}',
      );
      return out.trim().split('\n').sort().join(' ');
    }

    const getRun = async (name: string): Promise<AnalysisRun> =>
      JSON.parse(await ok(kubectl('get', 'analysisrun', name, '-o', 'json'))) as AnalysisRun;

    it('Inconclusive holds the rollout with no further new pod; kubectl pacer rollout retry starts attempt 2, which (the metric good again) lets it complete', async () => {
      await apply(
        'unsure',
        `${template('unsure', prom.url, '      failureCondition: result[0] > 0.2\n      count: 3\n')}---
${deployment('unsure', {
  maxUnavailable: 0,
  minReadySeconds: 3,
  analysis: `    templates: [{templateName: unsure}]
    args: [{name: app, value: unsure}]
`,
})}`,
      );
      errors('unsure', 0.01);
      await stable('unsure');
      // Neither condition holds for 0.1: the first measurement is Inconclusive (inconclusiveLimit 0).
      errors('unsure', 0.1);
      await waitForValue(prom, 'app_errors_ratio{app="unsure"}', (r) => r[0]?.value?.[1] === '0.1');
      const hash = await release('unsure', 'nginx:2');
      const held = await eventually(
        'held as Inconclusive',
        async () => {
          const p = await progressing('unsure');
          return p.reason === 'AnalysisInconclusive' && p;
        },
        60_000,
      );
      expect(held.status).to.equal('Unknown');
      expect(held.message).to.contain(`unsure-${hash}-1`);
      expect((await getRun(`unsure-${hash}-1`)).status?.phase).to.equal('Inconclusive');
      const newPods = Number(await jsonpath(`rs unsure-${hash}`, '{.spec.replicas}'));
      // Held: nothing moves for longer than minReadySeconds, time enough for the rollout to have
      // gone on (a new pod counted available, the next one made).
      errors('unsure', 0.01);
      await waitForValue(prom, 'app_errors_ratio{app="unsure"}', (r) => r[0]?.value?.[1] === '0.01');
      await sleep(4000);
      expect(Number(await jsonpath(`rs unsure-${hash}`, '{.spec.replicas}')), 'new pods while held').to.equal(newPods);
      expect(newPods).to.be.below(REPLICAS);
      expect((await progressing('unsure')).reason).to.equal('AnalysisInconclusive');

      expect(await ok(kubectl('pacer', 'rollout', 'retry', 'unsure'))).to.equal(
        `deployment.pacer.dev/unsure retried (analysis run unsure-${hash}-1)\n`,
      );
      await eventually(
        'complete, revision 2 the stable one',
        async () =>
          (await jsonpath('pdeploy unsure', '{.status.stableRS}')) === hash &&
          (await progressing('unsure')).reason === 'NewReplicaSetAvailable',
        90_000,
      );
      expect(await sizes('unsure')).to.equal(`1=0 2=${REPLICAS}`);
      const runs = await jsonpath(
        'analysisruns -l pacer.dev/deployment=unsure',
        '{range .items[*]}{.metadata.labels.pacer\\.dev/attempt}:{.status.phase} {end}',
      );
      expect(runs.trim().split(' ').sort()).to.deep.equal(['1:Inconclusive', '2:Successful']);
    });

    it('Prometheus stopped in the middle of a run: Error measurements up to consecutiveErrorLimit, then onFailure Abort takes the rollout back, naming the address', async () => {
      await apply(
        'down',
        `${template('down', doomed.url, '      consecutiveErrorLimit: 2\n')}---
${deployment('down', {
  maxUnavailable: 1,
  minReadySeconds: 2,
  // Measured on for a minute after the rollout completes: Prometheus' stop comes in the run
  // however fast the rollout is.
  analysis: `    templates: [{templateName: down}]
    args: [{name: app, value: down}]
    onFailure: Abort
    postRollout: 60s
`,
})}`,
      );
      errors('down', 0.01);
      await stable('down');
      await waitForValue(doomed, 'app_errors_ratio{app="down"}', (r) => r.length === 1);
      const hash = await release('down', 'nginx:2');
      const run = `down-${hash}-1`;
      await eventually(
        'the run measuring',
        async () => Number(await jsonpath(`analysisrun ${run}`, '{.status.metricResults[0].successful}')) >= 1,
        60_000,
      );
      await doomed.stop();
      const cond = await eventually(
        'aborted',
        async () => {
          const p = await progressing('down');
          return p.reason === 'AnalysisFailed' && p;
        },
        60_000,
      );
      expect(cond.status).to.equal('False');
      const said = `metric "errors" assessed Error: 3 errors in a row (consecutiveErrorLimit 2): prometheus at ${doomed.url}`;
      expect(cond.message).to.contain(`Analysis run ${run} errored: ${said}`);
      expect(cond.message).to.match(/ECONNREFUSED/);
      expect(cond.message).to.match(/the rollout was aborted to revision 1 \(ReplicaSet "down-/);
      const stored = await getRun(run);
      expect(stored.status?.phase).to.equal('Error');
      const result = stored.status!.metricResults![0];
      expect(result).to.include({ phase: 'Error', error: 3, consecutiveError: 3 });
      // Good measurements, then nothing but errors: the three the limit allows, and no more.
      const phases = result.measurements!.map((m) => m.phase);
      expect(phases.slice(-3)).to.deep.equal(['Error', 'Error', 'Error']);
      expect(phases.slice(0, -3)).to.have.length.of.at.least(1);
      expect(phases.slice(0, -3)).to.not.include('Error');

      const show = await ok(kubectl('pacer', 'analysis', 'show', run));
      expect(show).to.contain(said);
      expect(show).to.contain(doomed.url);
      expect(show).to.match(/Phase:\s+\S+ Error/);

      await eventually('back at revision 1', async () => (await sizes('down')) === `1=${REPLICAS} 2=0`, 90_000);
    });

    it('a crash-looping image is aborted by the pod check (window 10 s) within 3 minutes of its 10-minute deadline, the old ReplicaSet never below its size', async () => {
      await apply(
        'crashy',
        deployment('crashy', {
          maxUnavailable: 0,
          minReadySeconds: 0,
          // Restarts high enough that only the window decides, on both beds alike.
          analysis: `    podFailures: {window: 10s, restarts: 1000}
    onFailure: Abort
`,
        }),
      );
      await stable('crashy');
      const oldRS = await jsonpath('rs -l app=crashy', '{.items[0].metadata.name}');
      const podNames = async () =>
        (await jsonpath('pods -l app=crashy', '{.items[*].metadata.name}')).split(' ').filter(Boolean).sort();
      const oldPods = await podNames();
      expect(oldPods).to.have.length(REPLICAS);
      const recording = await k.record('default', (live) =>
        live.check(`${oldRS} keeps ${REPLICAS} available`, (t) => {
          const crashy = [...t.replicaSets.values()].filter((rs: ReplicaSet) =>
            rs.metadata.name?.startsWith('crashy-'),
          );
          if (crashy.length < 2) return undefined; // before the new revision (the real bed replays from the start)
          const available = t.replicaSets.get(oldRS)?.status?.availableReplicas ?? 0;
          return available < REPLICAS ? `${oldRS} has ${available} available` : undefined;
        }),
      );
      const changedAt = Date.now();
      const hash = await release('crashy', 'nginx:broken', { 'sim.pacer.dev/crash-loop': 'true' });
      const cond = await eventually(
        'aborted by the pod check',
        async () => {
          const p = await progressing('crashy');
          return p.reason === 'AnalysisFailed' && p;
        },
        180_000,
      );
      // The issue's bound: long before the 600 s progress deadline.
      expect(Date.now() - changedAt, 'ms from the release to the abort').to.be.below(180_000);
      expect(cond.status).to.equal('False');
      expect(cond.message).to.match(
        new RegExp(`^The pod check failed: pod default/crashy-${hash}-\\w+: container crashy is in CrashLoopBackOff`),
      );
      expect(await jsonpath('pdeploy crashy', '{.status.abortedRS}')).to.equal(hash);
      await eventually(
        'no pod of the new revision left',
        async () => JSON.stringify(await podNames()) === JSON.stringify(oldPods),
        60_000,
      );
      expect(await sizes('crashy')).to.equal(`1=${REPLICAS} 2=0`);
      const t = await recording.timeline();
      expect(t.violations).to.deep.equal([]);
    });

    it('the controller SIGKILLed in the middle of a run: the next process resumes it, every measurement one query, none twice, none lost', async () => {
      proxy = await startCountingProxy(prom.url);
      errors('steady', 0.01);
      await waitForValue(prom, 'app_errors_ratio{app="steady"}', (r) => r.length === 1);
      const query = 'app_errors_ratio{app="steady"}';
      // Out of process from here on: the in-process controller steps aside.
      await k.controller?.stop();
      const kubeconfig = join(k.dir, 'controller.kubeconfig');
      await writeFile(kubeconfig, bed === 'real' ? await k.real.controllerKubeconfig() : k.sim.kubeconfig, {
        mode: 0o600,
      });
      const logs: string[] = [];
      const controller = (): ChildProcess => {
        const child = k.track(
          spawn(
            process.execPath,
            [
              join(ROOT, 'bin', 'pacer.js'),
              'controller',
              ...['--kubeconfig', kubeconfig, '--leader-elect=false'],
              ...['--metrics-bind-address', '0', '--health-probe-bind-address', '0'],
              ...['--api-bind-address', '0', '--webhook-bind-address', '0'],
            ],
            { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, KUBECONFIG: '' } },
          ),
        );
        child.stderr!.setEncoding('utf8');
        child.stderr!.on('data', (s: string) => logs.push(s));
        return child;
      };
      await apply(
        'steady',
        `apiVersion: pacer.dev/v1alpha1
kind: AnalysisRun
metadata:
  name: steady
spec:
  metrics:
    - name: errors
      interval: 1s
      count: ${KILL_COUNT}
      successCondition: result[0] < 0.05
      provider:
        prometheus:
          address: ${proxy.url}
          query: ${query}
`,
      );
      const counted = async () =>
        Number((await jsonpath('analysisrun steady', '{.status.metricResults[0].count}')) || '0');
      const first = controller();
      try {
        await eventually('three measurements stored', async () => (await counted()) >= 3, 60_000);
        first.kill('SIGKILL');
        await new Promise((r) => (first.exitCode !== null || first.signalCode !== null ? r(0) : first.once('exit', r)));
        const killedAt = Date.now();
        const before = await counted();
        expect(before, 'measurements stored before the kill').to.be.below(KILL_COUNT);
        controller();
        await eventually(
          'the run Successful',
          async () => (await jsonpath('analysisrun steady', '{.status.phase}')) === 'Successful',
          90_000,
        );
        const run = await getRun('steady');
        const result = run.status!.metricResults![0];
        expect(result).to.include({ count: KILL_COUNT, successful: KILL_COUNT });
        expect(result.error ?? 0, 'errors').to.equal(0);
        const measured = result.measurements!.map((m) => ({
          started: Date.parse(m.startedAt!),
          finished: Date.parse(m.finishedAt!),
        }));
        expect(measured).to.have.length(KILL_COUNT);
        for (let i = 1; i < measured.length; i++)
          expect(measured[i].started - measured[i - 1].finished, `measurement ${i + 1} after ${i}`).to.be.at.least(
            INTERVAL_MS - 5,
          );
        expect(
          measured.filter((m) => m.started > killedAt),
          'measurements by the second process',
        ).to.have.length(KILL_COUNT - before);
        // Each measurement stored is a query Prometheus was asked, each query matched once; at most
        // one query (in flight when the first process died) answered and never stored.
        const queries = proxy.queries(query);
        expect(queries.length, 'queries made').to.be.within(KILL_COUNT, KILL_COUNT + 1);
        const unmatched = [...queries];
        for (const [i, m] of measured.entries()) {
          const j = unmatched.findIndex((at) => at >= m.started - 5 && at <= m.finished + 5);
          expect(j, `a query within measurement ${i + 1}`).to.be.at.least(0);
          unmatched.splice(j, 1);
        }
        for (const at of unmatched) expect(at, 'the query never stored came before the kill').to.be.below(killedAt);
      } catch (err) {
        console.log(logs.join('').slice(-4000));
        throw err;
      }
    });
  });
