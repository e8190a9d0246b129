// Job measurements in flight across passes, on the real control plane (its Job controller, kwok
// ending the pods: kube-bed's stages), with `pacer controller` as its own process under Pacer's
// ServiceAccount (docs/semantics/analysis.md#a-run-over-time):
// * the process SIGKILLed while a Job runs: the next one finds that Job by its name instead of
//   making a second, records its outcome once, and the run ends with its count exact;
// * a run terminated while its Job runs: the Job is deleted and the measurement not counted;
// * the Jobs of measurements dropped past the retention limit are deleted (Argo Rollouts' GarbageCollect);
// * a Job of the measurement's name already there: taken when the run controls it, else an Error.
// No request of the controller is forbidden by the shipped ClusterRole.

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnalysisRun } from '../../src/api/analysis.ts';
import { JOBS, JOB_RUN_UID_LABEL, type Job } from '../../src/controllers/analysis/providers/job.ts';
import { ANALYSIS_RUNS, KubeClient } from '../../src/kube/client.ts';
import { loadKubeConfig } from '../../src/kube/clientnode.ts';
import { TERMINATED_MESSAGE } from '../../src/engine/index.ts';
import { BEDS } from '../fixtures/beds.ts';
import { startRealBed } from '../fixtures/realbed.ts';
import type { RealBed } from '../fixtures/realbed.ts';
import { KUBECTL_HOW, requireTool } from '../fixtures/tools.ts';
import { TEST_USER_AGENT, eventually } from './fixtures/cluster.ts';

const NS = 'default';
const FIXTURE = new URL('./fixtures/pacer-controller.ts', import.meta.url).pathname;
const CRDS = new URL('../../crds', import.meta.url).pathname;

/** A run of one job metric; its Job's pod carries `annotations` (kube-bed's kwok stages read them). */
function jobRun(name: string, annotations: Record<string, string>, over: Record<string, unknown> = {}): AnalysisRun {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'AnalysisRun',
    metadata: { name, namespace: NS },
    spec: {
      metrics: [
        {
          name: 'smoke',
          provider: {
            job: {
              spec: {
                backoffLimit: 0,
                template: {
                  metadata: { annotations },
                  spec: { restartPolicy: 'Never', containers: [{ name: 'smoke', image: 'curl' }] },
                },
              },
            },
          },
          ...over,
        },
      ],
    },
  };
}

// The real bed only (the simulated cluster serves no Jobs: test/e2e/analysis-job.test.ts checks its
// Error there); PACER_E2E_BEDS=sim leaves it out.
for (const bed of BEDS.filter((b) => b === 'real'))
  describe(`analysis on the ${bed} control plane: job measurements across passes`, function () {
    this.timeout(180_000);
    let bed: RealBed | undefined;
    let client: KubeClient;
    let dir: string;
    let kubeconfig: string;
    const children: ChildProcess[] = [];

    before(async function () {
      requireTool(this, 'kube-bed', KUBECTL_HOW);
      bed = await startRealBed({ nodes: 1, podStartMs: 50, podReadyMs: 50 });
      for (const args of [
        ['apply', '-f', CRDS],
        ['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s'],
      ]) {
        const r = await bed.kubectl(args);
        if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
      }
      client = new KubeClient(loadKubeConfig({ kubeconfig: bed.info.kubeconfig }), { userAgent: TEST_USER_AGENT });
      dir = mkdtempSync(join(tmpdir(), 'pacer-analysis-jobs-'));
      kubeconfig = join(dir, 'kubeconfig');
      writeFileSync(kubeconfig, await bed.controllerKubeconfig());
    });

    after(async () => {
      for (const ch of children) ch.kill('SIGKILL');
      await bed?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    function controller(): ChildProcess {
      const child = spawn(
        process.execPath,
        [
          FIXTURE,
          'controller',
          '--kubeconfig',
          kubeconfig,
          '--leader-elect=false',
          ...['--metrics-bind-address', '0', '--health-probe-bind-address', '0'],
          ...['--api-bind-address', '0', '--webhook-bind-address', '0'],
        ],
        { stdio: ['ignore', 'ignore', 'ignore'], env: { ...process.env, KUBECONFIG: '' } },
      );
      children.push(child);
      return child;
    }

    const getRun = (name: string) => client.get<AnalysisRun>(ANALYSIS_RUNS, NS, name);
    const jobsOf = async (run: AnalysisRun) =>
      (await client.list<Job>(JOBS, NS, { labelSelector: `${JOB_RUN_UID_LABEL}=${run.metadata.uid}` })).items
        .map((j) => j.metadata.name)
        .sort();
    /** The run once its last measurement is in flight with `count` measurements counted before it. */
    const inFlightAfter = (name: string, count: number) =>
      eventually(`${name}: a Job in flight after ${count} measurements`, async () => {
        const r = await getRun(name);
        const res = r.status?.metricResults?.[0];
        return res?.measurements?.at(-1)?.phase === 'Running' && (res.count ?? 0) === count && r;
      });

    it('SIGKILLed while a Job runs: the next process finds that Job and records it once; 2 measurements, 2 Jobs', async () => {
      // Each Job's pod runs 1.5 s once ready; a measurement every second after the last one ended.
      await client.create(
        ANALYSIS_RUNS,
        NS,
        jobRun('steady', { 'sim.pacer.dev/run-ms': '1500' }, { interval: '1s', count: 2 }),
      );
      const first = controller();
      const flying = await inFlightAfter('steady', 1);
      const job = flying.status!.metricResults![0].measurements!.at(-1)!.metadata!['job-name'];
      expect(job).to.equal('steady-smoke-2');
      first.kill('SIGKILL');
      await new Promise((r) => first.once('exit', r));
      controller();
      const done = await eventually(
        'steady Successful',
        async () => {
          const r = await getRun('steady');
          return r.status?.phase === 'Successful' && r;
        },
        90_000,
      );
      const res = done.status!.metricResults![0];
      expect(res).to.deep.include({ count: 2, successful: 2, error: 0 });
      expect(res.measurements!.map((m) => [m.phase, m.metadata?.['job-name']])).to.deep.equal([
        ['Successful', 'steady-smoke-1'],
        ['Successful', 'steady-smoke-2'],
      ]);
      expect(await jobsOf(done), 'one Job per measurement, none made twice').to.deep.equal([
        'steady-smoke-1',
        'steady-smoke-2',
      ]);
    });

    it('retention 1, count 3: the Job of each measurement the status no longer keeps is deleted; the last one stays', async () => {
      // The controller of the first case still runs.
      const run = jobRun('trimmed', { 'sim.pacer.dev/run-ms': '300' }, { interval: '1s', count: 3 });
      run.spec.measurementRetention = [{ metricName: 'smoke', limit: 1 }];
      await client.create(ANALYSIS_RUNS, NS, run);
      const done = await eventually('trimmed Successful', async () => {
        const r = await getRun('trimmed');
        return r.status?.phase === 'Successful' && r;
      });
      const res = done.status!.metricResults![0];
      expect(res).to.deep.include({ count: 3, successful: 3 });
      expect(res.measurements!.map((m) => m.metadata?.['job-name'])).to.deep.equal(['trimmed-smoke-3']);
      await eventually("only the kept measurement's Job left", async () => {
        const jobs = await jobsOf(done);
        return jobs.length === 1 && jobs[0] === 'trimmed-smoke-3';
      });
    });

    it('terminated while its Job runs: the Job is deleted, the measurement not counted, the run Successful', async () => {
      // A never-ready pod never ends (kube-bed's stages): the Job runs until it is deleted.
      await client.create(ANALYSIS_RUNS, NS, jobRun('held', { 'sim.pacer.dev/never-ready': 'true' }));
      const flying = await inFlightAfter('held', 0);
      expect(await jobsOf(flying)).to.deep.equal(['held-smoke-1']);
      await client.patch(ANALYSIS_RUNS, NS, 'held', { spec: { terminate: true } }, 'merge');
      const done = await eventually('held Successful', async () => {
        const r = await getRun('held');
        return r.status?.phase === 'Successful' && r;
      });
      expect(done.status!.message).to.equal(TERMINATED_MESSAGE);
      expect(done.status!.metricResults![0]).to.deep.include({ phase: 'Successful', count: 0, error: 0 });
      expect(done.status!.metricResults![0].measurements ?? []).to.deep.equal([]);
      await eventually('the Job deleted', async () => (await jobsOf(done)).length === 0);
    });

    /** Job `name` for run `run` as a controller that died before its status write left it (owned), or a stranger's. */
    function jobFor(run: AnalysisRun, name: string, owned: boolean): Job {
      return {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {
          name,
          namespace: NS,
          labels: { [JOB_RUN_UID_LABEL]: run.metadata.uid! },
          ...(owned
            ? {
                ownerReferences: [
                  {
                    apiVersion: 'pacer.dev/v1alpha1',
                    kind: 'AnalysisRun',
                    name: run.metadata.name!,
                    uid: run.metadata.uid!,
                    controller: true,
                  },
                ],
              }
            : {}),
        },
        spec: run.spec.metrics[0].provider.job!.spec as Record<string, unknown>,
      };
    }

    it("a Job of the measurement's name already there: taken as the measurement's when the run controls it (made by a pass that never stored it), an Error naming it otherwise", async () => {
      // The first measurement 4 s after the run starts: the test makes the Jobs before the controller would.
      const adopt = await client.create<AnalysisRun>(ANALYSIS_RUNS, NS, jobRun('adopt', {}, { initialDelay: '4s' }));
      const foreign = await client.create<AnalysisRun>(
        ANALYSIS_RUNS,
        NS,
        jobRun('foreign', {}, { initialDelay: '4s', consecutiveErrorLimit: 0 }),
      );
      const made = await client.create<Job>(JOBS, NS, jobFor(adopt, 'adopt-smoke-1', true));
      await client.create<Job>(JOBS, NS, jobFor(foreign, 'foreign-smoke-1', false));
      const ended = (name: string, phase: string) =>
        eventually(`${name} ${phase}`, async () => {
          const r = await getRun(name);
          return r.status?.phase === phase && r;
        });
      const [adopted, refused] = await Promise.all([ended('adopt', 'Successful'), ended('foreign', 'Error')]);
      expect(adopted.status!.metricResults![0]).to.deep.include({ count: 1, successful: 1 });
      expect(await jobsOf(adopted)).to.deep.equal(['adopt-smoke-1']);
      expect((await client.get<Job>(JOBS, NS, 'adopt-smoke-1')).metadata.uid, 'the same Job').to.equal(
        made.metadata.uid,
      );
      expect(refused.status!.metricResults![0].measurements![0].message).to.equal(
        'job foreign-smoke-1 in namespace default already exists and is not controlled by analysis run foreign (its controller: none)',
      );
    });

    it('the shipped ClusterRole forbade none of these requests', async () => {
      expect(await bed!.forbidden()).to.deep.equal([]);
    });
  });
