// The one interface every rollout strategy implements, so that nothing compares spec.strategy.type:
// the API layer's half (defaults, validation: src/api/strategies/) spread into the engine's
// (fenceposts, budget, rollout). The rule files never ask a strategy; its numbers reach them through
// the pass's limits: docs/strategies.md#a-strategy-module.

import type { Deployment, ReplicaSet, StrategyType } from '../../api/types.ts';
import type { StrategyRules } from '../../api/strategies/types.ts';
import type { Fenceposts, RolloutBudget } from '../limits.ts';
import type { DecisionPass } from '../kubernetes/pass.ts';

/** One line under `Strategy:` in `kubectl pacer get`: `  MaxSurge:  25%`. */
export interface StrategyDetail {
  name: string;
  value: string;
}

export interface RolloutStrategy<T extends StrategyType = StrategyType> extends StrategyRules<T> {
  /**
   * Whether the rollout step reads pods (Recreate waits for the old ones to stop). The controller
   * puts the Deployment's pods in its snapshot only then, and re-queues it when one of its pods
   * changes phase.
   */
  readonly readsPods: boolean;
  /**
   * The fenceposts, for a strategy that replaces pods gradually. They set the pass's maxSurge (the
   * max-replicas annotation, proportional scaling) and maxUnavailable (the Available condition):
   * ../limits.ts. Absent (Recreate): both are 0, and a resize with several active ReplicaSets only
   * refreshes their annotations (scale.ts).
   */
  fenceposts?(d: Deployment): Fenceposts;
  /**
   * The bounds rolling.ts moves within in one pass (through the pass's limits), given the new
   * ReplicaSet as it is now. Absent (Recreate): the new ReplicaSet is created at, and grows
   * straight to, spec.replicas.
   */
  budget?(d: Deployment, newRS: ReplicaSet | undefined): RolloutBudget;
  /**
   * One rollout pass: what decide.ts does when the Deployment is not paused, has no rollback
   * request and no scaling event. It ends with steps.ts's syncRolloutStatus.
   */
  rollout(pass: DecisionPass): void;
  /** The strategy's parameters as `kubectl pacer get` shows them under `Strategy:` (defaults filled in). */
  describe(d: Deployment): readonly StrategyDetail[];
}
