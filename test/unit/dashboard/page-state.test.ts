// The page's model (web/state.ts), run under Node: a snapshot, then changes; the home page's rows
// and counts; a Deployment's revisions with their pods.

import { expect } from 'chai';
import type { Snapshot } from '../../../src/dashboard/api.ts';
import { deploymentView, podView, replicaSetView } from '../../../src/dashboard/model.ts';
import {
  PAGE_SIZE,
  applyChanges,
  counts,
  eventsOf,
  fromSnapshot,
  frozen,
  namespaces,
  pageOf,
  revisions,
  rows,
  zonesInWords,
} from '../../../web/state.ts';
import type { Sort } from '../../../web/state.ts';
import type { DeploymentView, EventView } from '../../../src/dashboard/api.ts';
import { deployment, pod, replicaSet } from '../plugin/fixtures.ts';

const done = { observedGeneration: 1, replicas: 3, updatedReplicas: 3, availableReplicas: 3 };
const web = deployment('web', { annotations: { 'pacer.dev/revision': '2' }, status: done });
const api = deployment('api', { paused: true, status: done });
const old = replicaSet(web, 'old', { revision: 1, replicas: 0 });
const cur = replicaSet(web, 'new', { revision: 2, replicas: 3 });
const other = replicaSet(api, 'x', { revision: 1, replicas: 3 });

const snapshot: Snapshot = {
  config: { namespace: null, readOnly: false, server: 'https://kube', user: null },
  deployments: [deploymentView(web), deploymentView(api)],
  replicaSets: [old, cur, other].map((r) => replicaSetView(r)!),
  pods: [pod(cur, 'b'), pod(cur, 'a'), pod(other, 'z')].map((p) => podView(p)!),
  nodeRolls: [],
  freeze: [],
  sources: [],
  planResources: [],
  analysisRuns: [],
  events: [],
};

describe('web/state: the page model', () => {
  it('rows: by namespace then name, filtered by a part of the name (any case) and a state', () => {
    const m = fromSnapshot(snapshot);
    expect(rows(m, { name: '', state: '' }).map((d) => d.name)).to.deep.equal(['api', 'web']);
    expect(rows(m, { name: 'WE', state: '' }).map((d) => d.name)).to.deep.equal(['web']);
    expect(rows(m, { name: '', state: 'paused' }).map((d) => d.name)).to.deep.equal(['api']);
    expect(rows(m, { name: 'web', state: 'paused' })).to.deep.equal([]);
  });

  describe('the home table: sorted by any column, filtered by namespace and by what needs attention, in pages', () => {
    const view = (over: Partial<DeploymentView>): DeploymentView => ({
      ...deploymentView(web),
      uid: `${over.namespace ?? 'default'}/${over.name}`,
      ...over,
    });
    const fleet = fromSnapshot({
      ...snapshot,
      deployments: [
        view({
          namespace: 'shop',
          name: 'cart',
          ready: 1,
          desired: 4,
          updated: 4,
          available: 1,
          revision: 7,
          state: 'progressing',
          strategy: 'RollingUpdate',
        }),
        view({
          namespace: 'shop',
          name: 'pay',
          ready: 3,
          desired: 3,
          updated: 3,
          available: 3,
          revision: 2,
          state: 'deadline-exceeded',
          strategy: 'Recreate',
        }),
        view({
          namespace: 'blog',
          name: 'web',
          ready: 0,
          desired: 0,
          updated: 0,
          available: 0,
          revision: null,
          state: 'paused',
          strategy: 'MinimumHealth',
        }),
        view({
          namespace: 'blog',
          name: 'db',
          ready: 1,
          desired: 2,
          updated: 2,
          available: 1,
          revision: 3,
          state: 'analysis-failing',
          strategy: 'RollingUpdate',
        }),
        view({
          namespace: 'shop',
          name: 'api',
          ready: 2,
          desired: 2,
          updated: 2,
          available: 2,
          revision: 5,
          state: 'waiting',
          strategy: 'RollingUpdate',
        }),
      ],
    });
    const all = { name: '', state: '' as const };
    const rowsBy: Array<[string, Sort, string[]]> = [
      [
        'by namespace, then name (the default)',
        { by: 'namespace', descending: false },
        ['blog/db', 'blog/web', 'shop/api', 'shop/cart', 'shop/pay'],
      ],
      [
        'by name, Z to A',
        { by: 'name', descending: true },
        ['blog/web', 'shop/pay', 'blog/db', 'shop/cart', 'shop/api'],
      ],
      [
        'by ready as a share of desired (none desired counts as all ready), ties by namespace and name',
        { by: 'ready', descending: false },
        ['shop/cart', 'blog/db', 'blog/web', 'shop/api', 'shop/pay'],
      ],
      [
        'by revision, newest first; none written yet last',
        { by: 'revision', descending: true },
        ['shop/cart', 'shop/api', 'blog/db', 'shop/pay', 'blog/web'],
      ],
      [
        'by state, in the order the counts list them',
        { by: 'state', descending: false },
        ['shop/cart', 'blog/web', 'shop/api', 'shop/pay', 'blog/db'],
      ],
      [
        'by strategy (as text)',
        { by: 'strategy', descending: false },
        ['blog/web', 'shop/pay', 'blog/db', 'shop/api', 'shop/cart'],
      ],
      [
        'by available, most first',
        { by: 'available', descending: true },
        ['shop/pay', 'shop/api', 'blog/db', 'shop/cart', 'blog/web'],
      ],
    ];
    for (const [name, sort, want] of rowsBy)
      it(name, () => expect(rows(fleet, all, sort).map((d) => `${d.namespace}/${d.name}`)).to.deep.equal(want));

    it('a namespace, and what needs attention (a deadline missed, failing analysis, an invalid spec, an operator awaited; not a pause)', () => {
      expect(rows(fleet, { ...all, namespace: 'blog' }).map((d) => d.name)).to.deep.equal(['db', 'web']);
      expect(rows(fleet, { ...all, attention: true }).map((d) => `${d.namespace}/${d.name}`)).to.deep.equal([
        'blog/db',
        'shop/api',
        'shop/pay',
      ]);
      expect(rows(fleet, { ...all, namespace: 'shop', attention: true, name: 'p' }).map((d) => d.name)).to.deep.equal([
        'api',
        'pay',
      ]);
      expect(namespaces(fleet)).to.deep.equal(['blog', 'shop']);
    });

    const thousand = Array.from({ length: 1000 }, (_, i) => i);
    const pages: Array<
      [string, readonly number[], number, { first?: number; length: number; page: number; pages: number }]
    > = [
      ['a thousand rows: ten pages of a hundred', thousand, 0, { first: 0, length: PAGE_SIZE, page: 0, pages: 10 }],
      ['the last page', thousand, 9, { first: 900, length: 100, page: 9, pages: 10 }],
      [
        'a page past the end shows the last (the rows got fewer)',
        thousand.slice(0, 250),
        7,
        { first: 200, length: 50, page: 2, pages: 3 },
      ],
      ['a negative page shows the first', thousand, -3, { first: 0, length: 100, page: 0, pages: 10 }],
      ['no rows: one empty page', [], 4, { length: 0, page: 0, pages: 1 }],
    ];
    for (const [name, list, page, want] of pages)
      it(name, () => {
        const p = pageOf(list, page);
        expect({ first: p.items[0], length: p.items.length, page: p.page, pages: p.pages }).to.deep.equal({
          first: want.first,
          ...want,
        });
      });
  });

  it('counts: every state, zeros included', () => {
    expect(counts(fromSnapshot(snapshot))).to.deep.equal({
      progressing: 0,
      complete: 1,
      paused: 1,
      waiting: 0,
      'deadline-exceeded': 0,
      'analysis-failing': 0,
      invalid: 0,
    });
  });

  it("revisions: the Deployment's ReplicaSets newest first, each with its pods by name, the current one marked", () => {
    const m = fromSnapshot(snapshot);
    const tree = revisions(m, m.deployments.get('default/web')!);
    expect(tree.map((n) => [n.replicaSet.name, n.current, n.pods.map((p) => p.name)])).to.deep.equal([
      ['web-new', true, ['web-new-a', 'web-new-b']],
      ['web-old', false, []],
    ]);
  });

  it('changes: puts and deletes in order; the untouched maps stay the same objects', () => {
    const m = fromSnapshot(snapshot);
    const paused = { ...deploymentView(web), state: 'paused' as const };
    const next = applyChanges(m, [
      { kind: 'deployment', op: 'put', obj: paused },
      { kind: 'deployment', op: 'delete', namespace: 'default', name: 'api' },
      { kind: 'pod', op: 'delete', namespace: 'default', name: 'web-new-a' },
    ]);
    expect([...next.deployments.values()].map((d) => [d.name, d.state])).to.deep.equal([['web', 'paused']]);
    expect(next.pods.has('default/web-new-a')).to.equal(false);
    expect(next.replicaSets).to.equal(m.replicaSets);
    expect(m.deployments.size, 'the old model is left as it was').to.equal(2);
  });

  it('the freeze switch, the node rolls and the sources follow their changes; the other maps stay as they were', () => {
    const m = fromSnapshot(snapshot);
    expect(frozen(m)).to.equal(undefined);
    const freeze = { namespace: 'pacer-system', name: 'pacer-freeze', reason: 'incident 42', since: '' };
    const on = applyChanges(m, [
      { kind: 'freeze', op: 'put', obj: freeze },
      { kind: 'source', op: 'put', obj: { namespace: '', name: 'noderolls', synced: true, problem: '' } },
    ]);
    expect(frozen(on)).to.deep.equal(freeze);
    expect(on.sources.get('/noderolls')?.synced).to.equal(true);
    expect(on.deployments).to.equal(m.deployments);
    const off = applyChanges(on, [{ kind: 'freeze', op: 'delete', namespace: 'pacer-system', name: 'pacer-freeze' }]);
    expect(frozen(off)).to.equal(undefined);
    expect(frozen(on), 'the model before is left as it was').to.deep.equal(freeze);
  });

  it('zonesInWords: zones by name with their counts, a node without a zone named so', () => {
    expect(zonesInWords({ c: 2, a: 1, b: 0 })).to.equal('a 1, b 0, c 2');
    expect(zonesInWords({ '': 1 })).to.equal('(no zone) 1');
    expect(zonesInWords({})).to.equal('—');
  });

  describe("eventsOf: a Deployment's Events, its ReplicaSets' and its pods', newest first, capped", () => {
    // One Event about `kind/name`, last seen at second `at` of the minute.
    const ev = (name: string, kind: string, object: string, at: number, over: Partial<EventView> = {}): EventView => ({
      namespace: 'default',
      name,
      objectKind: kind,
      objectName: object,
      type: 'Normal',
      reason: 'R',
      message: '',
      count: 1,
      lastSeen: `2026-03-01T10:00:${String(at).padStart(2, '0')}Z`,
      source: 'deployment-controller',
      ...over,
    });
    const rows: Array<[string, EventView[], string[]]> = [
      [
        'the Deployment, a ReplicaSet and a pod of it, newest first',
        [ev('a', 'Deployment', 'web', 1), ev('b', 'ReplicaSet', 'web-old', 3), ev('c', 'Pod', 'web-new-a', 2)],
        ['b', 'c', 'a'],
      ],
      [
        'another Deployment, its ReplicaSet and its pod are left out',
        [ev('a', 'Deployment', 'api', 1), ev('b', 'ReplicaSet', 'api-x', 2), ev('c', 'Pod', 'api-x-z', 3)],
        [],
      ],
      [
        'the same names in another namespace are left out',
        [ev('a', 'Deployment', 'web', 1, { namespace: 'shop' })],
        [],
      ],
      [
        'a pod already deleted counts by its name: its ReplicaSet and a suffix',
        [ev('a', 'Pod', 'web-old-q7x2k', 1), ev('b', 'Pod', 'web-older-q7x2k', 2)],
        ['a'],
      ],
      [
        'an Event about a kind the page does not show (a Service named web) is left out',
        [ev('a', 'Service', 'web', 1)],
        [],
      ],
      [
        "a tie in time: by the Event's name",
        [ev('b', 'Deployment', 'web', 5), ev('a', 'Deployment', 'web', 5)],
        ['a', 'b'],
      ],
    ];
    for (const [name, events, want] of rows)
      it(name, () => {
        const m = fromSnapshot({ ...snapshot, events });
        expect(eventsOf(m, m.deployments.get('default/web')!).items.map((e) => e.name)).to.deep.equal(want);
      });

    it('at most `limit`, the newest, with the total; a new Event comes with the stream', () => {
      const many = Array.from({ length: 30 }, (_, i) => ev(`e${i}`, 'Deployment', 'web', i));
      const m = fromSnapshot({ ...snapshot, events: many });
      const got = eventsOf(m, m.deployments.get('default/web')!, 3);
      expect(got.items.map((e) => e.name)).to.deep.equal(['e29', 'e28', 'e27']);
      expect(got.total).to.equal(30);
      const next = applyChanges(m, [{ kind: 'event', op: 'put', obj: ev('new', 'Pod', 'web-new-b', 59) }]);
      expect(eventsOf(next, next.deployments.get('default/web')!, 1).items[0].name).to.equal('new');
    });
  });
});
