import { expect } from 'chai';
import { Informer, retryDelay, keyOf } from '../../../src/controller/informer.ts';
import type { ListWatchSource } from '../../../src/controller/informer.ts';
import { KubeError } from '../../../src/kube/errors.ts';
import type { WatchEvent } from '../../../src/kube/client.ts';
import { sleep, until } from './wait.ts';

interface Obj { metadata: { name: string; namespace?: string; resourceVersion?: string }; data?: string }


interface OpenWatch { rv: string; onEvent: (e: WatchEvent<Obj>) => void; resolve: () => void; reject: (e: unknown) => void }

/** A scriptable API: a store with a resourceVersion counter, lists, and watches the test drives. */
class FakeSource implements ListWatchSource<Obj> {
  rv = 0;
  objects = new Map<string, Obj>();
  lists = 0;
  watches: string[] = [];
  listFailures: unknown[] = [];
  open: OpenWatch[] = [];

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
    if (notify) this.send({ type: 'DELETED', object: { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } } });
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
    const failure = this.listFailures.shift();
    if (failure) throw failure;
    return { items: [...this.objects.values()].map((o) => structuredClone(o)), resourceVersion: String(this.rv) };
  }
  watch(rv: string, onEvent: (e: WatchEvent<Obj>) => void, signal: AbortSignal): Promise<void> {
    this.watches.push(rv);
    return new Promise((resolve, reject) => {
      const w: OpenWatch = { rv, onEvent, resolve, reject };
      this.open.push(w);
      signal.addEventListener('abort', () => {
        this.open = this.open.filter((x) => x !== w);
        reject(new DOMException('aborted', 'AbortError'));
      }, { once: true });
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

describe('controller/informer', () => {
  let informers: Informer<Obj>[] = [];
  afterEach(async () => {
    await Promise.all(informers.map((i) => i.stop()));
    informers = [];
  });
  function make(src: FakeSource, opts: Partial<ConstructorParameters<typeof Informer>[1]> = {}): Informer<Obj> {
    const inf = new Informer<Obj>(src, { name: 'test', backoffBaseMs: 1, backoffMaxMs: 5, ...opts });
    informers.push(inf);
    return inf;
  }

  describe('retry delay: 200 ms doubling to 30 s, plus up to 50% jitter', () => {
    const rows: Array<[number, number, number]> = [
      // attempt, random, delay
      [0, 0, 200], [1, 0, 400], [2, 0, 800], [7, 0, 25_600], [8, 0, 30_000], [50, 0, 30_000],
      [0, 1, 300], [8, 1, 45_000], [3, 0.5, 2000],
    ];
    for (const [attempt, random, delay] of rows) {
      it(`attempt ${attempt}, jitter ${random} → ${delay} ms`, () => {
        expect(retryDelay(attempt, 200, 30_000, () => random)).to.equal(delay);
      });
    }
  });

  it('lists, then watches from the list resourceVersion; fills the cache and calls handlers with (old, new)', async () => {
    const src = new FakeSource();
    src.set('a', '1', 'ns', false);
    src.set('b', '1', 'other', false);
    const inf = make(src);
    const log = record(inf);
    expect(inf.hasSynced()).to.equal(false);
    inf.start();
    await inf.waitForSync();
    expect(inf.hasSynced()).to.equal(true);
    await until(() => src.open.length === 1, 'a watch');
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
  });

  it('assume(): serves what this process wrote until the watch brings it or something newer', async () => {
    const src = new FakeSource();
    src.set('a', 'v1', 'ns', false); // rv 1
    const inf = make(src);
    inf.start();
    await inf.waitForSync();
    await until(() => src.open.length === 1, 'a watch');
    // Our own write (rv 3) returns before the watch delivers it; an older change (rv 2) is in flight.
    const ours = { metadata: { name: 'a', namespace: 'ns', resourceVersion: '3' }, data: 'ours' };
    inf.assume(ours);
    inf.assume({ metadata: { name: 'b', namespace: 'ns', resourceVersion: '4' }, data: 'created' });
    inf.assume({ metadata: { name: 'a', namespace: 'ns', resourceVersion: '2' }, data: 'older' }); // ignored
    expect(inf.get('ns/a')?.data).to.equal('ours');
    expect(inf.list('ns').map((o) => `${keyOf(o)} ${o.data}`).sort()).to.deep.equal(['ns/a ours', 'ns/b created']);
    expect(inf.list('other')).to.deep.equal([]);
    src.send({ type: 'MODIFIED', object: { metadata: { name: 'a', namespace: 'ns', resourceVersion: '2' }, data: 'v2' } });
    expect(inf.get('ns/a')?.data).to.equal('ours'); // the cache is still behind our write
    src.send({ type: 'MODIFIED', object: { metadata: { name: 'a', namespace: 'ns', resourceVersion: '5' }, data: 'v5' } });
    expect(inf.get('ns/a')?.data).to.equal('v5'); // newer than ours: the watch wins
    src.send({ type: 'DELETED', object: { metadata: { name: 'b', namespace: 'ns', resourceVersion: '6' }, data: 'created' } });
    expect(inf.get('ns/b')).to.equal(undefined);
    // Opaque (non-numeric) resourceVersions are never compared, so never assumed.
    inf.assume({ metadata: { name: 'c', namespace: 'ns', resourceVersion: 'abc' }, data: 'x' });
    expect(inf.get('ns/c')).to.equal(undefined);
  });

  it('re-watches from the last resourceVersion after a clean close, without relisting', async () => {
    const src = new FakeSource();
    const inf = make(src);
    inf.start();
    await until(() => src.open.length === 1, 'a watch');
    src.set('a', '1');
    src.send({ type: 'BOOKMARK', object: { metadata: { name: '', resourceVersion: '7' } } });
    src.closeAll();
    await until(() => src.open.length === 1, 'the next watch');
    expect(src.watches).to.deep.equal(['0', '7']);
    expect(src.lists).to.equal(1);
  });

  for (const [how, gone] of [
    ['an ERROR event with 410 Expired', (src: FakeSource) => src.send({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' } as unknown as Obj })],
    ['an HTTP 410 on the watch', (src: FakeSource) => src.failAll(new KubeError('Gone', 'too old resource version', { code: 410 }))],
  ] as const) {
    it(`on ${how}: relists and fires the differences`, async () => {
      const src = new FakeSource();
      src.set('keep', '1', 'ns', false);
      src.set('change', '1', 'ns', false);
      src.set('drop', '1', 'ns', false);
      const inf = make(src);
      const log = record(inf);
      inf.start();
      await until(() => src.open.length === 1, 'a watch');
      // Changes the watch never delivered:
      src.set('change', '2', 'ns', false);
      src.del('drop', 'ns', false);
      src.set('new', '1', 'ns', false);
      gone(src);
      await until(() => src.lists === 2 && src.open.length === 1, 'relist and watch');
      expect(log.slice(3)).to.deep.equal(['update ns/change 1->2', 'add ns/new 1', 'delete ns/drop 1']);
      expect(src.watches.at(-1)).to.equal(String(src.rv));
    });
  }

  it('retries a failing list and a failing watch with backoff, reporting each failure', async () => {
    const src = new FakeSource();
    src.listFailures = [new KubeError('Unreachable', 'connection refused'), new KubeError('Transient', 'HTTP 503')];
    const errors: string[] = [];
    const inf = make(src, { onError: (e) => errors.push(e.kind) });
    inf.start();
    await inf.waitForSync();
    expect(src.lists).to.equal(3);
    await until(() => src.open.length === 1, 'a watch');
    src.failAll(new KubeError('Transient', 'ECONNRESET'));
    await until(() => src.open.length === 1 && src.watches.length === 2, 'the watch to come back');
    expect(src.lists, 'a reset watch resumes without a relist').to.equal(3);
    src.send({ type: 'ERROR', object: { kind: 'Status', code: 500, reason: 'InternalError', message: 'etcd down' } as unknown as Obj });
    await until(() => src.watches.length === 3, 'a watch after an ERROR 500');
    expect(errors).to.deep.equal(['Unreachable', 'Transient', 'Transient', 'Transient']);
  });

  it('a list that answers 410 and watches that always answer 410 are retried with backoff, not in a tight loop', async () => {
    const src = new FakeSource();
    src.listFailures = [new KubeError('Gone', 'Expired', { code: 410 }), new KubeError('Gone', 'Expired', { code: 410 })];
    const errors: string[] = [];
    const inf = make(src, { backoffBaseMs: 20, backoffMaxMs: 20, onError: (e) => errors.push(e.kind) });
    inf.start();
    await inf.waitForSync();
    expect(errors, 'a 410 on the list itself is a failure to back off from').to.deep.equal(['Gone', 'Gone']);
    // Every watch now fails with 410 at once:
    const watch = src.watch.bind(src);
    src.watch = (rv, onEvent, signal) => { void watch(rv, onEvent, signal).catch(() => undefined); return Promise.reject(new KubeError('Gone', 'Expired', { code: 410 })); };
    const lists = src.lists;
    await sleep(200);
    expect(src.lists - lists, 'relists are spaced by the backoff').to.be.within(1, 15);
  });

  it('resync relists periodically and delivers every object as an update', async () => {
    const src = new FakeSource();
    src.set('a', '1', 'ns', false);
    const inf = make(src, { resyncMs: 100, watchdogMs: 0 });
    const log = record(inf);
    inf.start();
    await until(() => src.lists >= 2, 'a resync', 5000);
    await until(() => log.length >= 2, 'the resync update');
    expect(log.slice(0, 2)).to.deep.equal(['add ns/a 1', 'update ns/a 1->1']);
  });

  it('the watchdog rebuilds a watch that delivered nothing for too long', async () => {
    const src = new FakeSource();
    const inf = make(src, { resyncMs: 0, watchdogMs: 100 });
    inf.start();
    await until(() => src.open.length === 1, 'a watch');
    await until(() => src.lists >= 2 && src.open.length === 1, 'a rebuild', 5000);
    expect(src.watches.length).to.be.greaterThanOrEqual(2);
  });

  it('stop ends the loop and closes the watch', async () => {
    const src = new FakeSource();
    const inf = make(src);
    inf.start();
    await until(() => src.open.length === 1, 'a watch');
    await inf.stop();
    expect(src.open.length).to.equal(0);
    const lists = src.lists;
    await sleep(20);
    expect(src.lists).to.equal(lists);
  });
});
