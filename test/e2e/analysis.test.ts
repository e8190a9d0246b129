// A rollout judged by a real Prometheus (Debian's), on both beds, through the real kubectl
// (docs/semantics/analysis.md): an AnalysisTemplate whose metric reads an error ratio that a test
// HTTP endpoint serves and the test turns bad once two new pods are available. Abort: the rollout
// goes back to revision 1 within the budget (sampled from outside on every change), Progressing
// False AnalysisFailed naming the metric, the run Failed with its measurements in status.
// Rollback: the spec itself is undone, as revision 3. Good metrics: the rollout completes and the
// new revision becomes the stable one. The dashboard (`kubectl pacer dashboard`, in Debian's chromium)
// shows the aborted run: its chart has one point per measurement the run kept, the threshold of its
// success condition, and the run's phase.

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { ReplicaSet } from '../../src/api/types.ts';
import { controllerOf } from '../../src/api/owners.ts';
import { eventually, isReadyPod } from '../integration/fixtures/cluster.ts';
import type { Timeline } from '../integration/fixtures/cluster.ts';
import { startMetricsEndpoint, startPrometheus } from '../fixtures/prometheus-server.ts';
import { requireTool } from '../fixtures/tools.ts';
import type { MetricsEndpoint, PrometheusServer } from '../fixtures/prometheus-server.ts';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';
import type { Recording } from './fixtures.ts';

const REPLICAS = 4;
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
/** docs/dashboard/ with PACER_UPDATE_SCREENSHOTS=1 (as test/e2e/dashboard.test.ts), else a temporary directory. */
const SHOTS =
  process.env.PACER_UPDATE_SCREENSHOTS === '1'
    ? join(ROOT, 'docs', 'dashboard')
    : join(tmpdir(), `pacer-analysis-shots-${process.pid}`);
const MAX_UNAVAILABLE = 1;

const MIN_AVAILABLE = REPLICAS - MAX_UNAVAILABLE;

/** `app`'s ReplicaSets; undefined before the second revision exists (the real bed's recording replays revision 1's own rollout from the start too). */
function replicaSetsOf(t: Timeline, app: string): ReplicaSet[] | undefined {
  const rss = [...t.replicaSets.values()].filter((rs) => rs.metadata.name?.startsWith(`${app}-`));
  return rss.length < 2 ? undefined : rss;
}

/** Σ over `app`'s ReplicaSets of the replicas that are both wanted and available (its status): what serves. */
function serving(t: Timeline, app: string): number | undefined {
  const rss = replicaSetsOf(t, app);
  return rss?.reduce((n, rs) => n + Math.min(rs.spec.replicas ?? 0, rs.status?.availableReplicas ?? 0), 0);
}

/** Σ over `app`'s ReplicaSets of the replicas that are both wanted and Ready, counted from the pods themselves. */
function ready(t: Timeline, app: string): number | undefined {
  const rss = replicaSetsOf(t, app);
  if (!rss) return undefined;
  let n = 0;
  for (const rs of rss) {
    const pods = t.activePods((p) => isReadyPod(p) && controllerOf(p)?.uid === rs.metadata.uid);
    n += Math.min(rs.spec.replicas ?? 0, pods.length);
  }
  return n;
}

function describeReplicaSets(t: Timeline, app: string): string {
  return (replicaSetsOf(t, app) ?? [])
    .map((rs) => `${rs.metadata.name} ${rs.spec.replicas}/${rs.status?.availableReplicas}`)
    .join(', ');
}

/**
 * The availability a rolling update promises, as two invariants of the recording.
 *
 * Pacer's own decisions: each time it scales one of `app`'s ReplicaSets down, the replicas wanted
 * and available (by the ReplicaSets' statuses as recorded at that write) stay at `replicas −
 * maxUnavailable` or more, or where they already were when below it (a scale-down of unavailable
 * replicas only takes none that serve).
 *
 * What serves once the ReplicaSet controller has picked its pods: Ready pods, at least `replicas −
 * maxUnavailable` at every change. Not available ones: when a ReplicaSet is scaled down by its
 * unavailable pods (upstream's cleanupUnhealthyReplicas, Pacer's too), the ReplicaSet controller picks
 * the pods to delete by readiness, not availability (kubernetes v1.36 pkg/controller/controller_utils.go,
 * ActivePodsWithRanks.Less, whose step 6 keeps a TODO to take minReadySeconds into account:
 * https://github.com/kubernetes/kubernetes/issues/22065), and with LogarithmicScaleDown two pods
 * Ready for a time in the same power of two (of nanoseconds) rank alike and their uids decide. At
 * minReadySeconds 3 a pod Ready for 2.5 s (not available yet) and one Ready for 3.5 s (available)
 * both fall in [2^31, 2^32) ns, about [2.1 s, 4.3 s): the controller may delete the available one,
 * and the ReplicaSet reads one available fewer until the other's 3 s are up, as it would under
 * upstream's Deployment controller. A not-Ready pod always goes before a Ready one, so (no pod here
 * turns un-Ready by itself) Ready pods never dip below what Pacer counted as available
 * (docs/semantics/kubernetes-deployments.md, "Rolling update arithmetic").
 */
function availabilityChecks(t: Timeline, app: string): void {
  t.check(`${app}'s scale-downs keep at least ${MIN_AVAILABLE} available`, (t, step) => {
    const s = t.scalings[t.scalings.length - 1];
    if (step.resource !== 'replicasets' || s?.rv !== step.rv || s.to >= s.from || !s.rs.startsWith(`${app}-`))
      return undefined;
    const after = serving(t, app);
    if (after === undefined) return undefined;
    const available = t.replicaSets.get(s.rs)?.status?.availableReplicas ?? 0;
    const before = after - Math.min(s.to, available) + Math.min(s.from, available);
    if (after >= Math.min(before, MIN_AVAILABLE)) return undefined;
    return `${s.rs} ${s.from} → ${s.to} left ${after} available of ${before} (${describeReplicaSets(t, app)})`;
  });
  t.check(`${app} keeps at least ${MIN_AVAILABLE} Ready pods`, (t) => {
    const n = ready(t, app);
    if (n === undefined || n >= MIN_AVAILABLE) return undefined;
    return `only ${n} Ready (${describeReplicaSets(t, app)})`;
  });
}

for (const bed of BEDS)
  describe(`e2e (${bed}): analysis with a real Prometheus aborts or rolls back a bad release`, function () {
    this.timeout(240_000);
    const k = kubectlEnv({
      bed,
      tmpPrefix: 'pacer-analysis-',
      // One node: the ReplicaSet controller's "doubled up on a node first" rank would otherwise pick an
      // available pod over one still inside minReadySeconds (upstream's order too), and availability
      // would dip for reasons no Deployment controller decides.
      sim: { nodes: 1, podStartMs: 100, podReadyMs: 100 },
      timeoutMs: 60_000,
    });
    const { kubectl, ok } = k;
    let endpoint: MetricsEndpoint;
    let prom: PrometheusServer;
    const errors = (app: string, ratio: number) => endpoint.setGauge('app_errors_ratio', { app }, ratio);
    const jsonpath = async (what: string, path: string) =>
      ok(kubectl('get', ...what.split(' '), '-o', `jsonpath=${path}`));

    before(async function () {
      await k.start(this);
      endpoint = await startMetricsEndpoint();
      prom = await startPrometheus(this, { targets: [endpoint.target] });
    });
    after(async () => {
      await k.stop();
      await prom?.stop();
      await endpoint?.close();
    });

    /** The template and a Deployment `app` judged by it; minReadySeconds makes each new pod take 3 s. */
    async function apply(app: string, image: string, onFailure: string, postRollout?: string): Promise<string> {
      const file = join(k.dir, `${app}.yaml`);
      await writeFile(
        file,
        `apiVersion: pacer.dev/v1alpha1
kind: AnalysisTemplate
metadata:
  name: error-ratio
spec:
  args:
    - name: app
  metrics:
    - name: errors
      interval: 1s
      failureLimit: 1
      successCondition: result[0] < 0.05
      provider:
        prometheus:
          address: ${prom.url}
          query: app_errors_ratio{app="{{args.app}}"}
---
apiVersion: pacer.dev/v1alpha1
kind: Deployment
metadata:
  name: ${app}
spec:
  replicas: ${REPLICAS}
  minReadySeconds: 3
  selector: {matchLabels: {app: ${app}}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: ${MAX_UNAVAILABLE}}}
  template:
    metadata: {labels: {app: ${app}}}
    spec: {containers: [{name: ${app}, image: "${image}"}]}
  analysis:
    templates: [{templateName: error-ratio}]
    args: [{name: app, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
    onFailure: ${onFailure}
${postRollout ? `    postRollout: ${postRollout}\n` : ''}`,
      );
      return ok(kubectl('apply', '-f', file));
    }

    /** "name=replicas" of `app`'s ReplicaSets by revision: "1=4 2=0". */
    async function sizes(app: string): Promise<string> {
      const out = await ok(
        kubectl(
          'get',
          'rs',
          '-l',
          `app=${app}`,
          '-o',
          'jsonpath={range .items[*]}{.metadata.annotations.pacer\\.dev/revision}={.spec.replicas}{"\\n"}{end}',
        ),
      );
      return out.trim().split('\n').sort().join(' ');
    }

    it('installs the CRDs and starts the controller', async () => {
      await ok(kubectl('apply', '-f', join(ROOT, 'crds')));
      await eventually('the analysis CRDs served', async () => (await kubectl('get', 'analysisruns')).code === 0);
      await k.startController();
    });

    describe('Abort: the error ratio turns bad after two new pods', () => {
      let recording: Recording;
      /** The run that aborted revision 2. */
      let aborted = '';

      it('revision 1 rolls out without analysis (nothing to compare with) and becomes the stable one', async () => {
        errors('web', 0.01);
        // Measured on for a minute after the rollout completes: a bad value that comes after a fast
        // rollout (the real bed's may finish before two failures) still aborts it.
        await apply('web', 'nginx:1', 'Abort', '60s');
        await eventually(
          'web complete with a stable revision',
          async () => (await jsonpath('pdeploy web', '{.status.stableRS}')) !== '',
          90_000,
        );
        expect(await sizes('web')).to.equal('1=4');
        expect(await ok(kubectl('get', 'analysisruns', '-o', 'name'))).to.equal('');
      });

      it('revision 2: the run starts with the first new pod; once two are available the ratio turns bad; aborted within interval × (failureLimit + 1) plus a scrape and a pass', async () => {
        recording = await k.record('default', (live) => availabilityChecks(live, 'web'));
        await ok(
          kubectl(
            'patch',
            'pdeploy',
            'web',
            '--type=merge',
            '-p',
            '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:2"}]}}}}',
          ),
        );
        const hash = await eventually(
          'the new ReplicaSet',
          async () =>
            (await jsonpath(
              'rs -l app=web',
              '{.items[?(@.spec.template.spec.containers[0].image=="nginx:2")].metadata.labels.pod-template-hash}',
            )) || false,
          30_000,
        );
        const run = `web-${hash}-1`;
        aborted = run;
        await eventually('the run started', async () => (await kubectl('get', 'analysisrun', run)).code === 0, 60_000);
        await eventually(
          'two new pods available',
          async () => Number(await jsonpath(`rs web-${hash}`, '{.status.availableReplicas}')) >= 2,
          60_000,
        );
        errors('web', 0.5);
        const badAt = Date.now();
        const cond = await eventually(
          'web aborted',
          async () => {
            const reason = await jsonpath('pdeploy web', '{.status.conditions[?(@.type=="Progressing")].reason}');
            return reason === 'AnalysisFailed' && Date.now();
          },
          60_000,
        );
        // interval 1 s × (failureLimit 1 + 1) + Prometheus' 1 s scrape + the controller's passes.
        expect(cond - badAt, 'ms from the bad value to the abort').to.be.below(10_000);
        const message = await jsonpath('pdeploy web', '{.status.conditions[?(@.type=="Progressing")].message}');
        expect(message).to.match(new RegExp(`^Analysis run ${run} failed: .*errors`));
        expect(message).to.match(/the rollout was aborted to revision 1 \(ReplicaSet "web-/);
        expect(await jsonpath(`analysisrun ${run}`, '{.status.phase}')).to.equal('Failed');
        expect(Number(await jsonpath(`analysisrun ${run}`, '{.status.metricResults[0].failed}'))).to.equal(2);
      });

      it('ends with 0 new pods and revision 1 at full size, the spec keeping the new template; availability held throughout', async () => {
        await eventually('back at revision 1', async () => (await sizes('web')) === '1=4 2=0', 90_000);
        await eventually(
          'no pod of revision 2 left',
          async () =>
            (await ok(kubectl('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].spec.containers[0].image}')))
              .split(' ')
              .every((i) => i === 'nginx:1'),
          60_000,
        );
        expect(await jsonpath('pdeploy web', '{.spec.template.spec.containers[0].image}')).to.equal('nginx:2');
        expect(await jsonpath('pdeploy web', '{.status.updatedReplicas}')).to.equal('0');
        const t = await recording.timeline();
        if (t.violations.length > 0) console.log(t.scalings.map((x) => JSON.stringify(x)).join('\n'));
        expect(t.violations).to.deep.equal([]);
        const events = await ok(
          kubectl('get', 'events', '--field-selector', 'involvedObject.name=web', '-o', 'jsonpath={.items[*].reason}'),
        );
        expect(events.split(' ')).to.include('AnalysisFailed');
      });

      it('the dashboard draws the run in chromium: a point per kept measurement, the threshold, the phase; reached from the home page', async function () {
        const chrome = requireTool(this, 'chromium', "make test installs Debian's chromium (scripts/ensure-tools.sh)");
        // The page as the sources have it now.
        await ok(k.run(NODE, [join(ROOT, 'scripts', 'build-dashboard.ts')]));
        const kubeconfig = join(k.dir, 'kubeconfig');
        const child = k.track(
          spawn(NODE, [join(ROOT, 'bin', 'kubectl-pacer.js'), 'dashboard', '--port', '0', '--kubeconfig', kubeconfig]),
        );
        let out = '';
        const url = await new Promise<string>((resolve, reject) => {
          child.stdout.on('data', (b: Buffer) => {
            out += b;
            const m = /Pacer dashboard: (http:\/\/127\.0\.0\.1:[0-9]+\/) /.exec(out);
            if (m) resolve(m[1]);
          });
          child.stderr.on('data', (b: Buffer) => (out += b));
          child.on('exit', (code) => reject(new Error(`kubectl pacer dashboard exited ${code}: ${out}`)));
        });
        const browser = await chromium.launch({ executablePath: chrome, headless: true });
        try {
          const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
          const errors: string[] = [];
          page.on('pageerror', (e) => errors.push(e.message));
          await page.goto(url);
          // The home page's "analysis failing" leads to the Deployment's runs, and on to the run.
          await page.locator('tr[data-name="web"][data-state="analysis-failing"] a[data-link-analysis]').click();
          await page.locator(`tr[data-run="${aborted}"][data-phase="Failed"] a`).click();
          const chart = page.locator('svg[data-chart="errors"]');
          await chart.waitFor();
          const kept = (await jsonpath(`analysisrun ${aborted}`, '{.status.metricResults[0].measurements[*].phase}'))
            .split(' ')
            .filter(Boolean);
          expect(kept.length, 'measurements kept').to.be.above(2);
          // The run ended before the page was opened: its status no longer changes.
          expect(await chart.locator('circle[data-measurement]').count()).to.equal(kept.length);
          expect(
            await chart
              .locator('circle[data-measurement]')
              .evaluateAll((cs) => cs.map((c) => c.getAttribute('data-measurement'))),
          ).to.deep.equal(kept);
          const threshold = chart.locator('[data-threshold="success"]');
          expect(await threshold.getAttribute('data-value')).to.equal('0.05');
          expect(await threshold.textContent()).to.equal('success: result[0] < 0.05');
          expect(await page.locator('[data-field="run-phase"]').textContent()).to.match(/^Failed/);
          expect(await page.locator('[data-field="run-message"]').textContent()).to.match(
            /^metric "errors" assessed Failed: /,
          );
          expect(await page.locator('[data-metric="errors"] [data-field="failed"]').textContent()).to.equal(
            `${await jsonpath(`analysisrun ${aborted}`, '{.status.metricResults[0].failed}')} (failureLimit 1: more fail the metric)`,
          );
          if (bed === 'sim') {
            await mkdir(SHOTS, { recursive: true });
            await page.screenshot({ path: join(SHOTS, 'analysis.png'), fullPage: true });
          }
          expect(errors, 'errors in the page').to.deep.equal([]);
        } finally {
          await browser.close();
          child.kill('SIGINT');
        }
      });
    });

    describe('Rollback and good metrics', () => {
      it('Rollback: a bad revision 2 is undone in the spec, as revision 3', async () => {
        errors('api', 0.01);
        await apply('api', 'nginx:1', 'Rollback');
        await eventually(
          'api stable',
          async () => (await jsonpath('pdeploy api', '{.status.stableRS}')) !== '',
          90_000,
        );
        errors('api', 0.9);
        await ok(
          kubectl(
            'patch',
            'pdeploy',
            'api',
            '--type=merge',
            '-p',
            '{"spec":{"template":{"spec":{"containers":[{"name":"api","image":"nginx:2"}]}}}}',
          ),
        );
        await eventually(
          'the spec rolled back',
          async () => (await jsonpath('pdeploy api', '{.spec.template.spec.containers[0].image}')) === 'nginx:1',
          90_000,
        );
        await eventually('revision 3 at full size', async () => (await sizes('api')) === '2=0 3=4', 90_000);
        const events = await ok(
          kubectl('get', 'events', '--field-selector', 'involvedObject.name=api', '-o', 'jsonpath={.items[*].reason}'),
        );
        expect(events.split(' ')).to.include('DeploymentRollback');
      });

      it('good metrics: revision 4 rolls out completely and becomes the stable one, its run ended Successful', async () => {
        errors('api', 0.01);
        const before = await jsonpath('pdeploy api', '{.status.stableRS}');
        await ok(
          kubectl(
            'patch',
            'pdeploy',
            'api',
            '--type=merge',
            '-p',
            '{"spec":{"template":{"spec":{"containers":[{"name":"api","image":"nginx:3"}]}}}}',
          ),
        );
        await eventually(
          'a new stable revision',
          async () => {
            const now = await jsonpath('pdeploy api', '{.status.stableRS}');
            return now !== before && now !== '';
          },
          120_000,
        );
        const stable = await jsonpath('pdeploy api', '{.status.stableRS}');
        expect(await jsonpath(`analysisrun api-${stable}-1`, '{.status.phase}')).to.equal('Successful');
        expect(await sizes('api')).to.equal('2=0 3=0 4=4');
      });
    });
  });
