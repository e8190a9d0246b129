// The in-cluster dashboard's gate (src/dashboard/access.ts, incluster.ts) and the server behind it:
// what each view and action is as RBAC names it, the reviews kept for their time and asked again
// after it, the sign-in cookie, the 401s, and a user allowed namespace a only, who is never sent an
// object of namespace b (in the snapshot or in a change) and whose action there is refused in RBAC's
// words with nothing done, and audited. The reviews are fakes that answer from a table of grants.

import { expect } from 'chai';
import http from 'node:http';
import type { Deployment, Pod, ReplicaSet } from '../../../src/api/types.ts';
import {
  bearerOf,
  changeScope,
  deploymentActionAccess,
  podLogAccess,
  operationAccess,
  sameOriginBehindAnyHost,
  sessionCookie,
  sessionOf,
  viewAccess,
} from '../../../src/dashboard/access.ts';
import type { Change, Kind, Operation, Snapshot } from '../../../src/dashboard/api.ts';
import { Hub } from '../../../src/dashboard/hub.ts';
import { Gate } from '../../../src/dashboard/incluster.ts';
import { startDashboardServer } from '../../../src/dashboard/server.ts';
import type { RunningDashboard } from '../../../src/dashboard/server.ts';
import type { Access, Caller, Reviews } from '../../../src/server/auth.ts';
import { eventually } from '../../integration/fixtures/cluster.ts';
import { deployment } from '../plugin/fixtures.ts';
import { fakeSource } from './fixtures.ts';

describe('dashboard/access: views and actions as RBAC names them', () => {
  it('viewAccess: list the kind in its namespace (NodeRolls at the cluster scope, the freeze switch by name)', () => {
    const rows: Array<[Kind, string, Access | undefined]> = [
      ['deployment', 'a', { namespace: 'a', verb: 'list', group: 'pacer.dev', resource: 'deployments' }],
      ['replicaSet', 'a', { namespace: 'a', verb: 'list', group: 'apps', resource: 'replicasets' }],
      ['pod', 'b', { namespace: 'b', verb: 'list', group: '', resource: 'pods' }],
      ['planResource', 'a', { namespace: 'a', verb: 'list', group: 'pacer.dev', resource: 'plans' }],
      ['nodeRoll', '', { verb: 'list', group: 'pacer.dev', resource: 'noderolls' }],
      ['analysisRun', 'a', { namespace: 'a', verb: 'list', group: 'pacer.dev', resource: 'analysisruns' }],
      ['event', 'a', { namespace: 'a', verb: 'list', group: '', resource: 'events' }],
      [
        'freeze',
        'pacer-system',
        { namespace: 'pacer-system', verb: 'get', group: '', resource: 'configmaps', name: 'pacer-freeze' },
      ],
      ['source', '', undefined],
    ];
    for (const [kind, ns, want] of rows) expect(viewAccess(kind, ns), `${kind} ${ns}`).to.deep.equal(want);
  });

  it('an action: what its command writes (rollout undo patches the Deployment; freeze on creates the ConfigMap)', () => {
    for (const action of ['pause', 'resume', 'restart', 'setImage', 'undo'] as const)
      expect(deploymentActionAccess('a', 'web', action), action).to.deep.equal([
        { namespace: 'a', verb: 'patch', group: 'pacer.dev', resource: 'deployments', name: 'web' },
      ]);
    // A pod's log: get of its log subresource, as `kubectl logs` asks.
    expect(podLogAccess('a', 'web-1')).to.deep.equal({
      namespace: 'a',
      verb: 'get',
      group: '',
      resource: 'pods',
      subresource: 'log',
      name: 'web-1',
    });
    const rows: Array<[Operation, Access[]]> = [
      [
        { kind: 'nodeRoll', name: 'upgrade', action: 'skip', node: 'n1' },
        [{ verb: 'patch', group: 'pacer.dev', resource: 'noderolls', name: 'upgrade' }],
      ],
      [
        { kind: 'freeze', action: 'on', reason: 'incident' },
        [
          { namespace: 'pacer-system', group: '', resource: 'configmaps', verb: 'create' },
          { namespace: 'pacer-system', group: '', resource: 'configmaps', verb: 'patch', name: 'pacer-freeze' },
        ],
      ],
      [
        { kind: 'freeze', action: 'off' },
        [{ namespace: 'pacer-system', group: '', resource: 'configmaps', verb: 'delete', name: 'pacer-freeze' }],
      ],
      [
        { kind: 'plan', namespace: 'a', service: 'web', plan: 'deploy', action: 'continue' },
        [{ namespace: 'a', verb: 'update', group: 'pacer.dev', resource: 'deployments', name: 'web' }],
      ],
    ];
    for (const [op, want] of rows) expect(operationAccess(op, 'pacer-system'), JSON.stringify(op)).to.deep.equal(want);
    // With the Deployments the operation changes, as the controller's plan API counts them.
    const update = (resource: string, name: string): Access => ({
      namespace: 'a',
      verb: 'update',
      group: 'pacer.dev',
      resource,
      name,
    });
    const counted: Array<[Operation, { deployments: string[]; custom: boolean }, Access[]]> = [
      [
        { kind: 'plan', namespace: 'a', service: 'web', plan: 'deploy', action: 'continue' },
        { deployments: ['db', 'web'], custom: false },
        [update('deployments', 'db'), update('deployments', 'web')],
      ],
      [
        { kind: 'plan', namespace: 'a', service: 'web', plan: 'nightly', action: 'restart', phase: 'p', step: 's' },
        { deployments: ['web'], custom: true },
        [
          update('plans', 'nightly'),
          update('deployments', 'web'),
          { namespace: 'a', verb: 'delete', group: '', resource: 'pods' },
        ],
      ],
    ];
    // The cancel of one of Marathon's deployments patches each of its apps' Deployments.
    expect(
      operationAccess({ kind: 'marathon', id: 'd1', action: 'cancel', force: false }, 'pacer-system', {
        apps: [
          { namespace: 'a', name: 'db' },
          { namespace: 'b', name: 'web' },
        ],
      }),
    ).to.deep.equal([
      { namespace: 'a', verb: 'patch', group: 'pacer.dev', resource: 'deployments', name: 'db' },
      { namespace: 'b', verb: 'patch', group: 'pacer.dev', resource: 'deployments', name: 'web' },
    ]);
    for (const [op, targets, want] of counted)
      expect(operationAccess(op, 'pacer-system', targets), JSON.stringify(op)).to.deep.equal(want);
  });

  it("changeScope: a put's and a delete's kind and namespace", () => {
    const put = { kind: 'deployment', op: 'put', obj: { namespace: 'b', name: 'x' } } as unknown as Change;
    expect(changeScope(put)).to.deep.equal({ kind: 'deployment', namespace: 'b' });
    expect(changeScope({ kind: 'pod', op: 'delete', namespace: 'a', name: 'p' })).to.deep.equal({
      kind: 'pod',
      namespace: 'a',
    });
  });

  it('the cookie and the headers: session id, bearer token, same origin behind any Host', () => {
    const id = 'A'.repeat(43);
    const cookies: Array<[string | undefined, string | undefined]> = [
      [`pacer-dashboard-session=${id}`, id],
      [`other=1; pacer-dashboard-session=${id}; x=y`, id],
      ['pacer-dashboard-session=short', undefined],
      ['pacer-dashboard-session=<script>aaaaaaaaaaaaaaaaaaaa', undefined],
      [undefined, undefined],
    ];
    for (const [header, want] of cookies) expect(sessionOf(header), String(header)).to.equal(want);
    expect(sessionCookie(id, 28800, false)).to.equal(
      `pacer-dashboard-session=${id}; Path=/; Max-Age=28800; HttpOnly; SameSite=Strict`,
    );
    expect(sessionCookie('', 0, true)).to.equal(
      'pacer-dashboard-session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict; Secure',
    );
    const bearers: Array<[string | undefined, string | undefined]> = [
      ['Bearer abc.def', 'abc.def'],
      ['bearer abc', 'abc'],
      ['Basic abc', undefined],
      [undefined, undefined],
    ];
    for (const [header, want] of bearers) expect(bearerOf(header), String(header)).to.equal(want);
    const origins: Array<[Record<string, string>, boolean]> = [
      [{ 'sec-fetch-site': 'same-origin' }, true],
      [{ 'sec-fetch-site': 'cross-site', origin: 'https://dash.example', host: 'dash.example' }, false],
      [{ origin: 'https://dash.example', host: 'dash.example' }, true],
      [{ origin: 'http://pacer-dashboard.pacer-system:3100', host: 'pacer-dashboard.pacer-system:3100' }, true],
      [{ origin: 'https://evil.example', host: 'dash.example' }, false],
      [{ host: 'dash.example' }, false],
    ];
    for (const [headers, want] of origins)
      expect(sameOriginBehindAnyHost(headers), JSON.stringify(headers)).to.equal(want);
  });
});

/** Reviews from a table: tokens to users, and the (user, verb, resource, namespace) allowed; every call counted. */
function tableReviews(tokens: Record<string, Caller>, grants: string[]) {
  const calls = { authenticate: 0, authorize: [] as string[] };
  const reviews: Reviews = {
    authenticate: async (token) => {
      calls.authenticate++;
      return tokens[token];
    },
    authorize: async (caller, a) => {
      const r = a as Access;
      const key = `${caller.username} ${r.verb} ${r.resource} ${r.namespace ?? '*'}`;
      calls.authorize.push(key);
      return { allowed: grants.includes(key) };
    },
  };
  return { reviews, calls };
}

describe('dashboard/incluster: the Gate', () => {
  const alice: Caller = { username: 'alice', uid: 'u1', groups: ['dev'] };

  it('identify: 401 without a token, with one not accepted, after sign-out; the user otherwise', async () => {
    const { reviews } = tableReviews({ good: alice }, []);
    const gate = new Gate({ reviews });
    const rows: Array<[string | undefined, string | undefined, number | string]> = [
      [undefined, undefined, 401],
      ['bad', undefined, 401],
      ['good', undefined, 'alice'],
      [undefined, 'no-such-session-aaaaaaaaaaaaaaaa', 401],
    ];
    for (const [bearer, session, want] of rows) {
      const who = await gate.identify(bearer, session);
      expect('code' in who ? who.code : who.username, `${bearer} ${session}`).to.equal(want);
    }
    const signed = await gate.signIn('good');
    expect(signed?.caller.username).to.equal('alice');
    expect(await gate.identify(undefined, signed!.session)).to.deep.equal(alice);
    gate.signOut(signed!.session);
    expect(await gate.identify(undefined, signed!.session)).to.have.property('code', 401);
    expect(await gate.signIn('bad')).to.equal(undefined);
  });

  it('a session ends at its time; a token is reviewed again after the TTL (revoked: 401)', async () => {
    let now = 0;
    const tokens: Record<string, Caller> = { good: alice };
    const { reviews, calls } = tableReviews(tokens, []);
    const gate = new Gate({ reviews, now: () => now, reviewTtlMs: 20_000, sessionTtlMs: 60_000 });
    const s = await gate.signIn('good');
    expect(calls.authenticate).to.equal(1);
    now = 10_000;
    expect(await gate.identify(undefined, s!.session)).to.deep.equal(alice);
    expect(calls.authenticate, 'kept for 20 s').to.equal(1);
    delete tokens.good;
    now = 20_000;
    expect(await gate.identify(undefined, s!.session)).to.have.property('code', 401);
    expect(calls.authenticate).to.equal(2);
    const t = await gate.signIn('good');
    expect(t).to.equal(undefined);
    tokens.good = alice;
    now = 45_000;
    const u = await gate.signIn('good');
    now = 45_000 + 60_000;
    expect(await gate.identify(undefined, u!.session)).to.have.property('code', 401);
  });

  it("check: 403 in RBAC's words for the first access refused; answers kept", async () => {
    const { reviews, calls } = tableReviews({}, ['alice patch deployments a']);
    const gate = new Gate({ reviews });
    expect(await gate.check(alice, deploymentActionAccess('a', 'web', 'pause'))).to.equal(undefined);
    expect(await gate.check(alice, deploymentActionAccess('b', 'web', 'undo'))).to.deep.equal({
      code: 403,
      message:
        'deployments.pacer.dev "web" is forbidden: User "alice" cannot patch resource "deployments" in API group "pacer.dev" in the namespace "b"',
    });
    await gate.check(alice, deploymentActionAccess('a', 'web', 'pause'));
    expect(calls.authorize).to.deep.equal(['alice patch deployments a', 'alice patch deployments b']);
  });

  it('visible: one cluster-wide review when it allows, else one per namespace; a failing review is a no', async () => {
    const rows: Array<[string, string[], Array<[Kind, string, boolean]>, number]> = [
      // [who, grants, [kind, namespace, visible], distinct reviews asked: the cluster scope once per kind, then each namespace]
      [
        'everywhere',
        ['alice list deployments *'],
        [
          ['deployment', 'a', true],
          ['deployment', 'b', true],
        ],
        1,
      ],
      [
        'namespace a only',
        ['alice list deployments a', 'alice list pods a'],
        [
          ['deployment', 'a', true],
          ['deployment', 'b', false],
          ['pod', 'a', true],
          ['replicaSet', 'a', false],
        ],
        7,
      ],
      [
        'nothing',
        [],
        [
          ['nodeRoll', '', false],
          ['source', '', true],
        ],
        1,
      ],
    ];
    for (const [what, grants, cases, asked] of rows) {
      const { reviews, calls } = tableReviews({}, grants);
      const gate = new Gate({ reviews });
      const may = await gate.visible(
        alice,
        cases.map(([kind, namespace]) => ({ kind, namespace })),
      );
      for (const [kind, ns, want] of cases) expect(may(kind, ns), `${what}: ${kind} ${ns}`).to.equal(want);
      expect(new Set(calls.authorize).size, `${what}: ${calls.authorize.join(', ')}`).to.equal(asked);
    }
    const failing = new Gate({
      reviews: {
        authenticate: async () => undefined,
        authorize: async () => {
          throw new Error('connection refused');
        },
      },
    });
    expect((await failing.visible(alice, [{ kind: 'deployment', namespace: 'a' }]))('deployment', 'a')).to.equal(false);
  });
});

const inNamespace = (ns: string, name: string, replicas = 1): Deployment => {
  const d = deployment(name, { replicas, uid: `${ns}-${name}` });
  return { ...d, metadata: { ...d.metadata, namespace: ns } };
};

describe('dashboard/server in the cluster: a user who may read namespace a only', () => {
  let server: RunningDashboard;
  let hub: Hub;
  let deployments: ReturnType<typeof fakeSource<Deployment>>;
  const acted: string[] = [];
  const audit: Array<{ user: string; action: string; status: number; answer: string }> = [];
  const viewer: Caller = { username: 'system:serviceaccount:a:viewer', groups: ['system:serviceaccounts'] };
  // The grants the fake reviews answer from; a test changes them as a RoleBinding would.
  const A_ONLY = ['deployments', 'replicasets', 'pods'].map((r) => `${viewer.username} list ${r} a`);

  before(async () => {
    deployments = fakeSource<Deployment>([inNamespace('a', 'web'), inNamespace('b', 'web')]);
    hub = new Hub({
      deployments: deployments.source,
      replicaSets: fakeSource<ReplicaSet>([]).source,
      pods: fakeSource<Pod>([]).source,
    });
    hub.start();
    server = await startDashboardServer({
      hub,
      files: new Map(),
      act: async (ns, name, action) => {
        acted.push(`${action} ${ns}/${name}`);
        return { status: 200, result: { ok: true, message: `deployment.pacer.dev/${name} ${action}d` } };
      },
      address: '127.0.0.1',
      port: 0,
      batchMs: 5,
      config: { namespace: null, readOnly: false, server: 'https://kube' },
      // Answers kept a fifth of a second, so that a grant changed by a test is seen again soon.
      gate: new Gate({ reviews: tableReviews({ 'viewer-token': viewer }, A_ONLY).reviews, reviewTtlMs: 200 }),
      audit: (e) => audit.push(e),
    });
    await eventually('the cache filled', () => hub.hasSynced());
  });
  after(async () => {
    await server.close();
    await hub.stop();
  });

  const call = (path: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: server.port, path, method: o.method ?? 'GET', headers: o.headers ?? {} },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end(o.body ?? '');
    });
  const bearer = { Authorization: 'Bearer viewer-token' };

  it('without a token, or with one not accepted: 401 on the API; the page itself is no secret', async () => {
    expect((await call('/api/v1/deployments')).status).to.equal(401);
    expect((await call('/api/v1/stream', { headers: { Authorization: 'Bearer nope' } })).status).to.equal(401);
    expect((await call('/api/v1/openapi.yaml')).status).to.equal(200);
  });

  it("the stream: namespace b's Deployments are never sent, in the snapshot or as changes", async () => {
    const raw: string[] = [];
    const req = http.get({ host: '127.0.0.1', port: server.port, path: '/api/v1/stream', headers: bearer }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (c: string) => raw.push(c));
    });
    try {
      await eventually('the snapshot', () => raw.join('').includes('event: snapshot'));
      const snapLine = /event: snapshot\ndata: (.*)\n/.exec(raw.join(''))![1];
      const snap = JSON.parse(snapLine) as Snapshot;
      expect(snap.deployments.map((d) => `${d.namespace}/${d.name}`)).to.deep.equal(['a/web']);
      expect(snap.config.user).to.equal(viewer.username);
      // A change in b, then one in a: once a's arrives, b's would have come before it.
      await deployments.push('MODIFIED', inNamespace('b', 'web', 7));
      await deployments.push('MODIFIED', inNamespace('a', 'web', 5));
      await eventually("a's change", () => /"namespace":"a".*"desired":5/.test(raw.join('')));
      expect(raw.join('')).to.not.match(/"namespace":"b"/);
    } finally {
      req.destroy();
    }
    const rows = JSON.parse((await call('/api/v1/deployments', { headers: bearer })).body) as Array<{
      namespace: string;
    }>;
    expect(rows.map((r) => r.namespace)).to.deep.equal(['a']);
  });

  it("an action RBAC refuses: 403 in RBAC's words, nothing done, audited with who asked", async () => {
    const r = await call('/api/v1/namespaces/a/deployments/web/undo', {
      method: 'POST',
      headers: { ...bearer, Origin: `http://127.0.0.1:${server.port}`, 'Content-Type': 'application/json' },
      body: '{"toRevision": 1}',
    });
    expect(r.status).to.equal(403);
    expect(JSON.parse(r.body)).to.deep.equal({
      ok: false,
      message:
        'deployments.pacer.dev "web" is forbidden: User "system:serviceaccount:a:viewer" cannot patch resource "deployments" in API group "pacer.dev" in the namespace "a"',
    });
    expect(acted).to.deep.equal([]);
    expect(audit.at(-1)).to.deep.include({
      user: viewer.username,
      action: 'undo --to-revision=1 a/web',
      status: 403,
    });
  });

  it('rights changed while a page is open: the stream sends everything again as the user may now see it (access)', async () => {
    const raw: string[] = [];
    const req = http.get({ host: '127.0.0.1', port: server.port, path: '/api/v1/stream', headers: bearer }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (c: string) => raw.push(c));
    });
    const accessEvents = () =>
      [...raw.join('').matchAll(/event: access\ndata: (.*)\n/g)].map((m) =>
        (JSON.parse(m[1]) as Snapshot).deployments.map((d) => d.namespace).sort(),
      );
    const grantB = `${viewer.username} list deployments b`;
    try {
      await eventually('the snapshot', () => raw.join('').includes('event: snapshot'));
      A_ONLY.push(grantB);
      await eventually('b granted', () => accessEvents().length === 1);
      expect(accessEvents()[0]).to.deep.equal(['a', 'b']);
      A_ONLY.splice(A_ONLY.indexOf(grantB), 1);
      A_ONLY.splice(A_ONLY.indexOf(`${viewer.username} list deployments a`), 1);
      await eventually('a and b withdrawn', () => accessEvents().length === 2);
      expect(accessEvents()[1]).to.deep.equal([]);
    } finally {
      req.destroy();
      A_ONLY.splice(
        0,
        A_ONLY.length,
        ...['deployments', 'replicasets', 'pods'].map((r) => `${viewer.username} list ${r} a`),
      );
    }
  });

  it("a plan operation's Deployments, as the controller's plan API counts them: the service's", () => {
    expect(hub.planTargets('a', 'web', 'deploy')).to.deep.equal({ deployments: ['web'], custom: false });
    expect(hub.planTargets('a', 'gone', 'deploy')).to.deep.equal({ deployments: ['gone'], custom: false });
  });

  it('the sign-in: only from the page (same origin, JSON); its cookie then stands for the token', async () => {
    const cross = await call('/api/v1/session', {
      method: 'POST',
      headers: { Origin: 'https://evil.example', 'Content-Type': 'application/json' },
      body: '{"token": "viewer-token"}',
    });
    expect(cross.status).to.equal(403);
    const bad = await call('/api/v1/session', {
      method: 'POST',
      headers: { Origin: `http://127.0.0.1:${server.port}`, 'Content-Type': 'application/json' },
      body: '{"tokn": "viewer-token"}',
    });
    expect([bad.status, JSON.parse(bad.body).message]).to.deep.equal([
      400,
      'unknown field "tokn" in the sign-in request (its fields: token)',
    ]);
    expect((await call('/api/v1/session')).status, 'a GET').to.equal(405);
  });
});
