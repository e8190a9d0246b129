// The sharded caches' source (src/manager/shardcache.ts, docs/sharding.md#caches): over a client
// that answers a cluster-wide list and watch, only the namespaces cached now come through, and only
// they are transformed; an event of another namespace still moves the watch's resourceVersion on.

import { expect } from 'chai';
import { PODS } from '../../../src/kube/client.ts';
import type { KubeClient, WatchEvent } from '../../../src/kube/client.ts';
import { shardedSource } from '../../../src/manager/shardcache.ts';

interface Obj {
  metadata: { name: string; namespace: string; resourceVersion: string };
  kept?: boolean;
}

const obj = (namespace: string, name: string, rv: number): Obj => ({
  metadata: { name, namespace, resourceVersion: String(rv) },
});

/** A client whose list answers `items` and whose watch sends `events`, each through the caller's transform. */
function fakeClient(items: Obj[], events: WatchEvent<Obj>[]): KubeClient {
  return {
    list: async (_t: unknown, _ns: unknown, opts: { transform?: (o: Obj) => Obj }) => ({
      items: items.map((o) => (opts.transform ? opts.transform(structuredClone(o)) : o)),
      resourceVersion: '10',
    }),
    watch: async (_t: unknown, _ns: unknown, _opts: unknown, onEvent: (e: WatchEvent<Obj>) => void) => {
      for (const e of events) onEvent(structuredClone(e));
    },
  } as unknown as KubeClient;
}

describe('manager/shardcache: a source that keeps the namespaces cached now', () => {
  const cached = new Set(['team-a']);
  const transformed: string[] = [];
  const transform = (o: Obj): Obj => {
    transformed.push(`${o.metadata.namespace}/${o.metadata.name}`);
    return { ...o, kept: true };
  };
  beforeEach(() => {
    transformed.length = 0;
  });

  it('a list keeps the cached namespaces, transformed; the others are dropped untransformed', async () => {
    const client = fakeClient([obj('team-a', 'p1', 3), obj('team-b', 'p2', 4), obj('team-a', 'p3', 5)], []);
    const source = shardedSource<Obj>(client, PODS, undefined, transform, (ns) => cached.has(ns));
    const { items, resourceVersion } = await source.list(new AbortController().signal);
    expect(items.map((o) => `${o.metadata.namespace}/${o.metadata.name} ${o.kept}`)).to.deep.equal([
      'team-a/p1 true',
      'team-a/p3 true',
    ]);
    expect(resourceVersion).to.equal('10');
    expect(transformed, 'only the kept objects transformed').to.deep.equal(['team-a/p1', 'team-a/p3']);
  });

  it("a watch passes the cached namespaces' events; another namespace's becomes a bookmark of its resourceVersion", async () => {
    const events: WatchEvent<Obj>[] = [
      { type: 'ADDED', object: obj('team-b', 'p2', 11) },
      { type: 'MODIFIED', object: obj('team-a', 'p1', 12) },
      { type: 'DELETED', object: obj('team-b', 'p2', 13) },
      { type: 'BOOKMARK', object: { metadata: { resourceVersion: '14' } } as Obj },
    ];
    const source = shardedSource<Obj>(fakeClient([], events), PODS, undefined, transform, (ns) => cached.has(ns));
    const got: string[] = [];
    await source.watch(
      '10',
      (e) => got.push(`${e.type} ${e.object.metadata.name ?? ''} ${e.object.metadata.resourceVersion}`),
      new AbortController().signal,
    );
    expect(got).to.deep.equal(['BOOKMARK  11', 'MODIFIED p1 12', 'BOOKMARK  13', 'BOOKMARK  14']);
    expect(transformed).to.deep.equal(['team-a/p1']);
  });

  it('what is cached is asked at each object: a namespace taken in between comes through from then on', async () => {
    const keep = new Set<string>();
    const client = fakeClient([obj('team-c', 'p1', 3)], []);
    const source = shardedSource<Obj>(client, PODS, undefined, undefined, (ns) => keep.has(ns));
    expect((await source.list(new AbortController().signal)).items).to.have.lengthOf(0);
    keep.add('team-c');
    expect((await source.list(new AbortController().signal)).items.map((o) => o.metadata.name)).to.deep.equal(['p1']);
  });
});
