// The store shares its objects instead of copying them (frozen on commit, read-only subscribers,
// structural sharing between versions) while every StoreApi caller still gets copies it may
// mutate; and list pages come from cached orders rather than a sort per page.

import { expect } from 'chai';
import fc from 'fast-check';
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
      expect(() => {
        (a[0].object.metadata as Record<string, unknown>).name = 'x';
      }).to.throw(TypeError);
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
      {
        what: 'the result of get()',
        act: (s) => {
          s.get(REF.pods, 'default', 'p')!.metadata.labels!.app = 'x';
        },
      },
      {
        what: 'an item of list()',
        act: (s) => {
          (s.list(REF.pods, 'default').items[0].spec as any).containers[0].image = 'x';
        },
      },
      {
        what: 'the result of patch()',
        act: (s) => {
          s.patch(REF.pods, 'default', 'p', 'merge', readyPatch('True'), { subresource: 'status' }).metadata
            .labels!.app = 'x';
        },
      },
      {
        what: 'the object given to mutate(), kept and changed after the call',
        act: (s) => {
          let kept: KubeObject | undefined;
          s.mutate(REF.pods, 'default', 'p', (o) => {
            kept = o;
            o.metadata.annotations = { note: 'b' };
            return o;
          });
          kept!.metadata.labels!.app = 'x';
        },
      },
      {
        what: 'a watch() event',
        act: (s) => {
          const stop = s.watch(REF.pods, 'default', { resourceVersion: '0' }, (e) => {
            e.object.metadata.labels!.app = 'x';
          });
          stop();
        },
      },
      {
        what: 'a JSON patch value, changed after the patch',
        act: (s) => {
          const value = { extra: 'y' };
          s.patch(REF.pods, 'default', 'p', 'json', [
            { op: 'add', path: '/metadata/labels/extra', value: 'y' },
            { op: 'add', path: '/spec/extra', value },
          ]);
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

    it("an object passed to create() or update() stays the caller's", () => {
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
        const whole = s
          .list(REF.pods, undefined, { labelSelector: row.labelSelector })
          .items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
        const paged: string[] = [];
        let cont: string | undefined;
        do {
          const page = s.list(REF.pods, undefined, {
            limit: row.limit,
            labelSelector: row.labelSelector,
            ...(cont ? { continue: cont } : {}),
          });
          paged.push(...page.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`));
          cont = page.continue;
          if (cont) expect(page.remainingItemCount).to.equal(whole.length - paged.length);
          else expect(page.remainingItemCount).to.equal(undefined);
        } while (cont);
        expect(paged).to.deep.equal(whole);
        expect(whole[0]).to.equal(row.labelSelector === 'app!=web' ? 'a/b' : 'a/a');
      });
    }

    it("serves every page at the first page's resourceVersion: changes between pages do not show", () => {
      const s = newStore(['a', 'a-b']);
      for (const n of ['a', 'c', 'e', 'g']) s.create(REF.pods, 'a', pod(n));
      s.create(REF.pods, 'a-b', pod('z'));
      const p1 = s.list(REF.pods, undefined, { limit: 1 });
      s.create(REF.pods, 'a', pod('d')); // created after the first page: not listed
      s.delete(REF.pods, 'a', 'e'); // deleted after it: listed as it was
      s.patch(REF.pods, 'a', 'c', 'merge', { metadata: { labels: { app: 'db' } } }); // listed as it was
      s.delete(REF.pods, 'a-b', 'z');
      s.create(REF.pods, 'a', pod('e')); // deleted and created again: the first one is listed
      const p2 = s.list(REF.pods, undefined, { limit: 2, continue: p1.continue! });
      const p3 = s.list(REF.pods, undefined, { limit: 10, continue: p2.continue! });
      const show = (o: KubeObject) =>
        `${o.metadata.namespace}/${o.metadata.name} ${o.metadata.labels?.app} @${o.metadata.resourceVersion}`;
      expect([...p1.items, ...p2.items, ...p3.items].map(show)).to.deep.equal([
        'a/a web @3',
        'a/c web @4',
        'a/e web @5',
        'a/g web @6',
        'a-b/z web @7',
      ]);
      expect([p2.resourceVersion, p3.resourceVersion]).to.deep.equal([p1.resourceVersion, p1.resourceVersion]);
      // Selectors see the objects as they were too.
      const webs = s.list(REF.pods, 'a', {
        limit: 10,
        labelSelector: 'app=web',
        continue: s.list(REF.pods, 'a', { limit: 1 }).continue!,
      });
      expect(webs.items.map((o) => o.metadata.name)).to.deep.equal(['d', 'e', 'g']);
    });

    it('a paged list and a watch from its resourceVersion add up to the store (any writes between pages)', () => {
      const name = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
      const write = fc.oneof(
        fc.record({
          op: fc.constant('put' as const),
          ns: fc.constantFrom('x', 'y'),
          name,
          app: fc.constantFrom('web', 'db'),
        }),
        fc.record({ op: fc.constant('delete' as const), ns: fc.constantFrom('x', 'y'), name }),
      );
      fc.assert(
        fc.property(
          fc.array(write, { maxLength: 8 }),
          fc.array(fc.array(write, { maxLength: 4 }), { maxLength: 6 }),
          fc.integer({ min: 1, max: 3 }),
          (setup, between, limit) => {
            const s = newStore(['x', 'y']);
            const apply = (w: (typeof between)[number][number]) => {
              const there = s.list(REF.pods, w.ns).items.some((o) => o.metadata.name === w.name);
              if (w.op === 'delete') {
                if (there) s.delete(REF.pods, w.ns, w.name);
              } else if (there) s.patch(REF.pods, w.ns, w.name, 'merge', { metadata: { labels: { app: w.app } } });
              else s.create(REF.pods, w.ns, pod(w.name, { app: w.app }));
            };
            setup.forEach(apply);
            const cache = new Map<string, string>();
            const show = (o: KubeObject) => `${o.metadata.labels?.app} @${o.metadata.resourceVersion}`;
            let page = s.list(REF.pods, undefined, { limit });
            const rv = page.resourceVersion;
            for (let i = 0; ; i++) {
              for (const o of page.items) cache.set(`${o.metadata.namespace}/${o.metadata.name}`, show(o));
              (between[i] ?? []).forEach(apply);
              if (!page.continue) break;
              page = s.list(REF.pods, undefined, { limit, continue: page.continue });
              expect(page.resourceVersion).to.equal(rv);
            }
            s.watch(REF.pods, undefined, { resourceVersion: rv }, (e) => {
              const key = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
              if (e.type === 'DELETED') cache.delete(key);
              else cache.set(key, show(e.object));
            })();
            const now = new Map(
              s.list(REF.pods, undefined).items.map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, show(o)]),
            );
            expect(Object.fromEntries([...cache].sort())).to.deep.equal(Object.fromEntries([...now].sort()));
          },
        ),
        { numRuns: 200 },
      );
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
        for (const [path, n] of nodes(copy))
          expect(
            nodes(row.value).some(([, o]) => o === n),
            path,
          ).to.equal(false);
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
