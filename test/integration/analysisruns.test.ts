// The analysis run controller on the simulated cluster, in this process, with the providers'
// answers scripted (the real Prometheus end to end is test/e2e/analysis.test.ts): runs measured on
// schedule, failing values, errors up to the limit, Secrets read at measurement time, spec.terminate,
// a lost status write (409) measured again, a controller stopped and started again mid-run, the
// retention limit, and the pacer_analysis_* series.

import { expect } from 'chai';
import type { AnalysisRun, Metric } from '../../src/api/analysis.ts';
import { AnalysisRunController } from '../../src/controllers/analysis/controller.ts';
import { ProviderError } from '../../src/controllers/analysis/providers/types.ts';
import type { MeasureInput, ProviderResult } from '../../src/controllers/analysis/providers/types.ts';
import { TERMINATED_MESSAGE } from '../../src/engine/index.ts';
import { ANALYSIS_RUNS, KubeClient } from '../../src/kube/client.ts';
import { loadKubeConfig } from '../../src/kube/clientnode.ts';
import type { ResourceType } from '../../src/kube/client.ts';
import { Manager } from '../../src/manager/manager.ts';
import { silentLogger } from '../../src/observe/logger.ts';
import { createMetrics } from '../../src/observe/metrics.ts';
import type { SimCluster } from '../../src/sim/index.ts';
import { parseExposition, samples, value } from '../fixtures/prometheus.ts';
import { createNamespace, eventually, sleep, startSimWithCrds } from './fixtures/cluster.ts';

const NS = 'runs';
const SECRETS: ResourceType = { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true };

/** A provider's scripted answers: a number (its value), or an Error to throw. */
type Answer = number | Error | 'hang';

interface Running {
  mgr: Manager;
  metrics: ReturnType<typeof createMetrics>;
  stop(): Promise<void>;
}

describe('analysis run controller (simulated cluster, scripted providers)', function () {
  this.timeout(30_000);
  let sim: SimCluster;
  let client: KubeClient;
  /** What each run's metrics answer next, keyed "run/metric"; then 0.01 for ever. */
  const script = new Map<string, Answer[]>();
  /** Every call of the provider, keyed "run/metric", with the query as it was sent. */
  const calls = new Map<string, string[]>();
  /** Called during a measurement (the 409 test changes the run meanwhile). */
  let during: ((input: MeasureInput, run: string) => Promise<void>) | undefined;
  let ctl: Running | undefined;

  async function scripted(input: MeasureInput): Promise<ProviderResult> {
    const run = input.metric.provider.prometheus?.address.replace('http://', '').replace(':9090', '') ?? '';
    const key = `${run}/${input.metric.name}`;
    calls.set(key, [...(calls.get(key) ?? []), input.metric.provider.prometheus?.query ?? '']);
    if (during) await during(input, run);
    const next = script.get(key)?.shift() ?? 0.01;
    if (next === 'hang')
      return new Promise((_, reject) =>
        input.signal.addEventListener('abort', () => reject(new ProviderError('aborted')), { once: true }),
      );
    if (next instanceof Error) throw next;
    return { result: next, value: String(next), metadata: { query: input.metric.provider.prometheus!.query } };
  }

  async function startController(): Promise<Running> {
    const metrics = createMetrics({ defaultMetrics: false });
    const c = new KubeClient(loadKubeConfig({ kubeconfigText: sim.kubeconfig }), {
      userAgent: 'pacer-controller/test',
    });
    const mgr = new Manager({ client: c, logger: silentLogger(), metrics });
    new AnalysisRunController(mgr, { measure: scripted });
    mgr.start();
    await eventually('the caches to sync', () => mgr.ready());
    return { mgr, metrics, stop: () => mgr.stop() };
  }

  /** A metric of run `run`: the run's name is its provider's host, so the script knows whose call it is. */
  const metric = (run: string, name: string, over: Partial<Metric> = {}): Metric => ({
    name,
    provider: { prometheus: { address: `http://${run}:9090`, query: `rate(${name}[1m])` } },
    ...over,
  });

  async function createRun(name: string, spec: AnalysisRun['spec']): Promise<AnalysisRun> {
    return client.create<AnalysisRun>(ANALYSIS_RUNS, NS, {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'AnalysisRun',
      metadata: { name, namespace: NS },
      spec,
    });
  }

  const getRun = (name: string) => client.get<AnalysisRun>(ANALYSIS_RUNS, NS, name);

  async function ended(name: string, ms = 15_000): Promise<AnalysisRun> {
    return eventually(
      `run ${name} to end`,
      async () => {
        const r = await getRun(name);
        return ['Successful', 'Failed', 'Error', 'Inconclusive'].includes(r.status?.phase ?? '') && r;
      },
      ms,
    );
  }

  const result = (r: AnalysisRun, metricName: string) => r.status!.metricResults!.find((m) => m.name === metricName)!;
  const times = (r: AnalysisRun, metricName: string) =>
    (result(r, metricName).measurements ?? []).map((m) => Date.parse(m.finishedAt!));

  before(async () => {
    ({ sim, client } = await startSimWithCrds());
    createNamespace(sim, NS);
    ctl = await startController();
  });
  after(async () => {
    await ctl?.stop();
    await sim?.stop();
  });
  afterEach(() => {
    during = undefined;
  });

  it('two metrics, interval 200ms, count 3: measured on schedule, exactly 3 each, Successful', async () => {
    await createRun('both', {
      metrics: [
        metric('both', 'latency', { interval: '200ms', count: 3, successCondition: 'result < 0.5' }),
        metric('both', 'errors', { interval: '200ms', count: 3, successCondition: 'result < 0.05' }),
      ],
    });
    const r = await ended('both');
    expect(r.status!.phase).to.equal('Successful');
    expect(r.status!.runSummary).to.deep.equal({ count: 2, successful: 2, failed: 0, inconclusive: 0, error: 0 });
    for (const m of ['latency', 'errors']) {
      expect(result(r, m)).to.deep.include({ phase: 'Successful', count: 3, successful: 3, error: 0 });
      expect(result(r, m).measurements).to.have.length(3);
      expect(result(r, m).measurements![0]).to.deep.include({
        phase: 'Successful',
        value: '0.01',
        metadata: { query: `rate(${m}[1m])` },
      });
      const t = times(r, m);
      for (let i = 1; i < t.length; i++) expect(t[i] - t[i - 1], `${m}: 200 ms apart at least`).to.be.at.least(200);
      expect(calls.get(`both/${m}`), 'no measurement taken and thrown away').to.have.length(3);
    }
    expect(Date.parse(r.status!.startedAt!)).to.be.at.most(times(r, 'latency')[0]);
    // Nothing more is measured once it has ended.
    await sleep(500);
    expect(calls.get('both/latency')).to.have.length(3);

    const s = parseExposition(await ctl!.metrics.registry.metrics());
    const both = { namespace: NS, analysisrun: 'both' };
    expect(value(s, 'pacer_analysis_measurements_total', { ...both, metric: 'errors', phase: 'Successful' })).to.equal(
      3,
    );
    expect(value(s, 'pacer_analysis_metric_value', { ...both, metric: 'errors' })).to.equal(0.01);
    expect(value(s, 'pacer_analysis_run_phase', { ...both, deployment: '', phase: 'Successful' })).to.equal(1);
    expect(
      samples(s, 'pacer_analysis_runs').find((x) => x.labels.namespace === NS && x.labels.phase === 'Successful')
        ?.value,
    ).to.be.at.least(1);
  });

  it('a failing value: Failed after failureLimit + 1 failures, with the metric, its values and its condition', async () => {
    script.set('bad/error-rate', [0.01, 0.12, 0.2]);
    await createRun('bad', {
      metrics: [
        metric('bad', 'error-rate', { interval: '200ms', successCondition: 'result < 0.05', failureLimit: 1 }),
        metric('bad', 'latency', { interval: '200ms' }),
      ],
    });
    const r = await ended('bad');
    expect(r.status!.phase).to.equal('Failed');
    expect(r.status!.message).to.equal(
      'metric "error-rate" assessed Failed: 2 of 3 measurements failed (failureLimit 1); last value 0.2 against successCondition "result < 0.05"',
    );
    expect(result(r, 'latency').phase, 'the other metric ends with the run').to.equal('Successful');
    expect(calls.get('bad/error-rate')).to.have.length(3);
    const events = await eventually('the Event', async () => {
      const list = await client.request<{ items: Array<{ reason: string; type: string; message: string }> }>(
        'GET' as never,
        `/api/v1/namespaces/${NS}/events`,
        { what: 'events' },
      );
      return list.items.filter((e) => e.reason === 'AnalysisRunFailed').length > 0 && list.items;
    });
    expect(events.find((e) => e.reason === 'AnalysisRunFailed')).to.deep.include({
      type: 'Warning',
      message: `Analysis run Failed: ${r.status!.message}`,
    });
    const s = parseExposition(await ctl!.metrics.registry.metrics());
    const labels = { namespace: NS, analysisrun: 'bad', metric: 'error-rate' };
    expect(value(s, 'pacer_analysis_measurements_total', { ...labels, phase: 'Failed' })).to.equal(2);
    expect(value(s, 'pacer_analysis_measurements_total', { ...labels, phase: 'Successful' })).to.equal(1);
    expect(value(s, 'pacer_analysis_metric_value', labels)).to.equal(0.2);
  });

  it('errors up to consecutiveErrorLimit, then Error naming the address; a condition that cannot be evaluated is an Error too', async () => {
    const down = () => new ProviderError('prometheus at http://errs:9090: connect ECONNREFUSED 127.0.0.1:9090');
    script.set('errs/up', [0.01, down(), down(), down()]);
    script.set('errs/shape', [0.5, 0.5]);
    await createRun('errs', {
      metrics: [
        metric('errs', 'up', { interval: '200ms', consecutiveErrorLimit: 2 }),
        metric('errs', 'shape', { interval: '200ms', successCondition: 'result.ok == true', consecutiveErrorLimit: 5 }),
      ],
    });
    const r = await ended('errs');
    expect(r.status!.phase).to.equal('Error');
    expect(r.status!.message).to.equal(
      'metric "up" assessed Error: 3 errors in a row (consecutiveErrorLimit 2): prometheus at http://errs:9090: connect ECONNREFUSED 127.0.0.1:9090',
    );
    expect(result(r, 'up')).to.deep.include({ count: 1, error: 3, consecutiveError: 3 });
    const shape = result(r, 'shape');
    expect(shape.phase).to.equal('Successful');
    expect(shape.measurements![0].phase).to.equal('Error');
    expect(shape.measurements![0].value, 'the value the condition was given').to.equal('0.5');
    expect(shape.measurements![0].message).to.match(/^condition "result.ok == true" could not be evaluated: /);
  });

  it("a Secret's key as an argument: read at each measurement; missing, an Error naming it", async () => {
    await createRun('secret', {
      args: [
        { name: 'service', value: 'web' },
        { name: 'tenant', valueFrom: { secretKeyRef: { name: 'creds', key: 'tenant' } } },
        { name: 'unused', valueFrom: { secretKeyRef: { name: 'nowhere', key: 'x' } } },
      ],
      metrics: [
        {
          name: 'q',
          interval: '200ms',
          count: 2,
          provider: {
            prometheus: {
              address: 'http://secret:9090',
              query: 'up{service="{{args.service}}",tenant="{{ args.tenant }}"}',
            },
          },
        },
      ],
    });
    const first = await eventually('an Error measurement', async () => {
      const r = await getRun('secret');
      return (r.status?.metricResults?.[0]?.error ?? 0) > 0 && r;
    });
    expect(first.status!.metricResults![0].measurements![0]).to.deep.include({
      phase: 'Error',
      message: `argument "tenant": secret "creds" not found in namespace ${NS}`,
    });
    expect(calls.get('secret/q'), 'the provider is not asked without its arguments').to.equal(undefined);
    await client.create(SECRETS, NS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace: NS },
      data: { other: Buffer.from('x').toString('base64') },
    });
    await eventually('the missing key named', async () => {
      const r = await getRun('secret');
      return r.status?.metricResults?.[0]?.measurements?.some(
        (m) => m.message === 'argument "tenant": secret "creds" has no key "tenant"',
      );
    });
    await client.patch(SECRETS, NS, 'creds', { data: { tenant: Buffer.from('acme').toString('base64') } }, 'merge');
    const r = await ended('secret');
    expect(r.status!.phase).to.equal('Successful');
    expect(result(r, 'q')).to.deep.include({ count: 2 });
    expect(calls.get('secret/q')).to.deep.equal(['up{service="web",tenant="acme"}', 'up{service="web",tenant="acme"}']);
  });

  it('spec.terminate: the open metrics end Successful, nothing more is measured', async () => {
    await createRun('term', { metrics: [metric('term', 'm', { interval: '200ms' })] });
    await eventually(
      'two measurements',
      async () => ((await getRun('term')).status?.metricResults?.[0]?.count ?? 0) >= 2,
    );
    await client.patch(ANALYSIS_RUNS, NS, 'term', { spec: { terminate: true } }, 'merge');
    const r = await ended('term');
    expect(r.status).to.deep.include({ phase: 'Successful', message: TERMINATED_MESSAGE });
    const n = calls.get('term/m')!.length;
    expect(result(r, 'm').count).to.equal(n);
    await sleep(500);
    expect(calls.get('term/m')).to.have.length(n);
  });

  it('a status write that loses a race (409) is measured again: counted once', async () => {
    let raced = false;
    during = async (_input, run) => {
      if (run !== 'race' || raced || (calls.get('race/m')?.length ?? 0) !== 2) return;
      raced = true;
      // The run changes while its second measurement is taken: the status write carries the old resourceVersion.
      await client.patch(ANALYSIS_RUNS, NS, 'race', { metadata: { annotations: { touched: 'yes' } } }, 'merge');
    };
    await createRun('race', { metrics: [metric('race', 'm', { interval: '200ms', count: 3 })] });
    const r = await ended('race');
    expect(raced).to.equal(true);
    expect(result(r, 'm')).to.deep.include({ phase: 'Successful', count: 3, successful: 3 });
    expect(result(r, 'm').measurements).to.have.length(3);
    expect(calls.get('race/m'), 'the measurement lost with the 409 was taken again').to.have.length(4);
    const s = parseExposition(await ctl!.metrics.registry.metrics());
    expect(
      value(s, 'pacer_analysis_measurements_total', {
        namespace: NS,
        analysisrun: 'race',
        metric: 'm',
        phase: 'Successful',
      }),
      'counted when stored only',
    ).to.equal(3);
  });

  it('retention 2: the status keeps two measurements, the counts all of them', async () => {
    script.set('keep/m', [0.01, 0.9, 0.01, 0.9, 0.01]);
    await createRun('keep', {
      metrics: [
        metric('keep', 'm', { interval: '200ms', count: 5, successCondition: 'result < 0.5', failureLimit: 2 }),
      ],
      measurementRetention: [{ metricName: 'm', limit: 2 }],
    });
    const r = await ended('keep');
    expect(result(r, 'm')).to.deep.include({ phase: 'Successful', count: 5, successful: 3, failed: 2 });
    expect(result(r, 'm').measurements!.map((m) => m.value)).to.deep.equal(['0.9', '0.01']);
  });

  it('a controller stopped mid-run and started again resumes from the status: no measurement counted twice, none lost', async () => {
    // The third measurement hangs until the controller stops (it is then aborted, never written).
    script.set('resume/m', [0.01, 0.01, 'hang']);
    await createRun('resume', { metrics: [metric('resume', 'm', { interval: '300ms', count: 6 })] });
    await eventually('the third measurement in flight', () => calls.get('resume/m')?.length === 3);
    await ctl!.stop();
    const mid = await getRun('resume');
    expect(result(mid, 'm').count, 'two stored before the stop').to.equal(2);
    await sleep(700); // no controller: nothing is measured
    expect(calls.get('resume/m')).to.have.length(3);
    ctl = await startController();
    const r = await ended('resume');
    expect(r.status!.phase).to.equal('Successful');
    expect(result(r, 'm')).to.deep.include({ count: 6, successful: 6, error: 0 });
    const t = times(r, 'm');
    expect(t).to.have.length(6);
    expect(new Set(t).size, 'six different measurements').to.equal(6);
    expect(t[2] - t[1], 'the one lost with the stop was taken by the next controller').to.be.at.least(700);
    expect(calls.get('resume/m'), 'the aborted one, then four more').to.have.length(7);
    expect(r.status!.startedAt).to.equal(mid.status!.startedAt);
  });

  it('a run that has ended is left alone', async () => {
    const before = await getRun('both');
    const n = calls.get('both/latency')!.length;
    await client.patch(ANALYSIS_RUNS, NS, 'both', { spec: { terminate: true } }, 'merge');
    await sleep(400);
    const after = await getRun('both');
    expect(after.status).to.deep.equal(before.status);
    expect(calls.get('both/latency')).to.have.length(n);
  });
});
