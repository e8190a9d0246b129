import { expect } from 'chai';
import fc from 'fast-check';
import { Informer, retryDelay, keyOf } from '../../../src/manager/informer.ts';
import type { ListWatchSource } from '../../../src/manager/informer.ts';
import { KubeError } from '../../../src/kube/errors.ts';
import type { WatchEvent } from '../../../src/kube/client.ts';
import { ManualClock, SLICE_MS } from '../../../src/kube/clock.ts';

interface Obj {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
  data?: string;
}

interface OpenWatch {
  rv: string;
  onEvent: (e: WatchEvent<Obj>) => void;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** A scriptable API: a store with a resourceVersion counter, lists, and watches the test drives. */
class FakeSource implements ListWatchSource<Obj> {
  private readonly clock: ManualClock;
  rv = 0;
  objects = new Map<string, Obj>();
  lists = 0;
  /** When (clock time) each list was asked for. */
  listedAt: number[] = [];
  watches: string[] = [];
  /** When (clock time) each watch was opened. */
  watchedAt: number[] = [];
  listFailures: unknown[] = [];
  open: OpenWatch[] = [];
  /** While set, a list takes its snapshot at once and answers only once this resolves (a slow list). */
  listHold?: Promise<void>;

  constructor(clock: ManualClock) {
    this.clock = clock;
  }

  set(name: string, data: string, namespace = 'ns', notify = true): Obj {
    const obj: Obj = { metadata: { name, namespace, resourceVersion: String(++this.rv) }, data };
    const existed = this.objects.has(`${namespace}/${name}`);
    this.objects.set(`${namespace}/${name}`, obj);
    if (notify) this.send({ type: existed ? 'MODIFIED' : 'ADDED', object: obj });
    return obj;
  }
  del(name: string, namespace = 'ns', notify = true): void {
    const obj = this.objects.get(`${namespace}/${name}`)!;
    this.objects.delete(`${namespace}/${name}`);
    if (notify)
      this.send({
        type: 'DELETED',
        object: { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } },
      });
  }
  send(e: WatchEvent<Obj>): void {
    for (const w of this.open) w.onEvent(e);
  }
  closeAll(): void {
    for (const w of this.open.splice(0)) w.resolve();
  }
  failAll(err: unknown): void {
    for (const w of this.open.splice(0)) w.reject(err);
  }
  async list(): Promise<{ items: Obj[]; resourceVersion: string }> {
    this.lists++;
    this.listedAt.push(this.clock.now());
    const failure = this.listFailures.shift();
    if (failure) throw failure;
    const snapshot = {
      items: [...this.objects.values()].map((o) => structuredClone(o)),
      resourceVersion: String(this.rv),
    };
    if (this.listHold) await this.listHold;
    return snapshot;
  }
  watch(rv: string, onEvent: (e: WatchEvent<Obj>) => void, signal: AbortSignal): Promise<void> {
    this.watches.push(rv);
    this.watchedAt.push(this.clock.now());
    return new Promise((resolve, reject) => {
      const w: OpenWatch = { rv, onEvent, resolve, reject };
      this.open.push(w);
      signal.addEventListener(
        'abort',
        () => {
          this.open = this.open.filter((x) => x !== w);
          reject(new DOMException('aborted', 'AbortError'));
        },
        { once: true },
      );
    });
  }
}

function record(inf: Informer<Obj>): string[] {
  const log: string[] = [];
  inf.on({
    add: (o) => log.push(`add ${keyOf(o)} ${o.data}`),
    update: (old, o) => log.push(`update ${keyOf(o)} ${old.data}->${o.data}`),
    delete: (o) => log.push(`delete ${keyOf(o)} ${o.data}`),
  });
  return log;
}

const T0 = Date.UTC(2026, 0, 1);

describe('manager/informer (on a manual clock)', () => {
  let clock: ManualClock;
  let informers: Informer<Obj>[] = [];
  beforeEach(() => {
    clock = new ManualClock(T0);
  });
  afterEach(async () => {
    await Promise.all(informers.map((i) => i.stop()));
    informers = [];
  });
  /** The informer's own defaults (backoff 200 ms → 30 s, resync and watchdog 10 min) unless `opts` says otherwise. */
  function make(src: FakeSource, opts: Partial<ConstructorParameters<typeof Informer>[1]> = {}): Informer<Obj> {
    const inf = new Informer<Obj>(src, { name: 'test', clock, ...opts });
    informers.push(inf);
    return inf;
  }
  /** Moves the clock to `ms` after the start, running every timer due on the way. */
  const at = (ms: number): Promise<void> => clock.advance(T0 + ms - clock.now());
  /** Lets what is already due run (promise callbacks, timers due now) without moving the clock. */
  const settled = (): Promise<void> => clock.advance(0);
  const since = (times: number[]): number[] => times.map((t) => t - T0);
  const gaps = (times: number[]): number[] => times.slice(1).map((t, i) => t - times[i]);

  describe('retry delay: 200 ms doubling to 30 s, plus up to 50% jitter', () => {
    const rows: Array<[number, number, number]> = [
      // attempt, random, delay
      [0, 0, 200],
      [1, 0, 400],
      [2, 0, 800],
      [7, 0, 25_600],
      [8, 0, 30_000],
      [50, 0, 30_000],
      [0, 1, 300],
      [8, 1, 45_000],
      [3, 0.5, 2000],
    ];
    for (const [attempt, random, delay] of rows) {
      it(`attempt ${attempt}, jitter ${random} → ${delay} ms`, () => {
        expect(retryDelay(attempt, 200, 30_000, () => random)).to.equal(delay);
      });
    }
  });

  it('lists, then watches from the list resourceVersion; fills the cache and calls handlers with (old, new)', async () => {
    const src = new FakeSource(clock);
    src.set('a', '1', 'ns', false);
    src.set('b', '1', 'other', false);
    const inf = make(src);
    const log = record(inf);
    expect(inf.hasSynced()).to.equal(false);
    inf.start();
    await inf.waitForSync();
    expect(inf.hasSynced()).to.equal(true);
    await settled();
    expect(src.open.length, 'a watch').to.equal(1);
    expect(src.watches).to.deep.equal(['2']);
    src.set('a', '2');
    src.set('c', '1');
    src.del('b', 'other');
    expect(log).to.deep.equal(['add ns/a 1', 'add other/b 1', 'update ns/a 1->2', 'add ns/c 1', 'delete other/b 1']);
    expect(inf.get('ns/a')?.data).to.equal('2');
    expect(inf.get('ns', 'c')?.data).to.equal('1');
    expect(inf.list('ns').map(keyOf).sort()).to.deep.equal(['ns/a', 'ns/c']);
    expect(inf.list('other')).to.deep.equal([]);
    expect(inf.list().length).to.equal(2);
    expect(clock.now(), 'no time passed').to.equal(T0);
  });

  it("assume(): keeps what this process wrote as `keep` says, given the version the cache holds (the manager's caches)", async () => {
    const src = new FakeSource(clock);
    src.set('a', 'v1', 'ns', false); // rv 1
    const seen: Array<[string, string | undefined]> = [];
    const inf = make(src, {
      keep: <T>(written: T, cached: T | undefined): T => {
        const w = written as Obj;
        seen.push([w.data ?? '', (cached as Obj | undefined)?.data]);
        return { ...w, data: `kept ${w.data}` } as T;
      },
    });
    inf.start();
    await settled();
    inf.assume({ metadata: { name: 'a', namespace: 'ns', resourceVersion: '3' }, data: 'ours' });
    inf.assume({ metadata: { name: 'b', namespace: 'ns', resourceVersion: '4' }, data: 'created' });
    inf.assume({ metadata: { name: 'a', namespace: 'ns', resourceVersion: '2' }, data: 'older' }); // not assumed
    expect(seen).to.deep.equal([
      ['ours', 'v1'],
      ['created', undefined],
    ]);
    expect([inf.get('ns/a')?.data, inf.get('ns/b')?.data]).to.deep.equal(['kept ours', 'kept created']);
    expect(inf.cached('ns/a')?.data, 'cached(): the watched version, not our write').to.equal('v1');
  });

  it('assume(): serves what this process wrote until the watch brings it or something newer', async () => {
    const src = new FakeSource(clock);
    src.set('a', 'v1', 'ns', false); // rv 1
    const inf = make(src);
    inf.start();
    await settled();
    expect([inf.hasSynced(), src.open.length]).to.deep.equal([true, 1]);
    // Our own write (rv 3) returns before the watch delivers it; an older change (rv 2) is in flight.
    const ours = { metadata: { name: 'a', namespace: 'ns', resourceVersion: '3' }, data: 'ours' };
    inf.assume(ours);
    inf.assume({ metadata: { name: 'b', namespace: 'ns', resourceVersion: '4' }, data: 'created' });
    inf.assume({ metadata: { name: 'a', namespace: 'ns', resourceVersion: '2' }, data: 'older' }); // ignored
    expect(inf.get('ns/a')?.data).to.equal('ours');
    expect(
      inf
        .list('ns')
        .map((o) => `${keyOf(o)} ${o.data}`)
        .sort(),
    ).to.deep.equal(['ns/a ours', 'ns/b created']);
    expect(inf.list('other')).to.deep.equal([]);
    src.send({
      type: 'MODIFIED',
      object: { metadata: { name: 'a', namespace: 'ns', resourceVersion: '2' }, data: 'v2' },
    });
    expect(inf.get('ns/a')?.data).to.equal('ours'); // the cache is still behind our write
    src.send({
      type: 'MODIFIED',
      object: { metadata: { name: 'a', namespace: 'ns', resourceVersion: '5' }, data: 'v5' },
    });
    expect(inf.get('ns/a')?.data).to.equal('v5'); // newer than ours: the watch wins
    src.send({
      type: 'DELETED',
      object: { metadata: { name: 'b', namespace: 'ns', resourceVersion: '6' }, data: 'created' },
    });
    expect(inf.get('ns/b')).to.equal(undefined);
    // Opaque (non-numeric) resourceVersions are never compared, so never assumed.
    inf.assume({ metadata: { name: 'c', namespace: 'ns', resourceVersion: 'abc' }, data: 'x' });
    expect(inf.get('ns/c')).to.equal(undefined);
  });

  describe("byIndex (client-go's indexers)", () => {
    const byData = (o: Obj) => [`${o.metadata.namespace ?? ''}/${o.data ?? ''}`];
    const show = (o: Obj) => `${keyOf(o)} ${o.data} @${o.metadata.resourceVersion}`;

    it('files objects as they come, move and go; written objects count before the watch brings them', async () => {
      const src = new FakeSource(clock);
      src.set('a', 'red', 'ns', false);
      src.set('b', 'blue', 'ns', false);
      const inf = make(src);
      inf.addIndex('data', byData);
      inf.addIndex('data', byData); // the same index again: a shared informer's second user
      expect(() => inf.addIndex('data', (o) => [o.data ?? ''])).to.throw('index data already added');
      expect(() => inf.byIndex('nope', 'x')).to.throw('no index nope');
      inf.start();
      await settled();
      expect(inf.byIndex('data', 'ns/red').map(show)).to.deep.equal(['ns/a red @1']);
      src.set('b', 'red'); // rv 3: moves
      expect(inf.byIndex('data', 'ns/red').map(show)).to.deep.equal(['ns/a red @1', 'ns/b red @3']);
      expect(inf.byIndex('data', 'ns/blue')).to.deep.equal([]);
      inf.assume(src.set('a', 'blue', 'ns', false)); // rv 4: our write, not yet watched
      inf.assume(src.set('c', 'blue', 'ns', false)); // rv 5: created by us
      expect(inf.byIndex('data', 'ns/blue').map(show)).to.deep.equal(['ns/a blue @4', 'ns/c blue @5']);
      expect(inf.byIndex('data', 'ns/red').map(show)).to.deep.equal(['ns/b red @3']);
      src.del('b');
      expect(inf.byIndex('data', 'ns/red')).to.deep.equal([]);
    });

    it("always equals list() filtered by the index, in list()'s order (any changes, writes and relists; the index added before the cache fills or after any change)", async () => {
      const name = fc.constantFrom('a', 'b', 'c', 'd');
      const ns = fc.constantFrom('ns', 'other');
      const data = fc.constantFrom('x', 'y', 'z');
      const op = fc.oneof(
        fc.record({ kind: fc.constant('watched' as const), name, ns, data }),
        fc.record({ kind: fc.constant('written' as const), name, ns, data }),
        fc.record({ kind: fc.constant('deleted' as const), name, ns }),
        fc.record({ kind: fc.constant('relisted' as const) }),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 30 }), fc.nat({ max: 30 }), async (ops, indexAfter) => {
          const src = new FakeSource(clock);
          const inf = make(src);
          // The keys' order is kept only once there is an index: added late, it is made from the cache.
          if (indexAfter === 0) inf.addIndex('data', byData);
          inf.start();
          await settled();
          for (const [i, o] of ops.entries()) {
            if (o.kind === 'watched') src.set(o.name, o.data, o.ns);
            else if (o.kind === 'written') inf.assume(src.set(o.name, o.data, o.ns, false));
            else if (o.kind === 'deleted' && src.objects.has(`${o.ns}/${o.name}`)) src.del(o.name, o.ns);
            else if (o.kind === 'relisted')
              src.failAll(new KubeError('Gone', 'too old resource version', { code: 410 }));
            await settled();
            if (i + 1 === indexAfter) inf.addIndex('data', byData);
            if (i + 1 < indexAfter) continue;
            for (const v of ['ns/x', 'ns/y', 'ns/z', 'other/x', 'other/y', 'other/z']) {
              expect(inf.byIndex('data', v).map(show), v).to.deep.equal(
                inf
                  .list()
                  .filter((x) => byData(x)[0] === v)
                  .map(show),
              );
            }
            const two = ['ns/x', 'ns/z'];
            expect(inf.byIndex('data', two).map(show), two.join(' or ')).to.deep.equal(
              inf
                .list()
                .filter((x) => two.includes(byData(x)[0]))
                .map(show),
            );
          }
          await inf.stop();
        }),
        { numRuns: 150 },
      );
    });
  });

  it('re-watches at once from the last resourceVersion after a clean close that delivered events, without relisting', async () => {
    const src = new FakeSource(clock);
    const inf = make(src);
    inf.start();
    await settled();
    expect(src.open.length, 'a watch').to.equal(1);
    src.set('a', '1');
    src.send({ type: 'BOOKMARK', object: { metadata: { name: '', resourceVersion: '7' } } });
    src.closeAll();
    await settled();
    expect(src.open.length, 'the next watch').to.equal(1);
    expect(src.watches).to.deep.equal(['0', '7']);
    expect(src.lists).to.equal(1);
    expect(since(src.watchedAt)).to.deep.equal([0, 0]);
  });

  it('a watch closed with no event within 1 s is re-opened after the backoff (200–300 ms); after 1 s, at once', async () => {
    const src = new FakeSource(clock);
    const inf = make(src);
    inf.start();
    await settled();
    src.closeAll(); // at once, nothing delivered: a server that ends every watch would otherwise be hammered
    await at(199);
    expect(src.watches.length, 'no new watch before the backoff').to.equal(1);
    await at(300);
    expect(src.watches.length, 'a new watch after the backoff').to.equal(2);
    expect(since(src.watchedAt)[1]).to.be.within(200, 300);
    const opened = src.watchedAt[1];
    await at(opened - T0 + 1000);
    src.closeAll(); // open for 1 s: a normal end (the server-side timeout), re-watched at once
    await settled();
    expect(src.watches.length).to.equal(3);
    expect(src.watchedAt[2] - opened).to.equal(1000);
    expect(src.lists).to.equal(1);
  });

  for (const [how, gone] of [
    [
      'an ERROR event with 410 Expired',
      (src: FakeSource) =>
        src.send({
          type: 'ERROR',
          object: {
            kind: 'Status',
            code: 410,
            reason: 'Expired',
            message: 'too old resource version',
          } as unknown as Obj,
        }),
    ],
    [
      'an HTTP 410 on the watch',
      (src: FakeSource) => src.failAll(new KubeError('Gone', 'too old resource version', { code: 410 })),
    ],
  ] as const) {
    it(`on ${how}: relists at once and fires the differences`, async () => {
      const src = new FakeSource(clock);
      src.set('keep', '1', 'ns', false);
      src.set('change', '1', 'ns', false);
      src.set('drop', '1', 'ns', false);
      const inf = make(src);
      const log = record(inf);
      inf.start();
      await settled();
      expect(src.open.length, 'a watch').to.equal(1);
      // Changes the watch never delivered:
      src.set('change', '2', 'ns', false);
      src.del('drop', 'ns', false);
      src.set('new', '1', 'ns', false);
      gone(src);
      await settled();
      expect([src.lists, src.open.length], 'relist and watch').to.deep.equal([2, 1]);
      expect(log.slice(3)).to.deep.equal(['update ns/change 1->2', 'add ns/new 1', 'delete ns/drop 1']);
      expect(src.watches.at(-1)).to.equal(String(src.rv));
      expect(since(src.listedAt), 'no backoff for a first 410').to.deep.equal([0, 0]);
    });
  }

  describe('relistNow (what the source keeps changed: the sharded caches)', () => {
    it('ends the watch, lists at once, delivers the differences, then resolves and watches from the new list', async () => {
      const src = new FakeSource(clock);
      src.set('stays', '1', 'ns', false);
      src.set('goes', '1', 'ns', false);
      const inf = make(src);
      const log = record(inf);
      inf.start();
      await settled();
      // What the source answers changes without a watch event (a shard given up, another taken).
      src.del('goes', 'ns', false);
      src.set('comes', '1', 'other', false);
      let resolved = false;
      const done = inf.relistNow().then(() => {
        resolved = true;
      });
      await settled();
      await done;
      expect(resolved).to.equal(true);
      expect([src.lists, src.open.length], 'a second list, one watch open').to.deep.equal([2, 1]);
      expect(log.slice(2)).to.deep.equal(['add other/comes 1', 'delete ns/goes 1']);
      expect(inf.list().map(keyOf).sort()).to.deep.equal(['ns/stays', 'other/comes']);
      expect(src.watches.at(-1), 'watching from the second list').to.equal(String(src.rv));
    });

    it('asked during a list, waits for a list begun after it, not the one in flight', async () => {
      const src = new FakeSource(clock);
      src.set('a', '1', 'ns', false);
      const holds: Array<() => void> = [];
      const hold = () => {
        src.listHold = new Promise((r) => holds.push(r));
      };
      hold();
      const inf = make(src);
      inf.start();
      await settled();
      expect(src.lists, 'the first list in flight').to.equal(1);
      src.set('b', '1', 'ns', false); // after the first list's snapshot
      let resolved = false;
      const done = inf.relistNow().then(() => {
        resolved = true;
      });
      hold(); // the second list will wait too
      holds[0]!();
      await inf.waitForSync();
      await settled();
      expect(inf.list().map(keyOf), 'the first list applied').to.deep.equal(['ns/a']);
      expect(src.lists, 'a second list begun').to.equal(2);
      expect(resolved, 'not resolved by the list in flight when asked').to.equal(false);
      holds[1]!();
      await done;
      expect(inf.list().map(keyOf).sort(), 'b, which only the second list holds').to.deep.equal(['ns/a', 'ns/b']);
    });

    it('resolves at once when the informer is stopped', async () => {
      const src = new FakeSource(clock);
      const inf = make(src);
      inf.start();
      await settled();
      await inf.stop();
      await inf.relistNow();
      expect(src.lists).to.equal(1);
    });
  });

  it('retries a failing list and a failing watch with backoff (200 ms doubling, +≤50% jitter, reset by success), reporting each failure', async () => {
    const src = new FakeSource(clock);
    src.listFailures = [new KubeError('Unreachable', 'connection refused'), new KubeError('Transient', 'HTTP 503')];
    const errors: string[] = [];
    const inf = make(src, { onError: (e) => errors.push(e.kind) });
    inf.start();
    await settled();
    expect([src.lists, errors]).to.deep.equal([1, ['Unreachable']]);
    await at(199);
    expect(src.lists, 'the first retry waits 200 ms at least').to.equal(1);
    await at(300);
    expect(src.lists, 'and 300 ms at most').to.equal(2);
    await at(src.listedAt[1] - T0 + 399);
    expect(inf.hasSynced(), 'the second retry waits 400 ms at least').to.equal(false);
    await at(src.listedAt[1] - T0 + 600);
    expect([src.lists, inf.hasSynced()], 'and 600 ms at most').to.deep.equal([3, true]);
    expect(gaps(src.listedAt)[0]).to.be.within(200, 300);
    expect(gaps(src.listedAt)[1]).to.be.within(400, 600);
    expect(src.open.length, 'a watch').to.equal(1);

    // A successful list reset the backoff: a reset watch is retried after 200–300 ms again, without a relist.
    const failedAt = clock.now();
    src.failAll(new KubeError('Transient', 'ECONNRESET'));
    await clock.advance(199);
    expect(src.watches.length).to.equal(1);
    await clock.advance(101);
    expect([src.watches.length, src.open.length], 'the watch came back').to.deep.equal([2, 1]);
    expect(src.watchedAt[1] - failedAt).to.be.within(200, 300);
    expect(src.lists, 'a reset watch resumes without a relist').to.equal(3);
    // An ERROR event (500) is a failure too; the event itself reset the backoff to its first step.
    const errorAt = clock.now();
    src.send({
      type: 'ERROR',
      object: { kind: 'Status', code: 500, reason: 'InternalError', message: 'etcd down' } as unknown as Obj,
    });
    await clock.advance(300);
    expect(src.watches.length, 'a watch after an ERROR 500').to.equal(3);
    expect(src.watchedAt[2] - errorAt).to.be.within(200, 300);
    expect(errors).to.deep.equal(['Unreachable', 'Transient', 'Transient', 'Transient']);
  });

  it('a list that answers 410 and watches that always answer 410 are retried with a doubling backoff, not in a tight loop', async () => {
    const src = new FakeSource(clock);
    src.listFailures = [
      new KubeError('Gone', 'Expired', { code: 410 }),
      new KubeError('Gone', 'Expired', { code: 410 }),
    ];
    // Every watch fails with 410 at once:
    const watch = src.watch.bind(src);
    src.watch = (rv, onEvent, signal) => {
      void watch(rv, onEvent, signal).catch(() => undefined);
      return Promise.reject(new KubeError('Gone', 'Expired', { code: 410 }));
    };
    const errors: string[] = [];
    const inf = make(src, { onError: (e) => errors.push(e.kind) });
    inf.start();
    await at(60_000);
    expect(errors, 'a 410 on the list itself is a failure to back off from').to.deep.equal(['Gone', 'Gone']);
    // Lists: two failed ones (backoff 200 and 400 ms), the sync, then a relist after every watch's
    // 410: the first at once, then 200 ms doubling (+≤50% jitter) while nothing but 410s comes.
    const expected: Array<[number, number]> = [
      [200, 300],
      [400, 600],
      [0, 0],
    ];
    for (let ms = 200; expected.length < gaps(src.listedAt).length; ms = Math.min(2 * ms, 30_000))
      expected.push([ms, 1.5 * ms]);
    const got = gaps(src.listedAt);
    for (const [i, [lo, hi]] of expected.entries())
      expect(got[i], `gap ${i} in ${JSON.stringify(got)}`).to.be.within(lo, hi);
    // 60 s hold at least the gaps up to 12.8 s (≤ 39 s with the most jitter) and at most one more (≥ 25.6 s from ≥ 26 s).
    expect(src.lists).to.be.within(11, 12);
  });

  it('resync (default 10 min, ±10% jitter) delivers every cached object again as an update, from the cache: no list, the watch goes on', async () => {
    const src = new FakeSource(clock);
    src.set('a', '1', 'ns', false);
    src.set('b', '4', 'ns', false);
    const inf = make(src, { watchdogMs: 0 });
    const log = record(inf);
    inf.start();
    await settled();
    src.set('a', '7');
    await at(539_999);
    expect(log, 'no resync before 9 min').to.deep.equal(['add ns/a 1', 'add ns/b 4', 'update ns/a 1->7']);
    await at(662_500); // 11 min and one check period (2.5 s)
    expect(log.slice(3), 'one resync by 11 min: the cache as it is now').to.deep.equal([
      'update ns/a 7->7',
      'update ns/b 4->4',
    ]);
    expect([src.lists, src.watches.length, src.open.length], 'one list, the first watch still open').to.deep.equal([
      1, 1, 1,
    ]);
    await at(1_080_000 - 1); // the next one is ≥ 9 min after the first
    expect(log.length).to.equal(5);
    await at(1_400_000); // and ≤ 11 min (and a check period) after it
    expect(log.slice(5)).to.deep.equal(['update ns/a 7->7', 'update ns/b 4->4']);
    expect(src.lists).to.equal(1);
  });

  it('a resync gives the event loop back every SLICE_MS of delivering, and goes on from the cache as it then is', async () => {
    const src = new FakeSource(clock);
    // Each delivery holds the loop 2 ms (real time), so a piece of SLICE_MS (5 ms) is at most 3
    // objects: the last two are always delivered after the loop's first turn.
    const n = 10;
    const spin = (ms: number): void => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    for (let i = 0; i < n; i++) src.set(`o${i}`, 'v', 'ns', false);
    const inf = make(src, { watchdogMs: 0 });
    const resynced: string[] = [];
    let betweenSlices: number | undefined;
    inf.on({
      update: (old, o) => {
        if (old !== o) return;
        resynced.push(o.metadata.name!);
        spin(2);
        // Runs at the first turn of the event loop after this delivery: with the whole cache in one
        // piece, only after the last object.
        if (resynced.length === 1)
          setImmediate(() => {
            betweenSlices = resynced.length;
            src.del(`o${n - 2}`); // deleted before its piece: not delivered
            src.set(`o${n - 1}`, 'w'); // changed before its piece: delivered as it now is
          });
      },
    });
    const log = record(inf);
    inf.start();
    await settled();
    expect(inf.list()).to.have.length(n);
    await at(662_500);
    for (let turn = 0; turn < n; turn++) await settled(); // the pieces left: one turn each at most
    expect(SLICE_MS).to.equal(5);
    expect(betweenSlices, 'objects delivered before the event loop had a turn').to.be.within(1, 3);
    expect(resynced, "every object still cached, once, in the cache's order").to.deep.equal(
      [...Array(n).keys()].filter((i) => i !== n - 2).map((i) => `o${i}`),
    );
    expect(log.indexOf(`delete ns/o${n - 2} v`), 'the delete, between the pieces').to.be.above(-1);
    expect(log.indexOf(`update ns/o${n - 1} v->w`), 'the change, between the pieces').to.be.above(
      log.indexOf(`delete ns/o${n - 2} v`),
    );
    expect(log.at(-1), 'then the resync delivers it as it now is').to.equal(`update ns/o${n - 1} w->w`);
    expect(log).to.not.include(`update ns/o${n - 1} v->v`);
  });

  it('the watchdog (default 10 min) rebuilds a watch that delivered nothing, counting from its last event', async () => {
    const src = new FakeSource(clock);
    const inf = make(src, { resyncMs: 0 });
    inf.start();
    await at(500_000);
    src.send({ type: 'BOOKMARK', object: { metadata: { name: '', resourceVersion: '3' } } }); // a bookmark counts
    await at(1_099_999);
    expect([src.lists, src.watches.length], 'nothing for < 10 min since the bookmark').to.deep.equal([1, 1]);
    await at(1_102_500);
    expect([src.lists, src.open.length], 'relisted and watching again').to.deep.equal([2, 1]);
    expect(since(src.listedAt)[1]).to.be.within(1_100_000, 1_102_500);
  });

  it('stop ends the loop, closes the watch and leaves no timer behind', async () => {
    const src = new FakeSource(clock);
    const inf = make(src);
    inf.start();
    await settled();
    expect(src.open.length, 'a watch').to.equal(1);
    await inf.stop();
    expect(src.open.length).to.equal(0);
    expect(clock.pending(), 'timers left').to.equal(0);
    await clock.advance(3_600_000);
    expect(src.lists).to.equal(1);
  });

  it('stop right after the first sync opens no watch and ends at once', async () => {
    const src = new FakeSource(clock);
    src.set('a', '1', 'ns', false);
    const inf = make(src);
    inf.start();
    await inf.waitForSync();
    await inf.stop();
    expect([src.watches.length, src.open.length, inf.list().length]).to.deep.equal([0, 0, 1]);
    expect(clock.pending(), 'timers left').to.equal(0);
  });

  it('stop during a backoff ends the wait at once', async () => {
    const src = new FakeSource(clock);
    src.listFailures = [new KubeError('Unreachable', 'connection refused')];
    const inf = make(src);
    inf.start();
    await settled();
    await inf.stop();
    expect(clock.pending(), 'timers left').to.equal(0);
    expect(clock.now(), 'no time passed').to.equal(T0);
    expect(src.lists).to.equal(1);
  });
});
