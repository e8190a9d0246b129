// One deployment per app on the simulated cluster with the real controller and its webhook
// (docs/semantics/marathon.md#one-deployment-per-app-locks-and-force): db ← app upgraded together; a further change to app is refused with 409 through
// the client and nothing is stored; a forced one is accepted, the force annotation disappears, db
// is stamped with the cancelled deployment, and both converge to their own specs.

import { expect } from 'chai';
import type { Deployment } from '../../src/api/types.ts';
import { DEPLOYMENTS, EVENTS } from '../../src/kube/client.ts';
import type { RunningController } from '../../src/cli/controller.ts';
import { activePlans } from '../../src/engine/marathon/deploymentplans.ts';
import { toKubeError } from '../../src/kube/errors.ts';
import { REF } from '../../src/sim/resources.ts';
import { webhookConfiguration } from '../../src/server/webhook.ts';
import {
  createNamespace,
  deploymentManifest,
  eventually,
  isComplete,
  startCluster,
  startTestController,
  waitComplete,
} from './fixtures/cluster.ts';
import type { Cluster, CoreEventLite } from './fixtures/cluster.ts';

const imagePatch = (image: string, annotations?: Record<string, string | null>) => ({
  ...(annotations ? { metadata: { annotations } } : {}),
  spec: { template: { spec: { containers: [{ name: 'web', image }] } } },
});
const imageOf = (d: Deployment): string | undefined =>
  (d.spec.template?.spec as { containers?: Array<{ image?: string }> } | undefined)?.containers?.[0]?.image;

describe('integration: the deployment lock, force (db ← app)', function () {
  this.timeout(60_000);
  let c: Cluster;
  const ns = 'locks';

  before(async () => {
    c = await startCluster({ podStartMs: 30, podReadyMs: 30 }, { webhookBindAddress: '127.0.0.1:0' });
    c.sim.store.create(
      REF.validatingwebhookconfigurations,
      undefined,
      webhookConfiguration(`http://127.0.0.1:${c.ctl.webhookPort}`),
    );
    createNamespace(c.sim, ns);
  });
  after(async () => {
    await c?.stop();
  });

  it('refuses a further change while app is in a deployment, accepts a forced one, cancels the coordination', async () => {
    // db becomes available slowly in its upgrade: the deployment lasts.
    const db = deploymentManifest(ns, 'db', { replicas: 2 });
    const appBase = deploymentManifest(ns, 'app', { replicas: 2 });
    const app: Deployment = { ...appBase, spec: { ...appBase.spec, dependencies: ['db'] } };
    await c.client.create(DEPLOYMENTS, ns, db);
    await c.client.create(DEPLOYMENTS, ns, app);
    await waitComplete(c.client, ns, 'db', '1');
    await waitComplete(c.client, ns, 'app', '1');

    await c.client.patchDeployment(ns, 'db', {
      spec: { minReadySeconds: 8, template: { spec: { containers: [{ name: 'web', image: 'postgres:2' }] } } },
    });
    await c.client.patchDeployment(ns, 'app', imagePatch('nginx:2'));
    // app waits for db: it is in db's deployment (the controller's cache must have seen it so).
    await eventually('app to wait for db', async () =>
      (await c.client.getDeployment(ns, 'app')).status?.conditions?.some(
        (x) => x.type === 'DependenciesReady' && x.status === 'False',
      ),
    );

    let refused: unknown;
    try {
      await c.client.patchDeployment(ns, 'app', imagePatch('nginx:3'));
    } catch (err) {
      refused = err;
    }
    const e = toKubeError(refused);
    expect(e.kind).to.equal('Conflict');
    expect(e.status?.code).to.equal(409);
    expect(e.message).to.match(
      /admission webhook "locks\.pacer\.dev" denied the request: App is locked by one or more deployments\. Override with the annotation pacer\.dev\/force: "true"\. View details at '\/v2\/deployments\/[0-9a-f-]{36}'\./,
    );
    const blocking = /\/v2\/deployments\/([0-9a-f-]{36})/.exec(e.message)![1];
    expect(imageOf(await c.client.getDeployment(ns, 'app')), 'nothing stored').to.equal('nginx:2');

    // A metadata-only change is never refused.
    await c.client.patchDeployment(ns, 'app', { metadata: { labels: { team: 'a' } } });

    // Forced: accepted at once; the annotation is consumed, db stamped with the deployment cancelled.
    // Every stored version of app is watched: app converges fast and its own stamp goes once it is
    // complete, so a poll could miss the version that consumed the force.
    const appVersions: Deployment[] = [];
    const stopWatch = new AbortController();
    const from = (await c.client.getDeployment(ns, 'app')).metadata.resourceVersion ?? '0';
    const watching = c.client.watch<Deployment>(
      DEPLOYMENTS,
      ns,
      { resourceVersion: from },
      (ev) => {
        if (ev.type === 'MODIFIED' && ev.object.metadata.name === 'app') appVersions.push(ev.object);
      },
      stopWatch.signal,
    );
    await c.client.patchDeployment(ns, 'app', imagePatch('nginx:3', { 'pacer.dev/force': 'true' }));
    const appNow = await eventually('the force annotation to be consumed', () =>
      appVersions.find((d) => imageOf(d) === 'nginx:3' && d.metadata.annotations?.['pacer.dev/force'] === undefined),
    );
    stopWatch.abort();
    await watching;
    expect(imageOf(appNow)).to.equal('nginx:3');
    expect(
      appNow.metadata.annotations?.['pacer.dev/cancelled-deployment'],
      'the forced app takes the stamp too',
    ).to.match(/^[0-9a-f-]{36}$/);
    const dbStamped = await eventually('db to be stamped', async () => {
      const d = await c.client.getDeployment(ns, 'db');
      return d.metadata.annotations?.['pacer.dev/cancelled-deployment'] !== undefined && d;
    });
    expect(dbStamped.metadata.annotations?.['pacer.dev/cancelled-deployment']).to.equal(blocking);

    // app no longer waits for db: it completes while db still rolls (minReadySeconds).
    const appDone = await eventually('app to converge', async () => {
      const d = await c.client.getDeployment(ns, 'app');
      return isComplete(d) && d;
    });
    const dbThen = await c.client.getDeployment(ns, 'db');
    expect(isComplete(dbThen), 'app finished before db: it did not wait').to.equal(false);
    expect(imageOf(appDone)).to.equal('nginx:3');
    const dbDone = await waitComplete(c.client, ns, 'db', '2', 30_000);
    expect(imageOf(dbDone)).to.equal('postgres:2');
    await eventually(
      "db's stamp to go once complete",
      async () =>
        (await c.client.getDeployment(ns, 'db')).metadata.annotations?.['pacer.dev/cancelled-deployment'] === undefined,
    );
  });
});

// A cancel the controller was carrying out when it died: the fan-out had stamped db but not yet
// swapped app's request for its stamp. A new controller (its caches filled from the cluster, no
// memory of the old one) finishes it: app stamped, both rolled back to revision 1, one Event each.
describe('integration: a cancel interrupted half-way is finished after a restart (db ← app)', function () {
  this.timeout(60_000);
  let c: Cluster;
  let second: RunningController | undefined;
  const ns = 'resume';

  before(async () => {
    c = await startCluster({ podStartMs: 30, podReadyMs: 30 });
    createNamespace(c.sim, ns);
  });
  after(async () => {
    await second?.stop();
    await c?.stop();
  });

  it('rolls both back, each once, and leaves no request or stamp', async () => {
    const appBase = deploymentManifest(ns, 'app', { replicas: 2 });
    await c.client.create(DEPLOYMENTS, ns, deploymentManifest(ns, 'db', { replicas: 2 }));
    await c.client.create(DEPLOYMENTS, ns, { ...appBase, spec: { ...appBase.spec, dependencies: ['db'] } });
    await waitComplete(c.client, ns, 'db', '1');
    await waitComplete(c.client, ns, 'app', '1');
    const before = {
      db: imageOf(await c.client.getDeployment(ns, 'db')),
      app: imageOf(await c.client.getDeployment(ns, 'app')),
    };

    await c.client.patchDeployment(ns, 'db', {
      spec: { minReadySeconds: 8, template: { spec: { containers: [{ name: 'web', image: 'postgres:2' }] } } },
    });
    await c.client.patchDeployment(ns, 'app', imagePatch('nginx:2'));
    await eventually('app to wait for db', async () =>
      (await c.client.getDeployment(ns, 'app')).status?.conditions?.some(
        (x) => x.type === 'DependenciesReady' && x.status === 'False',
      ),
    );
    await c.ctl.stop();

    const [plan] = activePlans((await c.client.list<Deployment>(DEPLOYMENTS, ns)).items, Date.now());
    expect(plan.affectedApps).to.deep.equal([`/${ns}/app`, `/${ns}/db`]);
    await c.client.patchDeployment(ns, 'db', {
      metadata: { annotations: { 'pacer.dev/cancel': `rollback:${plan.id}` } },
    });
    await c.client.patchDeployment(ns, 'app', {
      metadata: { annotations: { 'pacer.dev/cancel-request': `rollback:${plan.id}` } },
    });

    second = await startTestController(c.sim.kubeconfig);
    const done = await eventually('both to be rolled back, with no request or stamp left', async () => {
      const [db, app] = await Promise.all([c.client.getDeployment(ns, 'db'), c.client.getDeployment(ns, 'app')]);
      const left = [db, app].some(
        (d) =>
          d.metadata.annotations?.['pacer.dev/cancel'] !== undefined ||
          d.metadata.annotations?.['pacer.dev/cancel-request'] !== undefined,
      );
      return !left && imageOf(db) === before.db && imageOf(app) === before.app && { db, app };
    });
    expect(done.db.spec.paused, 'a rollback, not a stop').to.not.equal(true);
    await eventually('one Event per app', async () => {
      const events = (await c.client.list<CoreEventLite>(EVENTS, ns)).items.filter(
        (e) => e.reason === 'DeploymentPlanCancelled',
      );
      const lines = events.map((e) => `${e.involvedObject.name}: ${e.message}`).sort();
      return (
        lines.length === 2 &&
        expect(lines).to.deep.equal([
          `app: Deployment plan ${plan.id}: rolled back to revision 1`,
          `db: Deployment plan ${plan.id}: rolled back to revision 1`,
        ]) &&
        true
      );
    });
    for (const name of ['db', 'app'])
      await eventually(
        `${name} to converge back`,
        async () => isComplete(await c.client.getDeployment(ns, name)),
        30_000,
      );
  });
});
