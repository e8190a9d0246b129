// The deployments view served by the real controller (GET /v2/deployments on --api-bind-address)
// while db ← app is upgraded together on the simulated cluster: every answer is recorded, and the
// sequence must read like Marathon's: one deployment [[Restart db], [Restart app]] at step 1, then
// step 2 under the same id, then nothing.

import { expect } from 'chai';
import type { Deployment } from '../../src/api/types.ts';
import { DEPLOYMENTS } from '../../src/kube/client.ts';
import type { DeploymentPlan } from '../../src/engine/marathon/deploymentplans.ts';
import {
  createNamespace,
  deploymentManifest,
  eventually,
  sleep,
  startCluster,
  waitComplete,
} from './fixtures/cluster.ts';
import type { Cluster } from './fixtures/cluster.ts';

const imagePatch = (image: string) => ({ spec: { template: { spec: { containers: [{ name: 'web', image }] } } } });

describe('integration: GET /v2/deployments from the controller (db ← app)', function () {
  this.timeout(60_000);
  let c: Cluster;
  const ns = 'view';
  // The simulated API server takes a token as its user: kubernetes-admin is in system:masters.
  const get = async (path: string, token = 'kubernetes-admin'): Promise<{ status: number; body: unknown }> => {
    const res = await fetch(`http://127.0.0.1:${c.ctl.apiPort}${path}`, {
      headers: token ? { Authorization: `Bearer ${token}` } : {},
    });
    const text = await res.text();
    return {
      status: res.status,
      body: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text,
    };
  };
  const list = async () => (await get('/v2/deployments')).body as DeploymentPlan[];

  before(async () => {
    // Slow pods, so that each step is visible for a while.
    c = await startCluster({ podStartMs: 150, podReadyMs: 150 }, { apiBindAddress: '127.0.0.1:0' });
    createNamespace(c.sim, ns);
  });
  after(async () => {
    await c?.stop();
  });

  it('is read only by callers RBAC lets list pacer.dev Deployments: no token 401, an unbound ServiceAccount 403', async () => {
    expect(await get('/v2/deployments', '')).to.deep.equal({ status: 401, body: 'Unauthorized' });
    expect(await get('/v2/deployments', 'system:serviceaccount:view:nosy')).to.deep.equal({
      status: 403,
      body: 'deployments.pacer.dev is forbidden: User "system:serviceaccount:view:nosy" cannot list resource "deployments" in API group "pacer.dev" at the cluster scope',
    });
  });

  it('shows the upgrade step by step under one id, then an empty list', async () => {
    const db = deploymentManifest(ns, 'db', { replicas: 2 });
    const app: Deployment = {
      ...deploymentManifest(ns, 'app', { replicas: 2 }),
      spec: { ...deploymentManifest(ns, 'app', { replicas: 2 }).spec, dependencies: ['db'] },
    };
    await c.client.create(DEPLOYMENTS, ns, db);
    await c.client.create(DEPLOYMENTS, ns, app);
    await waitComplete(c.client, ns, 'db', '1');
    await waitComplete(c.client, ns, 'app', '1');
    await eventually('the start to be over', async () => (await list()).length === 0);

    await c.client.patchDeployment(ns, 'db', imagePatch('postgres:2'));
    await c.client.patchDeployment(ns, 'app', imagePatch('nginx:2'));
    const seen: DeploymentPlan[][] = [];
    for (const end = Date.now() + 30_000; Date.now() < end; await sleep(20)) {
      const now = await list();
      seen.push(now);
      if (now.length === 0 && seen.some((s) => s.some((p) => p.currentStep === 2))) break;
    }
    // The moments when both apps were part of one deployment.
    const both = seen.flat().filter((p) => p.affectedApps.length === 2);
    expect(both.length, 'db ← app seen as one deployment').to.be.greaterThan(0);
    for (const p of both) {
      expect(p.affectedApps).to.deep.equal([`/${ns}/app`, `/${ns}/db`]);
      expect(p.steps).to.deep.equal([
        { actions: [{ action: 'RestartApplication', app: `/${ns}/db` }] },
        { actions: [{ action: 'RestartApplication', app: `/${ns}/app` }] },
      ]);
      expect(p.totalSteps).to.equal(2);
      expect(p.currentActions).to.deep.equal([{ ...p.steps[p.currentStep - 1].actions[0], readinessCheckResults: [] }]);
    }
    const steps = both.map((p) => p.currentStep).filter((s, i, a) => i === 0 || a[i - 1] !== s);
    expect(steps, 'currentStep 1, then 2').to.deep.equal([1, 2]);
    expect(new Set(both.map((p) => p.id)).size, 'one id throughout').to.equal(1);
    expect(seen.at(-1), 'finished: the list is empty').to.deep.equal([]);

    // The one seen, by id: gone now, with Marathon's 404.
    const id = both[0].id;
    expect(await get(`/v2/deployments/${id}`)).to.deep.equal({
      status: 404,
      body: { message: `DeploymentPlan ${id} does not exist` },
    });
    const [dbNow, appNow] = await Promise.all([c.client.getDeployment(ns, 'db'), c.client.getDeployment(ns, 'app')]);
    expect(dbNow.metadata.annotations?.['pacer.dev/revision']).to.equal('2');
    expect(appNow.metadata.annotations?.['pacer.dev/revision']).to.equal('2');
  });
});
