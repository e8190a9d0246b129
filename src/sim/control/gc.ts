// The simulated garbage collector (upstream pkg/controller/garbagecollector) and namespace
// controller. Dependents point at owners by uid:
// * background: an object whose owners are all gone is deleted (recursively, as its own
//   dependents then lose their owner);
// * foreground: an owner being deleted with the `foregroundDeletion` finalizer has its dependents
//   deleted, waits for those with blockOwnerDeletion, then loses the finalizer;
// * orphan: an owner being deleted with the `orphan` finalizer has its reference removed from its
//   dependents, then loses the finalizer.
// (Namespace deletion, which deletes what a namespace holds, is the Store's own job.)

import { ApiError, type KubeObject, type ResourceRef } from '../types.ts';
import type { GcNode } from './cache.ts';
import type { ControlContext } from './context.ts';

const ACTOR = 'sim/garbage-collector';
export const FOREGROUND = 'foregroundDeletion';
export const ORPHAN = 'orphan';

export type OwnerState = 'solid' | 'dangling' | 'waiting';

/** An owner is dangling when it no longer exists, waiting when it is being deleted in the foreground. */
export function ownerState(owner: GcNode | undefined): OwnerState {
  if (!owner) return 'dangling';
  if (owner.deleting && owner.finalizers.includes(FOREGROUND)) return 'waiting';
  return 'solid';
}

export type DependentAction =
  | { kind: 'none' }
  | { kind: 'removeOwners'; uids: string[] }
  | { kind: 'delete'; policy: 'Background' | 'Foreground' | 'Orphan' };

/**
 * What to do with a dependent given its owners' states (upstream attemptToDeleteItem): nothing
 * while one owner is solid and none is gone; drop the references to gone or deleting owners while
 * another owner holds it; otherwise delete it, in the foreground when an owner waits for it and it
 * has dependents of its own.
 */
export function dependentAction(dep: GcNode, owners: Map<string, OwnerState>, hasDependents: boolean): DependentAction {
  if (dep.owners.length === 0) return { kind: 'none' };
  if (dep.deleting && !dep.finalizers.includes(FOREGROUND) && !dep.finalizers.includes(ORPHAN)) return { kind: 'none' };
  const solid = dep.owners.filter((o) => owners.get(o.uid) === 'solid');
  const notSolid = dep.owners.filter((o) => owners.get(o.uid) !== 'solid');
  if (solid.length > 0) {
    return notSolid.length === 0 ? { kind: 'none' } : { kind: 'removeOwners', uids: notSolid.map((o) => o.uid) };
  }
  if (dep.deleting) return { kind: 'none' };
  const waiting = dep.owners.some((o) => owners.get(o.uid) === 'waiting');
  if (waiting && hasDependents) return { kind: 'delete', policy: 'Foreground' };
  if (dep.finalizers.includes(ORPHAN)) return { kind: 'delete', policy: 'Orphan' };
  if (dep.finalizers.includes(FOREGROUND)) return { kind: 'delete', policy: 'Foreground' };
  return { kind: 'delete', policy: 'Background' };
}

function ignoreNotFound(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
  }
}

/** Re-evaluates one object that has owners. */
export function syncDependent(ctx: ControlContext, uid: string): void {
  const dep = ctx.cache.gcNodes.get(uid);
  if (!dep || dep.owners.length === 0) return;
  const states = new Map<string, OwnerState>();
  for (const o of dep.owners) states.set(o.uid, ownerState(ctx.cache.gcNodes.get(o.uid)));
  const action = dependentAction(dep, states, (ctx.cache.dependents.get(uid)?.size ?? 0) > 0);
  if (action.kind === 'removeOwners') {
    ignoreNotFound(() =>
      ctx.store.mutate(
        dep.ref,
        dep.namespace,
        dep.name,
        (o) => {
          if (o.metadata.uid !== uid) return undefined;
          const refs = o.metadata.ownerReferences ?? [];
          const kept = refs.filter((r) => !action.uids.includes(r.uid));
          if (kept.length === refs.length) return undefined;
          o.metadata.ownerReferences = kept;
          return o;
        },
        { actor: ACTOR },
      ),
    );
  } else if (action.kind === 'delete') {
    ignoreNotFound(() =>
      ctx.store.delete(dep.ref, dep.namespace, dep.name, {
        propagationPolicy: action.policy,
        preconditions: { uid },
        actor: ACTOR,
      }),
    );
  }
}

function removeFinalizer(ctx: ControlContext, node: GcNode, finalizer: string): void {
  ignoreNotFound(() =>
    ctx.store.mutate(
      node.ref,
      node.namespace,
      node.name,
      (o) => {
        if (o.metadata.uid !== node.uid) return undefined;
        const f = o.metadata.finalizers ?? [];
        if (!f.includes(finalizer)) return undefined;
        o.metadata.finalizers = f.filter((x) => x !== finalizer);
        return o;
      },
      { actor: ACTOR },
    ),
  );
}

/** Works on an owner being deleted with the orphan or foregroundDeletion finalizer. */
export function syncDeletingOwner(ctx: ControlContext, uid: string): void {
  const owner = ctx.cache.gcNodes.get(uid);
  if (!owner?.deleting) return;
  const dependents = [...(ctx.cache.dependents.get(uid) ?? [])]
    .map((d) => ctx.cache.gcNodes.get(d))
    .filter((d): d is GcNode => !!d);
  if (owner.finalizers.includes(ORPHAN)) {
    for (const d of dependents) {
      ignoreNotFound(() =>
        ctx.store.mutate(
          d.ref,
          d.namespace,
          d.name,
          (o) => {
            const refs = o.metadata.ownerReferences ?? [];
            if (!refs.some((r) => r.uid === uid)) return undefined;
            o.metadata.ownerReferences = refs.filter((r) => r.uid !== uid);
            return o;
          },
          { actor: ACTOR },
        ),
      );
    }
    removeFinalizer(ctx, owner, ORPHAN);
    return;
  }
  if (owner.finalizers.includes(FOREGROUND)) {
    for (const d of dependents) syncDependent(ctx, d.uid);
    const blocking = dependents.filter((d) => d.owners.some((o) => o.uid === uid && o.blockOwnerDeletion === true));
    if (blocking.length === 0) removeFinalizer(ctx, owner, FOREGROUND);
  }
}

/** The resource of a CRD, at its storage version (or its first served one). */
export function crdRef(crd: KubeObject): ResourceRef | undefined {
  const spec = (crd.spec as Record<string, any> | undefined) ?? {};
  const versions: Array<{ name: string; served?: boolean; storage?: boolean }> = Array.isArray(spec.versions)
    ? spec.versions
    : [];
  const v = versions.find((x) => x.storage) ?? versions.find((x) => x.served) ?? versions[0];
  if (!v || !spec.group || !spec.names?.plural) return undefined;
  return { group: spec.group, version: v.name, resource: spec.names.plural };
}
