// Bulk promotion (src/dashboard/promotion.ts): the order in which canaries are released (Marathon's
// dependency levels, docs/semantics/marathon.md#dependency-order: a Deployment after what it depends
// on), a release refused holding back what depends on it, the request's checks; the request bodies
// of the actions that take more than strings (server.ts parseOperation); the page's choice of canaries.

import { expect } from 'chai';
import type { Deployment } from '../../../src/api/types.ts';
import type { DeploymentView } from '../../../src/dashboard/api.ts';
import { parsePromotionRequest, promotionOrder, runPromotion } from '../../../src/dashboard/promotion.ts';
import type { OrderedCanary } from '../../../src/dashboard/promotion.ts';
import { parseOperation } from '../../../src/dashboard/requests.ts';
import { waitingCanaries } from '../../../web/canary.ts';
import type { Model } from '../../../web/state.ts';
import { deployment } from '../plugin/fixtures.ts';

/** A Deployment of `namespace` (default) depending on `deps`. */
function app(name: string, deps: string[] = [], namespace = 'default'): Deployment {
  const d = deployment(name);
  d.metadata.namespace = namespace;
  if (deps.length > 0) d.spec.dependencies = deps;
  return d;
}

const pick = (...keys: string[]) =>
  keys.map((k) => {
    const [namespace, name] = k.split('/');
    return { namespace, name };
  });

describe('dashboard/promotion', () => {
  describe('promotionOrder: dependencies first, by level, then namespace and name', () => {
    // The deployments page's example: app depends on db; and b → a, c → a, d → b (levels 1 {a}, 2 {b, c}, 3 {d}).
    const cluster = [
      app('db'),
      app('app', ['db']),
      app('a'),
      app('b', ['a']),
      app('c', ['a']),
      app('d', ['b']),
      app('x', ['y']),
      app('y', ['x']),
      app('web', ['other/api']),
      app('api', [], 'other'),
    ];
    const rows: Array<{ picked: string[]; order: string[]; levels: Array<number | null>; after: string[][] }> = [
      {
        picked: ['default/app', 'default/db'],
        order: ['default/db', 'default/app'],
        levels: [1, 2],
        after: [[], ['default/db']],
      },
      // app sorts before db by name: the level decides.
      { picked: ['default/app', 'default/a'], order: ['default/a', 'default/app'], levels: [1, 2], after: [[], []] },
      {
        picked: ['default/d', 'default/c', 'default/a'],
        order: ['default/a', 'default/c', 'default/d'],
        levels: [1, 2, 3],
        after: [[], ['default/a'], ['default/a']],
      },
      // On a cycle: no level, last.
      {
        picked: ['default/x', 'default/db'],
        order: ['default/db', 'default/x'],
        levels: [1, null],
        after: [[], []],
      },
      // Across namespaces: web (default) depends on other/api.
      {
        picked: ['default/web', 'other/api'],
        order: ['other/api', 'default/web'],
        levels: [1, 2],
        after: [[], ['other/api']],
      },
      // Not known to the dashboard: last, without a level.
      {
        picked: ['default/gone', 'default/b'],
        order: ['default/b', 'default/gone'],
        levels: [2, null],
        after: [[], []],
      },
    ];
    for (const r of rows)
      it(`${r.picked.join(', ')} → ${r.order.join(', ')}`, () => {
        const got = promotionOrder(pick(...r.picked), cluster);
        expect(got.map((c) => `${c.namespace}/${c.name}`)).to.deep.equal(r.order);
        expect(got.map((c) => c.level)).to.deep.equal(r.levels);
        expect(got.map((c) => c.after)).to.deep.equal(r.after);
      });
  });

  describe('runPromotion: one release after the other; a refusal holds back what depends on it', () => {
    const canary = (name: string, level: number | null, after: string[] = []): OrderedCanary => ({
      namespace: 'default',
      name,
      level,
      after,
    });
    it('releases in the order given, each awaited before the next starts', async () => {
      const started: string[] = [];
      let running = 0;
      const got = await runPromotion([canary('db', 1), canary('app', 2, ['default/db'])], async (c) => {
        running++;
        expect(running, 'one release at a time').to.equal(1);
        started.push(c.name);
        await new Promise((r) => setImmediate(r));
        running--;
        return { status: 200, result: { ok: true, message: 'Received cmd: continue' } };
      });
      expect(started).to.deep.equal(['db', 'app']);
      expect(got.map((r) => [r.name, r.status, r.ok, r.message])).to.deep.equal([
        ['db', 200, true, 'Received cmd: continue'],
        ['app', 200, true, 'Received cmd: continue'],
      ]);
    });
    it('a 403 on db: app (which depends on it) is not tried; cache (which does not) is; each says so', async () => {
      const tried: string[] = [];
      const got = await runPromotion(
        [canary('db', 1), canary('cache', 1), canary('app', 2, ['default/db'])],
        async (c) => {
          tried.push(c.name);
          return c.name === 'db'
            ? {
                status: 403,
                result: {
                  ok: false,
                  message: 'Error from server (Forbidden): deployments.pacer.dev "db" is forbidden',
                },
              }
            : {
                status: 208,
                result: { ok: true, message: 'Command has already been reported or completed', warnings: ['w'] },
              };
        },
      );
      expect(tried).to.deep.equal(['db', 'cache']);
      expect(got.map((r) => [r.name, r.status, r.ok])).to.deep.equal([
        ['db', 403, false],
        ['cache', 208, true],
        ['app', 0, false],
      ]);
      expect(got[2].message).to.equal('not released: it depends on default/db, which was not released');
      expect(got[1].warnings).to.deep.equal(['w']);
    });
  });

  describe('parsePromotionRequest: each bad body named, with the value given', () => {
    const rows: Array<[unknown, string]> = [
      [{}, 'items must be a list of at least one {"namespace": NS, "name": NAME}, not null'],
      [{ items: [] }, 'items must be a list of at least one {"namespace": NS, "name": NAME}, not []'],
      [{ items: 'web' }, 'items must be a list of at least one {"namespace": NS, "name": NAME}, not "web"'],
      [{ items: [{ name: 'web' }] }, 'items[0] must be {"namespace": NS, "name": NAME}, not {"name":"web"}'],
      [
        { items: [{ namespace: 'default', name: 'web', phase: 'x' }] },
        'items[0] must be {"namespace": NS, "name": NAME}, not {"namespace":"default","name":"web","phase":"x"}',
      ],
      [{ items: pick('default/web', 'default/web') }, 'items[1]: default/web is listed twice'],
      [
        { items: pick('default/web'), force: true },
        'unknown field "force" in the promotion request (its field: items)',
      ],
      [
        { items: Array.from({ length: 101 }, (_, i) => ({ namespace: 'default', name: `d${i}` })) },
        'items has 101 canaries, over 100 in one request',
      ],
    ];
    for (const [body, message] of rows)
      it(message, () => expect(() => parsePromotionRequest(body as Record<string, unknown>)).to.throw(message));
    it('a good one', () =>
      expect(parsePromotionRequest({ items: pick('default/web', 'other/api') })).to.deep.equal({
        items: pick('default/web', 'other/api'),
      }));
  });

  describe('parseOperation: start parameters, resume --skip-analysis, a cancel with or without force', () => {
    const plan = { kind: 'plan' as const, namespace: 'default', service: 'web', plan: 'deploy', action: 'start' };
    it('start: each KEY=VALUE as plan start -p reads it', () =>
      expect(parseOperation(plan, '{"parameters": ["LEVEL=debug", "EMPTY=", "URL=a=b"]}')).to.deep.equal({
        ...plan,
        action: 'start',
        parameters: { LEVEL: 'debug', EMPTY: '', URL: 'a=b' },
      }));
    it('start without parameters', () =>
      expect(parseOperation(plan, '{}')).to.deep.equal({ ...plan, action: 'start' }));
    const bad: Array<[string, object, string]> = [
      [
        "a word without =: the plugin's words",
        { parameters: ['LEVEL'] },
        'invalid parameter "LEVEL": expected KEY=VALUE',
      ],
      [
        'not a list',
        { parameters: 'LEVEL=debug' },
        'parameters must be a list of "KEY=VALUE" strings, not "LEVEL=debug"',
      ],
      ['a phase', { phase: 'web' }, 'start is for a whole plan: it takes no phase or step'],
      [
        'an unknown field',
        { force: true },
        'unknown field "force" in the plan start request (its fields: phase, step)',
      ],
    ];
    for (const [what, body, message] of bad)
      it(`start, ${what}: ${message}`, () =>
        expect(() => parseOperation(plan, JSON.stringify(body))).to.throw(message));
    it('stop takes no parameters', () =>
      expect(() => parseOperation({ ...plan, action: 'stop' }, '{"parameters": ["A=1"]}')).to.throw(
        'unknown field "parameters" in the plan stop request (its fields: phase, step)',
      ));
    const roll = { kind: 'nodeRoll' as const, name: 'upgrade', action: 'resume' };
    it('resume with skipAnalysis', () =>
      expect(parseOperation(roll, '{"skipAnalysis": true}')).to.deep.equal({ ...roll, skipAnalysis: true }));
    it('resume without', () => expect(parseOperation(roll, '{"skipAnalysis": false}')).to.deep.equal(roll));
    it('skipAnalysis must be a boolean', () =>
      expect(() => parseOperation(roll, '{"skipAnalysis": "yes"}')).to.throw(
        'skipAnalysis must be true or false, not "yes"',
      ));
    const cancel = { kind: 'marathon' as const, id: 'abc', action: 'cancel' };
    it('cancel: a rollback unless force', () => {
      expect(parseOperation(cancel, '')).to.deep.equal({ ...cancel, force: false });
      expect(parseOperation(cancel, '{"force": true}')).to.deep.equal({ ...cancel, force: true });
      expect(() => parseOperation(cancel, '{"rollback": false}')).to.throw(
        'unknown field "rollback" in the deployment cancel request (its field: force)',
      );
    });
  });

  describe("waitingCanaries: the page's choice", () => {
    const view = (name: string, state: DeploymentView['state'], stateMessage: string) =>
      ({ namespace: 'default', name, state, stateMessage }) as DeploymentView;
    it('the deploy plan holding the rollout; not a custom Plan, the freeze or a pause', () => {
      const m = {
        deployments: new Map(
          [
            view('web', 'waiting', 'PlanWaiting: canary step 1 of 2 waits for kubectl pacer plan continue'),
            view('api', 'waiting', 'PlanWaiting: plan deploy is interrupted'),
            view('frozen', 'waiting', 'Frozen: pacer is frozen (incident)'),
            view(
              'custom',
              'waiting',
              'PlanWaiting: Deployment waits for plan release: canary step custom-0 waits for kubectl pacer plan continue custom release batch',
            ),
            view('held', 'paused', ''),
            view('done', 'complete', ''),
          ].map((d) => [`default/${d.name}`, d]),
        ),
      } as unknown as Model;
      expect(waitingCanaries(m).map((d) => d.name)).to.deep.equal(['api', 'web']);
    });
  });
});
