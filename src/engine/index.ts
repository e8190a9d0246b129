// The engine's public surface: everything outside src/engine/ imports from here, nothing from the
// rule files themselves (a dependency-cruiser rule checks it; the engine's own tests may reach in).
// The contract (docs/architecture.md#the-engines-contract): decide() takes a Snapshot and returns a
// Decision; no I/O, no clock, inputs never changed.

// The entry points.
export { decide, onCreateConflict, onCreateError } from './decide.ts';
export type { Action, Decision, EventRecord, Snapshot } from './types.ts';
export { buildSnapshot } from './snapshot.ts';
export { annotationsInUpstreamKeys, inPacerKeys, statusFromAnnotations } from './native.ts';
export { withAnnotations } from './kubernetes/annotations.ts';
export type { SnapshotSource } from './snapshot.ts';

// What the shell, the plugin and the servers read about a Deployment the way the engine does.
export {
  CHANGE_CAUSE_ANNOTATION,
  LAST_APPLIED_CONFIG_ANNOTATION,
  REVISION_ANNOTATION,
  ROLLBACK_TO_ANNOTATION,
  revisionOf,
} from './kubernetes/annotations.ts';
export { INVALID_SPEC, PROGRESSING, REASON, getCondition } from './kubernetes/conditions.ts';
export { deploymentComplete } from './kubernetes/progress.ts';
export { strategyNamed, strategyOf } from './strategies/index.ts';
/** A Deployment's maxSurge and maxUnavailable in pods, as a pass resolves them (the dashboard shows them). */
export { isGradual, maxSurge, maxUnavailable } from './fenceposts.ts';
export { generatedUid } from './kubernetes/newreplicaset.ts';

// Rollback (kubectl pacer rollout undo).
export {
  ROLLBACK_MESSAGES,
  findRollbackTarget,
  rollbackAnnotations,
  templateWithoutHash,
} from './kubernetes/rollback.ts';

// Marathon: dependency order, the active deployment plans, locks and force.
export { dependencyLevels, findDependencyCycle } from './marathon/dependencies.ts';
export { activePlans, planById, unknownPlanMessage } from './marathon/deploymentplans.ts';
export type { DeploymentPlan } from './marathon/deploymentplans.ts';
export { CANCELLED_PLAN_ANNOTATION, FORCE_ANNOTATION, checkLock } from './marathon/locks.ts';
export type { AdmissionOperation } from './marathon/locks.ts';
export {
  CANCEL_ANNOTATION,
  CANCEL_OUTCOME,
  CANCEL_REASON,
  CANCEL_REFUSED,
  CANCEL_REQUEST_ANNOTATION,
  cancelMessagePrefix,
  cancelOrder,
  formatCancel,
  invalidCancelAnnotation,
  runsTemplateOf,
} from './marathon/cancel.ts';
export type { CancelMode } from './marathon/cancel.ts';

// DC/OS SDK plans: plan → phases → steps, their statuses, strategies and operations.
export { coordinate } from './dcos/assets.ts';
export { OPERATIONS, applyOperation } from './dcos/operations.ts';
export type { Operation, OperationName, Outcome } from './dcos/operations.ts';
export { planJson, planTree } from './dcos/render.ts';
export type { PlanJson } from './dcos/render.ts';
export { buildPhase } from './dcos/strategy.ts';
export { buildPlan, viewPlan } from './dcos/tree.ts';
export type { PlanView } from './dcos/tree.ts';
export { PHASE_STRATEGIES, PLAN_STRATEGIES, STEP_STATUSES } from './dcos/types.ts';
export type { Phase, PhaseStrategy, Plan, PlanStrategy, PodRequirement, Step, StepStatus } from './dcos/types.ts';
export { deployPlan, newReplicaSetOf, phaseSummary, serviceMembers, slotPods } from './dcos/deploy.ts';
export type { ServiceObjects } from './dcos/deploy.ts';
export { recoveryPlan } from './dcos/recovery.ts';
export { servicePlans } from './dcos/service.ts';
export {
  PLAN_INTERRUPTED_ANNOTATION,
  PLAN_STATE_ANNOTATION,
  invalidPlanStateAnnotation,
  planInterruptedOf,
  planStateFor,
} from './dcos/gate.ts';
export type { PlanState } from './dcos/gate.ts';
export {
  CUSTOM_PLAN_STATE_ANNOTATION,
  customPlan,
  customPlanStateFor,
  deploymentStepStatus,
  deploymentTarget,
  planStatusUpdate,
  planStepNames,
  planTargets,
  plansNaming,
} from './dcos/custom.ts';
export type { CustomPlanState } from './dcos/custom.ts';

// The freeze switch (docs/semantics/freeze.md).
export { FREEZE_CONFIGMAP, FREEZE_REASON_KEY, FREEZE_SINCE_KEY, freezeInWords, freezeOf } from './freeze.ts';
// The cluster's default maintenance windows, beside the freeze switch (docs/semantics/windows.md).
export {
  DEFAULT_BLACKOUTS_KEY,
  DEFAULT_WINDOWS_CONFIGMAP,
  DEFAULT_WINDOWS_KEY,
  closedInWords,
  defaultWindowsOf,
  effectiveWindows,
} from './defaultwindows.ts';
export type { DefaultWindows, EffectiveWindows, WindowsConfigMap } from './defaultwindows.ts';
export { hasWindows, windowState } from './windows.ts';
export type { WindowState } from './windows.ts';
export type { Freeze } from './freeze.ts';

// The node roller (docs/semantics/node-roll.md).
export { decideRoll } from './noderoll/roll.ts';
export { checkpointOf, statusOf } from './noderoll/checkpoint.ts';
export {
  RESUME_ANNOTATION,
  SKIP_ANALYSIS_ANNOTATION,
  SKIP_ANNOTATION,
  applyRequests,
  skipNode,
} from './noderoll/requests.ts';
export { nodeRunName } from './noderoll/analysis.ts';
export type { RollAction, RollNode } from './noderoll/types.ts';
export { pacerBudgets, unhealthyWorkloads } from './noderoll/health.ts';
export { capacityShortfall } from './noderoll/capacity.ts';
export { NODE_ROLL_PLAN, rollPlan } from './noderoll/plan.ts';
export { NODEROLL_FINALIZER, finalizersAfter, hasFinalizer, rollPass } from './noderoll/pass.ts';
export type { RollPass, RollPassInput } from './noderoll/pass.ts';
export type { SizedNode, SizedPod } from './noderoll/capacity.ts';
export { semanticEqual } from './kubernetes/template.ts';
export { isCompleted, measurementPhase, metricPhase, runPhase, tally, terminating } from './analysis/assess.ts';
export type { AnalysisPhase, MetricLimits, Tally } from './analysis/assess.ts';
export { ABORT_ANNOTATION, RETRY_ANNOTATION, currentRun, stepOf } from './analysis/runs.ts';
export {
  ERROR_RETRY_MS,
  TERMINATED_MESSAGE,
  assessRun,
  dueAt,
  dueMetrics,
  limitsOf,
  nextDue,
  numericValue,
  recordMeasurement,
  resultOf,
  retentionOf,
  droppedJobs,
  scheduleOf,
  specError,
  stopping,
  tallyOf,
} from './analysis/measure.ts';
export type { Schedule } from './analysis/measure.ts';
export {
  RECHECK_MAX_MS,
  RECHECK_MIN_MS,
  abandonInFlight,
  inFlight,
  measurementNumber,
  nextCheck,
  recheckAfter,
} from './analysis/inflight.ts';
export type { InFlight } from './analysis/inflight.ts';
export { statusEqual } from './kubernetes/status.ts';

// Sharding: which shard owns an object's namespace (docs/sharding.md).
export { MAX_SHARDS, fairShare, shardOf } from './shards.ts';
