// `helm install` of charts/pacer on the real control plane (real bed only), with the real Helm
// (hack/helm): the chart's CRDs, ServiceAccount, RBAC and controller Deployment are created in
// pacer-system (the Deployment's pods are kwok's, so the image is never pulled), then the controller
// runs in-process against the bed as the chart's ServiceAccount, with a token of it, and a Pacer
// Deployment rolls out and rolls to a new image. The audit log must show no request of that
// ServiceAccount forbidden: the chart's RBAC is enough (kubectlEnv's stop checks it). Then an upgrade
// to the self-signed webhook certificate, kept across the next upgrade, and the uninstall.

import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { runController } from '../../src/cli/controller.ts';
import type { RunningController } from '../../src/cli/controller.ts';
import { silentLogger } from '../../src/observe/logger.ts';
import { HELM_HOW, requireTool } from '../fixtures/tools.ts';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';

const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const PLUGIN = join(ROOT, 'src', 'cli', 'kubectl-pacer.ts');

for (const bed of BEDS.filter((b) => b === 'real'))
  describe(`e2e (${bed}): helm install charts/pacer, then the controller as the chart's ServiceAccount`, function () {
    this.timeout(240_000);
    const k = kubectlEnv({
      bed,
      tmpPrefix: 'pacer-helm-',
      timeoutMs: 180_000,
      sim: { podStartMs: 50, podReadyMs: 80 },
    });
    let helm = '';
    let ctl: RunningController | undefined;
    /** Helm with its own cache and config in the test's dir, against the bed as its admin. */
    const helmRun = (...args: string[]) =>
      k.run('env', [
        `HELM_CACHE_HOME=${join(k.dir, 'helm', 'cache')}`,
        `HELM_CONFIG_HOME=${join(k.dir, 'helm', 'config')}`,
        `HELM_DATA_HOME=${join(k.dir, 'helm', 'data')}`,
        helm,
        '--kubeconfig',
        join(k.dir, 'kubeconfig'),
        ...args,
      ]);
    const pacer = (...a: string[]) => k.run(NODE, [PLUGIN, '--kubeconfig', join(k.dir, 'kubeconfig'), ...a]);

    before(function () {
      helm = requireTool(this, 'helm', HELM_HOW);
      return k.start(this);
    });
    after(async () => {
      await ctl?.stop();
      await k.stop();
    });

    it('helm install --create-namespace --wait: the release is deployed', async () => {
      const r = await helmRun(
        'install',
        'pacer',
        join(ROOT, 'charts', 'pacer'),
        '--namespace',
        'pacer-system',
        '--create-namespace',
        '--wait',
        '--timeout',
        '150s',
      );
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.contain('STATUS: deployed');
      const list = await helmRun('list', '--namespace', 'pacer-system', '-o', 'json');
      expect(
        JSON.parse(list.stdout).map((x: { name: string; status: string }) => `${x.name} ${x.status}`),
      ).to.deep.equal(['pacer deployed']);
    });

    it("the chart's objects are in the cluster: CRDs, ServiceAccount, RBAC, the controller Deployment available", async () => {
      const crds = await k.ok(k.kubectl('get', 'crd', '-o', 'name'));
      for (const crd of [
        'deployments',
        'plans',
        'noderolls',
        'analysistemplates',
        'clusteranalysistemplates',
        'analysisruns',
      ])
        expect(crds).to.contain(`customresourcedefinition.apiextensions.k8s.io/${crd}.pacer.dev`);
      const objs = await k.ok(
        k.kubectl(
          'get',
          '-n',
          'pacer-system',
          'serviceaccount/pacer-controller',
          'role/pacer-controller',
          'rolebinding/pacer-controller',
          'clusterrole/pacer-controller',
          'clusterrolebinding/pacer-controller',
          'service/pacer-controller-metrics',
          'poddisruptionbudget/pacer-controller',
          'networkpolicy/pacer-controller',
          '-o',
          'name',
        ),
      );
      expect(objs.trim().split('\n')).to.have.length(8);
      const d = JSON.parse(
        await k.ok(k.kubectl('get', '-n', 'pacer-system', 'deployment/pacer-controller', '-o', 'json')),
      );
      expect(d.metadata.labels['app.kubernetes.io/managed-by']).to.equal('Helm');
      expect(d.status.availableReplicas).to.equal(2);
      // RBAC as the API server decides it for the chart's ServiceAccount.
      const sa = 'system:serviceaccount:pacer-system:pacer-controller';
      for (const [want, ...args] of [
        ['yes', 'create', 'replicasets.apps', '-n', 'default'],
        ['yes', 'update', 'deployments.pacer.dev', '--subresource=status', '-n', 'default'],
        ['no', 'update', 'deployments.pacer.dev', '-n', 'default'],
        ['yes', 'update', 'leases.coordination.k8s.io', '-n', 'pacer-system'],
        ['no', 'update', 'leases.coordination.k8s.io', '-n', 'default'],
      ]) {
        const r = await k.kubectl('auth', 'can-i', ...args, '--as', sa);
        expect(r.stdout.trim(), `can-i ${args.join(' ')}`).to.equal(want);
      }
    });

    it("the controller runs as the chart's ServiceAccount (a token of it) and a Deployment rolls out", async () => {
      const token = (
        await k.ok(k.kubectl('create', 'token', 'pacer-controller', '-n', 'pacer-system', '--duration=1h'))
      ).trim();
      const ca = await readFile(k.real.info.ca);
      const kubeconfigText = stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'pacer',
        clusters: [
          { name: 'bed', cluster: { server: k.real.info.server, 'certificate-authority-data': ca.toString('base64') } },
        ],
        users: [{ name: 'pacer-controller', user: { token } }],
        contexts: [{ name: 'pacer', context: { cluster: 'bed', user: 'pacer-controller', namespace: 'default' } }],
      });
      ctl = await runController({
        kubeconfigText,
        metricsBindAddress: '0',
        healthProbeBindAddress: '0',
        apiBindAddress: '0',
        webhookBindAddress: '0',
        logger: silentLogger(),
      });
      const web = await k.editedExample('rolling-web.yaml', [['minReadySeconds: 5', 'minReadySeconds: 0']]);
      expect(await k.ok(k.kubectl('apply', '-f', web))).to.equal('deployment.pacer.dev/web created\n');
      const first = await pacer('rollout', 'status', 'web', '--timeout=150s');
      expect(first.stderr).to.equal('');
      expect(first.stdout).to.contain('deployment "web" successfully rolled out');
      await k.ok(
        k.kubectl(
          'patch',
          'deployments.pacer.dev/web',
          '--type=merge',
          '-p',
          '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}',
        ),
      );
      const second = await pacer('rollout', 'status', 'web', '--timeout=150s');
      expect(second.stdout).to.contain('deployment "web" successfully rolled out');
      const rs = JSON.parse(await k.ok(k.kubectl('get', 'replicasets', '-n', 'default', '-o', 'json'))) as {
        items: Array<{ spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } } }>;
      };
      expect(
        rs.items.map((r) => `${r.spec.template.spec.containers[0].image} ${r.spec.replicas}`).sort(),
      ).to.deep.equal(['nginx:1.27 0', 'nginx:1.28 3']);
    });

    it('helm upgrade to the self-signed webhook: a CA in the Secret and the configuration, kept by the next upgrade', async () => {
      await ctl?.stop();
      ctl = undefined;
      const chart = join(ROOT, 'charts', 'pacer');
      const caOf = async () => {
        const secret = JSON.parse(
          await k.ok(k.kubectl('get', '-n', 'pacer-system', 'secret/pacer-webhook-tls', '-o', 'json')),
        );
        const vwc = JSON.parse(
          await k.ok(k.kubectl('get', 'validatingwebhookconfiguration/pacer-locks', '-o', 'json')),
        );
        return {
          secret: secret.data['ca.crt'] as string,
          bundles: vwc.webhooks.map((w: { clientConfig: { caBundle: string } }) => w.clientConfig.caBundle),
        };
      };
      const up = await helmRun(
        'upgrade',
        'pacer',
        chart,
        '--namespace',
        'pacer-system',
        '--set',
        'webhook.enabled=true,webhook.certificate=self-signed',
      );
      expect(up.code, up.stderr).to.equal(0);
      const first = await caOf();
      expect(first.secret).to.match(/^[A-Za-z0-9+/=]{100,}$/);
      expect(first.bundles).to.deep.equal([first.secret, first.secret]);
      // Helm's lookup finds the Secret: the next upgrade keeps the CA the API server trusts.
      const again = await helmRun('upgrade', 'pacer', chart, '--namespace', 'pacer-system', '--reuse-values');
      expect(again.code, again.stderr).to.equal(0);
      expect(await caOf()).to.deep.equal(first);
    });

    it('helm uninstall removes the release and its RBAC, and keeps the CRDs (as Helm keeps crds/)', async () => {
      const r = await helmRun('uninstall', 'pacer', '--namespace', 'pacer-system', '--wait');
      expect(r.code, r.stderr).to.equal(0);
      const gone = await k.kubectl('get', 'clusterrole/pacer-controller');
      expect(gone.stderr).to.contain('NotFound');
      expect(await k.ok(k.kubectl('get', 'crd', 'deployments.pacer.dev', '-o', 'name'))).to.equal(
        'customresourcedefinition.apiextensions.k8s.io/deployments.pacer.dev\n',
      );
    });
  });
