// What a controller watches and which keys each change wakes, declared in its registration and
// wired to its queue by the controller (controller-runtime's builder For / Owns / Watches, with an
// update predicate). A source is a shared informer from mgr.informer(), or anything delivering the
// same add / update / delete events (the freeze switch). docs/architecture.md#adding-a-controller

import type { InformerHandlers, ObjectWithMeta } from './informer.ts';

export type ChangeType = 'add' | 'update' | 'delete';

/** One change of a watched source, as a watch's `keys` sees it. */
export interface Change<T> {
  type: ChangeType;
  /** The object as it now is; on delete, as it was last seen. */
  obj: T;
  /** On update, the object before (the same version on a resync). */
  old?: T;
}

/** Where a watch's changes come from: an Informer, or anything with its handlers. */
export interface EventSource<T> {
  on(handlers: InformerHandlers<T>): void;
}

/** A value reconcilers read whose changes are watched like an informer's (the freeze switch). */
export interface WatchedValue<V> extends EventSource<unknown> {
  current(): V;
}

export interface WatchSpec<T> {
  /** The changes that wake anything (default: all three). */
  on?: readonly ChangeType[];
  /** An update wakes only when this holds (default: always, resyncs included). */
  changed?(old: T, obj: T): boolean;
  /** The keys a change wakes, in the order they are queued. */
  keys(change: Change<T>): Iterable<string>;
}

/** A watch ready to be wired to a queue (made by watch(); the controller wires it). */
export interface Watch {
  wire(enqueue: (key: string) => void): void;
}

/** Watches `source` (whose element type types `spec`) with `spec`. */
export function watch<T>(source: EventSource<T>, spec: WatchSpec<NoInfer<T>>): Watch {
  return {
    wire(enqueue) {
      const on = new Set<ChangeType>(spec.on ?? ['add', 'update', 'delete']);
      const wake = (change: Change<T>): void => {
        for (const key of spec.keys(change)) enqueue(key);
      };
      source.on({
        ...(on.has('add') ? { add: (obj: T) => wake({ type: 'add', obj }) } : {}),
        ...(on.has('update')
          ? {
              update: (old: T, obj: T) => {
                if (spec.changed?.(old, obj) ?? true) wake({ type: 'update', obj, old });
              },
            }
          : {}),
        ...(on.has('delete') ? { delete: (obj: T) => wake({ type: 'delete', obj }) } : {}),
      });
    },
  };
}

/** controller-runtime's ResourceVersionChangedPredicate: a stored change, not a resync. */
export function resourceVersionChanged(old: ObjectWithMeta, obj: ObjectWithMeta): boolean {
  return old.metadata.resourceVersion !== obj.metadata.resourceVersion;
}
