// A rollout judged by a job metric (docs/semantics/analysis.md#job), through the real kubectl. On
// the real control plane (kube-controller-manager's Job controller, kwok ending the Job's pod as
// its pod template's annotations say): a Job that completes lets the new revision become the stable
// one; a Job that fails aborts the rollout back to the stable revision (Progressing False
// AnalysisFailed, in the Job's words). On the simulated cluster, which serves no batch/v1 Jobs, the
// measurement is an Error that says so, naming the API and the server.

import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '../integration/fixtures/cluster.ts';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';

for (const bed of BEDS)
  describe(`e2e (${bed}): analysis with a job metric`, function () {
    this.timeout(180_000);
    const k = kubectlEnv({
      bed,
      tmpPrefix: 'pacer-analysis-job-',
      sim: { nodes: 1, podStartMs: 100, podReadyMs: 100 },
      timeoutMs: 60_000,
    });
    const { kubectl, ok } = k;
    const jsonpath = async (what: string, path: string) =>
      ok(kubectl('get', ...what.split(' '), '-o', `jsonpath=${path}`));

    before(async function () {
      await k.start(this);
    });
    after(() => k.stop());

    /**
     * Deployment `app` (2 replicas) judged by template `smoke-<app>`: one job metric whose Job's pod
     * runs 1 s, then ends with `exitCode` (kube-bed's kwok stages: sim.pacer.dev/exit-code), its
     * container given the app's name as an argument. postRollout keeps the run after the rollout
     * completes, so the Job's outcome decides.
     */
    async function apply(app: string, image: string, exitCode?: number): Promise<void> {
      const file = join(k.dir, `${app}.yaml`);
      const annotations = `{sim.pacer.dev/run-ms: "1000"${exitCode !== undefined ? `, sim.pacer.dev/exit-code: "${exitCode}"` : ''}}`;
      await writeFile(
        file,
        `apiVersion: pacer.dev/v1alpha1
kind: AnalysisTemplate
metadata:
  name: smoke-${app}
spec:
  args:
    - name: app
  metrics:
    - name: smoke
      consecutiveErrorLimit: 0
      provider:
        job:
          metadata:
            labels: {smoke-test: "{{args.app}}"}
          spec:
            backoffLimit: 0
            template:
              metadata:
                annotations: ${annotations}
              spec:
                restartPolicy: Never
                containers: [{name: smoke, image: curl, args: ["http://{{args.app}}/health"]}]
---
apiVersion: pacer.dev/v1alpha1
kind: Deployment
metadata:
  name: ${app}
spec:
  replicas: 2
  selector: {matchLabels: {app: ${app}}}
  template:
    metadata: {labels: {app: ${app}}}
    spec: {containers: [{name: ${app}, image: "${image}"}]}
  analysis:
    templates: [{templateName: smoke-${app}}]
    args: [{name: app, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
    postRollout: 60s
`,
      );
      await ok(kubectl('apply', '-f', file));
    }

    /** Revision 1 of `app` (no analysis: nothing to compare with), then revision 2's run name. */
    async function secondRevision(app: string, exitCode?: number): Promise<string> {
      await apply(app, 'nginx:1', exitCode);
      await eventually(
        `${app} stable at revision 1`,
        async () => (await jsonpath(`pdeploy ${app}`, '{.status.stableRS}')) !== '',
        90_000,
      );
      await ok(
        kubectl(
          'patch',
          'pdeploy',
          app,
          '--type=merge',
          '-p',
          `{"spec":{"template":{"spec":{"containers":[{"name":"${app}","image":"nginx:2"}]}}}}`,
        ),
      );
      const hash = await eventually(
        'the new ReplicaSet',
        async () =>
          (await jsonpath(
            `rs -l app=${app}`,
            '{.items[?(@.spec.template.spec.containers[0].image=="nginx:2")].metadata.labels.pod-template-hash}',
          )) || false,
        30_000,
      );
      return `${app}-${hash}-1`;
    }

    const runPhase = (run: string) => jsonpath(`analysisrun ${run}`, '{.status.phase}');

    it('installs the CRDs and starts the controller', async () => {
      await ok(kubectl('apply', '-f', join(ROOT, 'crds')));
      await eventually('the analysis CRDs served', async () => (await kubectl('get', 'analysisruns')).code === 0);
      await k.startController();
    });

    if (bed === 'real') {
      it('a Job that completes: the run is Successful with one measurement, and revision 2 becomes the stable one', async () => {
        const run = await secondRevision('good');
        const hash = run.slice('good-'.length, -'-1'.length);
        const job = `${run}-smoke-1`;
        await eventually('the run Successful', async () => (await runPhase(run)) === 'Successful', 90_000);
        expect(await jsonpath(`analysisrun ${run}`, '{.status.metricResults[0].count}')).to.equal('1');
        expect(await jsonpath(`analysisrun ${run}`, '{.status.metricResults[0].successful}')).to.equal('1');
        expect(
          await jsonpath(`analysisrun ${run}`, '{.status.metricResults[0].measurements[0].metadata.job-name}'),
        ).to.equal(job);
        // The Job: the metric's spec and labels, its argument replaced, controlled by the run.
        expect(
          await jsonpath(`job ${job}`, '{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}'),
        ).to.equal(`AnalysisRun/${run}`);
        expect(await jsonpath(`job ${job}`, '{.metadata.labels.smoke-test}')).to.equal('good');
        expect(await jsonpath(`job ${job}`, '{.spec.template.spec.containers[0].args[0]}')).to.equal(
          'http://good/health',
        );
        expect(await jsonpath(`job ${job}`, '{.status.conditions[?(@.type=="Complete")].status}')).to.equal('True');
        await eventually(
          'revision 2 stable',
          async () => (await jsonpath('pdeploy good', '{.status.stableRS}')) === hash,
          60_000,
        );
      });

      it("a Job that fails: the run is Failed in the Job's words; the rollout goes back to revision 1 (Progressing False AnalysisFailed)", async () => {
        const run = await secondRevision('bad', 3);
        await eventually('the run Failed', async () => (await runPhase(run)) === 'Failed', 90_000);
        expect(await jsonpath(`analysisrun ${run}`, '{.status.message}')).to.equal(
          `metric "smoke" assessed Failed: 1 of 1 measurements failed (failureLimit 0); last: job ${run}-smoke-1 failed: BackoffLimitExceeded: Job has reached the specified backoff limit`,
        );
        await eventually(
          'bad aborted',
          async () =>
            (await jsonpath(
              'pdeploy bad',
              '{.status.conditions[?(@.type=="Progressing")].status}/{.status.conditions[?(@.type=="Progressing")].reason}',
            )) === 'False/AnalysisFailed',
          60_000,
        );
        expect(await jsonpath('pdeploy bad', '{.status.conditions[?(@.type=="Progressing")].message}')).to.match(
          new RegExp(`^Analysis run ${run} failed: .*BackoffLimitExceeded.*the rollout was aborted to revision 1`),
        );
        await eventually(
          'back at revision 1',
          async () =>
            (
              await jsonpath(
                'rs -l app=bad',
                '{range .items[*]}{.metadata.annotations.pacer\\.dev/revision}={.spec.replicas} {end}',
              )
            )
              .trim()
              .split(' ')
              .sort()
              .join(' ') === '1=2 2=0',
          90_000,
        );
      });
    } else {
      it('the simulated cluster serves no Jobs: the measurement is an Error naming batch/v1 jobs and the API server; the rollout is aborted', async () => {
        const run = await secondRevision('good');
        await eventually('the run Error', async () => (await runPhase(run)) === 'Error', 60_000);
        const message = await jsonpath(`analysisrun ${run}`, '{.status.metricResults[0].measurements[0].message}');
        expect(message).to.match(
          new RegExp(
            `^job ${run}-smoke-1 in namespace default: the API server at https?://127\\.0\\.0\\.1:\\d+ does not serve batch/v1 jobs: a job metric needs a cluster that runs Jobs$`,
          ),
        );
        expect(await jsonpath(`analysisrun ${run}`, '{.status.metricResults[0].error}')).to.equal('1');
        await eventually(
          'good aborted',
          async () =>
            (await jsonpath('pdeploy good', '{.status.conditions[?(@.type=="Progressing")].reason}')) ===
            'AnalysisFailed',
          60_000,
        );
      });
    }
  });
