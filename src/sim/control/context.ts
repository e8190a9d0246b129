// What every control loop gets: the store to write through, the cache to read from, the clock,
// and the work queue to ask for a later pass.

import { REF } from '../resources.ts';
import { ApiError } from '../types.ts';
import type { KubeObject, ResourceRef, StoreApi } from '../types.ts';
import type { ClusterCache } from './cache.ts';
import type { EventRecorder } from './events.ts';

export interface ControlConfig {
  nodes: number;
  zones: string[];
  podsPerNode: number;
  podStartMs: number;
  podReadyMs: number;
}

export interface ControlContext {
  store: StoreApi;
  cache: ClusterCache;
  config: ControlConfig;
  now(): number;
  random(): number;
  events: EventRecorder;
  /** Handle `key` soon. */
  enqueue(key: string): void;
  /** Handle `key` at `atMs` (the earliest request wins). */
  wakeAt(key: string, atMs: number): void;
}

/** Work-queue keys, one family per loop. */
export const keys = {
  replicaSet: (ns: string, name: string) => `rs/${ns}/${name}`,
  scheduler: 'sched',
  kubelet: (ns: string, name: string) => `pod/${ns}/${name}`,
  node: (name: string) => `node/${name}`,
  pdb: (ns: string, name: string) => `pdb/${ns}/${name}`,
  gcDependent: (uid: string) => `gc/${uid}`,
  gcOwner: (uid: string) => `gcowner/${uid}`,
  nodeGroup: (name: string) => `ng/${name}`,
};

/**
 * A loop's write to the object `obj` names, through the store: `fn` gets the stored version and
 * returns the new one (undefined: nothing to write). An object gone meanwhile (404) is nothing to
 * do, as it is for a controller whose cache lags: undefined.
 */
export function mutateStored(
  ctx: ControlContext,
  ref: ResourceRef,
  obj: KubeObject,
  fn: (stored: KubeObject) => KubeObject | undefined,
  opts: Parameters<StoreApi['mutate']>[4],
): KubeObject | undefined {
  try {
    return ctx.store.mutate(ref, obj.metadata.namespace, obj.metadata.name ?? '', fn, opts);
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return undefined;
    throw err;
  }
}

/** mutateStored for the very pod the loop read (the same uid: a pod recreated under its name is left alone). */
export function mutateSamePod(
  ctx: ControlContext,
  pod: KubeObject,
  fn: (stored: KubeObject) => KubeObject | undefined,
  opts: Parameters<StoreApi['mutate']>[4],
): KubeObject | undefined {
  return mutateStored(ctx, REF.pods, pod, (p) => (p.metadata.uid === pod.metadata.uid ? fn(p) : undefined), opts);
}
