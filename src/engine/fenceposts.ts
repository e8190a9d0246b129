// A Deployment's limits outside a reconcile pass, through the strategy registry: MaxSurge,
// MaxUnavailable and MinAvailable for the node roller's budgets (noderoll/health.ts), the chaos
// and property checks, and the pass's own start (decide.ts). Inside a pass the rule files read the
// same numbers from pass.limits (limits.ts), resolved once.

import type { Deployment, ReplicaSet } from '../api/types.ts';
import type { PlanHold } from './dcos/custom.ts';
import { resolveLimits, unsupportedType } from './limits.ts';
import type { PassLimits, RolloutBudget } from './limits.ts';
import { deploymentReplicas } from './kubernetes/replicasets.ts';
import { strategyOf } from './strategies/index.ts';

export type { Fenceposts } from './limits.ts';
export { resolveFenceposts } from './strategies/rollingupdate.ts';

/** The limits of a pass of `d` (its strategy's, and the gates'; `hold` when a custom plan holds it). */
export function limitsOf(d: Deployment, hold?: PlanHold): PassLimits {
  return resolveLimits(strategyOf(d), d, hold);
}

/** Strategies that replace pods gradually within a surge and an unavailable budget (those with fenceposts). */
export function isGradual(d: Deployment): boolean {
  return strategyOf(d)?.fenceposts !== undefined;
}

/** MaxSurge(d): 0 for a strategy without fenceposts. */
export function maxSurge(d: Deployment): number {
  return limitsOf(d).maxSurge;
}

/** MaxUnavailable(d): 0 for a strategy without fenceposts, or with 0 replicas; capped at replicas. */
export function maxUnavailable(d: Deployment): number {
  return limitsOf(d).maxUnavailable;
}

/** MinAvailable(d): 0 for a strategy without fenceposts. */
export function minAvailable(d: Deployment): number {
  const limits = limitsOf(d);
  return limits.gradual ? deploymentReplicas(d) - limits.maxUnavailable : 0;
}

/** The strategy's budget for a pass, `newRS` as it is now; an error for a strategy without one. */
export function rolloutBudget(d: Deployment, newRS: ReplicaSet | undefined): RolloutBudget {
  const budget = strategyOf(d)?.budget?.(d, newRS);
  if (!budget) throw new Error(unsupportedType(d));
  return budget;
}
