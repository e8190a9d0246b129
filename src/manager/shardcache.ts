// Sharded caches (docs/sharding.md#caches): a sharded replica keeps in its pod and ReplicaSet caches
// only the objects of the namespaces it caches now (those of the shards it holds; every namespace
// while it holds shard 0 and the node roller runs), nine tenths of the objects at any fleet size.
//
// The watch and the list stay cluster-wide, as without sharding (the API server sends every event
// to every replica: a filter, not a narrower request). The filter sits in the source, before the
// cache: an object of a namespace not cached is never transformed (cacheKeep) nor held, only its
// name and namespace looked at, and then dropped. What the filter keeps changes when a shard is
// taken or given up; the informer then lists again (Informer.relistNow), which adds the new
// shard's objects and delivers the dropped shard's as deletions, as a label-selected watch does
// for an object that stops matching. A shard's passes wait for that list (ShardSet's per-shard
// "synced" gate): a pass never sees a shard's namespace before its objects are cached.

import { PODS, REPLICASETS } from '../kube/client.ts';
import type { KubeClient, ResourceType } from '../kube/client.ts';
import { kubeSource } from './informer.ts';
import type { ListWatchSource, ObjectWithMeta } from './informer.ts';

/** Marks what the transform gives for an object of a namespace not cached: the source then drops it. */
const DROPPED = Symbol('dropped');

interface Dropped {
  metadata: { name: string; resourceVersion?: string };
  [DROPPED]: true;
}

const isDropped = (obj: unknown): obj is Dropped => (obj as Partial<Dropped> | undefined)?.[DROPPED] === true;

/** The kinds a sharded replica caches by shard: the bulk of the objects, read only by their shard's passes. */
export const SHARDED_KINDS: readonly ResourceType[] = [PODS, REPLICASETS];

/**
 * kubeSource (in `namespace`, or all), keeping only objects whose namespace `cached` accepts now: the decision is taken when
 * the object arrives (in the transform, per listed page or watch event), so a list begun before a
 * change of `cached` may be wrong about it, which is why every change is followed by a relist.
 */
export function shardedSource<T extends ObjectWithMeta>(
  client: KubeClient,
  type: ResourceType,
  namespace: string | undefined,
  transform: ((obj: T) => T) | undefined,
  cached: (namespace: string) => boolean,
): ListWatchSource<T> {
  const keepOrDrop = (obj: T): T => {
    if (cached(obj.metadata.namespace ?? '')) return transform ? transform(obj) : obj;
    const dropped: Dropped = { metadata: { name: '', resourceVersion: obj.metadata.resourceVersion }, [DROPPED]: true };
    return dropped as unknown as T;
  };
  const inner = kubeSource<T>(client, type, namespace, undefined, keepOrDrop);
  return {
    list: async (signal) => {
      const { items, resourceVersion } = await inner.list(signal);
      return { items: items.filter((o) => !isDropped(o)), resourceVersion };
    },
    watch: (resourceVersion, onEvent, signal, onOpen) =>
      inner.watch(
        resourceVersion,
        // A dropped object's event still moves the watch on: as a bookmark of its resourceVersion,
        // so that a watch started again resumes after it instead of from a version the server may
        // no longer have (a 410 and a full list).
        (e) =>
          onEvent(
            isDropped(e.object)
              ? { type: 'BOOKMARK', object: { metadata: { resourceVersion: e.object.metadata.resourceVersion } } as T }
              : e,
          ),
        signal,
        onOpen,
      ),
  };
}
