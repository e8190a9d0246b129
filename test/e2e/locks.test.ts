// The deployment lock with the real kubectl against each test bed, whose API server calls the
// in-process controller's validating webhook (plain HTTP on the simulated cluster, as `pacer up`
// registers it; HTTPS with the bed's CA bundle on the real control plane): db ← app upgraded
// together (examples/dependencies.yaml); `kubectl apply` of a further change to app prints the
// webhook's Conflict and exits 1 with nothing stored; the same change with pacer.dev/force: "true"
// is applied; `kubectl pacer deployment cancel ID` then asks the controller to roll both back.

import { expect } from 'chai';
import { join } from 'node:path';
import type { DeploymentPlan } from '../../src/engine/marathon/deploymentplans.ts';
import { eventually } from '../integration/fixtures/cluster.ts';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';
import type { Edit } from './fixtures.ts';

for (const bed of BEDS)
  describe(`e2e (${bed}): kubectl apply meets the deployment lock (db ← app)`, function () {
    this.timeout(60_000);
    const k = kubectlEnv({ bed, tmpPrefix: 'pacer-locks-', plugin: true, sim: { podStartMs: 30, podReadyMs: 60 } });
    const { kubectl, ok } = k;
    const manifest = (name: string, edits: Edit[]) => k.editedExample('dependencies.yaml', edits, name);
    const jsonpath = (what: string, path: string) => ok(kubectl('get', 'pdeploy', what, '-o', `jsonpath=${path}`));
    // db's new pods count as available only after 20 s: the deployment lasts.
    const upgrade: Edit[] = [
      [/replicas: 2\n/, 'replicas: 2\n  minReadySeconds: 20\n'],
      [/postgres:17/, 'postgres:17.1'],
      [/nginx:1\.27/, 'nginx:1.28'],
    ];

    before(async function () {
      await k.start(this);
      if (k.bed === 'real' && !k.real.info.webhookCertDir) {
        // A cluster given by kubeconfig: its API server may not reach 127.0.0.1 here, and no
        // certificate its CA bundle trusts is at hand (kube-bed makes one).
        console.log(
          '      skipped: the webhook needs kube-bed (a cluster given by PACER_E2E_KUBECONFIG has no webhook certificate)',
        );
        this.skip();
      }
    });
    after(() => k.stop());

    it('installs the CRD, the controller with its webhook, and the webhook configuration', async () => {
      await ok(kubectl('apply', '-f', join(ROOT, 'crds')));
      await eventually('the CRD to be served', async () => (await kubectl('get', 'pdeploy')).code === 0);
      const controller = await k.startController({ webhookBindAddress: '127.0.0.1:0' });
      await k.registerWebhook(controller);
      expect(await ok(kubectl('get', 'validatingwebhookconfigurations', '-o', 'name'))).to.equal(
        'validatingwebhookconfiguration.admissionregistration.k8s.io/pacer-locks\n',
      );
    });

    it('a further change to app while db ← app upgrade: Conflict from the webhook, exit 1, nothing stored', async () => {
      await ok(kubectl('apply', '-f', await manifest('v1.yaml', [])));
      await eventually(
        'both to be available',
        async () =>
          (await jsonpath('app', '{.status.availableReplicas}')) === '3' &&
          (await jsonpath('db', '{.status.availableReplicas}')) === '2',
        40_000,
      );
      expect(await ok(kubectl('apply', '-f', await manifest('v2.yaml', upgrade)))).to.equal(
        'deployment.pacer.dev/db configured\ndeployment.pacer.dev/app configured\n',
      );
      await eventually(
        'app to wait for db',
        async () => (await jsonpath('app', '{.status.conditions[?(@.type=="DependenciesReady")].status}')) === 'False',
      );

      const further = await manifest('v3.yaml', [...upgrade.slice(0, 2), [/nginx:1\.27/, 'nginx:1.29']]);
      const r = await kubectl('apply', '-f', further);
      expect(r.code).to.equal(1);
      expect(r.stdout).to.equal('deployment.pacer.dev/db unchanged\n');
      expect(r.stderr).to.match(/^Error from server \(Conflict\): error when applying patch:\n/);
      expect(r.stderr).to.match(
        /admission webhook "locks\.pacer\.dev" denied the request: App is locked by one or more deployments\. Override with the annotation pacer\.dev\/force: "true"\. View details at '\/v2\/deployments\/[0-9a-f-]{36}'\.\n$/,
      );
      expect(await jsonpath('app', '{.spec.template.spec.containers[0].image}'), 'nothing stored').to.equal(
        'nginx:1.28',
      );
    });

    it('the same change with pacer.dev/force: "true" is applied, and the annotation is consumed', async () => {
      const forced = await manifest('v3-forced.yaml', [
        ...upgrade.slice(0, 2),
        [/nginx:1\.27/, 'nginx:1.29'],
        [/name: app\n/, 'name: app\n  annotations:\n    pacer.dev/force: "true"\n'],
      ]);
      expect(await ok(kubectl('apply', '-f', forced))).to.equal(
        'deployment.pacer.dev/db unchanged\ndeployment.pacer.dev/app configured\n',
      );
      expect(await jsonpath('app', '{.spec.template.spec.containers[0].image}')).to.equal('nginx:1.29');
      await eventually(
        'the force annotation to be consumed',
        async () => (await jsonpath('app', '{.metadata.annotations.pacer\\.dev/force}')) === '',
      );
      expect(await jsonpath('db', '{.metadata.annotations.pacer\\.dev/cancelled-deployment}')).to.match(
        /^[0-9a-f-]{36}$/,
      );
    });

    it('kubectl annotate with a malformed cancel request: refused by the webhook with the field path, nothing stored', async () => {
      const r = await kubectl('annotate', 'pdeploy', 'app', 'pacer.dev/cancel-request=undo');
      expect(r.code).to.equal(1);
      expect(r.stderr).to.match(
        /admission webhook "locks\.pacer\.dev" denied the request: metadata\.annotations\[pacer\.dev\/cancel-request\]: Invalid value: "undo": must be "rollback:<id>" or "stop:<id>"/,
      );
      expect(await jsonpath('app', '{.metadata.annotations.pacer\\.dev/cancel-request}'), 'nothing stored').to.equal(
        '',
      );
    });

    it('deployment cancel ID: the controller rolls every app back to the revision it had before', async () => {
      // A fresh db ← app in its own namespace, upgraded together; cancelled while app waits for db.
      const n = ['-n', 'cancel'];
      await k.createNamespace('cancel');
      await ok(kubectl('apply', ...n, '-f', join(k.dir, 'v1.yaml')));
      const get = (what: string, path: string) => ok(kubectl('get', ...n, 'pdeploy', what, '-o', `jsonpath=${path}`));
      await eventually(
        'both to be available',
        async () =>
          (await get('app', '{.status.availableReplicas}')) === '3' &&
          (await get('db', '{.status.availableReplicas}')) === '2',
        40_000,
      );
      await ok(kubectl('apply', ...n, '-f', join(k.dir, 'v2.yaml')));
      const [plan] = await eventually('db ← app as one deployment', async () => {
        const listed = JSON.parse(await ok(kubectl('pacer', 'deployments', ...n, '-o', 'json'))) as DeploymentPlan[];
        return listed.length === 1 && listed[0].affectedApps.length === 2 && listed;
      });
      const r = await kubectl('pacer', 'deployment', 'cancel', plan.id, ...n);
      // app waited on db: its new template never got a ReplicaSet, so it goes back to revision 1, as db does.
      expect(r).to.deep.equal({
        code: 0,
        stdout:
          'deployment.pacer.dev/app rolled back to revision 1\ndeployment.pacer.dev/db rolled back to revision 1\n',
        stderr: '',
      });
      expect(await get('app', '{.spec.template.spec.containers[0].image}')).to.equal('nginx:1.27');
      expect(await get('db', '{.spec.template.spec.containers[0].image}')).to.equal('postgres:17');
      await eventually(
        'both to converge back',
        async () => {
          const listed = JSON.parse(await ok(kubectl('pacer', 'deployments', ...n, '-o', 'json'))) as DeploymentPlan[];
          return listed.length === 0;
        },
        40_000,
      );
      expect(await get('app', '{.status.updatedReplicas}/{.status.availableReplicas}')).to.equal('3/3');
      expect(
        await get(
          'app',
          '{.metadata.annotations.pacer\\.dev/cancel}{.metadata.annotations.pacer\\.dev/cancel-request}',
        ),
        'no request or stamp left',
      ).to.equal('');
    });
  });
