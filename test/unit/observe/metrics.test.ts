import { expect } from 'chai';
import { Gauge, Registry } from 'prom-client';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Deployment } from '../../../src/api/types.ts';
import { WorkQueue } from '../../../src/manager/workqueue.ts';
import { ManualClock } from '../../../src/kube/clock.ts';
import { KubeClient } from '../../../src/kube/client.ts';
import { loadKubeConfig } from '../../../src/kube/clientnode.ts';
import {
  createMetrics,
  deploymentSeries,
  REST_CLIENT_BUCKETS,
  WORKQUEUE_BUCKETS,
  RECONCILE_TIME_BUCKETS,
  SCRAPE_PIECE_CHARS,
} from '../../../src/observe/metrics.ts';
import type { AnalysisRunSample, PlanPhaseSample } from '../../../src/observe/metrics.ts';
import { parseExposition, samples, value } from '../../fixtures/prometheus.ts';

async function scrape(m: ReturnType<typeof createMetrics>) {
  return parseExposition(await m.registry.metrics());
}

/** TYPE and label names of each family, as the registry describes them. */
async function families(m: ReturnType<typeof createMetrics>): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const line of (await m.registry.metrics()).split('\n')) {
    const t = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (t) out.set(t[1], t[2]);
  }
  return out;
}

function web(over: Partial<Deployment['status']> = {}, name = 'web'): Deployment {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name, namespace: 'shop', generation: 4 },
    spec: {
      replicas: 3,
      paused: false,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: { app: 'web' } },
      template: {},
    },
    status: {
      observedGeneration: 3,
      replicas: 4,
      updatedReplicas: 2,
      readyReplicas: 3,
      availableReplicas: 3,
      unavailableReplicas: 1,
      conditions: [
        {
          type: 'Available',
          status: 'True',
          reason: 'MinimumReplicasAvailable',
          message: 'Deployment has minimum availability.',
        },
        {
          type: 'Progressing',
          status: 'True',
          reason: 'ReplicaSetUpdated',
          message: 'ReplicaSet "web-1" is progressing.',
        },
      ],
      ...over,
    },
  };
}

describe('observe/metrics', () => {
  it("registers controller-runtime's and client-go's families with their types", async () => {
    const m = createMetrics({ defaultMetrics: false });
    const f = await families(m);
    const want: Record<string, string> = {
      controller_runtime_reconcile_total: 'counter',
      controller_runtime_reconcile_errors_total: 'counter',
      controller_runtime_reconcile_time_seconds: 'histogram',
      controller_runtime_max_concurrent_reconciles: 'gauge',
      controller_runtime_active_workers: 'gauge',
      workqueue_depth: 'gauge',
      workqueue_adds_total: 'counter',
      workqueue_queue_duration_seconds: 'histogram',
      workqueue_work_duration_seconds: 'histogram',
      workqueue_retries_total: 'counter',
      workqueue_unfinished_work_seconds: 'gauge',
      workqueue_longest_running_processor_seconds: 'gauge',
      rest_client_requests_total: 'counter',
      rest_client_request_duration_seconds: 'histogram',
      pacer_rollouts_total: 'counter',
      pacer_rollout_duration_seconds: 'histogram',
      pacer_deployment_status_condition: 'gauge',
    };
    for (const [name, type] of Object.entries(want)) expect(f.get(name), name).to.equal(type);
  });

  it("uses upstream's buckets", () => {
    expect(RECONCILE_TIME_BUCKETS.slice(0, 4)).to.deep.equal([0.005, 0.01, 0.025, 0.05]);
    expect(RECONCILE_TIME_BUCKETS).to.have.length(40);
    expect(WORKQUEUE_BUCKETS).to.deep.equal([1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000]);
    expect(REST_CLIENT_BUCKETS).to.deep.equal([0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60]);
  });

  it('Node process and runtime metrics are on by default', async () => {
    const f = await families(createMetrics());
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(f.has(name), name).to.equal(true);
    }
  });

  it('initController zeroes every result and sets max_concurrent_reconciles, as controller-runtime does at start', async () => {
    const m = createMetrics({ defaultMetrics: false });
    m.initController('deployment', 4);
    const s = await scrape(m);
    expect(
      samples(s, 'controller_runtime_reconcile_total', { controller: 'deployment' })
        .map((x) => [x.labels.result, x.value])
        .sort(),
    ).to.deep.equal([
      ['error', 0],
      ['requeue', 0],
      ['requeue_after', 0],
      ['success', 0],
    ]);
    expect(value(s, 'controller_runtime_reconcile_errors_total', { controller: 'deployment' })).to.equal(0);
    expect(value(s, 'controller_runtime_max_concurrent_reconciles', { controller: 'deployment' })).to.equal(4);
    expect(value(s, 'controller_runtime_active_workers', { controller: 'deployment' })).to.equal(0);
    expect(
      samples(s, 'pacer_rollouts_total')
        .map((x) => [x.labels.result, x.value])
        .sort(),
    ).to.deep.equal([
      ['complete', 0],
      ['deadline_exceeded', 0],
      ['superseded', 0],
    ]);
  });

  describe('the work queue reports through the provider (fake clock)', () => {
    it('adds, depth, queue latency, work duration, unfinished work, longest processor and retries', async () => {
      const m = createMetrics({ defaultMetrics: false });
      const clock = new ManualClock(0);
      const q = new WorkQueue('deployment', { metrics: m.queues, clock });
      const labels = { name: 'deployment', controller: 'deployment' };
      q.add('a');
      q.add('b');
      q.add('a'); // the second add of a is merged: no add
      let s = await scrape(m);
      expect(value(s, 'workqueue_adds_total', labels)).to.equal(2);
      expect(value(s, 'workqueue_depth', labels)).to.equal(2);

      await clock.advance(250); // a waited 0.25 s
      const a = await q.get();
      await clock.advance(1000); // b waited 1.25 s
      const b = await q.get();
      await clock.advance(3000); // a has run 4 s, b 3 s
      s = await scrape(m);
      expect(value(s, 'workqueue_depth', labels)).to.equal(0);
      expect(value(s, 'workqueue_unfinished_work_seconds', labels)).to.equal(7);
      expect(value(s, 'workqueue_longest_running_processor_seconds', labels)).to.equal(4);
      expect(value(s, 'workqueue_queue_duration_seconds_count', labels)).to.equal(2);
      expect(value(s, 'workqueue_queue_duration_seconds_sum', labels)).to.equal(1.5);
      expect(value(s, 'workqueue_queue_duration_seconds_bucket', { ...labels, le: '1' })).to.equal(1);
      expect(value(s, 'workqueue_queue_duration_seconds_bucket', { ...labels, le: '10' })).to.equal(2);

      q.add(a!); // added again while processing: pending, not handed out
      expect(value(await scrape(m), 'workqueue_depth', labels)).to.equal(1);
      q.done(a!);
      q.done(b!);
      s = await scrape(m);
      expect(value(s, 'workqueue_work_duration_seconds_count', labels)).to.equal(2);
      expect(value(s, 'workqueue_work_duration_seconds_sum', labels)).to.equal(7);
      expect(value(s, 'workqueue_unfinished_work_seconds', labels)).to.equal(0);
      expect(value(s, 'workqueue_longest_running_processor_seconds', labels)).to.equal(0);
      expect(value(s, 'workqueue_adds_total', labels)).to.equal(3);

      q.addRateLimited('c');
      q.addAfter('d', 60_000); // client-go counts every delayed add as a retry
      expect(value(await scrape(m), 'workqueue_retries_total', labels)).to.equal(2);
      q.shutdown();
    });

    it('a queue without metrics works the same', async () => {
      const q = new WorkQueue('plain');
      q.add('a');
      expect(await q.get()).to.equal('a');
      q.done('a');
      q.shutdown();
    });
  });

  describe("pacer_deployment_* in kube-state-metrics' shape, from the cache at scrape time", () => {
    it('one series per field, labelled namespace and name; three per condition (true/false/unknown, 0/1)', async () => {
      const m = createMetrics({ defaultMetrics: false });
      m.trackDeployments(() => [web()]);
      const text = (await m.registry.metrics())
        .split('\n')
        .filter((l) => l.startsWith('pacer_deployment_'))
        .sort();
      expect(text).to.deep.equal(
        [
          'pacer_deployment_info{namespace="shop",name="web",strategy="Recreate"} 1',
          'pacer_deployment_metadata_generation{namespace="shop",name="web"} 4',
          'pacer_deployment_spec_paused{namespace="shop",name="web"} 0',
          'pacer_deployment_spec_replicas{namespace="shop",name="web"} 3',
          'pacer_deployment_status_condition{namespace="shop",name="web",condition="Available",status="false",reason="MinimumReplicasAvailable"} 0',
          'pacer_deployment_status_condition{namespace="shop",name="web",condition="Available",status="true",reason="MinimumReplicasAvailable"} 1',
          'pacer_deployment_status_condition{namespace="shop",name="web",condition="Available",status="unknown",reason="MinimumReplicasAvailable"} 0',
          'pacer_deployment_status_condition{namespace="shop",name="web",condition="Progressing",status="false",reason="ReplicaSetUpdated"} 0',
          'pacer_deployment_status_condition{namespace="shop",name="web",condition="Progressing",status="true",reason="ReplicaSetUpdated"} 1',
          'pacer_deployment_status_condition{namespace="shop",name="web",condition="Progressing",status="unknown",reason="ReplicaSetUpdated"} 0',
          'pacer_deployment_status_observed_generation{namespace="shop",name="web"} 3',
          'pacer_deployment_status_replicas{namespace="shop",name="web"} 4',
          'pacer_deployment_status_replicas_available{namespace="shop",name="web"} 3',
          'pacer_deployment_status_replicas_ready{namespace="shop",name="web"} 3',
          'pacer_deployment_status_replicas_unavailable{namespace="shop",name="web"} 1',
          'pacer_deployment_status_replicas_updated{namespace="shop",name="web"} 2',
        ].sort(),
      );
    });

    const rows: Array<[string, Deployment, Record<string, number | string>]> = [
      [
        'no status yet: zeros, no condition series',
        { ...web(), status: undefined },
        {
          pacer_deployment_status_replicas: 0,
          pacer_deployment_status_observed_generation: 0,
          pacer_deployment_status_condition: 'none',
        },
      ],
      [
        'spec.replicas unset: the default 1; strategy unset: RollingUpdate',
        { ...web(), spec: { selector: {}, template: {} } },
        { pacer_deployment_spec_replicas: 1, strategy: 'RollingUpdate' },
      ],
      ['paused: 1', { ...web(), spec: { ...web().spec, paused: true } }, { pacer_deployment_spec_paused: 1 }],
      [
        'a reason outside the allow-list is exported as "unknown" (bounded cardinality)',
        web({ conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate-pod-xyz-123' }] }),
        { reason: 'unknown' },
      ],
      [
        "Pacer's InvalidSpec reason is kept",
        web({ conditions: [{ type: 'InvalidSpec', status: 'True', reason: 'InvalidSpec' }] }),
        { reason: 'InvalidSpec' },
      ],
      [
        'AnalysisFailed is kept: the PacerAnalysisFailed alert selects it',
        web({ conditions: [{ type: 'Progressing', status: 'False', reason: 'AnalysisFailed' }] }),
        { reason: 'AnalysisFailed' },
      ],
    ];
    for (const [name, d, want] of rows) {
      it(name, () => {
        const s = deploymentSeries(d);
        for (const [k, v] of Object.entries(want)) {
          if (k === 'strategy') expect(s.find((x) => x.name === 'pacer_deployment_info')!.labels.strategy).to.equal(v);
          else if (k === 'reason')
            expect(
              new Set(s.filter((x) => x.name === 'pacer_deployment_status_condition').map((x) => x.labels.reason)),
            ).to.deep.equal(new Set([v]));
          else if (v === 'none') expect(s.filter((x) => x.name === k)).to.deep.equal([]);
          else expect(s.find((x) => x.name === k)!.value, k).to.equal(v);
        }
      });
    }

    it("a deleted Deployment's series are gone at the next scrape; a changed value shows at once", async () => {
      const m = createMetrics({ defaultMetrics: false });
      let cache = [web(), web({}, 'api')];
      m.trackDeployments(() => cache);
      let s = await scrape(m);
      expect(
        samples(s, 'pacer_deployment_spec_replicas')
          .map((x) => x.labels.name)
          .sort(),
      ).to.deep.equal(['api', 'web']);
      cache = [web({ availableReplicas: 1 }, 'api')];
      s = await scrape(m);
      for (const family of new Set(s.filter((x) => x.name.startsWith('pacer_deployment_')).map((x) => x.name))) {
        expect(
          samples(s, family).map((x) => x.labels.name),
          family,
        ).to.not.include('web');
      }
      expect(value(s, 'pacer_deployment_status_replicas_available', { name: 'api' })).to.equal(1);
      expect(samples(s, 'pacer_deployment_status_condition', { name: 'api' })).to.have.length(6);
    });

    it("writes each family's samples exactly as prom-client formats them, escapes included", async () => {
      const odd = web(
        {
          conditions: [
            { type: 'Weird"Type\\with\nnewline', status: 'True', reason: 'NewReplicaSetAvailable' },
            { type: 'Progressing', status: 'Unknown', reason: 'ProgressDeadlineExceeded' },
          ],
          availableReplicas: Number.NaN,
        },
        'a"b',
      );
      const cache = [odd, web(), { ...web(), metadata: { ...web().metadata, resourceVersion: '7', name: 'api' } }];
      const m = createMetrics({ defaultMetrics: false });
      m.trackDeployments(() => cache);
      const ours = await m.registry.metrics();
      // The same samples through prom-client's own Gauge.set() and formatting.
      const plain = new Registry();
      const gauges = new Map<string, Gauge>();
      const series = cache.flatMap(deploymentSeries);
      for (const s of series) {
        if (!gauges.has(s.name)) {
          const help = /^# HELP (\S+) (.*)$/m.exec(
            ours.split('\n').find((l) => l.startsWith(`# HELP ${s.name} `)) ?? '',
          )?.[2];
          gauges.set(
            s.name,
            new Gauge({ name: s.name, help: help ?? '', labelNames: Object.keys(s.labels), registers: [plain] }),
          );
        }
        gauges.get(s.name)!.set(s.labels, s.value);
      }
      for (const name of gauges.keys()) {
        const want = await plain.getSingleMetricAsString(name);
        const got = await m.registry.getSingleMetricAsString(name);
        expect(got, name).to.equal(want);
      }
      expect(ours).to.contain('condition="Weird\\"Type\\\\with\\nnewline"');
      expect(ours).to.contain('pacer_deployment_status_replicas_available{namespace="shop",name="a\\"b"} Nan');
      const json = await m.registry.getMetricsAsJSON();
      expect(json.find((f) => f.name === 'pacer_deployment_spec_replicas')!.values).to.have.length(3);
    });

    it('a Deployment is rendered once per version: an unchanged object is not read again at the next scrape', async () => {
      let reads = 0;
      const stored: Deployment = { ...web(), metadata: { ...web().metadata, resourceVersion: '41' } };
      const counted = new Proxy(stored, {
        get(target, key, receiver) {
          if (key === 'status') reads++;
          return Reflect.get(target, key, receiver);
        },
      });
      let cache: Deployment[] = [counted];
      const m = createMetrics({ defaultMetrics: false });
      m.trackDeployments(() => cache);
      const first = await m.registry.getSingleMetricAsString('pacer_deployment_status_replicas');
      const afterFirst = reads;
      expect(afterFirst).to.be.greaterThan(0);
      expect(await m.registry.getSingleMetricAsString('pacer_deployment_status_replicas')).to.equal(first);
      expect(reads, 'no read of an unchanged Deployment').to.equal(afterFirst);
      // A new version (the informer's new object) is rendered at once.
      cache = [{ ...stored, metadata: { ...stored.metadata, resourceVersion: '42' }, status: { replicas: 9 } }];
      expect(await m.registry.getSingleMetricAsString('pacer_deployment_status_replicas')).to.contain(
        'pacer_deployment_status_replicas{namespace="shop",name="web"} 9',
      );
    });

    it('pacer_plan_phase_*: written exactly as prom-client formats the same samples, escapes and no steps included', async () => {
      const phases: PlanPhaseSample[] = [
        {
          namespace: 'shop',
          name: 'web',
          plan: 'deploy',
          strategy: 'serial',
          status: 'IN_PROGRESS',
          steps: { COMPLETE: 2, STARTED: 1 },
        },
        { namespace: 'shop', name: 'a"b\\c\nd', plan: 'deploy', strategy: 'parallel', status: 'PENDING', steps: {} },
        {
          namespace: 'shop',
          name: 'api',
          plan: 'deploy',
          strategy: 'parallel',
          status: 'COMPLETE',
          steps: { COMPLETE: 3 },
        },
      ];
      const m = createMetrics({ defaultMetrics: false });
      m.trackPlanPhases(() => phases);
      const plain = new Registry();
      const status = new Gauge({
        name: 'pacer_plan_phase_status',
        help: "The status of a Deployment's phase of its service's plan (1 for the current one).",
        labelNames: ['namespace', 'name', 'plan', 'strategy', 'status'],
        registers: [plain],
      });
      const steps = new Gauge({
        name: 'pacer_plan_phase_steps',
        help: "The steps of a Deployment's phase of its service's plan, by status.",
        labelNames: ['namespace', 'name', 'plan', 'status'],
        registers: [plain],
      });
      for (const p of phases) {
        status.set({ namespace: p.namespace, name: p.name, plan: p.plan, strategy: p.strategy, status: p.status }, 1);
        for (const [st, n] of Object.entries(p.steps))
          steps.set({ namespace: p.namespace, name: p.name, plan: p.plan, status: st }, n);
      }
      for (const name of ['pacer_plan_phase_status', 'pacer_plan_phase_steps'])
        expect(await m.registry.getSingleMetricAsString(name), name).to.equal(
          await plain.getSingleMetricAsString(name),
        );
      const json = await m.registry.getMetricsAsJSON();
      expect(json.find((f) => f.name === 'pacer_plan_phase_steps')!.values).to.have.length(3);
    });

    it('a plan phase is rendered once per sample object: the same object is not read again at the next scrape', async () => {
      let reads = 0;
      const counted = (p: PlanPhaseSample): PlanPhaseSample =>
        new Proxy(p, {
          get(target, key, receiver) {
            if (key === 'steps' || key === 'status') reads++;
            return Reflect.get(target, key, receiver);
          },
        });
      const web = counted({
        namespace: 'shop',
        name: 'web',
        plan: 'deploy',
        strategy: 'serial',
        status: 'IN_PROGRESS',
        steps: { COMPLETE: 1, STARTED: 1 },
      });
      let phases = [web];
      const m = createMetrics({ defaultMetrics: false });
      m.trackPlanPhases(() => phases);
      const first = await m.registry.metrics();
      const afterFirst = reads;
      expect(afterFirst).to.be.greaterThan(0);
      expect(await m.registry.metrics()).to.equal(first);
      expect(reads, 'no read of a sample rendered before').to.equal(afterFirst);
      // A new sample object (the phase computed again) is rendered at once.
      phases = [
        {
          namespace: 'shop',
          name: 'web',
          plan: 'deploy',
          strategy: 'serial',
          status: 'COMPLETE',
          steps: { COMPLETE: 2 },
        },
      ];
      const s = await scrape(m);
      expect(value(s, 'pacer_plan_phase_steps', { name: 'web', status: 'COMPLETE' })).to.equal(2);
      expect(samples(s, 'pacer_plan_phase_steps', { name: 'web', status: 'STARTED' })).to.have.length(0);
      expect(value(s, 'pacer_plan_phase_status', { name: 'web', status: 'COMPLETE' })).to.equal(1);
    });

    it('a scrape lists the cache once for all eleven families (and each plan phase once for both of theirs)', async () => {
      const m = createMetrics({ defaultMetrics: false });
      let listed = 0;
      let phases = 0;
      m.trackDeployments(() => {
        listed++;
        return [web()];
      });
      m.trackPlanPhases(() => {
        phases++;
        return [
          {
            namespace: 'shop',
            name: 'web',
            plan: 'deploy',
            strategy: 'serial',
            status: 'COMPLETE',
            steps: { COMPLETE: 2 },
          },
        ];
      });
      const s = await scrape(m);
      expect(new Set(s.filter((x) => x.name.startsWith('pacer_deployment_')).map((x) => x.name)).size).to.equal(11);
      expect(value(s, 'pacer_plan_phase_steps', { name: 'web', status: 'COMPLETE' })).to.equal(2);
      expect([listed, phases]).to.deep.equal([1, 1]);
      await scrape(m);
      expect([listed, phases], 'the next scrape lists again').to.deep.equal([2, 2]);
    });

    it('a scrape gives the event loop back once its families have worked 5 ms, and still lists the cache once', async () => {
      const m = createMetrics();
      let listed = 0;
      m.trackDeployments(() => {
        listed++;
        return [web()];
      });
      let turns = 0;
      let running = true;
      const tick = () => {
        if (!running) return;
        turns++;
        setImmediate(tick);
      };
      // Three families that each work 6 ms when asked, one after another: the loop must turn after
      // each, and not between each one's start and end.
      const turnsAtCollect: number[] = [];
      for (const name of ['slow_a', 'slow_b', 'slow_c'])
        new Gauge({
          name,
          help: 'works 6 ms',
          registers: [m.registry],
          collect() {
            turnsAtCollect.push(turns);
            const until = performance.now() + 6;
            while (performance.now() < until);
          },
        });
      setImmediate(tick);
      const text = await m.registry.metrics();
      running = false;
      const families = (text.match(/^# TYPE /gm) ?? []).length;
      expect(families).to.be.greaterThan(30);
      // prom-client's metrics() runs every family in one stretch of microtasks: no turn at all.
      expect(turnsAtCollect).to.have.length(3);
      expect(turnsAtCollect[1], 'a turn after the first slow family').to.be.greaterThan(turnsAtCollect[0]);
      expect(turnsAtCollect[2], 'a turn after the second').to.be.greaterThan(turnsAtCollect[1]);
      expect(turns, 'a turn after the third, before the scrape ends').to.be.greaterThan(turnsAtCollect[2]);
      expect(listed).to.equal(1);
    });

    it("a scrape's text comes in pieces of whole lines, at least the size asked but the last, cut inside a rendered family too, which make prom-client's text", async () => {
      const m = createMetrics({ defaultMetrics: false }); // the same text twice: no process CPU in it
      m.trackDeployments(() => Array.from({ length: 20 }, (_, i) => web({}, `web-${i}`)));
      const registry = m.registry as unknown as { textPieces(pieceChars: number): AsyncIterable<string> };
      const pieces: string[] = [];
      for await (const p of registry.textPieces(2_000)) pieces.push(p);
      const text = await Registry.prototype.metrics.call(m.registry);
      // The longest a piece can be: the size asked, less one character, and then the longest thing
      // added whole: one Deployment's lines in a rendered family, or a family prom-client formats.
      const families = text.split('\n\n');
      const condition = families.find((f) => f.startsWith('# HELP pacer_deployment_status_condition '));
      expect(condition?.length, 'one family is longer than a piece').to.be.greaterThan(4_000);
      const perDeployment = Math.max(
        ...families.map(
          (f) =>
            f
              .split('\n')
              .filter((l) => l.includes('name="web-7"'))
              .join('\n').length,
        ),
      );
      const unrendered = Math.max(...families.filter((f) => !/^# HELP pacer_deployment_/.test(f)).map((f) => f.length));
      expect(pieces.length, 'pieces of 2,000 characters').to.be.greaterThan(5);
      for (const p of pieces.slice(0, -1)) {
        expect(p.length).to.be.at.least(2_000);
        expect(p.length).to.be.at.most(1_999 + 2 + Math.max(perDeployment, unrendered));
        expect(p, 'a piece ends with its last line').to.match(/\n$/);
      }
      expect(pieces[0]).to.match(/^# HELP /);
      for (const p of pieces.slice(1)) expect(p, 'a piece begins at a line').to.match(/^(# HELP |pacer_)/);
      expect(
        pieces.filter((p) => p.startsWith('pacer_deployment_status_condition{')).length,
        'the long family cut between its Deployments',
      ).to.be.at.least(1);
      // prom-client's own metrics(): each family's text (this registry's), joined by an empty line.
      expect(pieces.join('')).to.equal(text);
      expect(pieces.join('')).to.equal(await m.registry.metrics());
      expect(SCRAPE_PIECE_CHARS).to.equal(4 * 2 ** 20);
    });

    describe('the warm-up ahead of a scrape (fake clock)', () => {
      /** A cache of one Deployment whose status reads are counted, at resourceVersion `rv`. */
      const counted = (rv: string, replicas: number, onRead: () => void): Deployment => {
        const d = web({ replicas });
        d.metadata.resourceVersion = rv;
        return new Proxy(d, {
          get(target, key, receiver) {
            if (key === 'status') onRead();
            return Reflect.get(target, key, receiver);
          },
        });
      };

      it('scrapers 30 s apart: a Deployment changed after a scrape is rendered 22.5 s after it, and the next scrape reads it no more', async () => {
        const clock = new ManualClock(0);
        const m = createMetrics({ defaultMetrics: false, clock });
        let reads = 0;
        let cache = [counted('1', 4, () => reads++)];
        m.trackDeployments(() => cache);
        let phaseTakes = 0;
        m.trackPlanPhases(() => {
          phaseTakes++;
          return [];
        });
        await m.registry.metrics();
        await clock.advance(30_000);
        await m.registry.metrics(); // the interval learned: 30 s
        expect(phaseTakes).to.equal(2);
        await clock.advance(1_000);
        cache = [counted('2', 9, () => reads++)]; // the informer's new version
        const before = reads;
        await clock.advance(21_000); // 22 s after the scrape: not yet
        expect(reads, 'nothing rendered before three quarters of the interval').to.equal(before);
        await clock.advance(500);
        expect(reads, 'the new version rendered at 22.5 s').to.be.greaterThan(before);
        expect(phaseTakes, 'the plan phases taken too').to.equal(3);
        const rendered = reads;
        await clock.advance(7_500);
        const text = await m.registry.metrics();
        expect(text).to.contain('pacer_deployment_status_replicas{namespace="shop",name="web"} 9');
        expect(reads, 'the scrape found it rendered').to.equal(rendered);
      });

      it('no warm-up after one scrape, nor between scrapes under 5 s or over 10 minutes apart', async () => {
        const clock = new ManualClock(0);
        const m = createMetrics({ defaultMetrics: false, clock });
        let reads = 0;
        let rv = 1;
        let cache = [counted(String(rv), 4, () => reads++)];
        m.trackDeployments(() => cache);
        const changeThenWait = async (ms: number): Promise<number> => {
          cache = [counted(String(++rv), 4, () => reads++)];
          const before = reads;
          await clock.advance(ms);
          return reads - before;
        };
        await m.registry.metrics(); // the first: no interval yet
        expect(await changeThenWait(60 * 60_000)).to.equal(0);
        await m.registry.metrics(); // an hour after the first
        expect(await changeThenWait(4_000)).to.equal(0);
        await m.registry.metrics(); // 4 s after
        expect(await changeThenWait(60 * 60_000)).to.equal(0);
        await m.registry.metrics(); // an hour after: what a person's curl keeps, not a Prometheus
        expect(await changeThenWait(5_000)).to.equal(0);
        await m.registry.metrics(); // 5 s after: a warm-up due at 3.75 s
        expect(await changeThenWait(4_000)).to.be.greaterThan(0);
      });

      it('a scrape that starts while a warm-up runs waits for it: the plan phases are never taken twice at once', async () => {
        const m = createMetrics({ defaultMetrics: false, clock: new ManualClock(0) });
        let taking = 0;
        let most = 0;
        let takes = 0;
        // Long enough to be taken in several slices, the event loop given back between them.
        m.trackPlanPhases(function* () {
          takes++;
          most = Math.max(most, ++taking);
          try {
            for (let i = 0; i < 30; i++) {
              const until = performance.now() + 1;
              while (performance.now() < until);
              yield {
                namespace: 'shop',
                name: `web-${i}`,
                plan: 'deploy',
                strategy: 'serial',
                status: 'COMPLETE',
                steps: { COMPLETE: 1 },
              };
            }
          } finally {
            taking--;
          }
        });
        const warming = (m.registry as unknown as { warm(): Promise<void> }).warm();
        const text = await m.registry.metrics();
        await warming;
        expect(takes, 'the warm-up and the scrape each took them').to.equal(2);
        expect(most, 'one after the other').to.equal(1);
        expect(text).to.contain('pacer_plan_phase_status{namespace="shop",name="web-29"');
      });
    });

    it('two scrapes at once: the same text, each its own listing', async () => {
      const m = createMetrics({ defaultMetrics: false });
      let listed = 0;
      m.trackDeployments(() => {
        listed++;
        return [web()];
      });
      const [a, b] = await Promise.all([m.registry.metrics(), m.registry.metrics()]);
      expect(a).to.equal(b);
      expect(a).to.contain('pacer_deployment_spec_replicas{namespace="shop",name="web"}');
      expect(listed).to.equal(2);
    });
  });

  it('observeRollout: counts by result; durations by strategy and result; an unknown duration only counts', async () => {
    const m = createMetrics({ defaultMetrics: false });
    m.observeRollout('complete', 'RollingUpdate', 42);
    m.observeRollout('superseded', 'Recreate', 3);
    m.observeRollout('complete', 'RollingUpdate', undefined);
    const s = await scrape(m);
    expect(value(s, 'pacer_rollouts_total', { result: 'complete' })).to.equal(2);
    expect(value(s, 'pacer_rollouts_total', { result: 'superseded' })).to.equal(1);
    expect(
      value(s, 'pacer_rollout_duration_seconds_count', { strategy: 'RollingUpdate', result: 'complete' }),
    ).to.equal(1);
    expect(value(s, 'pacer_rollout_duration_seconds_sum', { strategy: 'RollingUpdate', result: 'complete' })).to.equal(
      42,
    );
    expect(
      value(s, 'pacer_rollout_duration_seconds_bucket', { strategy: 'Recreate', result: 'superseded', le: '5' }),
    ).to.equal(1);
  });

  it("pacer_analysis_*: runs by namespace and phase, each run's and metric's phase, the latest value, measurements by outcome", async () => {
    const m = createMetrics({ defaultMetrics: false });
    let runs: AnalysisRunSample[] = [
      {
        namespace: 'shop',
        name: 'web-5d4f-1',
        deployment: 'web',
        phase: 'Failed',
        metrics: [
          { name: 'error-rate', phase: 'Failed', value: 0.12 },
          { name: 'latency', phase: 'Successful' },
        ],
      },
      { namespace: 'shop', name: 'web-5d4f-2', deployment: 'web', phase: 'Running', metrics: [] },
      { namespace: 'shop', name: 'api-1b2c-1', deployment: 'api', phase: 'Running', metrics: [] },
    ];
    m.trackAnalysisRuns(() => runs);
    m.observeMeasurement({ namespace: 'shop', run: 'web-5d4f-1', metric: 'error-rate', phase: 'Failed' });
    m.observeMeasurement({ namespace: 'shop', run: 'web-5d4f-1', metric: 'error-rate', phase: 'Failed' });
    m.observeMeasurement({ namespace: 'shop', run: 'web-5d4f-1', metric: 'error-rate', phase: 'Successful' });
    const f = await families(m);
    expect(f.get('pacer_analysis_runs')).to.equal('gauge');
    expect(f.get('pacer_analysis_metric_value')).to.equal('gauge');
    expect(f.get('pacer_analysis_measurements_total')).to.equal('counter');
    let s = await scrape(m);
    expect(value(s, 'pacer_analysis_runs', { namespace: 'shop', phase: 'Running' })).to.equal(2);
    expect(value(s, 'pacer_analysis_runs', { namespace: 'shop', phase: 'Failed' })).to.equal(1);
    const run = { namespace: 'shop', analysisrun: 'web-5d4f-1' };
    expect(value(s, 'pacer_analysis_run_phase', { ...run, deployment: 'web', phase: 'Failed' })).to.equal(1);
    expect(value(s, 'pacer_analysis_metric_phase', { ...run, metric: 'latency', phase: 'Successful' })).to.equal(1);
    expect(value(s, 'pacer_analysis_metric_value', { ...run, metric: 'error-rate' })).to.equal(0.12);
    expect(samples(s, 'pacer_analysis_metric_value'), 'a metric without a numeric value has none').to.have.length(1);
    expect(value(s, 'pacer_analysis_measurements_total', { ...run, metric: 'error-rate', phase: 'Failed' })).to.equal(
      2,
    );
    expect(
      value(s, 'pacer_analysis_measurements_total', { ...run, metric: 'error-rate', phase: 'Successful' }),
    ).to.equal(1);
    runs = runs.slice(2);
    s = await scrape(m);
    expect(samples(s, 'pacer_analysis_runs')).to.deep.equal([
      { name: 'pacer_analysis_runs', labels: { namespace: 'shop', phase: 'Running' }, value: 1 },
    ]);
    expect(samples(s, 'pacer_analysis_run_phase'), "a deleted run's series are gone").to.have.length(1);
    expect(samples(s, 'pacer_analysis_metric_value')).to.deep.equal([]);
  });

  it('pacer_events_dropped_total: exported at 0, counts each Event the recorder dropped', async () => {
    const m = createMetrics({ defaultMetrics: false });
    expect(value(await scrape(m), 'pacer_events_dropped_total', {})).to.equal(0);
    m.eventsDropped.inc();
    m.eventsDropped.inc();
    expect(value(await scrape(m), 'pacer_events_dropped_total', {})).to.equal(2);
  });

  describe('rest_client_* from every KubeClient request', () => {
    let server: http.Server;
    let port: number;
    before(async () => {
      server = http.createServer((req, res) => {
        if (req.url === '/version')
          res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"gitVersion":"v1.32.0"}');
        else
          res
            .writeHead(404, { 'Content-Type': 'application/json' })
            .end('{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
    });
    after(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    });

    it('counts {code, method, host} and times {verb, host}; no answer → code "<error>"', async () => {
      const m = createMetrics({ defaultMetrics: false });
      const kubeconfig = (p: number) => `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:${p}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`;
      const client = new KubeClient(loadKubeConfig({ kubeconfigText: kubeconfig(port) }), { metrics: m.restClient });
      await client.version();
      await client.version();
      await client.getReplicaSet('default', 'nope').catch(() => undefined);
      // A port nobody listens on: no HTTP answer at all.
      const closed = http.createServer();
      await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
      const deadPort = (closed.address() as AddressInfo).port;
      await new Promise((r) => closed.close(r));
      const dead = new KubeClient(loadKubeConfig({ kubeconfigText: kubeconfig(deadPort) }), { metrics: m.restClient });
      await dead.version().catch(() => undefined);

      const s = await scrape(m);
      const host = `127.0.0.1:${port}`;
      expect(value(s, 'rest_client_requests_total', { code: '200', method: 'GET', host })).to.equal(2);
      expect(value(s, 'rest_client_requests_total', { code: '404', method: 'GET', host })).to.equal(1);
      expect(
        value(s, 'rest_client_requests_total', { code: '<error>', method: 'GET', host: `127.0.0.1:${deadPort}` }),
      ).to.equal(1);
      expect(value(s, 'rest_client_request_duration_seconds_count', { verb: 'GET', host })).to.equal(3);
      expect(Object.keys(samples(s, 'rest_client_request_duration_seconds_count')[0].labels).sort()).to.deep.equal([
        'host',
        'verb',
      ]);
    });
  });
});
