// Cancelling a deployment plan (Marathon's DELETE /v2/deployments/<id>, and with ?force=true its
// stop), carried out by the controller through the engine: the request on one app, its fan-out to
// the plan's other apps, and each app's own rollback or pause. Every step is kept in annotations
// only, so a pass restarted at any moment resumes it: docs/semantics/marathon.md#cancelling-in-pacer.

import type { Deployment, ReplicaSet } from '../../api/types.ts';
import { deploymentKey } from '../../api/dependencies.ts';
import { revisionOf, withAnnotations } from '../kubernetes/annotations.ts';
import { controllerOf } from '../../api/owners.ts';
import { CANCELLED_PLAN_ANNOTATION, FORCE_ANNOTATION, dependencyLevels } from './dependencies.ts';
import { POD_TEMPLATE_HASH_LABEL, templateHashOf } from '../kubernetes/hash.ts';
import { activePlans, appId, planById } from './deploymentplans.ts';
import type { DeploymentPlan } from './deploymentplans.ts';
import {
  ROLLBACK_MESSAGES,
  findRollbackTarget,
  rollbackAnnotations,
  templateWithoutHash,
} from '../kubernetes/rollback.ts';
import { equalIgnoreHash } from '../kubernetes/template.ts';
import type { Action, EventRecord, PatchAction, Snapshot, UpdateAction } from '../types.ts';

export const CANCEL_REQUEST_ANNOTATION = 'pacer.dev/cancel-request';
export const CANCEL_ANNOTATION = 'pacer.dev/cancel';

export type CancelMode = 'rollback' | 'stop';

export interface CancelRequest {
  mode: CancelMode;
  /** The deployment plan's id. */
  id: string;
}

export function formatCancel(r: CancelRequest): string {
  return `${r.mode}:${r.id}`;
}

/** `<mode>:<id>` read back; undefined when absent, 'invalid' when it is not that shape. */
export function parseCancel(v: string | undefined): CancelRequest | 'invalid' | undefined {
  if (v === undefined) return undefined;
  const m = /^(rollback|stop):([0-9a-f-]{1,64})$/.exec(v);
  return m ? { mode: m[1] as CancelMode, id: m[2] } : 'invalid';
}

export const CANCEL_REASON = {
  cancelling: 'DeploymentPlanCancelling',
  cancelled: 'DeploymentPlanCancelled',
  failed: 'DeploymentPlanCancelFailed',
} as const;

/** The prefix of every per-app message: the plugin finds an app's outcome by it. */
export const cancelMessagePrefix = (id: string): string => `Deployment plan ${id}: `;

/** What happened to one app, as the plugin prints it after `deployment.pacer.dev/<name> `. */
export const CANCEL_OUTCOME = {
  paused: 'paused',
  alreadyPaused: 'already paused',
  deleting: (what: 'paused' | 'rolled back') => `is being deleted: not ${what}`,
  rolledBack: (revision: number) => `rolled back to revision ${revision}`,
  skipped: (revision: number) => `skipped rollback (current template already matches revision ${revision})`,
  cannotRollBack: (why: string) => `cannot roll back: ${why}`,
} as const;

export const CANCEL_EVENTS = {
  cancelling: (r: CancelRequest, apps: readonly string[]): EventRecord => ({
    type: 'Normal',
    reason: CANCEL_REASON.cancelling,
    message: `${cancelMessagePrefix(r.id)}cancelling (${r.mode}) ${apps.join(', ')}`,
  }),
  done: (id: string, outcome: string): EventRecord => ({
    type: 'Normal',
    reason: CANCEL_REASON.cancelled,
    message: cancelMessagePrefix(id) + outcome,
  }),
  failed: (id: string, why: string): EventRecord => ({
    type: 'Warning',
    reason: CANCEL_REASON.failed,
    message: cancelMessagePrefix(id) + why,
  }),
  invalid: (annotation: string, value: string): EventRecord => ({
    type: 'Warning',
    reason: CANCEL_REASON.failed,
    message: `invalid ${annotation} "${value}": want "rollback:<id>" or "stop:<id>" (the ID from kubectl pacer deployments); removed`,
  }),
} as const;

/** How a refused request's message begins (the plugin tells it from one app's failure by it). */
export const CANCEL_REFUSED = 'not cancelled: ';

export const CANCEL_FAILURES = {
  gone: `${CANCEL_REFUSED}no such active deployment plan (it finished or changed since the request)`,
  notMember: (app: string) => `${CANCEL_REFUSED}${app} is not one of its apps (the request must be on one of them)`,
} as const;

const keyOf = (d: Deployment): string => deploymentKey(d.metadata.namespace, d.metadata.name);
const appOf = (d: Deployment): string => appId(d.metadata.namespace, d.metadata.name);

/**
 * The live apps of `plan`, dependents first: highest dependency level first (apps on a cycle, which
 * have no level, before all), then by namespace/name. Apps being deleted are left out.
 */
export function cancelOrder(all: readonly Deployment[], plan: DeploymentPlan): Deployment[] {
  const live = all.filter((d) => !d.metadata.deletionTimestamp);
  const { levels } = dependencyLevels(live);
  const level = (d: Deployment) => levels.get(keyOf(d)) ?? Number.POSITIVE_INFINITY;
  return live
    .filter((d) => plan.affectedApps.includes(appOf(d)))
    .sort((a, b) => level(b) - level(a) || keyOf(a).localeCompare(keyOf(b)));
}

export function patch(
  d: Deployment,
  annotations: Record<string, string | null>,
  guarded = false,
  event?: EventRecord,
): PatchAction {
  return {
    verb: 'patch',
    kind: 'Deployment',
    namespace: d.metadata.namespace ?? 'default',
    name: d.metadata.name ?? '',
    annotations,
    ...(guarded && d.metadata.resourceVersion !== undefined ? { resourceVersion: d.metadata.resourceVersion } : {}),
    ...(event ? { event } : {}),
  };
}

/**
 * The carrier's pass (the fan-out, docs/semantics/marathon.md#cancelling-in-pacer). `all` holds every
 * Deployment known, `d` included.
 */
export function fanOutCancel(d: Deployment, request: CancelRequest, all: readonly Deployment[], now: number): Action[] {
  const value = formatCancel(request);
  const plan = planById(activePlans(all, now), request.id);
  const members = plan ? cancelOrder(all, plan) : [];
  if (!plan?.affectedApps.includes(appOf(d))) {
    // Take back what an earlier, interrupted pass of this request stamped; then drop the request.
    const undo = all
      .filter((m) => keyOf(m) !== keyOf(d) && m.metadata.annotations?.[CANCEL_ANNOTATION] === value)
      .map((m) => patch(m, { [CANCEL_ANNOTATION]: null }));
    const why = plan ? CANCEL_FAILURES.notMember(appOf(d)) : CANCEL_FAILURES.gone;
    return [...undo, patch(d, { [CANCEL_REQUEST_ANNOTATION]: null }, true, CANCEL_EVENTS.failed(request.id, why))];
  }
  const stamps = members
    .filter((m) => keyOf(m) !== keyOf(d) && m.metadata.annotations?.[CANCEL_ANNOTATION] !== value)
    .map((m) => patch(m, { [CANCEL_ANNOTATION]: value }));
  // A carrier being deleted (it was live when the request was written) only loses its request.
  const own: Record<string, string> = d.metadata.deletionTimestamp ? {} : { [CANCEL_ANNOTATION]: value };
  const last = patch(
    d,
    { [CANCEL_REQUEST_ANNOTATION]: null, ...own },
    true,
    CANCEL_EVENTS.cancelling(request, members.map(appOf)),
  );
  return [...stamps, last];
}

/** Does a Deployment other than `d` still carry the request `value` (the fan-out is not over)? */
export function fanOutPending(d: Deployment, value: string, all: readonly Deployment[]): boolean {
  return all.some((x) => keyOf(x) !== keyOf(d) && x.metadata.annotations?.[CANCEL_REQUEST_ANNOTATION] === value);
}

/**
 * Is `target` what `d` runs now? Template equality (kubectl's test), or the target's
 * pod-template-hash is the current template's: an API server fills pod defaults into a
 * ReplicaSet's template but not into a custom resource's, so equality alone misses it.
 */
export function runsTemplateOf(d: Deployment, target: ReplicaSet): boolean {
  if (equalIgnoreHash(d.spec.template, target.spec.template)) return true;
  const hash = target.metadata.labels?.[POD_TEMPLATE_HASH_LABEL];
  return hash !== undefined && hash === templateHashOf(d.spec.template, d.status?.collisionCount);
}

/**
 * The revision `d` had before (docs/semantics/marathon.md#cancelling-in-pacer, step 3): the latest
 * unless the current template is it, then the previous one. Throws upstream's words when there is none.
 */
export function revisionBefore(d: Deployment, owned: readonly ReplicaSet[]): ReplicaSet {
  const name = d.metadata.name ?? '';
  const latest = Math.max(-1, ...owned.map((rs) => revisionOf(rs) ?? -1));
  if (latest <= 0) return findRollbackTarget(name, owned, 0); // throws: no history
  const newest = findRollbackTarget(name, owned, latest);
  return runsTemplateOf(d, newest) ? findRollbackTarget(name, owned, 0) : newest;
}

/**
 * A stamped app's own write (docs/semantics/marathon.md#cancelling-in-pacer, step 3); `snapshot.deployment` is
 * the app.
 */
export function carryOutCancel(snapshot: Snapshot, stamp: CancelRequest): Action {
  const d = snapshot.deployment;
  const remove = { [CANCEL_ANNOTATION]: null };
  const done = (outcome: string) => CANCEL_EVENTS.done(stamp.id, outcome);
  if (stamp.mode === 'stop') {
    if (d.metadata.deletionTimestamp) return patch(d, remove, true, done(CANCEL_OUTCOME.deleting('paused')));
    if (d.spec.paused === true) return patch(d, remove, true, done(CANCEL_OUTCOME.alreadyPaused));
    return update(d, { ...withAnnotations(d, remove), spec: { ...d.spec, paused: true } }, done(CANCEL_OUTCOME.paused));
  }
  if (d.metadata.deletionTimestamp) return patch(d, remove, true, done(CANCEL_OUTCOME.deleting('rolled back')));
  const failed = (why: string) =>
    patch(d, remove, true, CANCEL_EVENTS.failed(stamp.id, CANCEL_OUTCOME.cannotRollBack(why)));
  if (d.spec.paused === true) return failed(ROLLBACK_MESSAGES.paused);
  const owned = snapshot.replicaSets.filter((rs) => controllerOf(rs)?.uid === d.metadata.uid);
  let target: ReplicaSet;
  try {
    target = revisionBefore(d, owned);
  } catch (err) {
    return failed((err as Error).message);
  }
  const revision = revisionOf(target) ?? 0;
  if (runsTemplateOf(d, target)) return patch(d, remove, true, done(CANCEL_OUTCOME.skipped(revision)));
  const annotations = rollbackAnnotations(d.metadata.annotations, target.metadata.annotations);
  // Pacer's own requests are the app's, not the old revision's (a ReplicaSet may carry stale copies).
  for (const k of [CANCEL_ANNOTATION, CANCEL_REQUEST_ANNOTATION, FORCE_ANNOTATION]) delete annotations[k];
  annotations[CANCELLED_PLAN_ANNOTATION] = stamp.id;
  return update(
    d,
    {
      ...d,
      metadata: { ...d.metadata, annotations },
      spec: { ...d.spec, template: templateWithoutHash(target.spec.template) },
    },
    done(CANCEL_OUTCOME.rolledBack(revision)),
  );
}

/**
 * The admission check of the two annotations (the webhook calls it on every UPDATE): a value newly
 * written that is not `<mode>:<id>` is refused with a field error in the API server's words; one
 * already stored passes (the controller removes it with a Warning), so it never blocks other changes.
 */
export function invalidCancelAnnotation(oldObject: Deployment | undefined, object: Deployment): string | undefined {
  for (const key of [CANCEL_REQUEST_ANNOTATION, CANCEL_ANNOTATION]) {
    const v = object.metadata.annotations?.[key];
    if (v === undefined || v === oldObject?.metadata.annotations?.[key] || parseCancel(v) !== 'invalid') continue;
    return `metadata.annotations[${key}]: Invalid value: ${JSON.stringify(v)}: must be "rollback:<id>" or "stop:<id>", with the ID from kubectl pacer deployments`;
  }
  return undefined;
}

/**
 * Is this UPDATE a stamped app carrying out its cancel (docs/semantics/marathon.md#cancelling-in-pacer)? The
 * stored object has a stamp and the new one has not. The lock admits it whatever it changes in the spec: it is
 * the cancel of the plan that holds the lock.
 */
export function consumesCancelStamp(oldObject: Deployment, object: Deployment): boolean {
  return (
    oldObject.metadata.annotations?.[CANCEL_ANNOTATION] !== undefined &&
    object.metadata.annotations?.[CANCEL_ANNOTATION] === undefined
  );
}

function update(d: Deployment, object: Deployment, event: EventRecord): UpdateAction {
  return { verb: 'update', kind: 'Deployment', name: d.metadata.name ?? '', object, event };
}
