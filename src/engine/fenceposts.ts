// MaxSurge, MaxUnavailable and MinAvailable of a Deployment, from its strategy's fenceposts
// (strategies/): RollingUpdate resolves maxSurge / maxUnavailable against spec.replicas (surge
// rounds up, unavailable rounds down, both 0 → unavailable 1); MinimumHealth derives them from its
// envelope (surge = cap − n, unavailable = n − m); Recreate has none, so both are 0. The Available
// condition, proportional scaling and the max-replicas annotation read them here.

import type { Deployment } from '../api/types.ts';
import { deploymentReplicas } from './replicasets.ts';
import { strategyOf } from './strategies/index.ts';
import type { Fenceposts } from './strategies/types.ts';

export type { Fenceposts } from './strategies/types.ts';
export { resolveFenceposts } from './strategies/rollingupdate.ts';

function fenceposts(d: Deployment): Fenceposts | undefined {
  return strategyOf(d)?.fenceposts?.(d);
}

/** Strategies that replace pods gradually within a surge and an unavailable budget (those with fenceposts). */
export function isGradual(d: Deployment): boolean {
  return strategyOf(d)?.fenceposts !== undefined;
}

/** MaxSurge(d): 0 for a strategy without fenceposts. */
export function maxSurge(d: Deployment): number {
  return fenceposts(d)?.surge ?? 0;
}

/** MaxUnavailable(d): 0 for a strategy without fenceposts, or with 0 replicas; capped at replicas. */
export function maxUnavailable(d: Deployment): number {
  const replicas = deploymentReplicas(d);
  if (replicas === 0) return 0;
  const f = fenceposts(d);
  return f ? Math.min(f.unavailable, replicas) : 0;
}

/** MinAvailable(d): 0 for a strategy without fenceposts. */
export function minAvailable(d: Deployment): number {
  if (!isGradual(d)) return 0;
  return deploymentReplicas(d) - maxUnavailable(d);
}
