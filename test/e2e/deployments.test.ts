// The deployments view with the real kubectl (plugin found on PATH) against each test bed and an
// in-process controller: examples/dependencies.yaml (db ← app) upgraded together, seen with
// `kubectl pacer deployments -o json` while db rolls, stopped with `deployment cancel ID --force`
// (one request; the controller pauses both apps, past the lock's webhook, with an Event each), and
// the same JSON from the controller's GET /v2/deployments.

import { expect } from 'chai';
import { join } from 'node:path';
import type { DeploymentPlan } from '../../src/engine/marathon/deploymentplans.ts';
import { eventually } from '../integration/fixtures/cluster.ts';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { loadKubeConfig } from '../../src/kube/clientnode.ts';
import { viewerToken } from '../fixtures/operator.ts';
import type { Edit } from './fixtures.ts';

for (const bed of BEDS)
  describe(`e2e (${bed}): kubectl pacer deployments and deployment cancel --force (db ← app)`, function () {
    this.timeout(60_000);
    const k = kubectlEnv({
      bed,
      tmpPrefix: 'pacer-deployments-',
      plugin: true,
      sim: { podStartMs: 30, podReadyMs: 60 },
    });
    const { kubectl, ok } = k;
    const kubectlPacer = (...a: string[]) => kubectl('pacer', ...a);
    const plans = async () => JSON.parse(await ok(kubectlPacer('deployments', '-o', 'json'))) as DeploymentPlan[];

    /** examples/dependencies.yaml with some text replaced; db made slow to become available. */
    const manifest = (edits: Edit[]) => k.editedExample('dependencies.yaml', edits);
    // In the upgrade, db's new pods count as available only after 20 s: its step lasts.
    const slowDb: Edit = [/replicas: 2\n/, 'replicas: 2\n  minReadySeconds: 20\n'];

    before(function () {
      return k.start(this);
    });

    after(() => k.stop());

    it('installs the CRD and starts the controller with its views on a free port', async () => {
      await ok(kubectl('apply', '-f', join(ROOT, 'crds')));
      await eventually('the CRD to be served', async () => (await kubectl('get', 'pdeploy')).code === 0);
      // With the lock's webhook: the controller's pause of each app must get past it.
      await k.startController({ apiBindAddress: '127.0.0.1:0', webhookBindAddress: '127.0.0.1:0' });
      const r = await kubectlPacer('deployments');
      expect(r).to.deep.equal({ code: 0, stdout: '', stderr: 'No active deployments found in default namespace.\n' });
    });

    it("applied, then upgraded together: one deployment, db's restart first", async () => {
      await ok(kubectl('apply', '-f', await manifest([])));
      await eventually('the start to be over', async () => (await plans()).length === 0, 40_000);
      const upgrade = await manifest([slowDb, [/postgres:17/, 'postgres:17.1'], [/nginx:1\.27/, 'nginx:1.28']]);
      expect(await ok(kubectl('apply', '-f', upgrade))).to.equal(
        'deployment.pacer.dev/db configured\ndeployment.pacer.dev/app configured\n',
      );
      const [plan] = await eventually('db ← app as one deployment', async () => {
        const listed = await plans();
        return listed.length === 1 && listed[0].affectedApps.length === 2 && listed;
      });
      expect(plan.affectedApps).to.deep.equal(['/default/app', '/default/db']);
      expect(plan.steps).to.deep.equal([
        { actions: [{ action: 'RestartApplication', app: '/default/db' }] },
        { actions: [{ action: 'RestartApplication', app: '/default/app' }] },
      ]);
      expect(plan).to.include({ currentStep: 1, totalSteps: 2 });

      const table = await ok(kubectlPacer('deployments'));
      expect(table.split('\n')[0]).to.match(/^ID\s+AFFECTED APPS\s+STEP\s+CURRENT ACTIONS$/);
      expect(table).to.contain(`${plan.id}   /default/app,/default/db   1/2    RestartApplication /default/db`);
    });

    it('cancel --force: one request, and the controller pauses both apps where they stand; the ID is then gone', async () => {
      const [plan] = await plans();
      expect(plan.currentStep, 'db still rolling').to.equal(1);
      const r = await kubectlPacer('deployment', 'cancel', plan.id, '--force');
      expect(r).to.deep.equal({
        code: 0,
        stdout: 'deployment.pacer.dev/app paused\ndeployment.pacer.dev/db paused\n',
        stderr: '',
      });
      const events = await ok(
        kubectl(
          'get',
          'events',
          '--field-selector',
          'reason=DeploymentPlanCancelled',
          '-o',
          'jsonpath={range .items[*]}{.involvedObject.name}: {.message}{"\\n"}{end}',
        ),
      );
      expect(events.split('\n').filter(Boolean).sort(), 'one Event per app').to.deep.equal([
        `app: Deployment plan ${plan.id}: paused`,
        `db: Deployment plan ${plan.id}: paused`,
      ]);
      expect(
        await ok(kubectl('get', 'pdeploy', '-o', 'jsonpath={range .items[*]}{.metadata.annotations}{end}')),
        'no request or stamp left',
      ).to.not.match(/pacer\.dev\/cancel/);
      expect(
        await ok(kubectl('get', 'pdeploy', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.spec.paused} {end}')),
      ).to.equal('app=true db=true ');
      // Paused mid-way, both are still in motion: shown again, under a new id (pausing was a change).
      const after = await eventually('the paused apps to be listed', async () => {
        const listed = await plans();
        return listed.length === 1 && listed[0].id !== plan.id && listed;
      });
      expect(after[0].affectedApps).to.deep.equal(['/default/app', '/default/db']);
      const again = await kubectlPacer('deployment', 'cancel', plan.id, '--force');
      expect(again).to.deep.equal({ code: 1, stdout: '', stderr: `error: DeploymentPlan ${plan.id} does not exist\n` });
      // The same JSON as the controller serves, to a caller RBAC lets list pacer.dev Deployments.
      const view = `http://127.0.0.1:${k.controller!.apiPort}/v2/deployments`;
      expect((await fetch(view)).status, 'no token').to.equal(401);
      const client = new KubeClient(loadKubeConfig({ kubeconfig: k.env.KUBECONFIG! }), {
        userAgent: 'e2e-deployments',
      });
      const token = await viewerToken(
        client,
        'default',
        bed === 'real' ? async (sa: string) => (await ok(kubectl('create', 'token', sa))).trim() : undefined,
      );
      await eventually('the plugin and GET /v2/deployments to agree', async () => {
        const served = await (await fetch(view, { headers: { Authorization: `Bearer ${token}` } })).json();
        return JSON.stringify(served) === JSON.stringify(await plans());
      });
    });
  });
