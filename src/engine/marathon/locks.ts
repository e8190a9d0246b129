// One deployment plan per app (Marathon's deployment lock): the admission rule that refuses a spec
// change to an app of an active deployment plan unless it is forced, and what reconciling a forced
// app does (the plan it left cancelled, its members stamped). Decided from the Deployments as
// stored, with no state of its own: docs/semantics/marathon.md#the-lock-and-force-in-pacer.

import { isDeepStrictEqual } from 'node:util';
import type { Deployment } from '../../api/types.ts';
import { dependencyKeys, deploymentKey } from '../../api/dependencies.ts';
import { activePlans, appId, inMotion, planOfApp } from './deploymentplans.ts';
import { CANCELLED_PLAN_ANNOTATION, FORCE_ANNOTATION } from './dependencies.ts';
import { consumesCancelStamp } from './cancel.ts';
import type { DeploymentPlan } from './deploymentplans.ts';
import type { PatchAction } from '../types.ts';

export { CANCELLED_PLAN_ANNOTATION, FORCE_ANNOTATION };

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface LockRequest {
  operation: AdmissionOperation;
  /** The object as it would be stored (UPDATE, CREATE). */
  object?: Deployment;
  /** The object as stored now (UPDATE, DELETE). */
  oldObject?: Deployment;
  /** Every pacer.dev Deployment known (the controller's cache). */
  deployments: readonly Deployment[];
  now: number;
}

export type LockVerdict =
  | { allowed: true }
  | { allowed: false; code: 409; reason: 'Conflict'; message: string; deployments: Array<{ id: string }> };

/** Marathon's 409 message, with Pacer's override and the blocking deployment plans' ids. */
export function lockedMessage(ids: readonly string[]): string {
  const where = ids.map((id) => `'/v2/deployments/${id}'`).join(', ');
  return `App is locked by one or more deployments. Override with the annotation ${FORCE_ANNOTATION}: "true". View details at ${where}.`;
}

export function isForced(d: Deployment | undefined): boolean {
  return d?.metadata?.annotations?.[FORCE_ANNOTATION] === 'true';
}

/** Does `d` depend on an app, or does an app among `all` depend on it? */
export function hasDependencyRelations(d: Deployment, all: readonly Deployment[]): boolean {
  if (dependencyKeys(d).length > 0) return true;
  const key = deploymentKey(d.metadata.namespace, d.metadata.name);
  return all.some(
    (x) => deploymentKey(x.metadata.namespace, x.metadata.name) !== key && dependencyKeys(x).includes(key),
  );
}

/** `all` with `d` in place of the stored Deployment of the same key (added when absent). */
function replacing(all: readonly Deployment[], d: Deployment): Deployment[] {
  const key = deploymentKey(d.metadata.namespace, d.metadata.name);
  const out = all.filter((x) => deploymentKey(x.metadata.namespace, x.metadata.name) !== key);
  out.push(d);
  return out;
}

/** The lock rule (docs/semantics/marathon.md#the-lock-and-force-in-pacer). */
export function checkLock(r: LockRequest): LockVerdict {
  if (r.operation !== 'UPDATE' || !r.object || !r.oldObject) return { allowed: true };
  if (isDeepStrictEqual(r.object.spec ?? {}, r.oldObject.spec ?? {})) return { allowed: true };
  if (isForced(r.object)) return { allowed: true };
  if (consumesCancelStamp(r.oldObject, r.object)) return { allowed: true };
  const stored = replacing(r.deployments, r.oldObject);
  if (!hasDependencyRelations(r.oldObject, stored) && !hasDependencyRelations(r.object, stored))
    return { allowed: true };
  const app = appId(r.oldObject.metadata.namespace, r.oldObject.metadata.name);
  const blocking = activePlans(stored, r.now).filter((x) => x.affectedApps.includes(app));
  if (blocking.length === 0) return { allowed: true };
  const ids = blocking.map((x) => x.id);
  return {
    allowed: false,
    code: 409,
    reason: 'Conflict',
    message: lockedMessage(ids),
    deployments: ids.map((id) => ({ id })),
  };
}

/** `d` as the forced change found it: the generation before that change, or the one observed when that is older (see below). */
function beforeChange(d: Deployment): Deployment {
  const observed = d.status?.observedGeneration;
  const generation = d.metadata.generation ?? 0;
  if (observed === undefined || observed >= generation) return d;
  // The version the forced change replaced had the generation before it: when the controller had
  // not observed that one either, it was still in motion, as the webhook judged it when it named
  // the deployment plan in its 409.
  return { ...d, metadata: { ...d.metadata, generation: Math.max(observed, generation - 1) } };
}

export interface ForcePlan {
  /** The deployment plan cancelled (undefined: X was in none, nothing to cancel). */
  cancelled?: DeploymentPlan;
  /** Keys ("namespace/name") of the other members to stamp with the cancelled id (not stamped yet). */
  stamp: string[];
  /** Remove the force annotation from X (always, once acted on); X is stamped too when `cancelled` is set. */
  consume: boolean;
}

/**
 * What reconciling a forced Deployment `x` does (docs/semantics/marathon.md#the-lock-and-force-in-pacer):
 * nothing when `x` is not forced; else the members of the deployment plan it belonged to before its change to
 * stamp, and the annotation to consume.
 */
export function planForce(x: Deployment, all: readonly Deployment[], now: number): ForcePlan {
  if (!isForced(x)) return { stamp: [], consume: false };
  const before = beforeChange(x);
  const xKey = deploymentKey(x.metadata.namespace, x.metadata.name);
  const stored = replacing(all, before);
  const plan = inMotion(before)
    ? planOfApp(activePlans(stored, now), appId(x.metadata.namespace, x.metadata.name))
    : undefined;
  if (!plan) return { stamp: [], consume: true };
  const byApp = new Map(stored.map((m) => [appId(m.metadata.namespace, m.metadata.name), m]));
  const stamp: string[] = [];
  for (const app of plan.affectedApps) {
    const m = byApp.get(app);
    if (!m) continue;
    const key = deploymentKey(m.metadata.namespace, m.metadata.name);
    if (key === xKey || m.metadata.deletionTimestamp) continue;
    if (m.metadata.annotations?.[CANCELLED_PLAN_ANNOTATION] === plan.id) continue;
    stamp.push(key);
  }
  return { cancelled: plan, stamp, consume: true };
}

/** The id of the cancelled deployment plan that `d` was stamped with, if any. */
export function cancelledPlan(d: Deployment): string | undefined {
  const v = d.metadata.annotations?.[CANCELLED_PLAN_ANNOTATION];
  return v === undefined || v === '' ? undefined : v;
}

/** The stamp goes once the app is complete (it converged to its own spec). */
export function shouldClearCancelled(d: Deployment): boolean {
  return cancelledPlan(d) !== undefined && !d.metadata.deletionTimestamp && !inMotion(d);
}

/**
 * The writes of force and of its stamps on `x` (docs/semantics/marathon.md#the-lock-and-force-in-pacer), as the
 * engine's actions: the other members stamped (each with a DeploymentCancelled Event on `x`), then the force
 * annotation removed from `x` under the resourceVersion read (a newer change is never mistaken for
 * consumed) with `x` stamped too; or, on a stamped `x` now complete, its stamp removed. Empty when
 * there is nothing to do.
 */
export function forceActions(x: Deployment, all: readonly Deployment[], now: number): PatchAction[] {
  const namespace = x.metadata.namespace ?? 'default';
  const name = x.metadata.name ?? '';
  const plan = planForce(x, all, now);
  if (plan.consume) {
    const id = plan.cancelled?.id;
    const stamps: PatchAction[] = plan.stamp.map((key) => ({
      verb: 'patch',
      kind: 'Deployment',
      namespace: key.slice(0, key.indexOf('/')),
      name: key.slice(key.indexOf('/') + 1),
      annotations: { [CANCELLED_PLAN_ANNOTATION]: id! },
      event: {
        type: 'Normal',
        reason: 'DeploymentCancelled',
        message: `Forced change: deployment ${id} cancelled, ${key} no longer waits on its members`,
      },
    }));
    return [
      ...stamps,
      {
        verb: 'patch',
        kind: 'Deployment',
        namespace,
        name,
        annotations: { [FORCE_ANNOTATION]: null, ...(id ? { [CANCELLED_PLAN_ANNOTATION]: id } : {}) },
        ...(x.metadata.resourceVersion !== undefined ? { resourceVersion: x.metadata.resourceVersion } : {}),
      },
    ];
  }
  if (shouldClearCancelled(x))
    return [{ verb: 'patch', kind: 'Deployment', namespace, name, annotations: { [CANCELLED_PLAN_ANNOTATION]: null } }];
  return [];
}
