// Native mode's tools with the real kubectl, on each bed, Pacer controlling apps/v1 Deployments
// (on the real control plane kube-controller-manager runs without its Deployment controller):
// * the native admission webhook (docs/native.md#the-webhook): `kubectl apply` of an apps/v1
//   Deployment with pacer.dev/minimum-health-capacity "half" is refused with the annotation, the
//   value and the reason, and nothing is stored; a valid one and a plain one are admitted; on the
//   real control plane a plain Deployment never reaches the webhook (its match condition);
// * `kubectl pacer` on `deployment.apps/NAME` (docs/plugin.md#native-deployments): rollout
//   status, history, undo, pause, resume, restart, set image and get, in kubectl's words, agreeing
//   with the real kubectl's own rollout history.

import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { nativeWebhookConfiguration } from '../../src/server/webhook.ts';
import { eventually } from '../integration/fixtures/cluster.ts';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';

const deployment = (name: string, annotations: Record<string, string>, replicas = 2) =>
  JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'native', annotations },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'nginx:1' }] } },
    },
  });

for (const bed of BEDS)
  describe(`e2e (${bed}): native mode's webhook and kubectl pacer on apps/v1 Deployments`, function () {
    this.timeout(120_000);
    const k = kubectlEnv({
      bed,
      tmpPrefix: 'pacer-native-tools-',
      plugin: true,
      noDeploymentController: true,
      sim: { podStartMs: 30, podReadyMs: 60 },
    });
    const { kubectl, ok } = k;
    const n = ['-n', 'native'];
    /** `kubectl apply` (or `verb`) of `text`, written to the temp dir as `file`. */
    const apply = async (file: string, text: string, verb = 'apply') => {
      await writeFile(join(k.dir, file), text);
      return kubectl(verb, '-f', join(k.dir, file));
    };
    const jsonpath = (name: string, path: string) =>
      ok(kubectl('get', ...n, 'deployment.apps', name, '-o', `jsonpath=${path}`));

    before(async function () {
      this.timeout(300_000);
      await k.start(this);
      if (k.bed === 'real' && !k.real.info.webhookCertDir) {
        console.log(
          '      skipped: the webhook needs kube-bed (a cluster given by PACER_E2E_KUBECONFIG has no webhook certificate)',
        );
        this.skip();
      }
      await ok(kubectl('apply', '-f', join(ROOT, 'crds')));
      if (k.bed === 'real') {
        // Pacer's ServiceAccount and base role first: the native grants bind to them.
        await k.real.controllerKubeconfig();
        await ok(kubectl('apply', '-f', join(ROOT, 'manifests', 'native', 'rbac', 'rbac.yaml')));
      }
      // The start-up check's probe goes in Pacer's namespace.
      await k.createNamespace('pacer-system');
      await k.createNamespace('native');
      await eventually('the CRD served', async () => (await kubectl('get', 'pdeploy', '-A')).code === 0, 30_000);
      const controller = await k.startController({
        deployments: ['pacer', 'apps'],
        leaderElectionNamespace: 'pacer-system',
        webhookBindAddress: '127.0.0.1:0',
      });
      expect(controller.apps, 'native mode started').to.not.equal(undefined);
      await k.registerWebhook(controller, nativeWebhookConfiguration);
    });
    after(() => k.stop());

    it('pacer.dev/minimum-health-capacity "half": refused at apply time with the annotation, the value and why; nothing stored', async () => {
      const r = await apply('half.json', deployment('half', { 'pacer.dev/minimum-health-capacity': 'half' }));
      expect(r.code).to.equal(1);
      expect(r.stdout).to.equal('');
      // kubectl prints the webhook's Invalid status from its causes, as it prints the API server's own.
      expect(r.stderr).to.equal(
        'The Deployment "half" is invalid: metadata.annotations[pacer.dev/minimum-health-capacity]: Invalid value: "half": must be a number between 0.0 and 1.0\n',
      );
      const got = await kubectl('get', ...n, 'deployment.apps', 'half');
      expect(got.stderr).to.match(/NotFound/);
    });

    it('a valid value and a plain Deployment are admitted; a bad value added later is refused', async () => {
      expect(
        await ok(apply('good.json', deployment('good', { 'pacer.dev/minimum-health-capacity': '0.5' }, 4))),
      ).to.equal('deployment.apps/good created\n');
      expect(await ok(apply('plain.json', deployment('plain', {})))).to.equal('deployment.apps/plain created\n');
      const r = await kubectl('annotate', ...n, 'deployment.apps', 'plain', 'pacer.dev/plan-strategy=zigzag');
      expect(r.code).to.equal(1);
      expect(r.stderr).to.equal(
        'The Deployment "plain" is invalid: metadata.annotations[pacer.dev/plan-strategy]: Unsupported value: "zigzag": supported values: "serial", "parallel", "serial-canary", "parallel-canary"\n',
      );
      expect(
        await jsonpath('plain', "{.metadata.annotations['pacer\\.dev/plan-strategy']}"),
        'nothing stored',
      ).to.equal('');
      await eventually(
        'good rolled out by Pacer',
        async () => (await jsonpath('good', '{.status.updatedReplicas}/{.status.availableReplicas}')) === '4/4',
        60_000,
      );
    });

    it('only Deployments with Pacer annotations reach the webhook (its match condition; the real control plane)', async function () {
      if (k.bed !== 'real') {
        console.log('      skipped: the simulated cluster ignores match conditions (rules alone decide there)');
        this.skip();
      }
      // The same rules and condition, sent nowhere, failing closed: only what it matches is refused.
      const config = nativeWebhookConfiguration('https://127.0.0.1:1');
      config.metadata.name = 'pacer-native-unreachable';
      (config.webhooks[0] as { failurePolicy: string }).failurePolicy = 'Fail';
      await ok(apply('unreachable.json', JSON.stringify(config)));
      try {
        await eventually(
          'the configuration in effect',
          async () => (await apply('mh.json', deployment('mh', { 'pacer.dev/plan-strategy': 'serial' }))).code === 1,
          30_000,
        );
        expect(await ok(apply('plain2.json', deployment('plain2', { team: 'shop' })))).to.equal(
          'deployment.apps/plain2 created\n',
        );
      } finally {
        await ok(kubectl('delete', 'validatingwebhookconfiguration', 'pacer-native-unreachable'));
      }
    });

    it('kubectl pacer rollout status|history|undo|pause|resume|restart and set image on deployment.apps/web', async () => {
      const web = 'deployment.apps/web';
      const pacer = (...args: string[]) => kubectl('pacer', ...args, ...n);
      const status = async () => {
        const out = await ok(pacer('rollout', 'status', web, '--timeout=90s'));
        expect(out).to.match(/deployment "web" successfully rolled out\n$/);
      };
      // Created, not applied: an undo of an applied one warns about its last-applied configuration (as kubectl's does).
      await ok(apply('web.json', deployment('web', {}, 3), 'create'));
      await status();
      await ok(kubectl('set', 'image', ...n, 'deployment/web', 'app=nginx:2'));
      await status();
      expect(await ok(pacer('rollout', 'history', web))).to.equal(
        'deployment.apps/web \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n',
      );
      expect(await ok(pacer('rollout', 'history', web, '--revision=1'))).to.match(
        /^deployment\.apps\/web with revision #1\nPod Template:\n[\s\S]*Image:\s+nginx:1\n/,
      );

      expect(await ok(pacer('rollout', 'undo', web))).to.equal('deployment.apps/web rolled back\n');
      await status();
      expect(await jsonpath('web', '{.spec.template.spec.containers[0].image}')).to.equal('nginx:1');
      expect(await jsonpath('web', "{.metadata.annotations['deployment\\.kubernetes\\.io/revision']}")).to.equal('3');

      expect(await ok(pacer('rollout', 'pause', 'deploy.apps/web'))).to.equal('deployment.apps/web paused\n');
      const again = await pacer('rollout', 'pause', web);
      expect([again.code, again.stderr]).to.deep.equal([1, 'error: deployments.apps "web" is already paused\n']);
      expect(await jsonpath('web', '{.spec.paused}')).to.equal('true');
      expect(await ok(pacer('set', 'image', web, 'app=nginx:3'))).to.equal('deployment.apps/web image updated\n');
      expect(await ok(pacer('rollout', 'resume', web))).to.equal('deployment.apps/web resumed\n');
      await status();
      expect(await ok(pacer('rollout', 'restart', web))).to.equal('deployment.apps/web restarted\n');
      await status();

      // The real kubectl reads the same history.
      const theirs = (await ok(kubectl('rollout', 'history', ...n, 'deployment/web'))).split('\n').slice(2);
      expect(theirs.filter((l) => l.trim() !== '').map((l) => l.trim().split(/\s+/)[0])).to.deep.equal([
        '2',
        '3',
        '4',
        '5',
      ]);
      const ours = (await ok(pacer('rollout', 'history', web))).split('\n').slice(2);
      expect(ours.filter((l) => l.trim() !== '').map((l) => l.trim().split(/\s+/)[0])).to.deep.equal([
        '2',
        '3',
        '4',
        '5',
      ]);
    });

    it("kubectl pacer get deployment.apps/good: the tree, the annotation's strategy, upstream's revisions", async () => {
      const out = await ok(kubectl('pacer', 'get', 'deployment.apps/good', ...n));
      const lines = out.split('\n');
      expect(lines.find((l) => l.startsWith('Status:'))).to.match(/^Status:\s+✔ Healthy$/);
      expect(lines.find((l) => l.startsWith('Strategy:'))).to.match(/^Strategy:\s+MinimumHealth$/);
      expect(lines.filter((l) => /revision:/.test(l)).map((l) => l.replace(/^\W+/, '').trim())).to.deep.equal([
        'revision:1',
      ]);
    });

    it('a bare deployment/NAME is refused as ambiguous; a missing one is NotFound in deployments.apps', async () => {
      const ambiguous = await kubectl('pacer', 'rollout', 'status', 'deployment/web', ...n);
      expect(ambiguous.code).to.equal(1);
      expect(ambiguous.stderr).to.match(/^error: "deployment\/web" is ambiguous here: .*write deployment\.apps\/web/);
      const missing = await kubectl('pacer', 'rollout', 'status', 'deployment.apps/nope', ...n);
      expect([missing.code, missing.stderr]).to.deep.equal([
        1,
        'Error from server (NotFound): deployments.apps "nope" not found\n',
      ]);
    });
  });
