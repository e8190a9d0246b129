// Observability of a running controller on the simulated cluster: /metrics scraped during real
// rollouts (controller-runtime, workqueue, rest_client, pacer_* object and rollout metrics), every
// series the dashboard and the alerts use is exported, a deleted Deployment's series disappear,
// /healthz and /readyz, and the logs at info level (structured, no object bodies, no secrets).

import { expect } from 'chai';
import { PassThrough } from 'node:stream';
import { DEPLOYMENTS, EVENTS, NODEROLLS } from '../../src/kube/client.ts';
import { createLogger } from '../../src/observe/logger.ts';
import { createNamespace, deploymentManifest, eventually, startCluster, waitComplete } from './fixtures/cluster.ts';
import type { Cluster } from './fixtures/cluster.ts';
import { parseExposition, samples, seriesNames, value } from '../fixtures/prometheus.ts';
import type { Sample } from '../fixtures/prometheus.ts';
import { dashboardExpressions, ruleExpressions } from '../fixtures/monitoring.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AnalysisRun } from '../../src/api/analysis.ts';
import { ANALYSIS_RUNS } from '../../src/kube/client.ts';

const NS = 'observe';
const SECRET = 's3cr3t-hunter2';
/** Series Prometheus itself makes, not the controller. */
const PROMETHEUS_SERIES = new Set(['up', 'scrape_duration_seconds']);

const imagePatch = (image: string, annotations?: Record<string, string>) => ({
  spec: {
    template: {
      ...(annotations ? { metadata: { annotations } } : {}),
      spec: { containers: [{ name: 'web', image, env: [{ name: 'DB_PASSWORD', value: SECRET }] }] },
    },
  },
});

describe('observability: a controller on the simulated cluster', function () {
  this.timeout(60_000);
  let c: Cluster;
  const lines: string[] = [];

  async function scrape(): Promise<Sample[]> {
    const res = await fetch(`http://127.0.0.1:${c.ctl.metricsPort}/metrics`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.contain('text/plain');
    return parseExposition(await res.text());
  }

  before(async () => {
    const stream = new PassThrough();
    let buf = '';
    stream.on('data', (chunk: Buffer) => {
      buf += chunk.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        lines.push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
    });
    c = await startCluster(
      {},
      {
        metricsBindAddress: '127.0.0.1:0',
        healthProbeBindAddress: '127.0.0.1:0',
        apiBindAddress: '0',
        webhookBindAddress: '0',
        workers: 2,
        logger: createLogger({ level: 'info', format: 'json', stream }),
      },
    );
    createNamespace(c.sim, NS);
  });
  after(async () => {
    await c?.stop();
  });

  it('/healthz is 200, /readyz is 200 once the caches synced, anything else 404', async () => {
    const base = `http://127.0.0.1:${c.ctl.healthPort}`;
    expect((await fetch(`${base}/healthz`)).status).to.equal(200);
    expect(c.ctl.ready()).to.equal(true);
    expect((await fetch(`${base}/readyz`)).status).to.equal(200);
    expect((await fetch(`${base}/nope`)).status).to.equal(404);
  });

  it('during rollouts: reconcile, work queue, API client, object and rollout metrics', async () => {
    const manifest = deploymentManifest(NS, 'web', { replicas: 3 });
    manifest.spec.template!.spec = {
      containers: [{ name: 'web', image: 'nginx:1', env: [{ name: 'DB_PASSWORD', value: SECRET }] }],
    } as never;
    await c.client.create(DEPLOYMENTS, NS, manifest);
    await waitComplete(c.client, NS, 'web', '1');
    await c.client.patch(DEPLOYMENTS, NS, 'web', imagePatch('nginx:2'), 'merge');
    await waitComplete(c.client, NS, 'web', '2');

    // Both rollouts (the first revision counts too) complete, seen through the watch.
    const s = await eventually('two complete rollouts', async () => {
      const x = await scrape();
      return value(x, 'pacer_rollouts_total', { result: 'complete' }) >= 2 && x;
    });
    const ctl = { controller: 'deployment' };
    expect(value(s, 'controller_runtime_reconcile_total', { ...ctl, result: 'success' })).to.be.greaterThan(0);
    expect(
      samples(s, 'controller_runtime_reconcile_total', ctl)
        .map((x) => x.labels.result)
        .sort(),
    ).to.deep.equal(['error', 'requeue', 'requeue_after', 'success']);
    expect(value(s, 'controller_runtime_reconcile_time_seconds_count', ctl)).to.be.greaterThan(0);
    expect(value(s, 'controller_runtime_max_concurrent_reconciles', ctl)).to.equal(2);
    expect(value(s, 'controller_runtime_active_workers', ctl)).to.be.within(0, 2);
    const q = { name: 'deployment', controller: 'deployment' };
    expect(value(s, 'workqueue_adds_total', q)).to.be.greaterThan(0);
    expect(value(s, 'workqueue_work_duration_seconds_count', q)).to.be.greaterThan(0);
    expect(value(s, 'workqueue_queue_duration_seconds_count', q)).to.be.greaterThan(0);
    expect(value(s, 'workqueue_depth', q)).to.be.at.least(0);
    const host = new URL(c.sim.url).host;
    expect(
      value(s, 'rest_client_requests_total', { code: '201', method: 'POST', host }),
      'ReplicaSets and Events created',
    ).to.be.greaterThan(0);
    expect(
      value(s, 'rest_client_requests_total', { code: '200', method: 'PUT', host }),
      'ReplicaSets scaled, status written',
    ).to.be.greaterThan(0);
    expect(
      value(s, 'rest_client_requests_total', { code: '200', method: 'GET', host }),
      'lists and watches',
    ).to.be.greaterThan(0);
    expect(value(s, 'rest_client_request_duration_seconds_count', { verb: 'POST', host })).to.be.greaterThan(0);

    const web = { namespace: NS, name: 'web' };
    expect(value(s, 'pacer_deployment_spec_replicas', web)).to.equal(3);
    expect(value(s, 'pacer_deployment_status_replicas_available', web)).to.equal(3);
    expect(value(s, 'pacer_deployment_status_replicas_updated', web)).to.equal(3);
    expect(value(s, 'pacer_deployment_info', { ...web, strategy: 'RollingUpdate' })).to.equal(1);
    expect(
      value(s, 'pacer_deployment_status_condition', {
        ...web,
        condition: 'Progressing',
        status: 'true',
        reason: 'NewReplicaSetAvailable',
      }),
    ).to.equal(1);
    expect(
      value(s, 'pacer_deployment_status_condition', {
        ...web,
        condition: 'Progressing',
        status: 'false',
        reason: 'NewReplicaSetAvailable',
      }),
    ).to.equal(0);
    expect(value(s, 'pacer_deployment_metadata_generation', web)).to.equal(
      value(s, 'pacer_deployment_status_observed_generation', web),
    );
    expect(
      value(s, 'pacer_rollout_duration_seconds_count', { strategy: 'RollingUpdate', result: 'complete' }),
    ).to.be.at.least(2);
    expect(samples(s, 'process_cpu_seconds_total')).to.have.length(1);
    // Its phase of its service's deploy plan: parallel (no spec.plan), done, three steps COMPLETE.
    expect(
      value(s, 'pacer_plan_phase_status', { ...web, plan: 'deploy', strategy: 'parallel', status: 'COMPLETE' }),
    ).to.equal(1);
    expect(samples(s, 'pacer_plan_phase_status').filter((x) => x.labels.name === 'web')).to.have.length(1);
    expect(value(s, 'pacer_plan_phase_steps', { ...web, plan: 'deploy', status: 'COMPLETE' })).to.equal(3);
  });

  it('a newer revision before the rollout completes: superseded, then complete', async () => {
    const before = await scrape();
    const superseded0 = value(before, 'pacer_rollouts_total', { result: 'superseded' });
    const complete0 = value(before, 'pacer_rollouts_total', { result: 'complete' });
    // Pods of revision 3 take 4 s to become Ready: revision 4 arrives well before.
    await c.client.patch(
      DEPLOYMENTS,
      NS,
      'web',
      imagePatch('nginx:3', { 'sim.pacer.dev/ready-after-ms': '4000' }),
      'merge',
    );
    await eventually(
      'revision 3 written',
      async () => (await c.client.getDeployment(NS, 'web')).metadata.annotations?.['pacer.dev/revision'] === '3',
    );
    await c.client.patch(
      DEPLOYMENTS,
      NS,
      'web',
      imagePatch('nginx:4', { 'sim.pacer.dev/ready-after-ms': '1' }),
      'merge',
    );
    await waitComplete(c.client, NS, 'web', '4');
    const s = await eventually('revision 4 complete, revision 3 superseded', async () => {
      const x = await scrape();
      return value(x, 'pacer_rollouts_total', { result: 'complete' }) === complete0 + 1 && x;
    });
    expect(value(s, 'pacer_rollouts_total', { result: 'superseded' })).to.equal(superseded0 + 1);
    expect(
      value(s, 'pacer_rollout_duration_seconds_count', { strategy: 'RollingUpdate', result: 'superseded' }),
    ).to.equal(1);
  });

  it('every series the dashboard and the alerts name is exported', async () => {
    // A NodeRoll (one that selects no node: Invalid, nothing disrupted) so that its series exist.
    await c.client.create(NODEROLLS, undefined, {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'NodeRoll',
      metadata: { name: 'nothing' },
      spec: { nodeSelector: { matchLabels: { group: 'none' } }, nodeGroup: 'none', desiredNodes: 1 },
    });
    const roll = await eventually(
      'the NodeRoll judged',
      async () =>
        (await c.client.get<{ status?: { phase?: string; message?: string } }>(NODEROLLS, undefined, 'nothing')).status
          ?.phase === 'Invalid' &&
        (await c.client.get<{ status: { message: string } }>(NODEROLLS, undefined, 'nothing')),
    );
    expect(roll.status.message).to.equal(
      'spec.nodeSelector: Invalid value: {"matchLabels":{"group":"none"}}: matches no node',
    );
    // An AnalysisRun measured once (a web metric on a local server) so that the pacer_analysis_* series exist.
    const server = createServer((_req, res) => res.writeHead(200).end('0.01'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      await c.client.create<AnalysisRun>(ANALYSIS_RUNS, NS, {
        apiVersion: 'pacer.dev/v1alpha1',
        kind: 'AnalysisRun',
        metadata: { name: 'once', namespace: NS, labels: { 'pacer.dev/deployment': 'web' } },
        spec: {
          metrics: [
            {
              name: 'errors',
              successCondition: 'result < 0.05',
              provider: { web: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` } },
            },
          ],
        },
      });
      await eventually(
        'the run measured',
        async () => (await c.client.get<AnalysisRun>(ANALYSIS_RUNS, NS, 'once')).status?.phase === 'Successful',
      );
    } finally {
      server.closeAllConnections();
      server.close();
    }
    const s = await scrape();
    expect(value(s, 'pacer_analysis_metric_value', { namespace: NS, analysisrun: 'once', metric: 'errors' })).to.equal(
      0.01,
    );
    expect(
      value(s, 'pacer_analysis_measurements_total', { namespace: NS, analysisrun: 'once', phase: 'Successful' }),
    ).to.equal(1);
    const exported = new Set(s.map((x) => x.name));
    const wanted = new Set([...dashboardExpressions(), ...ruleExpressions()].flatMap(seriesNames));
    expect(wanted.size, 'the expressions were read').to.be.greaterThan(20);
    // A histogram may be named by its base name (histogram_count(), native histograms): its _count counts.
    const missing = [...wanted].filter(
      (n) => !PROMETHEUS_SERIES.has(n) && !exported.has(n) && !exported.has(`${n}_count`),
    );
    expect(missing).to.deep.equal([]);
  });

  it('logs at info: JSON lines with the reconcile fields, no object bodies, no secrets', () => {
    expect(lines.length).to.be.greaterThan(5);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const r of records) {
      expect(r.level).to.be.oneOf(['error', 'warn', 'info']);
      expect(r.timestamp, 'timestamp').to.be.a('string');
      expect(r.message, 'message').to.be.a('string');
    }
    for (const l of lines) {
      expect(l, 'a secret from the pod template').to.not.contain(SECRET);
      expect(l, 'an object body').to.not.match(/"(spec|template|containers|managedFields|ownerReferences)"\s*:/);
    }
    const finished = records.filter(
      (r) => r.message === 'reconcile finished' && r.namespace === NS && r.controller === 'deployment',
    );
    expect(finished.length).to.be.greaterThan(0);
    // The analysis run controller's passes say which run they measured.
    const measured = records.filter((r) => r.message === 'measured' && r.namespace === NS);
    expect(measured.map((r) => [r.controller, r.name, r.measurements])).to.deep.equal([
      ['analysis', 'once', 'errors=Successful(0.01)'],
    ]);
    for (const r of finished) {
      expect(r).to.include({ controller: 'deployment', name: 'web' });
      expect(r.reconcileID).to.match(/^[0-9a-f-]{36}$/);
      expect(r.duration).to.be.a('number');
      expect(r.result).to.be.oneOf(['success', 'requeue', 'requeue_after']);
    }
    const ended = records
      .filter((r) => r.message === 'rollout ended' && r.namespace === NS)
      .map((r) => `${r.revision} ${r.result}`);
    expect(ended).to.include.members(['1 complete', '2 complete', '3 superseded', '4 complete']);
  });

  it("a deleted Deployment's series disappear", async () => {
    const has = (s: Sample[]) =>
      s.some((x) => x.name.startsWith('pacer_deployment_') && x.labels.namespace === NS && x.labels.name === 'web');
    expect(has(await scrape())).to.equal(true);
    await c.client.delete(DEPLOYMENTS, NS, 'web');
    await eventually('the series of observe/web to go', async () => !has(await scrape()));
    // The controller goes on exporting everything else.
    expect(
      value(await scrape(), 'controller_runtime_max_concurrent_reconciles', { controller: 'deployment' }),
    ).to.equal(2);
  });

  it("Events: a rollout's scaling steps are recorded on the Deployment, none of its conditions; a pause is", async () => {
    const held = deploymentManifest(NS, 'held', { replicas: 1 });
    held.spec.paused = true;
    await c.client.create(DEPLOYMENTS, NS, held);
    const reasonsOf = async (name: string) => {
      await c.ctl.controller.recorder.flush(); // Events trail the writes
      const items = (
        await c.client.list<{ involvedObject: { name?: string }; reason: string; type: string }>(EVENTS, NS)
      ).items;
      return new Set(items.filter((e) => e.involvedObject.name === name).map((e) => `${e.type} ${e.reason}`));
    };
    await eventually("the paused Deployment's Event", async () =>
      (await reasonsOf('held')).has('Normal DeploymentPaused'),
    );
    const web = await reasonsOf('web');
    expect(web.has('Normal ScalingReplicaSet')).to.equal(true);
    // Four rollouts that went as planned: their Progressing reasons and availability stayed in the status.
    for (const r of [
      'NewReplicaSetCreated',
      'ReplicaSetUpdated',
      'NewReplicaSetAvailable',
      'MinimumReplicasAvailable',
    ]) {
      expect(web.has(`Normal ${r}`), r).to.equal(false);
    }
    expect(web.has('Warning MinimumReplicasUnavailable')).to.equal(false);
  });
});
