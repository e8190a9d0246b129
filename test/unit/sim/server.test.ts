// The HTTP layer on its own: routing, discovery, Status errors, watch streams, audit and faults.

import { expect } from 'chai';
import { startSim } from '../../../src/sim/index.ts';
import type { SimCluster } from '../../../src/sim/index.ts';
import { compareKubeVersions } from '../../../src/sim/server.ts';

describe('sim/server', function () {
  this.timeout(20_000);
  let sim: SimCluster;
  const req = (path: string, init: RequestInit = {}) => fetch(`${sim.url}${path}`, init);
  const json = async (path: string, init: RequestInit = {}) => {
    const r = await req(path, init);
    return { status: r.status, headers: r.headers, body: (await r.json()) as Record<string, unknown> };
  };

  before(async () => {
    sim = await startSim({ port: 0, controlPlane: false });
  });
  after(async () => {
    await sim?.stop();
  });

  it('serves /version, health endpoints, Audit-Id and Cache-Control headers', async () => {
    const v = await json('/version?timeout=5s');
    expect(v.body.gitVersion).to.equal('v1.36.4');
    expect(v.headers.get('audit-id')).to.match(/^[0-9a-f-]{36}$/);
    expect(v.headers.get('cache-control')).to.equal('no-cache, private');
    for (const p of ['/healthz', '/readyz', '/livez']) expect(await (await req(p)).text()).to.equal('ok');
  });

  it('legacy discovery lists groups and per-group-version resources with subresources', async () => {
    const apis = await json('/apis');
    expect((apis.body.groups as Array<{ name: string }>).map((g) => g.name)).to.deep.equal([
      'apps',
      'coordination.k8s.io',
      'policy',
      'admissionregistration.k8s.io',
      'apiextensions.k8s.io',
      'authentication.k8s.io',
      'authorization.k8s.io',
      'rbac.authorization.k8s.io',
      'sim.pacer.dev',
    ]);
    const v1 = await json('/api/v1');
    const names = (v1.body.resources as Array<{ name: string }>).map((r) => r.name);
    expect(names).to.include.members(['pods', 'pods/status', 'pods/eviction', 'namespaces/finalize']);
    const eviction = (v1.body.resources as Array<Record<string, unknown>>).find((r) => r.name === 'pods/eviction');
    expect(eviction).to.deep.include({ group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
    const apps = await json('/apis/apps/v1');
    expect(
      (apps.body.resources as Array<Record<string, unknown>>).find((r) => r.name === 'replicasets/scale'),
    ).to.deep.include({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
  });

  it('aggregated discovery answers with its own Content-Type', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
    const r = await json('/apis', { headers: { accept } });
    expect(r.headers.get('content-type')).to.equal(
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    );
    expect(r.body.kind).to.equal('APIGroupDiscoveryList');
    const core = await json('/api', { headers: { accept } });
    expect((core.body.items as Array<{ metadata: { name: string } }>)[0].metadata.name).to.equal('');
  });

  it('errors are Status objects: unknown path 404, method 405, protobuf of a kind not decoded 415', async () => {
    const nf = await json('/apis/nope.io/v1/things');
    expect(nf.status).to.equal(404);
    expect(nf.body).to.deep.equal({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server could not find the requested resource',
      reason: 'NotFound',
      details: {},
      code: 404,
    });
    const na = await json('/api/v1/pods', { method: 'POST', body: '{}' });
    expect([na.status, na.body.reason]).to.deep.equal([405, 'MethodNotAllowed']);
    // k8s\0 + runtime.Unknown { typeMeta { apiVersion: apps/v1, kind: Deployment } }: a kind whose
    // protobuf the simulator does not decode (Namespace, ConfigMap and Secret it does: protobuf.ts).
    const pb = await json('/apis/apps/v1/namespaces/default/deployments', {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
      body: Buffer.concat([Buffer.from('k8s\0\x0a\x15\x0a\x07apps/v1\x12\x0aDeployment', 'latin1')]),
    });
    expect([pb.status, pb.body.reason, pb.body.message]).to.deep.equal([
      415,
      'UnsupportedMediaType',
      'the simulated API server decodes protobuf bodies of Namespace, ConfigMap, Secret only, got apps/v1/Deployment; accepted media types include: application/json, application/yaml',
    ]);
    const ns = await json('/api/v1/namespaces', {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
      body: Buffer.from('k8s\0\x0a\x0f\x0a\x02v1\x12\x09Namespace\x12\x08\x0a\x06\x0a\x04demo', 'latin1'),
    });
    expect([ns.status, ns.body.kind, (ns.body.metadata as { name: string }).name]).to.deep.equal([
      201,
      'Namespace',
      'demo',
    ]);
  });

  it('routes namespaces/{name}/status to the namespace, not to a namespaced resource', async () => {
    const r = await json('/api/v1/namespaces/default/status');
    expect([r.status, r.body.kind, (r.body.metadata as { name: string }).name]).to.deep.equal([
      200,
      'Namespace',
      'default',
    ]);
  });

  it('creates (201), deletes with DeleteOptions in the body, and answers a Status for types without ReturnDeletedObject', async () => {
    const body = JSON.stringify({ metadata: { name: 'l1' }, spec: { holderIdentity: 'me' } });
    const c = await json('/apis/coordination.k8s.io/v1/namespaces/default/leases', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(c.status).to.equal(201);
    const d = await json('/apis/coordination.k8s.io/v1/namespaces/default/leases/l1', {
      method: 'DELETE',
      headers: { 'content-type': 'application/json' },
      body: '{"propagationPolicy":"Background"}',
    });
    expect(d.body).to.deep.include({ kind: 'Status', status: 'Success' });
    expect(d.body.details).to.deep.include({ name: 'l1', group: 'coordination.k8s.io', kind: 'leases' });
  });

  it('dryRun=All creates nothing', async () => {
    const rv = sim.store.currentResourceVersion();
    const c = await json('/api/v1/namespaces/default/pods?dryRun=All', {
      method: 'POST',
      body: JSON.stringify({ metadata: { name: 'dry' }, spec: { containers: [{ name: 'c', image: 'x' }] } }),
    });
    expect(c.status).to.equal(201);
    expect(sim.store.currentResourceVersion()).to.equal(rv);
    expect((await req('/api/v1/namespaces/default/pods/dry')).status).to.equal(404);
  });

  it('lists as a Table when asked', async () => {
    const r = await json('/api/v1/namespaces', {
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' },
    });
    expect(r.headers.get('content-type')).to.equal('application/json;as=Table;v=v1;g=meta.k8s.io');
    expect(r.body.kind).to.equal('Table');
  });

  it('watch: flushed headers, one JSON line per event, bookmarks and a clean end at timeoutSeconds', async () => {
    const rv = sim.store.currentResourceVersion();
    const r = await req(
      `/api/v1/namespaces/default/pods?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=1`,
    );
    expect(r.status).to.equal(200);
    sim.store.create({ group: '', version: 'v1', resource: 'pods' }, 'default', {
      metadata: { name: 'w' },
      spec: { containers: [{ name: 'c', image: 'x' }] },
    });
    const lines = (await r.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; object: { metadata: { name?: string; resourceVersion: string } } });
    expect(lines.map((l) => l.type)).to.deep.equal(['ADDED', 'BOOKMARK']);
    expect(lines[0].object.metadata.name).to.equal('w');
    expect(lines[1].object.metadata.resourceVersion).to.equal(String(sim.store.currentResourceVersion()));
  });

  it('watch-list: the initial state, then a bookmark marked initial-events-end, then changes', async () => {
    const ac = new AbortController();
    const r = await req(
      '/api/v1/namespaces?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
      { signal: ac.signal },
    );
    expect(r.status).to.equal(200);
    const reader = r.body!.getReader();
    let text = '';
    while (!text.includes('initial-events-end')) text += new TextDecoder().decode((await reader.read()).value);
    ac.abort();
    const events = text
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            type: string;
            object: { metadata: { name?: string; resourceVersion: string; annotations?: Record<string, string> } };
          },
      );
    const names = sim.store
      .list({ group: '', version: 'v1', resource: 'namespaces' }, undefined)
      .items.map((n) => n.metadata.name);
    expect(events.slice(0, -1).map((e) => [e.type, e.object.metadata.name])).to.deep.equal(
      names.map((n) => ['ADDED', n]),
    );
    expect(events.at(-1)).to.deep.equal({
      type: 'BOOKMARK',
      object: {
        kind: 'Namespace',
        apiVersion: 'v1',
        metadata: {
          resourceVersion: String(sim.store.currentResourceVersion()),
          annotations: { 'k8s.io/initial-events-end': 'true' },
        },
      },
    });
  });

  it('reads query booleans as the real server does (watch=True watches) and refuses options that do not fit', async () => {
    const r = await req(
      `/api/v1/namespaces?watch=True&resourceVersion=${sim.store.currentResourceVersion()}&timeoutSeconds=1`,
    );
    expect(r.headers.get('transfer-encoding')).to.equal('chunked');
    expect(await r.text()).to.equal('');
    const bad = await json('/api/v1/namespaces?watch=true&sendInitialEvents=true');
    expect([bad.status, bad.body.reason, bad.body.message]).to.deep.equal([
      422,
      'Invalid',
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    ]);
  });

  it('watch: a dropped watch ends cleanly', async () => {
    const r = await req(
      `/api/v1/namespaces/default/pods?watch=true&resourceVersion=${sim.store.currentResourceVersion()}`,
    );
    // The response has started: the server registered the watch before it sent the headers.
    sim.faults.dropWatches();
    expect(await r.text()).to.equal('');
  });

  it('records every request in the audit log, readable on /sim/audit', async () => {
    sim.audit.clear();
    await req('/api/v1/namespaces/default/pods/nosuch', {
      headers: { authorization: 'Bearer t0k', 'user-agent': 'test/1' },
    });
    const a = await json('/sim/audit');
    expect(a.body.items).to.deep.equal([
      {
        time: (a.body.items as Array<{ time: string }>)[0].time,
        userAgent: 'test/1',
        user: 't0k',
        verb: 'get',
        apiGroup: '',
        resource: 'pods',
        namespace: 'default',
        name: 'nosuch',
        code: 404,
        requestURI: '/api/v1/namespaces/default/pods/nosuch',
      },
    ]);
  });

  it('names a list by its field selector metadata.name, as the API server does (RBAC resourceNames apply to it)', async () => {
    sim.audit.clear();
    await req('/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dpacer-freeze');
    await req('/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Da%2Cmetadata.namespace%3Ddefault');
    await req('/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name!%3Db');
    expect(sim.audit.entries().map((e) => [e.verb, e.resource, e.name])).to.deep.equal([
      ['list', 'configmaps', 'pacer-freeze'],
      ['list', 'configmaps', 'a'],
      ['list', 'configmaps', undefined],
    ]);
  });

  it('audits a watch when its response starts, while it is still open', async () => {
    sim.audit.clear();
    const ac = new AbortController();
    const r = await req(
      `/api/v1/namespaces/default/pods?watch=true&resourceVersion=${sim.store.currentResourceVersion()}`,
      { signal: ac.signal },
    );
    expect(r.status).to.equal(200);
    const open = sim.audit.entries().filter((e) => e.verb === 'watch');
    ac.abort();
    expect(open.map((e) => [e.verb, e.resource, e.namespace, e.code])).to.deep.equal([
      ['watch', 'pods', 'default', 200],
    ]);
  });

  it('/sim/faults sets, reports and clears faults', async () => {
    const set = await json('/sim/faults', {
      method: 'POST',
      body: JSON.stringify({ spec: 'error=503@1:resource=leases' }),
    });
    expect(set.body.spec).to.equal('error=503@1:resource=leases');
    const r = await json('/apis/coordination.k8s.io/v1/namespaces/default/leases');
    expect([r.status, r.body.reason]).to.deep.equal([503, 'ServiceUnavailable']);
    const bad = await json('/sim/faults', { method: 'POST', body: JSON.stringify({ spec: 'nap=1s' }) });
    expect(bad.status).to.equal(400);
    await req('/sim/faults', { method: 'DELETE' });
    expect((await req('/apis/coordination.k8s.io/v1/namespaces/default/leases')).status).to.equal(200);
  });

  it('orders versions the Kubernetes way', () => {
    expect(['v1alpha1', 'v2', 'v1beta1', 'foo', 'v1', 'v1beta2'].sort(compareKubeVersions)).to.deep.equal([
      'v2',
      'v1',
      'v1beta2',
      'v1beta1',
      'v1alpha1',
      'foo',
    ]);
  });
});
