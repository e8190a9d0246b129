// Analysis across plans, on both beds, through the real kubectl and a real Prometheus:
// * at the canary steps of the deploy plan (docs/semantics/analysis.md#canary-steps): a
//   serial-canary Deployment whose canary steps are continued by Successful runs rolls out
//   completely with no operator command; with the error ratio bad, the second canary step's run
//   fails and the rollout stops there (never more than one new pod) and goes back;
// * across apps joined by spec.dependencies (docs/semantics/analysis.md#apps-that-depend-on-each-other):
//   db ← app, app's analysis fails after db completed: both go back to their stable revisions, app
//   first, each with an Event.

import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReplicaSet } from '../../src/api/types.ts';
import { eventually } from '../integration/fixtures/cluster.ts';
import { startMetricsEndpoint, startPrometheus, waitForValue } from '../fixtures/prometheus-server.ts';
import type { MetricsEndpoint, PrometheusServer } from '../fixtures/prometheus-server.ts';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';
import type { Recording } from './fixtures.ts';

const REPLICAS = 4;
const CANARY_STEPS = 3;

for (const bed of BEDS)
  describe(`e2e (${bed}): analysis across plans: canary steps, and apps that depend on each other`, function () {
    this.timeout(240_000);
    const k = kubectlEnv({
      bed,
      tmpPrefix: 'pacer-analysis-plans-',
      sim: { nodes: 1, podStartMs: 100, podReadyMs: 100 },
      timeoutMs: 60_000,
    });
    const { kubectl, ok } = k;
    let endpoint: MetricsEndpoint;
    let prom: PrometheusServer;
    const errors = (ratio: number, app = 'shop') => endpoint.setGauge('app_errors_ratio', { app }, ratio);
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

    async function apply(image: string): Promise<string> {
      const file = join(k.dir, 'shop.yaml');
      await writeFile(
        file,
        `apiVersion: pacer.dev/v1alpha1
kind: AnalysisTemplate
metadata:
  name: canary-errors
spec:
  args:
    - name: app
  metrics:
    - name: errors
      interval: 1s
      count: 2
      successCondition: result[0] < 0.05
      provider:
        prometheus:
          address: ${prom.url}
          query: app_errors_ratio{app="{{args.app}}"}
---
apiVersion: pacer.dev/v1alpha1
kind: Deployment
metadata:
  name: shop
spec:
  replicas: ${REPLICAS}
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec: {containers: [{name: shop, image: "${image}"}]}
  plan: {strategy: serial-canary, requiredProceeds: ${CANARY_STEPS}}
  analysis:
    templates: []
    canarySteps: {templates: [{templateName: canary-errors}]}
    args: [{name: app, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
`,
      );
      return ok(kubectl('apply', '-f', file));
    }

    /** The reasons and messages of shop's PlanContinue Events, oldest first. */
    async function continues(): Promise<string[]> {
      const out = await ok(
        kubectl(
          'get',
          'events',
          '--field-selector',
          'involvedObject.name=shop,reason=PlanContinue',
          '--sort-by',
          '.metadata.creationTimestamp',
          '-o',
          'jsonpath={range .items[*]}{.message}{"\\n"}{end}',
        ),
      );
      return out.trim() === '' ? [] : out.trim().split('\n');
    }

    it('installs the CRDs and starts the controller', async () => {
      await ok(kubectl('apply', '-f', join(ROOT, 'crds')));
      await eventually('the analysis CRDs served', async () => (await kubectl('get', 'analysisruns')).code === 0);
      await k.startController();
    });

    it('good metrics: revision 1 passes its canary steps with no operator command and completes', async () => {
      errors(0.01);
      await waitForValue(prom, 'app_errors_ratio{app="shop"}', (r) => r[0]?.value?.[1] === '0.01');
      await apply('nginx:1');
      await eventually(
        'shop complete with a stable revision',
        async () => (await jsonpath('pdeploy shop', '{.status.stableRS}')) !== '',
        120_000,
      );
      const hash = await jsonpath('pdeploy shop', '{.status.stableRS}');
      expect(await jsonpath('pdeploy shop', '{.status.availableReplicas}')).to.equal(String(REPLICAS));
      const runs = await ok(
        kubectl(
          'get',
          'analysisruns',
          '-l',
          `pacer.dev/pod-template-hash=${hash}`,
          '-o',
          'jsonpath={range .items[*]}{.metadata.name}={.status.phase}{"\\n"}{end}',
        ),
      );
      expect(runs.trim().split('\n').sort()).to.deep.equal([
        `shop-${hash}-step2-1=Successful`,
        `shop-${hash}-step3-1=Successful`,
      ]);
      expect(await continues()).to.deep.equal([
        `canary step 2 of ${CANARY_STEPS} continues: analysis run shop-${hash}-step2-1 was successful`,
        `canary step 3 of ${CANARY_STEPS} continues: analysis run shop-${hash}-step3-1 was successful`,
      ]);
      // The phase state the analysis wrote is the one `kubectl pacer plan continue` writes.
      const state = JSON.parse(await jsonpath('pdeploy shop', "{.metadata.annotations['pacer\\.dev/plan-state']}"));
      expect(state).to.include({ revision: 1, proceeds: CANARY_STEPS });
    });

    it('a bad metric at the second canary step stops revision 2 there (never a second new pod) and goes back', async () => {
      const recording: Recording = await k.record('default', (live) =>
        live.check('revision 2 never has more than one pod wanted', (t) => {
          const rs = [...(t.replicaSets.values() as Iterable<ReplicaSet>)].find(
            (x) => x.metadata.annotations?.['pacer.dev/revision'] === '2',
          );
          return (rs?.spec.replicas ?? 0) > 1 ? `${rs?.metadata.name} wants ${rs?.spec.replicas}` : undefined;
        }),
      );
      errors(0.5);
      await waitForValue(prom, 'app_errors_ratio{app="shop"}', (r) => r[0]?.value?.[1] === '0.5');
      await apply('nginx:2');
      const hash = await eventually(
        'the new ReplicaSet',
        async () =>
          (await jsonpath(
            'rs -l app=shop',
            '{.items[?(@.spec.template.spec.containers[0].image=="nginx:2")].metadata.labels.pod-template-hash}',
          )) || false,
        30_000,
      );
      const message = await eventually(
        'shop aborted',
        async () => {
          const reason = await jsonpath('pdeploy shop', '{.status.conditions[?(@.type=="Progressing")].reason}');
          return (
            reason === 'AnalysisFailed' &&
            (await jsonpath('pdeploy shop', '{.status.conditions[?(@.type=="Progressing")].message}'))
          );
        },
        90_000,
      );
      expect(message).to.match(
        new RegExp(`^Analysis run shop-${hash}-step2-1 of canary step 2 of ${CANARY_STEPS} failed: .*errors`),
      );
      expect(message).to.match(/the rollout was aborted to revision 1 \(ReplicaSet "shop-/);
      await eventually(
        'no pod of revision 2 wanted',
        async () => (await jsonpath(`rs shop-${hash}`, '{.spec.replicas}')) === '0',
        60_000,
      );
      await eventually(
        'revision 1 available at full size',
        async () => (await jsonpath('pdeploy shop', '{.status.availableReplicas}')) === String(REPLICAS),
        60_000,
      );
      const t = await recording.timeline();
      expect(t.violations).to.deep.equal([]);
    });
    describe('db ← app: app fails its analysis after db completed', () => {
      /** db, and app which depends on it, each judged by its own error ratio. */
      async function applyBoth(image: string): Promise<void> {
        const file = join(k.dir, 'db-app.yaml');
        const one = (name: string, deps: string) => `apiVersion: pacer.dev/v1alpha1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 2
  minReadySeconds: 2
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: ${name}, image: "${image}"}]}
${deps}  analysis:
    templates: [{templateName: error-ratio}]
    args: [{name: app, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
`;
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
${one('db', '')}---
${one('app', '  dependencies: [db]\n')}`,
        );
        await ok(kubectl('apply', '-f', file));
      }

      /** "revision=replicas" of `app`'s ReplicaSets: "1=2 2=0". */
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

      it('revision 1 of both completes and is stable', async () => {
        errors(0.01, 'db');
        errors(0.01, 'app');
        await applyBoth('nginx:1');
        for (const name of ['db', 'app'])
          await eventually(
            `${name} stable`,
            async () => (await jsonpath(`pdeploy ${name}`, '{.status.stableRS}')) !== '',
            90_000,
          );
      });

      it("revision 2: db completes (not yet stable while app rolls out); app's analysis fails; app goes back, then db", async () => {
        const recording = await k.record('default', () => {});
        const dbStable = await jsonpath('pdeploy db', '{.status.stableRS}');
        errors(0.5, 'app');
        await waitForValue(prom, 'app_errors_ratio{app="app"}', (r) => r[0]?.value?.[1] === '0.5');
        await applyBoth('nginx:2');
        for (const name of ['app', 'db'])
          await eventually(
            `${name} aborted`,
            async () =>
              (await jsonpath(`pdeploy ${name}`, '{.status.conditions[?(@.type=="Progressing")].reason}')) ===
              'AnalysisFailed',
            120_000,
          );
        expect(await jsonpath('pdeploy db', '{.status.conditions[?(@.type=="Progressing")].message}')).to.match(
          /^Deployment default\/app, which depends on db, failed its analysis and went back to its stable revision; the rollout was aborted to revision 1 \(ReplicaSet "db-/,
        );
        for (const name of ['app', 'db'])
          await eventually(`${name} back at revision 1`, async () => (await sizes(name)) === '1=2 2=0', 90_000);
        // db's revision 2 completed but never became the stable one; both specs keep nginx:2 (Abort).
        expect(await jsonpath('pdeploy db', '{.status.stableRS}')).to.equal(dbStable);
        expect(await jsonpath('pdeploy db', '{.spec.template.spec.containers[0].image}')).to.equal('nginx:2');
        const t = await recording.timeline();
        const revision2 = (app: string) =>
          [...t.replicaSets.values()].find(
            (rs) => rs.metadata.name?.startsWith(`${app}-`) && rs.metadata.annotations?.['pacer.dev/revision'] === '2',
          )?.metadata.name;
        const appBack = t.scalings.findIndex((x) => x.rs === revision2('app') && x.to === 0 && x.from > 0);
        const dbBack = t.scalings.findIndex((x) => x.rs === revision2('db') && x.to < x.from);
        const dbCompleted = t.scalings.findIndex((x) => x.rs === revision2('db') && x.to === 2);
        expect(dbCompleted, 'db reached revision 2 in full').to.be.at.least(0);
        expect(appBack, 'app went back').to.be.greaterThan(dbCompleted);
        expect(dbBack, 'db went back after app').to.be.greaterThan(appBack);
        for (const name of ['app', 'db']) {
          const events = await ok(
            kubectl(
              'get',
              'events',
              '--field-selector',
              `involvedObject.name=${name},reason=AnalysisFailed`,
              '-o',
              'jsonpath={.items[*].type}',
            ),
          );
          expect(events.split(' '), `${name}'s Events`).to.include('Warning');
        }
      });
    });
  });
