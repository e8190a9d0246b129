// One deployment per app on the simulated cluster with the real controller and its webhook
// (docs/semantics/marathon.md#one-deployment-per-app-locks-and-force): db ← app upgraded together; a further change to app is refused with 409 through
// the client and nothing is stored; a forced one is accepted, the force annotation disappears, db
// is stamped with the cancelled deployment, and both converge to their own specs.

import { expect } from 'chai';
import type { Deployment } from '../../src/api/types.ts';
import { DEPLOYMENTS } from '../../src/kube/client.ts';
import { toKubeError } from '../../src/kube/errors.ts';
import { REF } from '../../src/sim/resources.ts';
import { WEBHOOK_PATH, webhookConfiguration } from '../../src/server/webhook.ts';
import { createNamespace, deploymentManifest, eventually, isComplete, startCluster, waitComplete } from './fixtures/cluster.ts';
import type { Cluster } from './fixtures/cluster.ts';

const imagePatch = (image: string, annotations?: Record<string, string | null>) => ({
  ...(annotations ? { metadata: { annotations } } : {}),
  spec: { template: { spec: { containers: [{ name: 'web', image }] } } },
});
const imageOf = (d: Deployment): string | undefined => (d.spec.template?.spec as { containers?: Array<{ image?: string }> } | undefined)?.containers?.[0]?.image;

describe('integration: the deployment lock, force (db ← app)', function () {
  this.timeout(60_000);
  let c: Cluster;
  const ns = 'locks';

  before(async () => {
    c = await startCluster({ podStartMs: 30, podReadyMs: 30 }, { webhookBindAddress: '127.0.0.1:0' });
    c.sim.store.create(REF.validatingwebhookconfigurations, undefined, webhookConfiguration(`http://127.0.0.1:${c.ctl.webhookPort}${WEBHOOK_PATH}`));
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

    await c.client.patchDeployment(ns, 'db', { spec: { minReadySeconds: 8, template: { spec: { containers: [{ name: 'web', image: 'postgres:2' }] } } } });
    await c.client.patchDeployment(ns, 'app', imagePatch('nginx:2'));
    // app waits for db: it is in db's deployment (the controller's cache must have seen it so).
    await eventually('app to wait for db', async () => (await c.client.getDeployment(ns, 'app')).status?.conditions?.some((x) => x.type === 'DependenciesReady' && x.status === 'False'));

    let refused: unknown;
    try {
      await c.client.patchDeployment(ns, 'app', imagePatch('nginx:3'));
    } catch (err) {
      refused = err;
    }
    const e = toKubeError(refused);
    expect(e.kind).to.equal('Conflict');
    expect(e.status?.code).to.equal(409);
    expect(e.message).to.match(/admission webhook "locks\.pacer\.dev" denied the request: App is locked by one or more deployments\. Override with the annotation pacer\.dev\/force: "true"\. View details at '\/v2\/deployments\/[0-9a-f-]{36}'\./);
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
    const watching = c.client.watch<Deployment>(DEPLOYMENTS, ns, { resourceVersion: from }, (ev) => {
      if (ev.type === 'MODIFIED' && ev.object.metadata.name === 'app') appVersions.push(ev.object);
    }, stopWatch.signal);
    await c.client.patchDeployment(ns, 'app', imagePatch('nginx:3', { 'pacer.dev/force': 'true' }));
    const appNow = await eventually('the force annotation to be consumed', () =>
      appVersions.find((d) => imageOf(d) === 'nginx:3' && d.metadata.annotations?.['pacer.dev/force'] === undefined));
    stopWatch.abort();
    await watching;
    expect(imageOf(appNow)).to.equal('nginx:3');
    expect(appNow.metadata.annotations?.['pacer.dev/cancelled-deployment'], 'the forced app takes the stamp too').to.match(/^[0-9a-f-]{36}$/);
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
    await eventually('db\'s stamp to go once complete', async () => (await c.client.getDeployment(ns, 'db')).metadata.annotations?.['pacer.dev/cancelled-deployment'] === undefined);
  });
});
