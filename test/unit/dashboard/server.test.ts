// The dashboard's server (src/dashboard/server.ts) over a Hub fed by fake list+watch sources: the
// stream (a snapshot, changes in batches with the id of their last change, resumption from
// Last-Event-ID, a new snapshot when the id cannot be resumed), the checks on every request
// (Host) and on actions (POST only, same origin, JSON, the namespace served, read-only), and the
// actions' answers in kubectl's words (src/dashboard/actions.ts).

import { expect } from 'chai';
import http from 'node:http';
import type { Deployment, Pod, ReplicaSet } from '../../../src/api/types.ts';
import { pluginActions, statusOf } from '../../../src/dashboard/actions.ts';
import type { Act, ActionOutcome } from '../../../src/dashboard/actions.ts';
import type { Action, ActionRequest, Change, Snapshot } from '../../../src/dashboard/api.ts';
import { Hub } from '../../../src/dashboard/hub.ts';
import { hostAllowed, sameOrigin } from '../../../src/dashboard/origin.ts';
import { parseActionRequest } from '../../../src/dashboard/requests.ts';
import { startDashboardServer } from '../../../src/dashboard/server.ts';
import type { RunningDashboard } from '../../../src/dashboard/server.ts';
import type { KubeClient } from '../../../src/kube/client.ts';
import { KubeError, fromResponse } from '../../../src/kube/errors.ts';
import { PluginError } from '../../../src/plugin/errors.ts';
import { eventually } from '../../integration/fixtures/cluster.ts';
import { deployment, pod, replicaSet } from '../plugin/fixtures.ts';
import { fakeSource } from './fixtures.ts';

interface SseEvent {
  id?: string;
  event: string;
  data: unknown;
}

/** A GET of the stream; its events as they come. */
function openStream(port: number, headers: Record<string, string> = {}) {
  const events: SseEvent[] = [];
  let buf = '';
  const req = http.get({ host: '127.0.0.1', port, path: '/api/v1/stream', headers }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buf += chunk;
      for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const e: Partial<SseEvent> = {};
        for (const line of block.split('\n')) {
          const [k, ...rest] = line.split(': ');
          const v = rest.join(': ');
          if (k === 'id') e.id = v;
          if (k === 'event') e.event = v;
          if (k === 'data') e.data = JSON.parse(v);
        }
        if (e.event) events.push(e as SseEvent);
      }
    });
  });
  req.on('error', () => {});
  return { events, close: () => req.destroy() };
}

function request(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body = '',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('dashboard/server', () => {
  const web = deployment('web', { annotations: { 'pacer.dev/revision': '1' } });
  const rs = replicaSet(web, 'abc', { revision: 1, replicas: 3 });
  let deployments: ReturnType<typeof fakeSource<Deployment>>;
  let hub: Hub;
  let server: RunningDashboard;
  let calls: Array<[string, string, string, unknown]>;
  let readOnly = false;
  const act: Act = async (ns, name, action, req) => {
    calls.push([ns, name, action, req]);
    return { status: 200, result: { ok: true, message: `deployment.pacer.dev/${name} ${action}d` } };
  };

  const start = async (logSize = 100) => {
    deployments = fakeSource<Deployment>([web]);
    hub = new Hub(
      {
        deployments: deployments.source,
        replicaSets: fakeSource<ReplicaSet>([rs]).source,
        pods: fakeSource<Pod>([pod(rs, 'a')]).source,
      },
      { logSize },
    );
    hub.start();
    server = await startDashboardServer({
      hub,
      files: new Map([
        ['/index.html', { type: 'text/html; charset=utf-8', body: Buffer.from('<p>page</p>'), etag: '"e"' }],
      ]),
      act,
      address: '127.0.0.1',
      port: 0,
      batchMs: 5,
      config: { namespace: 'default', readOnly, server: 'https://kube' },
    });
  };
  const stop = async () => {
    await server.close();
    await hub.stop();
  };

  beforeEach(() => {
    calls = [];
    readOnly = false;
  });

  describe('the stream', () => {
    beforeEach(() => start(3));
    afterEach(stop);

    it('a snapshot first, then the changes as they come, each batch with the id of its last change', async () => {
      const s = openStream(server.port);
      await eventually('the snapshot', () => s.events[0]);
      const snap = s.events[0];
      expect(snap.event).to.equal('snapshot');
      const body = snap.data as Snapshot;
      expect(body.deployments.map((d) => d.name)).to.deep.equal(['web']);
      expect(body.replicaSets.map((r) => r.name)).to.deep.equal(['web-abc']);
      expect(body.pods.map((p) => p.name)).to.deep.equal(['web-abc-a']);
      expect(body.config.namespace).to.equal('default');
      expect(snap.id).to.equal(hub.lastId());

      await deployments.push('MODIFIED', { ...web, spec: { ...web.spec, paused: true } });
      await eventually('a change', () => s.events[1]);
      expect(s.events[1].event).to.equal('changes');
      const [c] = s.events[1].data as Change[];
      expect(c.kind === 'deployment' && c.op === 'put' && c.obj.state).to.equal('paused');
      expect(s.events[1].id).to.equal(hub.lastId());
      expect(s.events[1].id).to.not.equal(snap.id);

      await deployments.push('DELETED', web);
      await eventually('the deletion', () => s.events[2]);
      expect(s.events[2].data).to.deep.equal([{ kind: 'deployment', op: 'delete', namespace: 'default', name: 'web' }]);
      s.close();
    });

    it('a resync (the same version again) sends nothing', async () => {
      const before = hub.lastId();
      await deployments.push('MODIFIED', web);
      const after = hub.lastId();
      // The push stamps a new resourceVersion but the view is the same: no change for the pages.
      expect(after).to.equal(before);
    });

    it('a page back with the last id it saw gets what it missed ("resumed"), then the changes after it', async () => {
      const first = openStream(server.port);
      await eventually('the snapshot', () => first.events[0]);
      const seen = first.events[0].id!;
      first.close();
      await deployments.push('MODIFIED', { ...web, spec: { ...web.spec, replicas: 5 } });
      const again = openStream(server.port, { 'Last-Event-ID': seen });
      await eventually('resumed and the missed change', () => again.events[1]);
      expect(again.events[0]).to.deep.equal({ event: 'resumed', data: { after: seen, changes: 1 } });
      expect(again.events[1].event).to.equal('changes');
      expect(
        (again.events[1].data as Change[]).map((c) => c.kind === 'deployment' && c.op === 'put' && c.obj.desired),
      ).to.deep.equal([5]);
      expect(again.events.some((e) => e.event === 'snapshot')).to.equal(false);
      again.close();
    });

    it('an id of an earlier run, or one the log no longer reaches, gets a new snapshot', async () => {
      const first = openStream(server.port);
      await eventually('the snapshot', () => first.events[0]);
      const seen = first.events[0].id!;
      first.close();
      for (const n of [4, 5, 6, 7]) await deployments.push('MODIFIED', { ...web, spec: { ...web.spec, replicas: n } });
      expect(hub.since(seen)).to.equal(undefined); // the log keeps 3
      for (const id of [seen, `00000000-1`, 'garbage']) {
        const again = openStream(server.port, { 'Last-Event-ID': id });
        await eventually('the snapshot', () => again.events[0]);
        expect(again.events[0].event, id).to.equal('snapshot');
        expect((again.events[0].data as Snapshot).deployments[0].desired).to.equal(7);
        again.close();
      }
    });
  });

  it('a list the API server refuses: the page is told why it waits, then gets its snapshot once the list works', async () => {
    let refuse = true;
    const forbidden = fromResponse(403, {
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message: 'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"',
    });
    const pods = fakeSource<Pod>([pod(rs, 'a')]).source;
    hub = new Hub({
      deployments: fakeSource<Deployment>([web]).source,
      replicaSets: fakeSource<ReplicaSet>([rs]).source,
      pods: {
        list: async (signal) => {
          if (refuse) throw forbidden;
          return pods.list(signal);
        },
        watch: pods.watch,
      },
    });
    hub.start();
    server = await startDashboardServer({
      hub,
      files: new Map(),
      act,
      address: '127.0.0.1',
      port: 0,
      config: { namespace: 'default', readOnly: false, server: 'https://kube' },
    });
    try {
      const s = openStream(server.port);
      await eventually('the waiting event', () => s.events[0]);
      expect(s.events[0]).to.deep.equal({
        event: 'waiting',
        data: {
          problems: [
            'pods: pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"',
          ],
        },
      });
      const early = await request(server.port, 'GET', '/api/v1/deployments', { Host: `127.0.0.1:${server.port}` });
      expect([early.status, JSON.parse(early.body).message]).to.deep.equal([503, 'the cache is not filled yet']);
      refuse = false;
      // The informer tries again after its backoff (200 ms, then doubling).
      await eventually('the snapshot', () => s.events.find((e) => e.event === 'snapshot'), 10_000);
      expect(hub.problems()).to.deep.equal([]);
      s.close();
    } finally {
      await stop();
    }
  });

  describe('requests', () => {
    afterEach(stop);
    const action = '/api/v1/namespaces/default/deployments/web/pause';
    const json = { 'Content-Type': 'application/json' };

    it('serves the page and the API only to its own Host (DNS rebinding)', async () => {
      await start();
      const host = `127.0.0.1:${server.port}`;
      expect(await request(server.port, 'GET', '/', { Host: host })).to.deep.include({
        status: 200,
        body: '<p>page</p>',
      });
      expect(
        (await request(server.port, 'GET', '/api/v1/config', { Host: `localhost:${server.port}` })).status,
      ).to.equal(200);
      const evil = await request(server.port, 'GET', '/api/v1/deployments', { Host: `evil.example:${server.port}` });
      expect(evil.status).to.equal(421);
      expect(JSON.parse(evil.body).message).to.equal(
        `this dashboard answers to 127.0.0.1:${server.port} (or localhost:${server.port}), not Host "evil.example:${server.port}"`,
      );
    });

    it('no action by GET; a POST needs the same origin, JSON and a served namespace', async () => {
      await start();
      const origin = { Origin: `http://127.0.0.1:${server.port}` };
      const rows: Array<[string, string, string, Record<string, string>, string, number, string]> = [
        ['a GET', 'GET', action, origin, '', 405, 'pause is a POST: no action is taken on a GET'],
        [
          'no Origin nor Sec-Fetch-Site',
          'POST',
          action,
          json,
          '{}',
          403,
          `cross-origin request refused: an action must come from this dashboard's page (Origin http://127.0.0.1:${server.port}); got Origin null, Sec-Fetch-Site null`,
        ],
        [
          'another Origin',
          'POST',
          action,
          { ...json, Origin: 'http://evil.example' },
          '{}',
          403,
          `cross-origin request refused: an action must come from this dashboard's page (Origin http://127.0.0.1:${server.port}); got Origin "http://evil.example", Sec-Fetch-Site null`,
        ],
        [
          'Sec-Fetch-Site cross-site, whatever the Origin',
          'POST',
          action,
          { ...json, ...origin, 'Sec-Fetch-Site': 'cross-site' },
          '{}',
          403,
          `cross-origin request refused: an action must come from this dashboard's page (Origin http://127.0.0.1:${server.port}); got Origin "http://127.0.0.1:${server.port}", Sec-Fetch-Site "cross-site"`,
        ],
        [
          'a form post',
          'POST',
          action,
          { ...origin, 'Content-Type': 'application/x-www-form-urlencoded' },
          'a=1',
          415,
          `an action's body must be application/json, not "application/x-www-form-urlencoded"`,
        ],
        [
          'another namespace',
          'POST',
          '/api/v1/namespaces/prod/deployments/web/pause',
          { ...json, ...origin },
          '{}',
          404,
          'namespace "prod" is not served by this dashboard (it serves "default"; -A serves all)',
        ],
        [
          'an unknown action',
          'POST',
          '/api/v1/namespaces/default/deployments/web/delete',
          { ...json, ...origin },
          '{}',
          404,
          'no action "delete" (the actions: pause, resume, undo, restart, setImage)',
        ],
        [
          'a bad body',
          'POST',
          '/api/v1/namespaces/default/deployments/web/undo',
          { ...json, ...origin },
          '{"toRevision": -1}',
          400,
          'toRevision must be a whole number >= 0 (0: the previous revision), not -1',
        ],
      ];
      for (const [what, method, path, headers, body, status, message] of rows) {
        const r = await request(server.port, method, path, headers, body);
        expect([r.status, JSON.parse(r.body)], what).to.deep.equal([status, { ok: false, message }]);
      }
      expect(calls, 'no refused request reached the cluster').to.deep.equal([]);

      const ok = await request(
        server.port,
        'POST',
        '/api/v1/namespaces/default/deployments/web/undo',
        {
          ...json,
          'Sec-Fetch-Site': 'same-origin',
        },
        '{"toRevision": 1}',
      );
      expect([ok.status, JSON.parse(ok.body)]).to.deep.equal([
        200,
        { ok: true, message: 'deployment.pacer.dev/web undod' },
      ]);
      const byOrigin = await request(server.port, 'POST', action, { ...json, ...origin }, '');
      expect(byOrigin.status).to.equal(200);
      expect(calls).to.deep.equal([
        ['default', 'web', 'undo', { toRevision: 1 }],
        ['default', 'web', 'pause', {}],
      ]);
    });

    it('read-only refuses every action', async () => {
      readOnly = true;
      await start();
      const r = await request(server.port, 'POST', action, { ...json, 'Sec-Fetch-Site': 'same-origin' }, '{}');
      expect([r.status, JSON.parse(r.body)]).to.deep.equal([
        403,
        { ok: false, message: 'the dashboard is read-only (--read-only): pause is not allowed' },
      ]);
      expect(calls).to.deep.equal([]);
    });
  });
});

describe('dashboard/server: the checks', () => {
  it('hostAllowed: the port, and a loopback name, the address, or any IP on a wildcard address', () => {
    const rows: Array<[string | undefined, string, boolean]> = [
      ['127.0.0.1:3100', '127.0.0.1', true],
      ['localhost:3100', '127.0.0.1', true],
      ['[::1]:3100', '127.0.0.1', true],
      ['127.0.0.1:3101', '127.0.0.1', false],
      ['127.0.0.1', '127.0.0.1', false],
      ['evil.example:3100', '127.0.0.1', false],
      ['10.0.0.5:3100', '10.0.0.5', true],
      ['10.0.0.6:3100', '10.0.0.5', false],
      ['10.0.0.6:3100', '0.0.0.0', true],
      ['evil.example:3100', '0.0.0.0', false],
      [undefined, '127.0.0.1', false],
    ];
    for (const [host, address, allowed] of rows)
      expect(hostAllowed(host, address, 3100), `${host} on ${address}`).to.equal(allowed);
  });

  it('sameOrigin: Sec-Fetch-Site decides when sent, else Origin must be this server', () => {
    const rows: Array<[http.IncomingHttpHeaders, boolean]> = [
      [{ host: 'h:1', 'sec-fetch-site': 'same-origin' }, true],
      [{ host: 'h:1', 'sec-fetch-site': 'same-site', origin: 'http://h:1' }, false],
      [{ host: 'h:1', 'sec-fetch-site': 'none' }, false],
      [{ host: 'h:1', origin: 'http://h:1' }, true],
      [{ host: 'h:1', origin: 'https://h:1' }, false],
      [{ host: 'h:1', origin: 'null' }, false],
      [{ host: 'h:1' }, false],
    ];
    for (const [headers, same] of rows) expect(sameOrigin(headers), JSON.stringify(headers)).to.equal(same);
  });

  it("parseActionRequest: {} or undo's toRevision, each error naming the value", () => {
    expect(parseActionRequest('pause', '')).to.deep.equal({});
    expect(parseActionRequest('undo', '{"toRevision": 3}')).to.deep.equal({ toRevision: 3 });
    const errors: Array<[Parameters<typeof parseActionRequest>, string]> = [
      [['undo', '{"toRevision": "3"}'], 'toRevision must be a whole number >= 0 (0: the previous revision), not "3"'],
      [['undo', '{"toRevision": 1.5}'], 'toRevision must be a whole number >= 0 (0: the previous revision), not 1.5'],
      [['pause', '{"toRevision": 1}'], 'toRevision is for undo only, not pause'],
      [['undo', '{"to": 1}'], 'unknown field "to" in the undo request'],
      [['undo', '[1]'], 'the request body must be a JSON object, not [1]'],
    ];
    for (const [args, message] of errors) expect(() => parseActionRequest(...args), args[1]).to.throw(message);
    expect(() => parseActionRequest('undo', '{')).to.throw(/^the request body is not JSON: /);
  });

  it("parseActionRequest: setImage's container and image, each a string; restart takes nothing", () => {
    expect(parseActionRequest('setImage', '{"container": "app", "image": "nginx:1.28"}')).to.deep.equal({
      container: 'app',
      image: 'nginx:1.28',
    });
    expect(parseActionRequest('restart', '{}')).to.deep.equal({});
    const errors: Array<[Parameters<typeof parseActionRequest>, string]> = [
      [['setImage', '{"image": "nginx"}'], 'container must be a string, not null'],
      [['setImage', '{"container": "app", "image": 3}'], 'image must be a string, not 3'],
      [
        ['setImage', '{"container": "app", "image": "x", "tag": "1"}'],
        'unknown field "tag" in the setImage request (its fields: container, image)',
      ],
      [['restart', '{"image": "x"}'], 'unknown field "image" in the restart request'],
    ];
    for (const [args, message] of errors) expect(() => parseActionRequest(...args), args[1]).to.throw(message);
  });
});

describe('dashboard/actions', () => {
  const forbidden = fromResponse(403, {
    kind: 'Status',
    status: 'Failure',
    reason: 'Forbidden',
    code: 403,
    message:
      'deployments.pacer.dev "web" is forbidden: User "bob" cannot patch resource "deployments" in API group "pacer.dev" in the namespace "default"',
  });

  it("statusOf: the API server's status, 409 for the command's refusals, 502 unreachable", () => {
    expect(statusOf(forbidden)).to.equal(403);
    expect(statusOf(new PluginError('already paused'))).to.equal(409);
    expect(statusOf(new KubeError('Unreachable', 'connect ECONNREFUSED'))).to.equal(502);
    expect(statusOf(new Error('boom'))).to.equal(500);
  });

  it("an RBAC refusal comes back as kubectl prints it, with the API server's 403", async () => {
    const d = deployment('web');
    const patched: unknown[] = [];
    const client = {
      server: 'https://kube:6443',
      getDeployment: async () => d,
      patchDeployment: async (_ns: string, _name: string, patch: unknown) => {
        patched.push(patch);
        throw forbidden;
      },
    } as unknown as KubeClient;
    expect(await pluginActions(client)('default', 'web', 'pause', {})).to.deep.equal({
      status: 403,
      result: {
        ok: false,
        message:
          'Error from server (Forbidden): deployments.pacer.dev "web" is forbidden: User "bob" cannot patch resource "deployments" in API group "pacer.dev" in the namespace "default"',
      },
    });
    // The plugin's own patch: spec.paused, guarded by the resourceVersion it read.
    expect(patched).to.deep.equal([{ metadata: { resourceVersion: '42' }, spec: { paused: true } }]);
  });

  describe("restart and set image: the plugin's patches and its words", () => {
    /** A client that serves `d` and keeps every patch (its JSON patches through request()). */
    const recording = (d: Deployment, fail?: Error) => {
      const patches: unknown[] = [];
      const client = {
        server: 'https://kube:6443',
        getDeployment: async () => d,
        patchDeployment: async (_ns: string, _name: string, patch: unknown) => {
          patches.push(patch);
          if (fail) throw fail;
          return d;
        },
        request: async (_method: string, _path: string, o: { body: unknown }) => {
          patches.push(o.body);
          if (fail) throw fail;
          return d;
        },
      } as unknown as KubeClient;
      return { client, patches };
    };
    const rows: Array<[string, Deployment, Action, ActionRequest, Error | undefined, ActionOutcome, number]> = [
      [
        "set image: the container's image replaced, guarded by a test of its name",
        deployment('web'),
        'setImage',
        { container: 'nginx', image: 'nginx:1.28' },
        undefined,
        { status: 200, result: { ok: true, message: 'deployment.pacer.dev/web image updated' } },
        1,
      ],
      [
        "a container the template does not have: the plugin's refusal, nothing sent",
        deployment('web'),
        'setImage',
        { container: 'app', image: 'nginx:1.28' },
        undefined,
        { status: 409, result: { ok: false, message: 'error: unable to find container named "app"' } },
        0,
      ],
      [
        "an empty image: the plugin's words for a bad CONTAINER=IMAGE, nothing sent",
        deployment('web'),
        'setImage',
        { container: 'nginx', image: '' },
        undefined,
        {
          status: 409,
          result: { ok: false, message: 'error: invalid image update "nginx=": expected CONTAINER=IMAGE' },
        },
        0,
      ],
      [
        'restart: the restartedAt annotation',
        deployment('web'),
        'restart',
        {},
        undefined,
        { status: 200, result: { ok: true, message: 'deployment.pacer.dev/web restarted' } },
        1,
      ],
      [
        "restart of a paused Deployment: kubectl's refusal",
        deployment('web', { paused: true }),
        'restart',
        {},
        undefined,
        {
          status: 409,
          result: { ok: false, message: "error: can't restart paused deployment (run rollout resume first)" },
        },
        0,
      ],
      [
        "restart refused by RBAC: the API server's 403 in kubectl's words",
        deployment('web'),
        'restart',
        {},
        forbidden,
        {
          status: 403,
          result: {
            ok: false,
            message:
              'Error from server (Forbidden): deployments.pacer.dev "web" is forbidden: User "bob" cannot patch resource "deployments" in API group "pacer.dev" in the namespace "default"',
          },
        },
        1,
      ],
    ];
    for (const [name, d, action, req, fail, want, sent] of rows)
      it(name, async () => {
        const { client, patches } = recording(d, fail);
        expect(await pluginActions(client)('default', 'web', action, req)).to.deep.equal(want);
        expect(patches, 'patches sent').to.have.length(sent);
      });

    it("the patches are the plugin's: a JSON patch of the image, the restartedAt annotation", async () => {
      const { client, patches } = recording(deployment('web'));
      await pluginActions(client)('default', 'web', 'setImage', { container: 'nginx', image: 'nginx:1.28' });
      await pluginActions(client)('default', 'web', 'restart', {});
      expect(patches[0]).to.deep.equal([
        { op: 'test', path: '/spec/template/spec/containers/0/name', value: 'nginx' },
        { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.28' },
      ]);
      const annotations = (patches[1] as { spec: { template: { metadata: { annotations: Record<string, string> } } } })
        .spec.template.metadata.annotations;
      expect(Object.keys(annotations)).to.deep.equal(['kubectl.kubernetes.io/restartedAt']);
    });
  });
});
