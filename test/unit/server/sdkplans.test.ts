// GET /v1/service/<namespace>/<name>/plans[/<plan>] on the API address (src/server/planviews.ts):
// the DC/OS SDK's plans API codes (200 complete, 202 in progress, 417 errors, 404 text/plain).

import { expect } from 'chai';
import { Registry } from 'prom-client';
import type { Deployment, Pod, ReplicaSet } from '../../../src/api/types.ts';
import { buildNewReplicaSet } from '../../../src/engine/newreplicaset.ts';
import { startServers } from '../../../src/server/http.ts';
import type { RunningServers } from '../../../src/server/http.ts';

const NOW = Date.parse('2026-03-01T11:00:00.000Z');

function deployment(name: string, o: { deps?: string[]; invalid?: boolean } = {}): Deployment {
  return {
    apiVersion: 'pacer.dev/v1alpha1', kind: 'Deployment',
    metadata: { name, namespace: 'shop', uid: `uid-${name}`, generation: 1 },
    spec: {
      replicas: 1, selector: { matchLabels: { app: name } }, ...(o.deps ? { dependencies: o.deps } : {}),
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
    },
    ...(o.invalid ? { status: { conditions: [{ type: 'InvalidSpec', status: 'True' as const, reason: 'InvalidSpec', message: 'spec.replicas: bad' }] } } : {}),
  };
}

function readyPod(rs: ReplicaSet): Pod {
  return {
    metadata: {
      name: `${rs.metadata.name}-x`, namespace: 'shop', creationTimestamp: '2026-03-01T10:00:00Z',
      labels: { ...rs.spec.template!.metadata!.labels }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name!, uid: rs.metadata.uid!, controller: true }],
    },
    spec: { nodeName: 'n1' },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-03-01T10:00:00Z' }] },
  };
}

describe('server/planviews: the SDK\'s plans API', () => {
  let servers: RunningServers | undefined;
  let deployments: Deployment[] = [];
  let replicaSets: ReplicaSet[] = [];
  let pods: Pod[] = [];
  const get = (path: string) => fetch(`http://127.0.0.1:${servers!.apiPort}${path}`);

  before(async () => {
    servers = await startServers({
      metrics: null, health: null, registry: new Registry(), ready: () => true,
      api: { host: '127.0.0.1', port: 0 },
      views: { deployments: () => deployments, replicaSets: () => replicaSets, pods: () => pods, ready: () => true, now: () => NOW },
    });
  });
  after(() => servers?.close());

  it('GET .../plans: the names in priority order (deploy, recovery); an unknown service is 404 text/plain', async () => {
    deployments = [deployment('db'), deployment('app', { deps: ['db'] })];
    const res = await get('/v1/service/shop/app/plans');
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal(['deploy', 'recovery']);
    const missing = await get('/v1/service/shop/nope/plans');
    expect([missing.status, missing.headers.get('content-type'), await missing.text()]).to.deep.equal([404, 'text/plain', 'Service nope not found']);
  });

  it('GET .../plans/deploy: 202 while not complete, with the SDK\'s JSON (no name or id on the plan)', async () => {
    const res = await get('/v1/service/shop/db/plans/deploy');
    expect(res.status).to.equal(202);
    const body = await res.json() as { status: string; strategy: string; errors: string[]; phases: Array<{ id: string; name: string; steps: Array<{ name: string; status: string }> }> };
    expect(Object.keys(body).sort()).to.deep.equal(['errors', 'phases', 'status', 'strategy']);
    expect(body).to.include({ status: 'PENDING', strategy: 'serial' });
    expect(body.phases.map((p) => `${p.name}: ${p.steps.map((s) => `${s.name} ${s.status}`).join(', ')}`)).to.deep.equal(['db: db-0:[app] PENDING', 'app: app-0:[app] PENDING']);
  });

  it('200 once complete; 417 with errors; the recovery plan; 404 for an unknown plan', async () => {
    replicaSets = deployments.map((d) => buildNewReplicaSet(d, `h${d.metadata.name}`, NOW));
    pods = replicaSets.map(readyPod);
    expect((await get('/v1/service/shop/app/plans/deploy')).status).to.equal(200);
    deployments = [deployment('db', { invalid: true }), deployment('app', { deps: ['db'] })];
    const bad = await get('/v1/service/shop/app/plans/deploy');
    expect(bad.status).to.equal(417);
    expect((await bad.json() as { errors: string[] }).errors).to.deep.equal(['spec.replicas: bad']);
    const recovery = await get('/v1/service/shop/app/plans/recovery');
    expect(recovery.status, 'nothing to recover: an empty plan, COMPLETE').to.equal(200);
    expect(await recovery.json()).to.deep.equal({ phases: [], errors: [], status: 'COMPLETE', strategy: 'parallel' });
    const other = await get('/v1/service/shop/app/plans/nope');
    expect([other.status, await other.text()]).to.deep.equal([404, 'Plan nope not found']);
  });

  it('POST is not served here (405): operations go through the API server', async () => {
    const res = await fetch(`http://127.0.0.1:${servers!.apiPort}/v1/service/shop/app/plans/deploy/continue`, { method: 'POST' });
    expect(res.status).to.equal(404);
    const post = await fetch(`http://127.0.0.1:${servers!.apiPort}/v1/service/shop/app/plans/deploy`, { method: 'POST' });
    expect(post.status).to.equal(405);
  });
});
