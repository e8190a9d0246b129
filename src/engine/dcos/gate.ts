// The plan gate: a Deployment's phase strategy (spec.plan) on top of its rollout strategy's budget.
// A step is one replica slot of the new ReplicaSet; the gate caps how many slots may have a pod and
// never takes a pod away, so a held rollout waits at full size. The operator's overrides live in
// the Deployment's annotations and are never guessed at: docs/semantics/plans.md#the-gate-specplan.

import type { PlanHold } from './custom.ts';
import type { Deployment, ReplicaSet } from '../../api/types.ts';
import { jsonAnnotation, revisionOf } from '../kubernetes/annotations.ts';
import { availableReplicas, deploymentReplicas, specReplicas } from '../kubernetes/replicasets.ts';

export const PLAN_STATE_ANNOTATION = 'pacer.dev/plan-state';
/** "true" on every Deployment of a service whose deploy plan an operator interrupted (or stopped). */
export const PLAN_INTERRUPTED_ANNOTATION = 'pacer.dev/plan-interrupted';

/** The operator's overrides of one Deployment's phase, for one revision's rollout. */
export interface PlanState {
  /** The revision (of the new ReplicaSet) they were given to. */
  readonly revision: number;
  /** Canary steps released by continue. */
  readonly proceeds: number;
  /** The phase interrupted (after its canary period). */
  readonly interrupted: boolean;
  /** The whole deploy plan interrupted (pacer.dev/plan-interrupted, on every Deployment of the service; any revision). */
  readonly planInterrupted: boolean;
  /** Slots an operator force-completed: they count as complete, their pods as available. */
  readonly forced: readonly number[];
  /** Why the stored annotation cannot be read (the phase then counts as interrupted). */
  readonly unreadable?: string;
}

/** The stored state, or why it cannot be read (a hand-edited annotation is reported, not guessed at). */
export function parsePlanState(d: Deployment): { state?: PlanState; error?: string } {
  const { value: v, error } = jsonAnnotation(d.metadata.annotations, PLAN_STATE_ANNOTATION);
  if (error !== undefined || v === undefined) return error !== undefined ? { error } : {};
  const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  const whole = (x: unknown) => Number.isInteger(x) && (x as number) >= 0;
  const forced = o.forced ?? [];
  if (
    !whole(o.revision) ||
    !whole(o.proceeds ?? 0) ||
    typeof (o.interrupted ?? false) !== 'boolean' ||
    !Array.isArray(forced) ||
    !forced.every(whole)
  ) {
    return {
      error: `annotation ${PLAN_STATE_ANNOTATION}: expected {"revision": N, "proceeds": N, "interrupted": bool, "forced": [N, ...]}`,
    };
  }
  return {
    state: {
      revision: o.revision as number,
      proceeds: (o.proceeds as number | undefined) ?? 0,
      interrupted: o.interrupted === true,
      planInterrupted: planInterruptedOf(d),
      forced: [...new Set(forced as number[])].sort((a, b) => a - b),
    },
  };
}

export function planInterruptedOf(d: Deployment): boolean {
  return d.metadata.annotations?.[PLAN_INTERRUPTED_ANNOTATION] === 'true';
}

/** The overrides for the rollout to `newRS` (the phase's: none for another revision; interrupted when unreadable). */
export function planStateFor(d: Deployment, newRS: ReplicaSet | undefined): PlanState {
  const revision = newRS ? (revisionOf(newRS) ?? 0) : 0;
  const { state, error } = parsePlanState(d);
  if (state && newRS && state.revision === revision) return state;
  return {
    revision,
    proceeds: 0,
    interrupted: error !== undefined,
    planInterrupted: planInterruptedOf(d),
    forced: [],
    ...(error !== undefined ? { unreadable: error } : {}),
  };
}

/**
 * For the admission webhook: the field error of a newly written plan-state that cannot be read
 * (one already stored passes, so that it never blocks other changes; the gate holds its phase).
 */
export function invalidPlanStateAnnotation(oldObject: Deployment | undefined, object: Deployment): string | undefined {
  const v = object.metadata.annotations?.[PLAN_STATE_ANNOTATION];
  if (v === undefined || v === oldObject?.metadata.annotations?.[PLAN_STATE_ANNOTATION]) return undefined;
  const { error } = parsePlanState(object);
  if (error === undefined) return undefined;
  return `metadata.annotations[${PLAN_STATE_ANNOTATION}]: Invalid value: ${JSON.stringify(v)}: ${error.replace(`annotation ${PLAN_STATE_ANNOTATION}: `, '')}; written by kubectl pacer plan commands`;
}

/**
 * The new ReplicaSet's available pods as the rollout's decisions count them: with the slots an
 * operator force-completed beyond those available (slots fill oldest pod first, so the available
 * pods are taken to be the first slots), at most its size. The status still reports what is.
 */
export function countedAvailable(d: Deployment, newRS: ReplicaSet | undefined): number {
  if (!newRS) return 0;
  const available = availableReplicas(newRS);
  const forced = planStateFor(d, newRS).forced.filter((i) => i >= available && i < specReplicas(newRS)).length;
  return Math.min(specReplicas(newRS), available + forced);
}

export function phaseStrategyOf(d: Deployment): NonNullable<NonNullable<Deployment['spec']['plan']>['strategy']> {
  return d.spec.plan?.strategy ?? 'parallel';
}

/** The canary steps of a rollout of `d`: the first min(requiredProceeds, replicas) slots (none without a canary). */
export function canarySlots(d: Deployment): number {
  const s = phaseStrategyOf(d);
  if (!s.endsWith('-canary')) return 0;
  return Math.min(d.spec.plan?.requiredProceeds ?? 2, deploymentReplicas(d));
}

/**
 * Canary slots released: by continue, or because the new ReplicaSet already has that many. With
 * analysis at the canary steps the first is released from the start: it has no new pod to judge
 * (analysis/canary.ts judges the later ones).
 */
export function releasedCanarySlots(d: Deployment, newRS: ReplicaSet | undefined): number {
  const judged = d.spec.analysis?.canarySteps ? 1 : 0;
  return Math.min(canarySlots(d), Math.max(planStateFor(d, newRS).proceeds, newRS ? specReplicas(newRS) : 0, judged));
}

/**
 * How many slots of the new ReplicaSet may have a pod now (Infinity: no gate). `hold`: a custom
 * plan holds the rollout (custom.ts), as an interrupted plan does.
 */
export function planCap(d: Deployment, newRS: ReplicaSet | undefined, hold?: PlanHold): number {
  const own = newRS ? specReplicas(newRS) : 0;
  const state = planStateFor(d, newRS);
  if (state.planInterrupted || hold !== undefined) return own;
  const strategy = phaseStrategyOf(d);
  const canary = canarySlots(d);
  if (canary > 0) {
    const released = releasedCanarySlots(d, newRS);
    if (released < canary) return released;
  }
  if (state.interrupted) return own;
  if (strategy === 'serial' || strategy === 'serial-canary') return countedAvailable(d, newRS) + 1;
  return Infinity;
}

/** The fewest replicas the old ReplicaSets keep: the slots the gate has not released. */
export function oldReplicasFloor(d: Deployment, newRS: ReplicaSet | undefined, hold?: PlanHold): number {
  const cap = planCap(d, newRS, hold);
  if (cap === Infinity) return 0;
  const own = newRS ? specReplicas(newRS) : 0;
  return Math.max(0, deploymentReplicas(d) - Math.max(own, cap));
}

/**
 * Why the gate holds the rollout to `newRS` for an operator (the deploy plan shows WAITING), or
 * undefined: the plan is interrupted, the phase is, or every released canary pod is available and
 * the next canary step waits for a continue. The progress deadline does not run meanwhile.
 */
export function operatorWait(d: Deployment, newRS: ReplicaSet | undefined): string | undefined {
  const state = planStateFor(d, newRS);
  if (state.planInterrupted) return 'its deploy plan is interrupted (kubectl pacer plan continue)';
  if (state.unreadable !== undefined)
    return `${state.unreadable}: its plan phase is held until kubectl pacer plan continue writes a fresh one`;
  const canary = canarySlots(d);
  const released = releasedCanarySlots(d, newRS);
  if (released < canary) {
    if (countedAvailable(d, newRS) >= released)
      return `canary step ${released + 1} of ${canary} waits for kubectl pacer plan continue`;
    return undefined;
  }
  if (state.interrupted) return 'its plan phase is interrupted (kubectl pacer plan continue)';
  return undefined;
}

/**
 * The phase state with the canary steps released up to `proceeds` (the rest kept), as the
 * annotation's text: what the analysis writes when a canary step's run succeeds, as
 * `kubectl pacer plan continue` would (analysis/canary.ts).
 */
export function planStateReleasing(d: Deployment, newRS: ReplicaSet | undefined, proceeds: number): string {
  const s = planStateFor(d, newRS);
  return JSON.stringify({ revision: s.revision, proceeds, interrupted: s.interrupted, forced: [...s.forced] });
}
