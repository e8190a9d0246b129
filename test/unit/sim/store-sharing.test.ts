// The store shares its objects instead of copying them (frozen on commit, read-only subscribers,
// structural sharing between versions) while every StoreApi caller still gets copies it may
// mutate; and list pages come from cached orders rather than a sort per page.

import { expect } from 'chai';
import { REF } from '../../../src/sim/resources.ts';
import { Store, cloneJson, deepFreeze } from '../../../src/sim/store.ts';
import type { KubeObject, StoreEvent } from '../../../src/sim/types.ts';

const T0 = Date.parse('2026-01-02T03:04:05.678Z');

function newStore(namespaces: string[] = ['default']): Store {
  const s = new Store({ now: () => T0 });
  for (const name of namespaces) s.create(REF.namespaces, undefined, { metadata: { name } });
  return s;
}

function pod(name: string, labels: Record<string, string> = { app: 'web' }): KubeObject {
  return {
    metadata: { name, labels, annotations: { note: 'a' } },
    spec: { containers: [{ name: 'c', image: 'nginx', env: [{ name: 'A', value: '1' }] }] },
  };
}

/** Every object and array under `v`, with its path. */
function nodes(v: unknown, path = ''): Array<[string, object]> {
  if (v === null || typeof v !== 'object') return [];
  const out: Array<[string, object]> = [[path || '.', v]];
  for (const [k, x] of Object.entries(v)) out.push(...nodes(x, `${path}.${k}`));
  return out;
}

function readyPatch(status: string): unknown {
  return { status: { conditions: [{ type: 'Ready', status }] } };
}

describe('sim/store sharing', () => {

  describe('read-only subscribers', () => {
    it('get the stored object, deep-frozen, the same instance for every read-only subscriber', () => {
      const s = newStore();
      const a: StoreEvent[] = [];
      const b: StoreEvent[] = [];
      s.subscribe((e) => a.push(e), { readonly: true });
      s.subscribe((e) => b.push(e), { readonly: true });
      s.create(REF.pods, 'default', pod('p'));
      expect(a).to.have.length(1);
      expect(a[0].object).to.equal(b[0].object);
      expect(a[0].object).to.equal(s.peek(REF.pods, 'default', 'p'));
      for (const [path, n] of nodes(a[0].object)) expect(Object.isFrozen(n), path).to.equal(true);
      expect(() => { (a[0].object.metadata as Record<string, unknown>).name = 'x'; }).to.throw(TypeError);
    });

    it('default subscribers still get their own mutable copy', () => {
      const s = newStore();
      const copies: StoreEvent[] = [];
      const shared: StoreEvent[] = [];
      s.subscribe((e) => copies.push(e));
      s.subscribe((e) => shared.push(e), { readonly: true });
      s.create(REF.pods, 'default', pod('p'));
      const mine = copies[0].object;
      expect(mine).to.not.equal(shared[0].object);
      expect(mine).to.deep.equal(shared[0].object);
      mine.metadata.labels!.app = 'changed';
      (mine.spec as { containers: Array<{ image: string }> }).containers[0].image = 'changed';
      expect(s.get(REF.pods, 'default', 'p')!.metadata.labels!.app).to.equal('web');
      expect(shared[0].object.metadata.labels!.app).to.equal('web');
    });

    it('an unsubscribed read-only listener hears nothing more', () => {
      const s = newStore();
      const seen: string[] = [];
      const off = s.subscribe((e) => seen.push(e.object.metadata.name!), { readonly: true });
      s.create(REF.pods, 'default', pod('one'));
      off();
      s.create(REF.pods, 'default', pod('two'));
      expect(seen).to.deep.equal(['one']);
    });
  });

  describe('callers that mutate what they get or gave cannot corrupt the store', () => {
    // Each row mutates deep inside an object the caller got from (or handed to) the store.
    const rows: Array<{ what: string; act: (s: Store) => void }> = [
      { what: 'the result of get()', act: (s) => { s.get(REF.pods, 'default', 'p')!.metadata.labels!.app = 'x'; } },
      { what: 'an item of list()', act: (s) => { (s.list(REF.pods, 'default').items[0].spec as any).containers[0].image = 'x'; } },
      { what: 'the result of patch()', act: (s) => { s.patch(REF.pods, 'default', 'p', 'merge', readyPatch('True'), { subresource: 'status' }).metadata.labels!.app = 'x'; } },
      {
        what: 'the object given to mutate(), kept and changed after the call',
        act: (s) => {
          let kept: KubeObject | undefined;
          s.mutate(REF.pods, 'default', 'p', (o) => { kept = o; o.metadata.annotations = { note: 'b' }; return o; });
          kept!.metadata.labels!.app = 'x';
        },
      },
      {
        what: 'a watch() event',
        act: (s) => {
          const stop = s.watch(REF.pods, 'default', { resourceVersion: '0' }, (e) => { e.object.metadata.labels!.app = 'x'; });
          stop();
        },
      },
      {
        what: 'a JSON patch value, changed after the patch',
        act: (s) => {
          const value = { extra: 'y' };
          s.patch(REF.pods, 'default', 'p', 'json', [{ op: 'add', path: '/metadata/labels/extra', value: 'y' }, { op: 'add', path: '/spec/extra', value }]);
          value.extra = 'x';
        },
      },
    ];
    for (const row of rows) {
      it(`mutating ${row.what}`, () => {
        const s = newStore();
        s.create(REF.pods, 'default', pod('p'));
        row.act(s);
        const stored = s.peek(REF.pods, 'default', 'p')!;
        expect(stored.metadata.labels!.app).to.equal('web');
        expect((stored.spec as any).containers[0].image).to.equal('nginx');
        expect(JSON.stringify(stored)).to.not.include('"x"');
      });
    }

    it('an object passed to create() or update() stays the caller\'s', () => {
      const s = newStore();
      const mine = pod('p');
      s.create(REF.pods, 'default', mine);
      mine.metadata.labels!.app = 'x';
      expect(Object.isFrozen(mine)).to.equal(false);
      const cur = s.get(REF.pods, 'default', 'p')!;
      s.update(REF.pods, 'default', 'p', cur);
      cur.metadata.labels!.app = 'x';
      expect(s.peek(REF.pods, 'default', 'p')!.metadata.labels!.app).to.equal('web');
    });
  });

  describe('structural sharing between versions', () => {
    it('a status write stores a new object that shares the unchanged spec and labels', () => {
      const s = newStore();
      s.create(REF.pods, 'default', pod('p'));
      const before = s.peek(REF.pods, 'default', 'p')!;
      s.patch(REF.pods, 'default', 'p', 'merge', readyPatch('True'), { subresource: 'status' });
      const after = s.peek(REF.pods, 'default', 'p')!;
      expect(after).to.not.equal(before);
      expect(after.spec).to.equal(before.spec);
      expect(after.metadata.labels).to.equal(before.metadata.labels);
      expect(after.status).to.not.equal(before.status);
      expect(before.metadata.resourceVersion).to.not.equal(after.metadata.resourceVersion);
      expect((before.status as { conditions?: unknown }).conditions).to.equal(undefined); // the old version is untouched
    });
  });

  describe('paging', () => {
    // "a" and "a-b": "a-b/…" sorts before "a/…" as a string, but after namespace "a" in list order.
    const namespaces = ['a', 'a-b', 'b'];
    const rows = [
      { limit: 1, labelSelector: undefined },
      { limit: 2, labelSelector: undefined },
      { limit: 4, labelSelector: undefined },
      { limit: 2, labelSelector: 'app=web' },
      { limit: 3, labelSelector: 'app!=web' },
      { limit: 100, labelSelector: undefined },
    ];
    for (const row of rows) {
      it(`pages of ${row.limit}${row.labelSelector ? ` with ${row.labelSelector}` : ''} add up to the whole list, with remainingItemCount`, () => {
        const s = newStore(namespaces);
        for (const ns of namespaces) {
          for (const n of ['c', 'a', 'b-1', 'b']) s.create(REF.pods, ns, pod(n, { app: n === 'b' ? 'db' : 'web' }));
        }
        const whole = s.list(REF.pods, undefined, { labelSelector: row.labelSelector }).items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
        const paged: string[] = [];
        let cont: string | undefined;
        do {
          const page = s.list(REF.pods, undefined, { limit: row.limit, labelSelector: row.labelSelector, ...(cont ? { continue: cont } : {}) });
          paged.push(...page.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`));
          cont = page.continue;
          if (cont) expect(page.remainingItemCount).to.equal(whole.length - paged.length);
          else expect(page.remainingItemCount).to.equal(undefined);
        } while (cont);
        expect(paged).to.deep.equal(whole);
        expect(whole[0]).to.equal(row.labelSelector === 'app!=web' ? 'a/b' : 'a/a');
      });
    }

    it('sees objects created and deleted between pages (the list order cache follows writes)', () => {
      const s = newStore();
      for (const n of ['a', 'c', 'e']) s.create(REF.pods, 'default', pod(n));
      const p1 = s.list(REF.pods, 'default', { limit: 1 });
      s.create(REF.pods, 'default', pod('d'));
      s.delete(REF.pods, 'default', 'e');
      const p2 = s.list(REF.pods, 'default', { limit: 10, continue: p1.continue! });
      expect(p2.items.map((o) => o.metadata.name)).to.deep.equal(['c', 'd']);
    });
  });

  describe('cloneJson and deepFreeze', () => {
    const rows: Array<{ name: string; value: unknown }> = [
      { name: 'a scalar', value: 3 },
      { name: 'null', value: null },
      { name: 'nested objects and arrays', value: { a: [1, { b: 'c' }], d: { e: null } } },
      { name: 'an undefined field', value: { a: undefined, b: 1 } },
    ];
    for (const row of rows) {
      it(`cloneJson copies ${row.name} deeply`, () => {
        const copy = cloneJson(row.value);
        expect(copy).to.deep.equal(row.value);
        for (const [path, n] of nodes(copy)) expect(nodes(row.value).some(([, o]) => o === n), path).to.equal(false);
      });
    }

    it('cloneJson keeps a Date a Date', () => {
      const d = new Date(T0);
      const copy = cloneJson({ at: d });
      expect(copy.at).to.be.instanceOf(Date);
      expect(copy.at).to.not.equal(d);
      expect(copy.at.getTime()).to.equal(T0);
    });

    it('deepFreeze freezes every level and leaves already frozen parts as they are', () => {
      const shared = deepFreeze({ x: [1] });
      const v = deepFreeze({ a: { b: [{ c: 1 }] }, shared });
      for (const [path, n] of nodes(v)) expect(Object.isFrozen(n), path).to.equal(true);
      expect(v.shared).to.equal(shared);
    });
  });
});
