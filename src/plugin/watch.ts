// List, then watch from the list's resourceVersion, as kubectl's UntilWithSync does: a watch the
// server ends is resumed from the last resourceVersion seen, an expired one (410) is answered by a
// fresh list, and a dropped connection is retried after a short pause. No polling.

import type { KubeClient, ResourceType, WatchEvent } from '../kube/client.ts';
import { KubeError } from '../kube/errors.ts';
import type { ObjectMeta } from '../api/types.ts';
import type { Session } from './options.ts';

export interface Follower<T> {
  /** The complete current list (the first one and after every relist). Return true to stop. */
  onList(items: T[]): boolean | undefined;
  /** One change. Return true to stop. */
  onEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T): boolean | undefined;
}

export interface FollowOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Pause before re-watching after a transient failure. */
  retryMs?: number;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

/**
 * Follows `type` in `namespace` until a handler returns true (resolves), `signal` aborts
 * (resolves), or a non-transient error (rejects with a KubeError).
 */
export async function follow<T extends { metadata: ObjectMeta }>(
  client: KubeClient,
  type: ResourceType,
  namespace: string | undefined,
  opts: FollowOptions,
  handler: Follower<T>,
  signal?: AbortSignal,
): Promise<void> {
  const local = new AbortController();
  const stopAll = (): void => local.abort();
  signal?.addEventListener('abort', stopAll, { once: true });
  const retryMs = opts.retryMs ?? 1000;
  try {
    relist: while (!local.signal.aborted) {
      let list: Awaited<ReturnType<typeof client.list<T>>>;
      try {
        list = await client.list<T>(
          type,
          namespace,
          { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector },
          local.signal,
        );
      } catch (err) {
        if (local.signal.aborted) return;
        if (err instanceof KubeError && (err.kind === 'Transient' || err.kind === 'Gone')) {
          await sleep(retryMs, local.signal);
          continue;
        }
        throw err;
      }
      if (handler.onList(list.items)) return;
      let rv = list.resourceVersion;
      while (!local.signal.aborted) {
        // One watch request; `errorEvent` is an ERROR event inside the stream (410 Expired, usually).
        const one = new AbortController();
        let errorEvent: { code?: number; reason?: string; message?: string } | undefined;
        let stopped = false;
        try {
          await client.watch<T>(
            type,
            namespace,
            {
              resourceVersion: rv,
              labelSelector: opts.labelSelector,
              fieldSelector: opts.fieldSelector,
              timeoutSeconds: 300,
            },
            (e: WatchEvent<T>) => {
              if (stopped || errorEvent) return;
              if (e.type === 'ERROR') {
                errorEvent = (e.object ?? {}) as { code?: number; reason?: string; message?: string };
                one.abort();
                return;
              }
              const objRv = e.object?.metadata?.resourceVersion;
              if (objRv) rv = objRv;
              if (e.type === 'BOOKMARK') return;
              if (handler.onEvent(e.type, e.object)) {
                stopped = true;
                one.abort();
              }
            },
            AbortSignal.any([local.signal, one.signal]),
          );
        } catch (err) {
          if (!(err instanceof KubeError) || (err.kind !== 'Transient' && err.kind !== 'Gone')) throw err;
          if (err.kind === 'Gone') continue relist;
          await sleep(retryMs, local.signal);
        }
        if (stopped || local.signal.aborted) return;
        if (errorEvent) {
          if (errorEvent.code === 410 || errorEvent.reason === 'Expired' || errorEvent.reason === 'Gone')
            continue relist;
          throw new KubeError(
            'Other',
            `watch ${type.plural}: ${errorEvent.message ?? 'the server sent an error event'}`,
            { code: errorEvent.code, reason: errorEvent.reason },
          );
        }
      }
    }
  } finally {
    signal?.removeEventListener('abort', stopAll);
  }
}

/** A Follower that keeps `m` (by name) as the list and its watch say, calling `changed` after each change. */
export function intoMap<T extends { metadata: { name?: string } }>(
  m: Map<string, T>,
  changed: () => void,
): Follower<T> {
  return {
    onList(items: T[]) {
      m.clear();
      for (const i of items) m.set(i.metadata.name ?? '', i);
      changed();
    },
    onEvent(type: string, obj: T) {
      if (type === 'DELETED') m.delete(obj.metadata.name ?? '');
      else m.set(obj.metadata.name ?? '', obj);
      changed();
    },
  };
}

/**
 * Prints `first`; with -w, follows what `sources` watch and prints `draw()` again (after a blank
 * line) whenever it changed, until Ctrl-C or --timeout.
 */
export async function printFollowing(
  s: Session,
  o: { watch?: boolean; timeoutMs?: number },
  first: string,
  draw: () => string | undefined,
  sources: (changed: () => void, signal: AbortSignal) => Array<Promise<void>>,
): Promise<number> {
  let last = first;
  s.io.stdout.write(`${last}\n`);
  if (!o.watch) return 0;
  let pending: NodeJS.Timeout | undefined;
  const redraw = (): void => {
    pending = undefined;
    const tree = draw();
    if (tree === undefined || tree === last) return;
    last = tree;
    s.io.stdout.write(`\n${tree}\n`);
  };
  const schedule = (): void => {
    if (!pending) pending = setTimeout(redraw, 50);
  };
  const stop = new AbortController();
  const signal = AbortSignal.any([stop.signal, ...(s.signal ? [s.signal] : [])]);
  const timer = o.timeoutMs && o.timeoutMs > 0 ? setTimeout(() => stop.abort(), o.timeoutMs) : undefined;
  try {
    await Promise.all(sources(schedule, signal));
  } finally {
    stop.abort();
    if (timer) clearTimeout(timer);
    if (pending) {
      clearTimeout(pending);
      redraw();
    }
  }
  return 0;
}
