// GET /v1/service/<namespace>/<name>/plans[/<plan>] on the API address (src/server/planviews.ts):
// the DC/OS SDK's plans API codes (200 complete, 202 in progress, 417 errors, 404 text/plain).

import { expect } from 'chai';
import { Registry } from 'prom-client';
import type { Deployment, PlanResource, Pod, ReplicaSet } from '../../../src/api/types.ts';
import { buildNewReplicaSet } from '../../../src/engine/kubernetes/newreplicaset.ts';
import { startServers } from '../../../src/server/http.ts';
import { isLoopback, operationAccess } from '../../../src/server/planviews.ts';
import type { AuditEntry } from '../../../src/server/planviews.ts';
import { forbiddenMessage } from '../../../src/server/auth.ts';
import type { Access, Caller, PathAccess } from '../../../src/server/auth.ts';
import type { RunningServers } from '../../../src/server/http.ts';

const NOW = Date.parse('2026-03-01T11:00:00.000Z');

function deployment(name: string, o: { deps?: string[]; invalid?: boolean } = {}): Deployment {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name, namespace: 'shop', uid: `uid-${name}`, generation: 1 },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      ...(o.deps ? { dependencies: o.deps } : {}),
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
    },
    ...(o.invalid
      ? {
          status: {
            conditions: [
              { type: 'InvalidSpec', status: 'True' as const, reason: 'InvalidSpec', message: 'spec.replicas: bad' },
            ],
          },
        }
      : {}),
  };
}

function readyPod(rs: ReplicaSet): Pod {
  return {
    metadata: {
      name: `${rs.metadata.name}-x`,
      namespace: 'shop',
      creationTimestamp: '2026-03-01T10:00:00Z',
      labels: { ...rs.spec.template!.metadata!.labels },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name!, uid: rs.metadata.uid!, controller: true },
      ],
    },
    spec: { nodeName: 'n1' },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-03-01T10:00:00Z' }],
    },
  };
}

describe("server/planviews: the SDK's plans API", () => {
  let servers: RunningServers | undefined;
  let deployments: Deployment[] = [];
  let replicaSets: ReplicaSet[] = [];
  let pods: Pod[] = [];
  const get = (path: string) => fetch(`http://127.0.0.1:${servers!.apiPort}${path}`);

  before(async () => {
    servers = await startServers({
      metrics: null,
      health: null,
      registry: new Registry(),
      ready: () => true,
      api: { host: '127.0.0.1', port: 0 },
      views: {
        deployments: () => deployments,
        replicaSets: () => replicaSets,
        pods: () => pods,
        ready: () => true,
        now: () => NOW,
      },
    });
  });
  after(() => servers?.close());

  it('GET .../plans: the names in priority order (deploy, recovery); an unknown service is 404 text/plain', async () => {
    deployments = [deployment('db'), deployment('app', { deps: ['db'] })];
    const res = await get('/v1/service/shop/app/plans');
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal(['deploy', 'recovery']);
    const missing = await get('/v1/service/shop/nope/plans');
    expect([missing.status, missing.headers.get('content-type'), await missing.text()]).to.deep.equal([
      404,
      'text/plain',
      'Service nope not found',
    ]);
  });

  it("GET .../plans/deploy: 202 while not complete, with the SDK's JSON (no name or id on the plan)", async () => {
    const res = await get('/v1/service/shop/db/plans/deploy');
    expect(res.status).to.equal(202);
    const body = (await res.json()) as {
      status: string;
      strategy: string;
      errors: string[];
      phases: Array<{ id: string; name: string; steps: Array<{ name: string; status: string }> }>;
    };
    expect(Object.keys(body).sort()).to.deep.equal(['errors', 'phases', 'status', 'strategy']);
    expect(body).to.include({ status: 'PENDING', strategy: 'serial' });
    expect(
      body.phases.map((p) => `${p.name}: ${p.steps.map((s) => `${s.name} ${s.status}`).join(', ')}`),
    ).to.deep.equal(['db: db-0:[app] PENDING', 'app: app-0:[app] PENDING']);
  });

  it('200 once complete; 417 with errors; the recovery plan; 404 for an unknown plan', async () => {
    replicaSets = deployments.map((d) => buildNewReplicaSet(d, `h${d.metadata.name}`, NOW));
    pods = replicaSets.map(readyPod);
    expect((await get('/v1/service/shop/app/plans/deploy')).status).to.equal(200);
    deployments = [deployment('db', { invalid: true }), deployment('app', { deps: ['db'] })];
    const bad = await get('/v1/service/shop/app/plans/deploy');
    expect(bad.status).to.equal(417);
    expect(((await bad.json()) as { errors: string[] }).errors).to.deep.equal(['spec.replicas: bad']);
    const recovery = await get('/v1/service/shop/app/plans/recovery');
    expect(recovery.status, 'nothing to recover: an empty plan, COMPLETE').to.equal(200);
    expect(await recovery.json()).to.deep.equal({ phases: [], errors: [], status: 'COMPLETE', strategy: 'parallel' });
    const other = await get('/v1/service/shop/app/plans/nope');
    expect([other.status, await other.text()]).to.deep.equal([404, 'Plan nope not found']);
  });

  it('POST is not served here (405): operations go through the API server', async () => {
    const res = await fetch(`http://127.0.0.1:${servers!.apiPort}/v1/service/shop/app/plans/deploy/continue`, {
      method: 'POST',
    });
    expect(res.status).to.equal(404);
    const post = await fetch(`http://127.0.0.1:${servers!.apiPort}/v1/service/shop/app/plans/deploy`, {
      method: 'POST',
    });
    expect(post.status).to.equal(405);
  });
});

describe("server/planviews: the SDK's plan operations (POST)", () => {
  let servers: RunningServers | undefined;
  const calls: unknown[] = [];
  let answer: { code: number; message: string } | Error = { code: 200, message: 'Received cmd: continue' };
  const post = (path: string, body?: string) =>
    fetch(`http://127.0.0.1:${servers!.apiPort}${path}`, { method: 'POST', ...(body !== undefined ? { body } : {}) });

  before(async () => {
    servers = await startServers({
      metrics: null,
      health: null,
      registry: new Registry(),
      ready: () => true,
      api: { host: '127.0.0.1', port: 0 },
      views: {
        deployments: () => [],
        replicaSets: () => [],
        pods: () => [],
        ready: () => true,
        operate: async (namespace, service, command) => {
          calls.push({ namespace, service, command });
          if (answer instanceof Error) throw answer;
          return answer;
        },
      },
    });
  });
  after(() => servers?.close());

  it('200: {"message": ...} pretty-printed; phase and step from the query', async () => {
    const res = await post('/v1/service/shop/app/plans/deploy/forceComplete?phase=db&step=db-0%3A%5Bapp%5D');
    expect([res.status, res.headers.get('content-type'), await res.text()]).to.deep.equal([
      200,
      'application/json',
      '{\n  "message": "Received cmd: continue"\n}',
    ]);
    expect(calls.at(-1)).to.deep.equal({
      namespace: 'shop',
      service: 'app',
      command: { op: 'forceComplete', plan: 'deploy', phase: 'db', step: 'db-0:[app]' },
    });
  });

  it("start: the body's JSON object is the parameters; a body that is not one is 400, not carried out", async () => {
    await post('/v1/service/shop/app/plans/deploy/start', '{"MODE": "fast"}');
    expect(calls.at(-1)).to.deep.include({ command: { op: 'start', plan: 'deploy', parameters: { MODE: 'fast' } } });
    const n = calls.length;
    const bad = await post('/v1/service/shop/app/plans/deploy/start', '{"MODE": 1}');
    expect([bad.status, await bad.text()]).to.deep.equal([
      400,
      "Couldn't parse parameters: expected a JSON object of string values",
    ]);
    const broken = await post('/v1/service/shop/app/plans/deploy/start', '{');
    expect(broken.status).to.equal(400);
    expect(calls).to.have.length(n);
  });

  it("the operation's 208, 400 and 404 as text/plain; an unknown service 404; a conflict 409", async () => {
    for (const [code, message] of [
      [208, 'Command has already been reported or completed'],
      [400, 'Missing phase'],
      [404, 'Phase nope not found'],
    ] as const) {
      answer = { code, message };
      const res = await post('/v1/service/shop/app/plans/deploy/interrupt');
      expect([res.status, res.headers.get('content-type'), await res.text()]).to.deep.equal([
        code,
        'text/plain',
        message,
      ]);
    }
    answer = Object.assign(new Error('deployments.pacer.dev "nope" not found'), { kind: 'NotFound', code: 404 });
    expect(await (await post('/v1/service/shop/nope/plans/deploy/continue')).text()).to.equal('Service nope not found');
    answer = Object.assign(new Error('the object has been modified'), { kind: 'Conflict', code: 409 });
    expect((await post('/v1/service/shop/app/plans/deploy/continue')).status).to.equal(409);
    answer = { code: 200, message: 'ok' };
  });

  it('GET on an operation is 405 (POST only); an unknown operation is no route', async () => {
    const res = await fetch(`http://127.0.0.1:${servers!.apiPort}/v1/service/shop/app/plans/deploy/continue`);
    expect([res.status, res.headers.get('allow')]).to.deep.equal([405, 'POST']);
    expect((await post('/v1/service/shop/app/plans/deploy/frobnicate')).status).to.equal(404);
  });

  it('served to loopback callers only (anyone else gets 403, nothing carried out)', () => {
    expect(['127.0.0.1', '::1', '::ffff:127.0.0.1'].map(isLoopback)).to.deep.equal([true, true, true]);
    expect(['10.0.0.7', '::ffff:10.0.0.7', '192.168.1.2', undefined].map(isLoopback)).to.deep.equal([
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('server/planviews: callers of the plan operations are authenticated and authorised (TokenReview, SubjectAccessReview)', () => {
  let servers: RunningServers | undefined;
  const done: string[] = [];
  const asked: Array<[string, Access]> = [];
  const audited: AuditEntry[] = [];
  /** alice may do anything but update the Deployment "db"; "bad" is no token the API server knows. */
  const views = {
    deployments: () => [deployment('db'), deployment('app', { deps: ['db'] })],
    plans: (): PlanResource[] => [
      { metadata: { name: 'waves', namespace: 'shop' }, spec: { phases: [{ name: 'all', steps: ['db', 'other'] }] } },
    ],
    replicaSets: () => [],
    pods: () => [],
    ready: () => true,
    operate: async (_ns: string, service: string, c: { op: string; plan: string }) => {
      done.push(`${c.op} ${service} ${c.plan}`);
      return { code: 200, message: `Received cmd: ${c.op}` };
    },
    authenticate: async (token: string): Promise<Caller | undefined> =>
      token === 'bad' ? undefined : { username: token, groups: ['system:authenticated'] },
    audit: (e: AuditEntry) => {
      audited.push(e);
    },
    authorize: async (caller: Caller, a: Access | PathAccess) => {
      if ('path' in a) throw new Error(`a plan operation asked about the path ${a.path}`);
      asked.push([caller.username, a]);
      return a.name === 'db' && caller.username === 'bob'
        ? { allowed: false, reason: 'no RBAC policy matched' }
        : { allowed: true };
    },
  };
  const post = (path: string, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${servers!.apiPort}${path}`, { method: 'POST', headers });

  before(async () => {
    servers = await startServers({
      metrics: null,
      health: null,
      registry: new Registry(),
      ready: () => true,
      api: { host: '127.0.0.1', port: 0 },
      views,
    });
  });
  after(() => servers?.close());

  it('no bearer token, or one the API server does not accept: 401 Unauthorized, nothing carried out', async () => {
    for (const headers of [{}, { Authorization: 'Basic YTpi' }, { Authorization: 'Bearer bad' }] as Array<
      Record<string, string>
    >) {
      const res = await post('/v1/service/shop/app/plans/deploy/continue', headers);
      expect([res.status, await res.text()]).to.deep.equal([401, 'Unauthorized']);
    }
    expect(done).to.deep.equal([]);
  });

  it("a caller refused one of the accesses: 403 with RBAC's words, nothing carried out", async () => {
    const res = await post('/v1/service/shop/app/plans/deploy/continue', { Authorization: 'Bearer bob' });
    expect([res.status, await res.text()]).to.deep.equal([
      403,
      'deployments.pacer.dev "db" is forbidden: User "bob" cannot update resource "deployments" in API group "pacer.dev" in the namespace "shop": no RBAC policy matched',
    ]);
    expect(done).to.deep.equal([]);
  });

  it("every call is audited once answered, refused ones too: who, what, where, the answer (start's parameters by name only)", async () => {
    audited.length = 0;
    await post('/v1/service/shop/app/plans/deploy/continue?phase=db', {});
    await post('/v1/service/shop/app/plans/deploy/continue', { Authorization: 'Bearer bob' });
    const started = await fetch(`http://127.0.0.1:${servers!.apiPort}/v1/service/shop/app/plans/deploy/start`, {
      method: 'POST',
      headers: { Authorization: 'Bearer alice' },
      body: JSON.stringify({ TOKEN: 's3cret', REGION: 'eu' }),
    });
    expect(started.status).to.equal(200);
    await new Promise((r) => setTimeout(r, 20)); // 'finish' follows the response
    expect(audited.map((e) => JSON.stringify(e))).to.deep.equal(
      [
        {
          remote: '127.0.0.1',
          namespace: 'shop',
          service: 'app',
          op: 'continue',
          plan: 'deploy',
          phase: 'db',
          code: 401,
        },
        {
          user: 'bob',
          groups: ['system:authenticated'],
          remote: '127.0.0.1',
          namespace: 'shop',
          service: 'app',
          op: 'continue',
          plan: 'deploy',
          code: 403,
        },
        {
          user: 'alice',
          groups: ['system:authenticated'],
          remote: '127.0.0.1',
          namespace: 'shop',
          service: 'app',
          op: 'start',
          plan: 'deploy',
          parameterNames: ['REGION', 'TOKEN'],
          code: 200,
        },
      ].map((e) => JSON.stringify(e)),
    );
    expect(JSON.stringify(audited)).to.not.contain('s3cret');
    done.length = 0;
  });

  it('a caller allowed everything: carried out, after a review of every object it may change', async () => {
    asked.length = 0;
    const res = await post('/v1/service/shop/app/plans/deploy/continue', { Authorization: 'Bearer alice' });
    expect(res.status).to.equal(200);
    expect(done).to.deep.equal(['continue app deploy']);
    expect(asked.map(([u, a]) => `${u} ${a.verb} ${a.resource} ${a.name ?? '*'} in ${a.namespace}`)).to.deep.equal([
      'alice update deployments app in shop',
      'alice update deployments db in shop',
    ]);
  });

  const rows: Array<[string, { op: 'continue' | 'restart'; plan: string; phase?: string; step?: string }, string[]]> = [
    [
      'the deploy plan: every Deployment of the service',
      { op: 'continue', plan: 'deploy' },
      ['update pacer.dev/deployments app', 'update pacer.dev/deployments db'],
    ],
    [
      "a step's restart: its pod deleted too",
      { op: 'restart', plan: 'deploy', phase: 'db', step: 'db-0:[db]' },
      ['update pacer.dev/deployments app', 'update pacer.dev/deployments db', 'delete /pods *'],
    ],
    [
      'a custom plan: the Plan and every Deployment it names',
      { op: 'restart', plan: 'waves' },
      ['update pacer.dev/plans waves', 'update pacer.dev/deployments db', 'update pacer.dev/deployments other'],
    ],
    [
      "an unknown plan: the service's Deployments (the operation then says 404)",
      { op: 'continue', plan: 'nope' },
      ['update pacer.dev/deployments app', 'update pacer.dev/deployments db'],
    ],
  ];
  for (const [what, command, want] of rows) {
    it(`what is reviewed: ${what}`, () => {
      expect(
        operationAccess(views, 'shop', 'app', command).map(
          (a) => `${a.verb} ${a.group}/${a.resource} ${a.name ?? '*'}`,
        ),
      ).to.deep.equal(want);
    });
  }

  it('the refusal names an unnamed or cluster-scoped access as RBAC does', () => {
    expect(
      forbiddenMessage({ username: 'u' }, { namespace: 'ns', verb: 'delete', group: '', resource: 'pods' }),
    ).to.equal('pods is forbidden: User "u" cannot delete resource "pods" in API group "" in the namespace "ns"');
    expect(forbiddenMessage({ username: 'u' }, { verb: 'list', group: 'pacer.dev', resource: 'plans' })).to.equal(
      'plans.pacer.dev is forbidden: User "u" cannot list resource "plans" in API group "pacer.dev" at the cluster scope',
    );
    // A subresource: named with its resource, as RBAC's refusal of `kubectl logs` names it.
    expect(
      forbiddenMessage(
        { username: 'u' },
        { namespace: 'ns', verb: 'get', group: '', resource: 'pods', subresource: 'log', name: 'web-1' },
      ),
    ).to.equal(
      'pods "web-1" is forbidden: User "u" cannot get resource "pods/log" in API group "" in the namespace "ns"',
    );
  });
});
