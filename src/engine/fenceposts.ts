// maxSurge / maxUnavailable resolved against spec.replicas: surge rounds up, unavailable rounds
// down, and both at 0 would deadlock a rollout, so unavailable becomes 1. MinimumHealth has them
// too, from its envelope (minimumhealth.ts): surge = cap − n, unavailable = n − m; the Available
// condition, proportional scaling and the max-replicas annotation read them here.

import type { Deployment, IntOrString } from '../api/types.ts';
import { scaledValue } from '../api/intstr.ts';
import { deploymentReplicas } from './replicasets.ts';
import { isMinimumHealth, minimumHealthEnvelope, minimumHealthSettings } from './minimumhealth.ts';

export interface Fenceposts {
  surge: number;
  unavailable: number;
}

/** ResolveFenceposts; throws on an unparseable value (validation rejects those first). */
export function resolveFenceposts(maxSurge: IntOrString | undefined, maxUnavailable: IntOrString | undefined, desired: number): Fenceposts {
  const surge = scaledValue(maxSurge ?? 0, desired, true);
  let unavailable = scaledValue(maxUnavailable ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export function isRollingUpdate(d: Deployment): boolean {
  return d.spec.strategy?.type === 'RollingUpdate';
}

/** Strategies that replace pods gradually within a surge and an unavailable budget. */
export function isGradual(d: Deployment): boolean {
  return isRollingUpdate(d) || isMinimumHealth(d);
}

/** MinimumHealth's envelope as fenceposts. */
export function minimumHealthFenceposts(d: Deployment): Fenceposts {
  const replicas = deploymentReplicas(d);
  const { maxTotal, minAvailable } = minimumHealthEnvelope(minimumHealthSettings(d));
  return { surge: maxTotal - replicas, unavailable: replicas - minAvailable };
}

interface CacheEntry {
  replicas: number;
  maxSurge: IntOrString | undefined;
  maxUnavailable: IntOrString | undefined;
  result: Fenceposts;
}

// A pass asks for the fenceposts of one spec many times: remember them per spec object, checked
// against the inputs so that a spec changed in place is never answered from the cache.
const cache = new WeakMap<object, CacheEntry>();

function fenceposts(d: Deployment): Fenceposts {
  if (isMinimumHealth(d)) return minimumHealthFenceposts(d);
  const ru = d.spec.strategy?.rollingUpdate;
  const replicas = deploymentReplicas(d);
  const hit = cache.get(d.spec);
  if (hit && hit.replicas === replicas && hit.maxSurge === ru?.maxSurge && hit.maxUnavailable === ru?.maxUnavailable) return hit.result;
  let result: Fenceposts;
  try {
    result = resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, replicas);
  } catch {
    result = { surge: 0, unavailable: 0 }; // caught by validation; upstream ignores the error here
  }
  cache.set(d.spec, { replicas, maxSurge: ru?.maxSurge, maxUnavailable: ru?.maxUnavailable, result });
  return result;
}

/** MaxSurge(d): 0 unless RollingUpdate or MinimumHealth. */
export function maxSurge(d: Deployment): number {
  if (!isGradual(d)) return 0;
  return fenceposts(d).surge;
}

/** MaxUnavailable(d): 0 unless RollingUpdate or MinimumHealth, or with 0 replicas; capped at replicas. */
export function maxUnavailable(d: Deployment): number {
  const replicas = deploymentReplicas(d);
  if (!isGradual(d) || replicas === 0) return 0;
  return Math.min(fenceposts(d).unavailable, replicas);
}

/** MinAvailable(d): 0 unless RollingUpdate or MinimumHealth. */
export function minAvailable(d: Deployment): number {
  if (!isGradual(d)) return 0;
  return deploymentReplicas(d) - maxUnavailable(d);
}
