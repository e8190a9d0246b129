// The dashboard's OpenAPI document (src/dashboard/openapi.yaml) against the server that serves it
// (src/dashboard/server.ts) and the page that uses it (web/): the server's answers validate against
// its schemas with Ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect; additionalProperties false, so a
// field the server adds or drops fails), the actions' enums are the server's, every route the page
// calls is a path of the document, and the server serves the document itself.

import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import http from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { AnalysisRun } from '../../../src/api/analysis.ts';
import type { NodeRoll } from '../../../src/api/noderoll.ts';
import type { Deployment, PlanResource, Pod, ReplicaSet } from '../../../src/api/types.ts';
import { Hub } from '../../../src/dashboard/hub.ts';
import type { NodeObject, ConfigMapObject } from '../../../src/dashboard/hub.ts';
import {
  ACTIONS,
  FREEZE_ACTIONS,
  MARATHON_ACTIONS,
  NODE_ROLL_ACTIONS,
  OPENAPI_FILE,
  PLAN_ACTIONS,
  startDashboardServer,
} from '../../../src/dashboard/server.ts';
import type { RunningDashboard } from '../../../src/dashboard/server.ts';
import type { ListWatchSource } from '../../../src/manager/informer.ts';
import type { EventObject } from '../../../src/dashboard/model.ts';
import { fromResponse } from '../../../src/kube/errors.ts';
import { eventually } from '../../integration/fixtures/cluster.ts';

/** The Status the API server answers for a pod that is not there. */
const notFound = (name: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  message: `pods "${name}" not found`,
  reason: 'NotFound',
  details: { name, kind: 'pods' },
  code: 404,
});
import { deployment, pod, replicaSet } from '../plugin/fixtures.ts';
import { Gate } from '../../../src/dashboard/incluster.ts';

type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<string, { parameters?: Array<{ $ref?: string; name?: string; schema?: { enum?: string[] } }> }>
  >;
  components: { schemas: Record<string, unknown> };
};
const doc = parse(readFileSync(OPENAPI_FILE, 'utf8')) as Doc;
const WEB = new URL('../../../web/', import.meta.url).pathname;

const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
// The schemas stay where OpenAPI puts them (#/components/schemas/NAME): `components` is no JSON
// Schema keyword, so it is declared to keep strict mode, which refuses any other unknown keyword.
ajv.addKeyword('components');
ajv.addSchema({ $id: 'pacer-dashboard', components: doc.components }, 'pacer-dashboard');
/** Validates `value` against components/schemas/NAME; the failures in words. */
function problems(name: string, value: unknown): string[] {
  const validate = ajv.getSchema(`pacer-dashboard#/components/schemas/${name}`);
  if (!validate) throw new Error(`no schema ${name}`);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

function listing<T>(items: T[]): ListWatchSource<T> {
  return {
    list: async () => ({ items, resourceVersion: '1' }),
    watch: (_rv, _onEvent, signal, onOpen) =>
      new Promise<void>((resolve) => {
        onOpen?.();
        signal.addEventListener('abort', () => resolve(), { once: true });
      }),
  };
}

function get(port: number, path: string, method = 'GET', body = ''): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        headers: method === 'POST' ? { Origin: `http://127.0.0.1:${port}`, 'Content-Type': 'application/json' } : {},
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('dashboard/openapi.yaml', () => {
  it('is OpenAPI 3.1 whose schemas compile (every $ref resolves)', () => {
    expect(doc.openapi).to.equal('3.1.0');
    for (const name of Object.keys(doc.components.schemas))
      expect(ajv.getSchema(`pacer-dashboard#/components/schemas/${name}`), name).to.be.a('function');
  });

  it("each action's enum is the server's", () => {
    const actionEnum = (path: string) =>
      doc.paths[path].post
        .parameters!.find((p) => p.name === 'action')!
        .schema!.enum!.slice()
        .sort();
    expect(actionEnum('/api/v1/namespaces/{namespace}/deployments/{name}/{action}')).to.deep.equal([...ACTIONS].sort());
    expect(actionEnum('/api/v1/noderolls/{name}/{action}')).to.deep.equal([...NODE_ROLL_ACTIONS].sort());
    expect(actionEnum('/api/v1/freeze/{action}')).to.deep.equal([...FREEZE_ACTIONS].sort());
    expect(actionEnum('/api/v1/marathon/deployments/{id}/{action}')).to.deep.equal([...MARATHON_ACTIONS].sort());
    expect(actionEnum('/api/v1/namespaces/{namespace}/services/{service}/plans/{plan}/{action}')).to.deep.equal(
      [...PLAN_ACTIONS].sort(),
    );
  });

  it('every route the page calls is a path of the document', () => {
    // The page's URLs: template literals and strings under /api/v1/ in web/, ${...} as a parameter.
    const used = new Set<string>();
    for (const f of readdirSync(WEB).filter((x) => /\.tsx?$/.test(x)))
      for (const m of readFileSync(join(WEB, f), 'utf8').matchAll(/[`'"](\/api\/v1\/[^`'"?]*)/g))
        used.add(m[1].replace(/\$\{[^}]*\}/g, '{}'));
    expect(used.size, 'the page calls the API').to.be.greaterThan(3);
    const paths = Object.keys(doc.paths).map((p) => p.replace(/\{[^}]*\}/g, '{}'));
    for (const u of used) expect(paths, `${u} (used by web/)`).to.include(u);
  });

  describe("the server's answers", () => {
    const web = deployment('web', { annotations: { 'pacer.dev/revision': '2' } });
    const rs = replicaSet(web, 'abc', { revision: 2, replicas: 3 });
    // A change the controller has not observed yet: one of Marathon's active deployments.
    const moving = deployment('moving', { generation: 2, status: { observedGeneration: 1 } });
    const rs1 = replicaSet(web, 'old', { revision: 1, image: 'nginx:1.26' });
    const event: EventObject = {
      metadata: {
        name: 'web.1',
        namespace: 'default',
        resourceVersion: '3',
        creationTimestamp: '2026-03-01T10:00:00Z',
      },
      involvedObject: { kind: 'Deployment', name: 'web' },
      type: 'Normal',
      reason: 'ScalingReplicaSet',
      message: 'Scaled up replica set web-abc from 0 to 3',
      count: 2,
      lastTimestamp: '2026-03-01T10:00:05Z',
      source: { component: 'deployment-controller' },
    };
    const roll: NodeRoll = {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'NodeRoll',
      metadata: { name: 'upgrade', uid: 'r1', resourceVersion: '5', creationTimestamp: '2026-03-01T10:00:00Z' },
      spec: { nodeSelector: { matchLabels: { group: 'workers' } }, nodeGroup: 'workers', desiredNodes: 2 },
      status: {
        phase: 'Paused',
        message: 'drain of n1 timed out',
        originalNodes: ['n1', 'n2'],
        nodes: [
          { name: 'n1', step: 'Draining', since: '2026-03-01T10:01:00Z' },
          { name: 'n2', step: 'Pending', since: '2026-03-01T10:00:00Z' },
        ],
        paused: { node: 'n1', wait: 'drain', message: 'pods still there' },
        zoneMoves: { planned: 1, moved: [] },
        conditions: [
          {
            type: 'Paused',
            status: 'True',
            reason: 'DrainTimeout',
            message: 'm',
            lastTransitionTime: '2026-03-01T10:05:00Z',
          },
        ],
      },
    } as NodeRoll;
    const nodes: NodeObject[] = ['n1', 'n2'].map((name, i) => ({
      metadata: { name, resourceVersion: '1', labels: { group: 'workers', 'topology.kubernetes.io/zone': `z${i}` } },
    }));
    const freeze: ConfigMapObject = {
      metadata: {
        name: 'pacer-freeze',
        namespace: 'pacer-system',
        resourceVersion: '1',
        creationTimestamp: '2026-03-01T09:00:00Z',
      },
      data: { reason: 'holiday' },
    } as ConfigMapObject;
    // A run of web's revision 2 with a threshold, an Error measurement without a value and a metric still measuring.
    const run: AnalysisRun = {
      metadata: {
        name: 'web-abc-1',
        namespace: 'default',
        uid: 'run-1',
        resourceVersion: '1',
        labels: { 'pacer.dev/deployment': 'web', 'pacer.dev/pod-template-hash': 'abc', 'pacer.dev/attempt': '1' },
        annotations: { 'pacer.dev/revision': '2' },
        creationTimestamp: '2026-03-01T10:00:00Z',
      },
      spec: {
        metrics: [
          {
            name: 'errors',
            interval: '1s',
            failureLimit: 1,
            successCondition: 'result[0] < 0.05',
            provider: { prometheus: { address: 'http://prom:9090', query: 'x' } },
          },
          {
            name: 'ok',
            provider: { web: { url: 'https://status/ok', jsonPath: '{$.ok}' } },
            successCondition: 'result == true',
          },
        ],
      },
      status: {
        phase: 'Failed',
        message: 'metric "errors" assessed Failed',
        startedAt: '2026-03-01T10:00:01Z',
        metricResults: [
          {
            name: 'errors',
            phase: 'Failed',
            count: 2,
            failed: 2,
            error: 1,
            measurements: [
              {
                phase: 'Error',
                message: 'prometheus at http://prom:9090: connect ECONNREFUSED',
                finishedAt: '2026-03-01T10:00:02Z',
              },
              { phase: 'Failed', value: '[0.5]', finishedAt: '2026-03-01T10:00:03Z' },
              { phase: 'Failed', value: '[NaN]', finishedAt: '2026-03-01T10:00:04Z' },
            ],
          },
          { name: 'ok', phase: 'Running' },
        ],
      },
    };
    let hub: Hub;
    let server: RunningDashboard;
    before(async () => {
      hub = new Hub({
        deployments: listing<Deployment>([web, moving]),
        replicaSets: listing<ReplicaSet>([rs, rs1]),
        events: listing<EventObject>([event]),
        pods: listing<Pod>([pod(rs, 'a')]),
        nodeRolls: listing<NodeRoll>([roll]),
        nodes: listing<NodeObject>(nodes),
        plans: listing<PlanResource>([]),
        freeze: listing<ConfigMapObject>([freeze]),
        analysisRuns: listing<AnalysisRun>([run]),
      });
      hub.start();
      server = await startDashboardServer({
        hub,
        files: new Map(),
        act: async (_ns, name, action) => ({
          status: 200,
          result: { ok: true, message: `deployment.pacer.dev/${name} ${action}d` },
        }),
        operate: async () => ({
          status: 208,
          result: { ok: true, message: 'Received cmd: continue', warnings: ['w'] },
        }),
        // A log as the API server streams it (two pieces), or its refusal for a pod not there.
        podLog: async (_ns, name, _q, onText, _signal, onOpen) => {
          if (name !== 'web-abc-a') throw fromResponse(404, JSON.stringify(notFound(name)), 'get pods/log');
          onOpen();
          onText('line 1\n');
          onText('line 2\n');
        },
        address: '127.0.0.1',
        port: 0,
        config: { namespace: null, readOnly: false, server: 'https://kube' },
      });
      await eventually('the cache filled', () => hub.hasSynced());
      await eventually('the Events listed', () => hub.snapshot().events.length === 1);
    });
    after(async () => {
      await server.close();
      await hub.stop();
    });

    it('GET /api/v1/config: Config', async () => {
      const r = await get(server.port, '/api/v1/config');
      expect(r.status).to.equal(200);
      expect(problems('Config', JSON.parse(r.body))).to.deep.equal([]);
    });

    it('GET /api/v1/deployments: Deployment[]', async () => {
      const r = await get(server.port, '/api/v1/deployments');
      const list = JSON.parse(r.body) as unknown[];
      expect(list).to.have.length(2);
      for (const d of list) expect(problems('Deployment', d)).to.deep.equal([]);
    });

    it("the stream's snapshot: Snapshot, with a node roll, the nodes' zones, the freeze switch and an analysis run in it", async () => {
      const snapshot = await new Promise<unknown>((resolve, reject) => {
        const req = http.get({ host: '127.0.0.1', port: server.port, path: '/api/v1/stream' }, (res) => {
          let buf = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            buf += c;
            const m = /event: snapshot\ndata: (.*)\n\n/.exec(buf);
            if (m) {
              req.destroy();
              resolve(JSON.parse(m[1]));
            }
          });
        });
        req.on('error', reject);
      });
      expect(problems('Snapshot', snapshot)).to.deep.equal([]);
      const s = snapshot as {
        nodeRolls: Array<{ pause: unknown }>;
        freeze: unknown[];
        analysisRuns: unknown[];
        events: unknown[];
      };
      expect(s.analysisRuns, 'the run is in the snapshot').to.have.length(1);
      expect(s.events, 'the Event is in it').to.have.length(1);
      expect(s.nodeRolls).to.have.length(1);
      expect(s.nodeRolls[0].pause, 'the paused roll shows its pause').to.not.equal(null);
      expect(s.freeze).to.have.length(1);
    });

    it('changes: each kind of put and a delete is a Change', () => {
      expect(problems('Change', { kind: 'deployment', op: 'delete', namespace: 'default', name: 'web' })).to.deep.equal(
        [],
      );
      expect(problems('Change', { kind: 'nothing', op: 'delete', namespace: '', name: 'x' })).to.not.deep.equal([]);
    });

    it('POST actions: ActionResult, done and refused', async () => {
      const done = await get(server.port, '/api/v1/namespaces/default/deployments/web/pause', 'POST', '{}');
      expect(done.status).to.equal(200);
      expect(problems('ActionResult', JSON.parse(done.body))).to.deep.equal([]);
      const op = await get(server.port, '/api/v1/namespaces/default/services/web/plans/deploy/continue', 'POST', '{}');
      expect(op.status).to.equal(208);
      expect(problems('ActionResult', JSON.parse(op.body))).to.deep.equal([]);
      const refused = await get(server.port, '/api/v1/noderolls/upgrade/skip', 'POST', '{}');
      expect(refused.status).to.equal(400);
      expect(problems('ActionResult', JSON.parse(refused.body))).to.deep.equal([]);
    });

    it("GET /api/v1/marathon/deployments: MarathonDeployment[]; a cancel and a promotion's answers", async () => {
      const r = await get(server.port, '/api/v1/marathon/deployments');
      expect(r.status, r.body).to.equal(200);
      const list = JSON.parse(r.body) as Array<{ affectedApps: string[] }>;
      expect(list.map((p) => p.affectedApps)).to.deep.include(['/default/moving']);
      for (const p of list) expect(problems('MarathonDeployment', p)).to.deep.equal([]);
      const cancel = await get(server.port, '/api/v1/marathon/deployments/some-id/cancel', 'POST', '{"force": true}');
      expect(problems('ActionResult', JSON.parse(cancel.body))).to.deep.equal([]);
      const promoted = await get(
        server.port,
        '/api/v1/promotions',
        'POST',
        JSON.stringify({ items: [{ namespace: 'default', name: 'web' }] }),
      );
      expect(promoted.status, promoted.body).to.equal(200);
      expect(problems('PromotionResult', JSON.parse(promoted.body))).to.deep.equal([]);
      expect(problems('PromotionRequest', { items: [] }), 'an empty list is refused').to.not.deep.equal([]);
    });

    it('GET .../services/web/plans: ServicePlans', async () => {
      const r = await get(server.port, '/api/v1/namespaces/default/services/web/plans');
      expect(r.status, r.body).to.equal(200);
      expect(problems('ServicePlans', JSON.parse(r.body))).to.deep.equal([]);
    });

    it('GET .../deployments/web/revisions/2/diff: RevisionDiff; a revision not there, 404 in upstream words', async () => {
      const r = await get(server.port, '/api/v1/namespaces/default/deployments/web/revisions/2/diff');
      expect(r.status, r.body).to.equal(200);
      expect(problems('RevisionDiff', JSON.parse(r.body))).to.deep.equal([]);
      const missing = await get(server.port, '/api/v1/namespaces/default/deployments/web/revisions/9/diff');
      expect([missing.status, JSON.parse(missing.body)]).to.deep.equal([
        404,
        { ok: false, message: 'unable to find specified revision 9 in history' },
      ]);
      const bad = await get(server.port, '/api/v1/namespaces/default/deployments/web/revisions/x/diff');
      expect(bad.status).to.equal(400);
      expect(problems('ActionResult', JSON.parse(bad.body))).to.deep.equal([]);
    });

    it('GET .../revisions/2/diff?against=1: RevisionDiff between two revisions; against one not there, 404 naming it', async () => {
      const r = await get(server.port, '/api/v1/namespaces/default/deployments/web/revisions/2/diff?against=1');
      expect(r.status, r.body).to.equal(200);
      const view = JSON.parse(r.body) as { against: number; lines: Array<{ op: string; text: string }> };
      expect(problems('RevisionDiff', view)).to.deep.equal([]);
      expect(view.against).to.equal(1);
      expect(view.lines.filter((l) => l.op !== 'same').map((l) => `${l.op} ${l.text.trim()}`)).to.deep.equal([
        'remove - image: nginx:1.26',
        'add - image: nginx:1.27',
      ]);
      const missing = await get(server.port, '/api/v1/namespaces/default/deployments/web/revisions/2/diff?against=7');
      expect([missing.status, JSON.parse(missing.body)]).to.deep.equal([
        404,
        { ok: false, message: 'unable to find specified revision 7 in history' },
      ]);
      const bad = await get(server.port, '/api/v1/namespaces/default/deployments/web/revisions/2/diff?against=-1');
      expect([bad.status, JSON.parse(bad.body).message]).to.deep.equal([
        400,
        'against is a revision, a whole number, not "-1"',
      ]);
    });

    it("GET .../pods/NAME/log: the log's text as it comes; a pod not there, the API server's 404 in kubectl's words", async () => {
      const r = await get(server.port, '/api/v1/namespaces/default/pods/web-abc-a/log?follow=true&tailLines=100');
      expect([r.status, r.body]).to.deep.equal([200, 'line 1\nline 2\n']);
      const gone = await get(server.port, '/api/v1/namespaces/default/pods/web-x/log');
      expect([gone.status, JSON.parse(gone.body)]).to.deep.equal([
        404,
        { ok: false, message: 'Error from server (NotFound): pods "web-x" not found' },
      ]);
      expect(problems('ActionResult', JSON.parse(gone.body))).to.deep.equal([]);
      const bad = await get(server.port, '/api/v1/namespaces/default/pods/web-abc-a/log?tailLines=lots');
      expect([bad.status, JSON.parse(bad.body).message]).to.deep.equal([
        400,
        'tailLines must be a whole number from 0 to 10000, not "lots"',
      ]);
    });

    it('a schema can fail: a field the server does not send, or one missing, is refused', () => {
      const config = { namespace: null, readOnly: false, server: 'x', user: null };
      expect(problems('Config', { ...config, extra: 1 })).to.deep.equal(['/ must NOT have additional properties']);
      expect(problems('Config', { namespace: 'a', readOnly: false, user: 'alice' })).to.deep.equal([
        "/ must have required property 'server'",
      ]);
    });

    it('GET /api/v1/openapi.yaml: this document', async () => {
      const r = await get(server.port, '/api/v1/openapi.yaml');
      expect(r.status).to.equal(200);
      expect(r.body).to.equal(readFileSync(OPENAPI_FILE, 'utf8'));
    });
  });
  describe("the server's answers in the cluster (a Gate: TokenReview and SubjectAccessReview)", () => {
    let hub: Hub;
    let server: RunningDashboard;
    const call = (path: string, o: { method?: string; body?: string; headers?: Record<string, string> } = {}) =>
      new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
        const req = http.request(
          { host: '127.0.0.1', port: server.port, path, method: o.method ?? 'GET', headers: o.headers ?? {} },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
          },
        );
        req.on('error', reject);
        req.end(o.body ?? '');
      });
    before(async () => {
      hub = new Hub({
        deployments: listing<Deployment>([deployment('web')]),
        replicaSets: listing<ReplicaSet>([]),
        pods: listing<Pod>([]),
      });
      hub.start();
      server = await startDashboardServer({
        hub,
        files: new Map(),
        act: async () => ({ status: 200, result: { ok: true, message: 'done' } }),
        address: '127.0.0.1',
        port: 0,
        config: { namespace: null, readOnly: false, server: 'https://kube' },
        gate: new Gate({
          reviews: {
            authenticate: async (t) => (t === 'alice-token' ? { username: 'alice' } : undefined),
            authorize: async () => ({ allowed: true }),
          },
        }),
      });
      await eventually('the cache filled', () => hub.hasSynced());
    });
    after(async () => {
      await server.close();
      await hub.stop();
    });

    it('without a token: 401, an ActionResult, WWW-Authenticate: Bearer', async () => {
      const r = await call('/api/v1/config');
      expect(r.status).to.equal(401);
      expect(r.headers['www-authenticate']).to.equal('Bearer');
      expect(problems('ActionResult', JSON.parse(r.body))).to.deep.equal([]);
    });

    it('POST /api/v1/session: 401 for a token not accepted, 200 and a cookie for one that is; then Config names the user', async () => {
      const post = (token: string) =>
        call('/api/v1/session', {
          method: 'POST',
          body: JSON.stringify({ token }),
          headers: { Origin: `http://127.0.0.1:${server.port}`, 'Content-Type': 'application/json' },
        });
      expect(problems('SignInRequest', { token: 'x' })).to.deep.equal([]);
      const bad = await post('mallory-token');
      expect(bad.status).to.equal(401);
      expect(problems('ActionResult', JSON.parse(bad.body))).to.deep.equal([]);
      const ok = await post('alice-token');
      expect(ok.status).to.equal(200);
      expect(problems('ActionResult', JSON.parse(ok.body))).to.deep.equal([]);
      const cookie = String(ok.headers['set-cookie']?.[0] ?? '').split(';')[0];
      const config = await call('/api/v1/config', { headers: { Cookie: cookie } });
      expect(config.status).to.equal(200);
      expect(problems('Config', JSON.parse(config.body))).to.deep.equal([]);
      expect(JSON.parse(config.body).user).to.equal('alice');
    });
  });
});
