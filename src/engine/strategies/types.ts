// The one interface every rollout strategy implements (docs/strategies.md). The engine, the
// controller and the plugin ask a strategy module these questions instead of comparing
// spec.strategy.type; defaulting and validation are the API layer's half of the same module
// (src/api/strategies/), which a strategy module spreads into itself.
//
// Where strategies sit in the import graph: fenceposts.ts, rolling.ts and scale.ts ask the
// strategy of a Deployment for its fenceposts and budget, so a strategy module must not import
// them (or pass.ts, progress.ts, status.ts, newreplicaset.ts, recreate.ts, which do) at run time:
// that would be an import cycle. The pass machinery reaches a rollout step as its `steps`
// argument instead (RolloutSteps, filled in by steps.ts); a strategy module imports at run time
// only src/api, replicasets.ts, minimumhealth.ts's formulas and its sibling strategy modules.

import type { Deployment, ReplicaSet, StrategyType } from '../../api/types.ts';
import type { StrategyRules } from '../../api/strategies/types.ts';
import type { DecisionPass } from '../pass.ts';
import type { getAllReplicaSetsAndSyncRevision } from '../newreplicaset.ts';
import type { reconcileNewReplicaSet, reconcileOldReplicaSets } from '../rolling.ts';
import type { oldPodsRunning, scaleDownOldReplicaSetsForRecreate } from '../recreate.ts';
import type { scaleReplicaSetAndRecordEvent } from '../pass.ts';
import type { deploymentComplete } from '../progress.ts';
import type { gatedNewReplicas } from '../plan/gate.ts';
import type { cleanupDeployment, current, currentAll, syncRolloutStatus } from '../steps.ts';

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

/** One line under `Strategy:` in `kubectl pacer get`: `  MaxSurge:  25%`. */
export interface StrategyDetail {
  name: string;
  value: string;
}

/**
 * The pass machinery a rollout step is made of: upstream's DeploymentController methods that
 * rolloutRolling and rolloutRecreate call, under their upstream names. steps.ts fills it in.
 */
export interface RolloutSteps {
  /** The new ReplicaSet's wanted size held by the plan gate (spec.plan; plan/gate.ts). */
  readonly gatedNewReplicas: typeof gatedNewReplicas;
  /** The new ReplicaSet (created, with the revision synced, when `create`) and the old ones. */
  readonly getAllReplicaSetsAndSyncRevision: typeof getAllReplicaSetsAndSyncRevision;
  /** Grows (or trims) the new ReplicaSet within the strategy's budget; true when it was scaled. */
  readonly reconcileNewReplicaSet: typeof reconcileNewReplicaSet;
  /** Shrinks old ReplicaSets, unhealthy replicas first, while above the budget's minAvailable; true when one was scaled. */
  readonly reconcileOldReplicaSets: typeof reconcileOldReplicaSets;
  /** Every active old ReplicaSet to 0; true when one was scaled. */
  readonly scaleDownOldReplicaSetsForRecreate: typeof scaleDownOldReplicaSetsForRecreate;
  /** Whether an old pod may still run (old ReplicaSets report replicas, or a pod of one is not terminal). */
  readonly oldPodsRunning: typeof oldPodsRunning;
  readonly scaleReplicaSetAndRecordEvent: typeof scaleReplicaSetAndRecordEvent;
  /** DeploymentComplete on the status as read at the start of the pass. */
  readonly deploymentComplete: typeof deploymentComplete;
  /** Deletes the old ReplicaSets beyond revisionHistoryLimit. */
  readonly cleanupDeployment: typeof cleanupDeployment;
  /** The status with progress estimated, and when to look again; every rollout step ends with it. */
  readonly syncRolloutStatus: typeof syncRolloutStatus;
  /** The ReplicaSet(s) as they are after this pass's writes so far. */
  readonly current: typeof current;
  readonly currentAll: typeof currentAll;
}

export interface RolloutStrategy<T extends StrategyType = StrategyType> extends StrategyRules<T> {
  /**
   * Whether the rollout step reads pods (Recreate waits for the old ones to stop). The controller
   * puts the Deployment's pods in its snapshot only then, and re-queues it when one of its pods
   * changes phase.
   */
  readonly readsPods: boolean;
  /**
   * The fenceposts, for a strategy that replaces pods gradually. They set maxSurge (the
   * max-replicas annotation, proportional scaling) and maxUnavailable (the Available condition)
   * in fenceposts.ts. Absent (Recreate): both are 0, and a resize with several active
   * ReplicaSets only refreshes their annotations (scale.ts).
   */
  fenceposts?(d: Deployment): Fenceposts;
  /**
   * The bounds rolling.ts moves within in one pass, given the new ReplicaSet as it is now. Absent
   * (Recreate): the new ReplicaSet is created at, and grows straight to, spec.replicas.
   */
  budget?(d: Deployment, newRS: ReplicaSet | undefined): RolloutBudget;
  /**
   * One rollout pass: what sync.ts does when the Deployment is not paused, has no rollback
   * request and no scaling event. It ends with `steps.syncRolloutStatus`.
   */
  rollout(pass: DecisionPass, steps: RolloutSteps): void;
  /** The strategy's parameters as `kubectl pacer get` shows them under `Strategy:` (defaults filled in). */
  describe(d: Deployment): readonly StrategyDetail[];
}
