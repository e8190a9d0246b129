// GET /v2/deployments and /v2/deployments/<id> on the API address (src/server/planviews.ts),
// served by startServers from a list of Deployments, as the controller serves its cache.

import { expect } from 'chai';
import { Registry } from 'prom-client';
import type { Deployment } from '../../../src/api/types.ts';
import { activePlans } from '../../../src/engine/marathon/deploymentplans.ts';
import type { DeploymentPlan } from '../../../src/engine/marathon/deploymentplans.ts';
import { startServers } from '../../../src/server/http.ts';
import type { RunningServers } from '../../../src/server/http.ts';
import { viewAccess } from '../../../src/server/planviews.ts';

const NOW = Date.parse('2026-03-01T11:00:00.000Z');

/** An app whose template change the controller has not yet observed. */
function upgrading(name: string, deps?: string[]): Deployment {
  return {
    metadata: {
      name,
      namespace: 'shop',
      uid: `uid-${name}`,
      generation: 2,
      creationTimestamp: '2026-03-01T10:00:00Z',
      annotations: { 'pacer.dev/revision': '1' },
    },
    spec: { replicas: 2, ...(deps ? { dependencies: deps } : {}) },
    status: {
      observedGeneration: 1,
      replicas: 2,
      updatedReplicas: 2,
      availableReplicas: 2,
      conditions: [
        {
          type: 'Progressing',
          status: 'True',
          reason: 'NewReplicaSetAvailable',
          lastTransitionTime: '2026-03-01T10:00:01.500Z',
        },
      ],
    },
  };
}

describe('server/planviews: the read-only views', () => {
  let servers: RunningServers | undefined;
  let ready = false;
  let cache: Deployment[] = [];
  const url = (path: string) => `http://127.0.0.1:${servers!.apiPort}${path}`;

  before(async () => {
    servers = await startServers({
      metrics: null,
      health: null,
      registry: new Registry(),
      ready: () => true,
      api: { host: '127.0.0.1', port: 0 },
      views: { deployments: () => cache, ready: () => ready, now: () => NOW },
    });
  });
  after(async () => {
    await servers?.close();
  });

  it('answers 503 until the caches have synced', async () => {
    ready = false;
    const res = await fetch(url('/v2/deployments'));
    expect(res.status).to.equal(503);
    expect(await res.json()).to.deep.equal({ message: 'caches not synced' });
  });

  it("GET /v2/deployments: Marathon's JSON array, computed from the cache at request time", async () => {
    ready = true;
    cache = [];
    const empty = await fetch(url('/v2/deployments'));
    expect(empty.status).to.equal(200);
    expect(empty.headers.get('content-type')).to.equal('application/json');
    expect(await empty.json()).to.deep.equal([]);

    cache = [upgrading('db'), upgrading('app', ['db'])];
    const res = await fetch(url('/v2/deployments'));
    const body = (await res.json()) as DeploymentPlan[];
    expect(body).to.deep.equal(activePlans(cache, NOW));
    expect(body).to.have.length(1);
    expect(body[0]).to.include({ version: '2026-03-01T10:00:01.500Z', currentStep: 1, totalSteps: 2 });
    expect(body[0].affectedApps).to.deep.equal(['/shop/app', '/shop/db']);
    expect(body[0].steps).to.deep.equal([
      { actions: [{ action: 'RestartApplication', app: '/shop/db' }] },
      { actions: [{ action: 'RestartApplication', app: '/shop/app' }] },
    ]);
    expect(body[0].currentActions).to.deep.equal([
      { action: 'RestartApplication', app: '/shop/db', readinessCheckResults: [] },
    ]);
    // A trailing slash and a query string change nothing.
    expect(await (await fetch(url('/v2/deployments/?embed=x'))).json()).to.deep.equal(body);
  });

  it("GET /v2/deployments/<id>: the one, or Marathon's 404", async () => {
    ready = true;
    cache = [upgrading('db'), upgrading('app', ['db'])];
    const [one] = activePlans(cache, NOW);
    const res = await fetch(url(`/v2/deployments/${one.id}`));
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal(one);
    const missing = await fetch(url('/v2/deployments/0000-nope'));
    expect(missing.status).to.equal(404);
    expect(await missing.json()).to.deep.equal({ message: 'DeploymentPlan 0000-nope does not exist' });
  });

  it('is read-only: DELETE is 405; other paths are 404', async () => {
    ready = true;
    const del = await fetch(url('/v2/deployments/abc'), { method: 'DELETE' });
    expect(del.status).to.equal(405);
    expect(del.headers.get('allow')).to.equal('GET, HEAD');
    expect((await fetch(url('/v2/apps'))).status).to.equal(404);
  });
});

describe('server/planviews: what reading a view takes (viewAccess)', () => {
  const rows: Array<[string, ReturnType<typeof viewAccess>]> = [
    ['/v2/deployments', { verb: 'list', group: 'pacer.dev', resource: 'deployments' }],
    ['/v2/deployments/3f2a', { verb: 'list', group: 'pacer.dev', resource: 'deployments' }],
    [
      '/v1/service/shop/web/plans',
      { namespace: 'shop', verb: 'get', group: 'pacer.dev', resource: 'deployments', name: 'web' },
    ],
    [
      '/v1/service/shop/web/plans/deploy',
      { namespace: 'shop', verb: 'get', group: 'pacer.dev', resource: 'deployments', name: 'web' },
    ],
    ['/v1/service/shop/web/plans/deploy/continue', undefined],
    ['/healthz', undefined],
  ];
  for (const [path, want] of rows)
    it(`${path}: ${want ? `${want.verb} ${want.resource}${want.name ? ` "${want.name}"` : ''}` : 'no view'}`, () =>
      expect(viewAccess(path)).to.deep.equal(want));
});
