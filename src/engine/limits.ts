// A pass's limits, resolved in one place (docs/architecture.md#a-passs-limits): how far the
// Deployment may surge above spec.replicas and fall below it, how far its new ReplicaSet may grow
// and its old ones shrink, and what the gates hold back. The rule files (rolling.ts, scale.ts,
// status.ts, progress.ts, newreplicaset.ts, pass.ts) read these numbers from the pass and never ask
// the strategy registry or a gate themselves; a new gate (analysis, say) joins here and nowhere else.
//
//   surge, unavailable   the strategy's fenceposts (RollingUpdate: maxSurge rounded up,
//                        maxUnavailable down, both 0 → unavailable 1; MinimumHealth: its envelope;
//                        Recreate: none, so 0 and 0), unavailable capped at spec.replicas
//   maxTotal, minAvailable   the strategy's budget for this pass, given the new ReplicaSet as it is
//                        (MinimumHealth's phase depends on it); none for Recreate
//   cap, oldFloor        the plan gate (dcos/gate.ts) and a custom plan's hold: how many slots of
//                        the new ReplicaSet may have a pod, and what the old ones keep meanwhile
//   hold                 why a gate holds the rollout for someone (the Progressing condition then)

import type { Deployment, ReplicaSet } from '../api/types.ts';
import { MESSAGE, REASON } from './kubernetes/conditions.ts';
import type { PlanHold } from './dcos/custom.ts';
import { countedAvailable, oldReplicasFloor, operatorWait, planCap } from './dcos/gate.ts';
import { deploymentReplicas } from './kubernetes/replicasets.ts';

/** maxSurge and maxUnavailable resolved against spec.replicas (before the cap at replicas). */
export interface Fenceposts {
  surge: number;
  unavailable: number;
}

/** The two numbers a gradual rollout moves within during one pass (rolling.ts). */
export interface RolloutBudget {
  /** Σ spec.replicas of all ReplicaSets may grow up to this (the new ReplicaSet grows, nothing else). */
  maxTotal: number;
  /** Old ReplicaSets shrink only while more replicas than this are available. */
  minAvailable: number;
}

/** What a strategy module contributes to the limits (strategies/types.ts RolloutStrategy has both). */
export interface StrategyBounds {
  /** Absent: the strategy does not replace pods gradually (Recreate). */
  fenceposts?(d: Deployment): Fenceposts;
  /** Absent: the new ReplicaSet goes straight to spec.replicas (Recreate). */
  budget?(d: Deployment, newRS: ReplicaSet | undefined): RolloutBudget;
}

/** The limits that depend on the new ReplicaSet, as it is at that point of the pass. */
export interface NewReplicaSetLimits {
  /** The strategy's budget; undefined: none, the new ReplicaSet goes straight to spec.replicas. */
  readonly budget: RolloutBudget | undefined;
  /** How many slots of the new ReplicaSet may have a pod now (Infinity: no gate holds it). */
  readonly cap: number;
  /** The fewest replicas the old ReplicaSets keep: the slots the gates have not released. */
  readonly oldFloor: number;
  /** The new ReplicaSet's available replicas as the rollout counts them (force-completed slots count). */
  readonly available: number;
  /** Why a gate holds the rollout for someone (PlanWaiting, PlanPending), or undefined. */
  readonly hold: PlanHold | undefined;
}

export interface PassLimits {
  /** The strategy replaces pods gradually (it has fenceposts): proportional scaling applies. */
  readonly gradual: boolean;
  /** MaxSurge(d): 0 without fenceposts. */
  readonly maxSurge: number;
  /** MaxUnavailable(d): 0 without fenceposts or replicas; capped at replicas. */
  readonly maxUnavailable: number;
  /** Set for a type no strategy module implements: the error a step that needs a budget raises. */
  readonly unsupported?: string;
  /** The limits for the new ReplicaSet `newRS` (undefined: none yet). */
  forNew(newRS: ReplicaSet | undefined): NewReplicaSetLimits;
}

/** The error of a rollout step that needs a budget its strategy does not have. */
export function unsupportedType(d: Deployment): string {
  return `deployment type ${String(d.spec.strategy?.type)} isn't supported`;
}

/**
 * The limits of one pass of `d` under `strategy` (undefined: a type no module implements, which
 * has neither fenceposts nor budget), with `hold` when a custom plan holds the rollout.
 */
export function resolveLimits(strategy: StrategyBounds | undefined, d: Deployment, hold?: PlanHold): PassLimits {
  const fenceposts = strategy?.fenceposts?.(d);
  const replicas = deploymentReplicas(d);
  const budget = strategy?.budget;
  let last: { newRS: ReplicaSet | undefined; limits: NewReplicaSetLimits } | undefined;
  return {
    gradual: fenceposts !== undefined,
    maxSurge: fenceposts?.surge ?? 0,
    maxUnavailable: fenceposts && replicas > 0 ? Math.min(fenceposts.unavailable, replicas) : 0,
    ...(strategy ? {} : { unsupported: unsupportedType(d) }),
    forNew(newRS) {
      // A pass asks several times for the same ReplicaSet object: answered once.
      if (last && last.newRS === newRS) return last.limits;
      const wait = hold === undefined ? operatorWait(d, newRS) : undefined;
      const limits: NewReplicaSetLimits = {
        budget: budget?.(d, newRS),
        cap: planCap(d, newRS, hold),
        oldFloor: oldReplicasFloor(d, newRS, hold),
        available: countedAvailable(d, newRS),
        hold:
          hold ?? (wait !== undefined ? { reason: REASON.planWaiting, message: MESSAGE.planWaiting(wait) } : undefined),
      };
      last = { newRS, limits };
      return limits;
    },
  };
}
