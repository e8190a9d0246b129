// The dashboard's actions on node rolls, the freeze switch and a service's plans
// (src/dashboard/server.ts's routes, parseOperation; src/dashboard/actions.ts's pluginOperations):
// the same checks as the Deployment actions (POST only, same origin, JSON, the namespace served,
// read-only), each bad body refused naming what is wrong, and the answers in the plugin's words.
// Also the plans a service's page reads (GET .../services/NAME/plans) and the optional sources'
// state, which never holds the page.

import { expect } from 'chai';
import http from 'node:http';
import type { NodeRoll } from '../../../src/api/noderoll.ts';
import type { Deployment, Pod, ReplicaSet } from '../../../src/api/types.ts';
import { pluginOperations } from '../../../src/dashboard/actions.ts';
import type { Operate } from '../../../src/dashboard/actions.ts';
import type { Operation, ServicePlansView } from '../../../src/dashboard/api.ts';
import { Hub } from '../../../src/dashboard/hub.ts';
import { startDashboardServer } from '../../../src/dashboard/server.ts';
import type { RunningDashboard } from '../../../src/dashboard/server.ts';
import type { KubeClient } from '../../../src/kube/client.ts';
import { fromResponse } from '../../../src/kube/errors.ts';
import type { ListWatchSource } from '../../../src/manager/informer.ts';
import { operationWords } from '../../../src/plugin/dashboard.ts';
import { eventually } from '../../integration/fixtures/cluster.ts';
import { deployment, pod, replicaSet } from '../plugin/fixtures.ts';

const listOnly = <T>(items: T[]): ListWatchSource<T> => ({
  list: async () => ({ items, resourceVersion: '1' }),
  watch: (_rv, _onEvent, signal) =>
    new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
});

const refusing = <T>(message: string): ListWatchSource<T> => ({
  list: async () => {
    throw fromResponse(403, { kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403, message });
  },
  watch: async () => {},
});

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

describe('dashboard: node roll, freeze and plan actions', () => {
  const web = deployment('web', { annotations: { 'pacer.dev/revision': '1' } });
  const rs = replicaSet(web, 'abc', { revision: 1, replicas: 1 });
  let hub: Hub;
  let server: RunningDashboard;
  let calls: Operation[];
  const operate: Operate = async (op) => {
    calls.push(op);
    return { status: 200, result: { ok: true, message: `done: ${op.kind} ${op.action}` } };
  };
  const start = async (o: { readOnly?: boolean; nodeRolls?: ListWatchSource<NodeRoll> } = {}) => {
    hub = new Hub({
      deployments: listOnly<Deployment>([web]),
      replicaSets: listOnly<ReplicaSet>([rs]),
      pods: listOnly<Pod>([pod(rs, 'a')]),
      ...(o.nodeRolls ? { nodeRolls: o.nodeRolls } : {}),
    });
    hub.start();
    server = await startDashboardServer({
      hub,
      files: new Map([['/index.html', { type: 'text/html', body: Buffer.from('x'), etag: '"e"' }]]),
      act: async () => ({ status: 500, result: { ok: false, message: 'not here' } }),
      operate,
      address: '127.0.0.1',
      port: 0,
      config: { namespace: 'default', readOnly: o.readOnly ?? false, server: 'https://kube' },
    });
  };
  beforeEach(() => {
    calls = [];
  });
  afterEach(async () => {
    await server.close();
    await hub.stop();
  });
  const json = { 'Content-Type': 'application/json', 'Sec-Fetch-Site': 'same-origin' };

  it('each route with its body reaches the action as an Operation; refusals never do', async () => {
    await start();
    const origin = `http://127.0.0.1:${server.port}`;
    const refused: Array<[string, string, string, Record<string, string>, string, number, string]> = [
      ['a GET', 'GET', '/api/v1/noderolls/r/pause', {}, '', 405, 'pause is a POST: no action is taken on a GET'],
      [
        'from another site',
        'POST',
        '/api/v1/freeze/on',
        { 'Content-Type': 'application/json', Origin: 'http://evil.example' },
        '{}',
        403,
        `cross-origin request refused: an action must come from this dashboard's page (Origin http://127.0.0.1:${server.port}); got Origin "http://evil.example", Sec-Fetch-Site null`,
      ],
      [
        'a form',
        'POST',
        '/api/v1/freeze/off',
        { Origin: origin, 'Content-Type': 'text/plain' },
        '',
        415,
        `an action's body must be application/json, not "text/plain"`,
      ],
      [
        'an unknown node roll action',
        'POST',
        '/api/v1/noderolls/r/delete',
        json,
        '{}',
        404,
        'no node roll action "delete" (the actions: pause, resume, skip)',
      ],
      [
        'an unknown freeze action',
        'POST',
        '/api/v1/freeze/toggle',
        json,
        '{}',
        404,
        'no freeze action "toggle" (the actions: on, off)',
      ],
      [
        'an unknown plan action',
        'POST',
        '/api/v1/namespaces/default/services/web/plans/deploy/launch',
        json,
        '{}',
        404,
        'no plan action "launch" (the actions: continue, interrupt, forceComplete, restart, start, stop)',
      ],
      [
        'a plan of another namespace',
        'POST',
        '/api/v1/namespaces/prod/services/web/plans/deploy/continue',
        json,
        '{}',
        404,
        'namespace "prod" is not served by this dashboard (it serves "default"; -A serves all)',
      ],
      [
        'skip without a node',
        'POST',
        '/api/v1/noderolls/r/skip',
        json,
        '{}',
        400,
        'skip needs the node to skip: {"node": "NODE"}',
      ],
      [
        'skip of a number',
        'POST',
        '/api/v1/noderolls/r/skip',
        json,
        '{"node": 3}',
        400,
        'node must be a string, not 3',
      ],
      [
        'pause with a node',
        'POST',
        '/api/v1/noderolls/r/pause',
        json,
        '{"node": "n1"}',
        400,
        'unknown field "node" in the node roll pause request (it takes none)',
      ],
      [
        'a reason too long',
        'POST',
        '/api/v1/freeze/on',
        json,
        JSON.stringify({ reason: 'x'.repeat(1025) }),
        400,
        'the reason is 1025 characters long, over 1024',
      ],
      [
        'a step without its phase',
        'POST',
        '/api/v1/namespaces/default/services/web/plans/deploy/restart',
        json,
        '{"step": "web-0"}',
        400,
        'a step needs its phase: {"phase": "PHASE", "step": "web-0"}',
      ],
      [
        'an unknown plan field',
        'POST',
        '/api/v1/namespaces/default/services/web/plans/deploy/continue',
        json,
        '{"pahse": "web"}',
        400,
        'unknown field "pahse" in the plan continue request (its fields: phase, step)',
      ],
      [
        'not an object',
        'POST',
        '/api/v1/freeze/off',
        json,
        '[1]',
        400,
        'the request body must be a JSON object, not [1]',
      ],
    ];
    for (const [what, method, path, headers, body, status, message] of refused) {
      const r = await request(server.port, method, path, headers, body);
      expect([r.status, JSON.parse(r.body)], what).to.deep.equal([status, { ok: false, message }]);
    }
    expect(calls, 'no refused request reached the cluster').to.deep.equal([]);

    const taken: Array<[string, string, Operation]> = [
      [
        '/api/v1/noderolls/roll%2Fa/skip',
        '{"node": "n1"}',
        { kind: 'nodeRoll', name: 'roll/a', action: 'skip', node: 'n1' },
      ],
      ['/api/v1/noderolls/r/resume', '', { kind: 'nodeRoll', name: 'r', action: 'resume' }],
      ['/api/v1/freeze/on', '{"reason": "incident 42"}', { kind: 'freeze', action: 'on', reason: 'incident 42' }],
      ['/api/v1/freeze/off', '{}', { kind: 'freeze', action: 'off' }],
      [
        '/api/v1/namespaces/default/services/web/plans/deploy/continue',
        '{"phase": "web"}',
        { kind: 'plan', namespace: 'default', service: 'web', plan: 'deploy', action: 'continue', phase: 'web' },
      ],
      [
        '/api/v1/namespaces/default/services/web/plans/recovery/restart',
        '{"phase": "web", "step": "web-0"}',
        {
          kind: 'plan',
          namespace: 'default',
          service: 'web',
          plan: 'recovery',
          action: 'restart',
          phase: 'web',
          step: 'web-0',
        },
      ],
    ];
    for (const [path, body, op] of taken) {
      const r = await request(server.port, 'POST', path, json, body);
      expect([r.status, JSON.parse(r.body)], path).to.deep.equal([
        200,
        { ok: true, message: `done: ${op.kind} ${op.action}` },
      ]);
    }
    expect(calls).to.deep.equal(taken.map(([, , op]) => op));
  });

  it('read-only refuses them too', async () => {
    await start({ readOnly: true });
    const r = await request(server.port, 'POST', '/api/v1/freeze/on', json, '{}');
    expect([r.status, JSON.parse(r.body)]).to.deep.equal([
      403,
      { ok: false, message: 'the dashboard is read-only (--read-only): on is not allowed' },
    ]);
    expect(calls).to.deep.equal([]);
  });

  it("a service's plans from the cache: deploy and recovery with their phases and steps; 404 for no such service", async () => {
    await start();
    await hub.waitForSync();
    const r = await request(server.port, 'GET', '/api/v1/namespaces/default/services/web/plans');
    expect(r.status).to.equal(200);
    const view = JSON.parse(r.body) as ServicePlansView;
    expect([view.namespace, view.service, view.members]).to.deep.equal(['default', 'web', ['web']]);
    expect(view.plans.map((p) => p.name)).to.deep.equal(['deploy', 'recovery']);
    expect(view.plans[0].phases.map((ph) => [ph.name, ph.steps.map((s) => s.name)])).to.deep.equal([
      ['web', ['web-0:[nginx]', 'web-1:[nginx]', 'web-2:[nginx]']],
    ]);
    const missing = await request(server.port, 'GET', '/api/v1/namespaces/default/services/nope/plans');
    expect([missing.status, JSON.parse(missing.body)]).to.deep.equal([
      404,
      { ok: false, message: 'Service nope not found: no Deployment default/nope' },
    ]);
    const other = await request(server.port, 'GET', '/api/v1/namespaces/prod/services/web/plans');
    expect(other.status).to.equal(404);
  });

  it('an optional source the API server refuses does not hold the page: its state is a view of its own', async () => {
    await start({ nodeRolls: refusing<NodeRoll>('noderolls.pacer.dev is forbidden: User "bob" cannot list it') });
    await hub.waitForSync();
    expect(hub.problems(), 'the page is not held').to.deep.equal([]);
    await eventually('the refusal told', () =>
      hub.snapshot().sources.some((s) => s.name === 'noderolls' && s.problem !== ''),
    );
    expect(hub.snapshot().sources.find((s) => s.name === 'noderolls')).to.deep.equal({
      namespace: '',
      name: 'noderolls',
      synced: false,
      problem: 'noderolls.pacer.dev is forbidden: User "bob" cannot list it',
    });
  });
});

describe('dashboard: the operations through the plugin', () => {
  it("node-roll skip refused as the controller would refuse it, in the plugin's words (409), nothing written", async () => {
    const patched: unknown[] = [];
    const roll: NodeRoll = {
      metadata: { name: 'r' },
      spec: {},
      status: {
        originalNodes: ['n1', 'n2'],
        nodes: [
          { name: 'n1', step: 'Done', since: '2026-03-01T10:00:00Z' },
          { name: 'n2', step: 'Pending', since: '2026-03-01T10:00:00Z' },
        ],
      },
    };
    const client = {
      server: 'https://kube',
      get: async () => roll,
      patch: async (...args: unknown[]) => patched.push(args),
    } as unknown as KubeClient;
    const run = pluginOperations(client, 'pacer-system');
    expect(await run({ kind: 'nodeRoll', name: 'r', action: 'skip', node: 'n1' })).to.deep.equal({
      status: 409,
      result: { ok: false, message: 'error: node n1 is already done' },
    });
    expect(patched).to.deep.equal([]);
    expect(await run({ kind: 'nodeRoll', name: 'r', action: 'skip', node: 'n2' })).to.deep.equal({
      status: 200,
      result: { ok: true, message: 'noderoll.pacer.dev/r: node n2 skipped (revisited once the others are done)' },
    });
    expect(patched).to.have.length(1);
  });

  it('operationWords: each action as the audit line names it', () => {
    const rows: Array<[Operation, string]> = [
      [{ kind: 'nodeRoll', name: 'r', action: 'skip', node: 'n1' }, 'node-roll skip r n1'],
      [{ kind: 'nodeRoll', name: 'r', action: 'pause' }, 'node-roll pause r'],
      [{ kind: 'freeze', action: 'on', reason: 'incident 42' }, 'freeze on "incident 42"'],
      [{ kind: 'freeze', action: 'off' }, 'freeze off'],
      [
        { kind: 'plan', namespace: 'default', service: 'web', plan: 'deploy', action: 'continue', phase: 'web' },
        'plan continue default/web deploy web',
      ],
    ];
    for (const [op, words] of rows) expect(operationWords(op)).to.equal(words);
  });
});
