// The DC/OS SDK's plan model (docs/semantics/plans.md): a tree of exactly three levels, plan →
// phases → steps. Plans and phases are parents with a strategy over their children; steps are
// leaves whose stored status comes from the pod they work on. Everything here is plain, immutable
// data: an operation or a status change returns a new tree, and the operator's overrides (the
// interrupted flags, the canary's remaining steps, the parameters) are part of the data, so that
// the shell can keep them in the cluster.

import { PLAN_LEVEL_STRATEGIES, PLAN_PHASE_STRATEGIES } from '../../api/types.ts';
import type { PlanPhaseStrategy, PlanStrategyName } from '../../api/types.ts';

/** Every status an element can show (the SDK's Status). */
export const STATUSES = [
  'ERROR',
  'WAITING',
  'PENDING',
  'PREPARED',
  'STARTING',
  'STARTED',
  'COMPLETE',
  'IN_PROGRESS',
  'DELAYED',
] as const;
export type Status = (typeof STATUSES)[number];

/** What a step stores: WAITING is display only, IN_PROGRESS is for parents only. */
export type StepStatus = Exclude<Status, 'WAITING' | 'IN_PROGRESS'>;
export const STEP_STATUSES: readonly StepStatus[] = [
  'ERROR',
  'PENDING',
  'PREPARED',
  'STARTING',
  'STARTED',
  'COMPLETE',
  'DELAYED',
];

/** The pod instance a step works on (the SDK's PodInstanceRequirement): the asset two plans must not share. */
export interface PodRequirement {
  /** The pod type: a Deployment's name. */
  readonly pod: string;
  /** The replica slot. */
  readonly index: number;
  /** The tasks (containers) it launches. */
  readonly tasks: readonly string[];
}

export interface Step {
  readonly name: string;
  readonly status: StepStatus;
  /** Its own flag: a canary step waits for a continue; restart clears it. */
  readonly interrupted?: boolean;
  readonly errors?: readonly string[];
  readonly requirement?: PodRequirement;
  /** COMPLETE by an operator's forceComplete, not by its pod (Pacer tells it in the plan and an Event). */
  readonly forced?: boolean;
}

/** The phase strategies (the API's: spec.plan.strategy, a Plan's phases). */
export const PHASE_STRATEGIES = PLAN_PHASE_STRATEGIES;
export type PhaseStrategy = PlanPhaseStrategy;
/** Plans take serial or parallel only; canary is for phases. */
export const PLAN_STRATEGIES = PLAN_LEVEL_STRATEGIES;
export type PlanStrategy = PlanStrategyName;

/**
 * A serial or parallel strategy's state. `order` is serial's: the children that were not COMPLETE
 * when the strategy was built, in order; each waits for the ones before it (a child outside it has
 * no prerequisite).
 */
export interface StrategyState {
  readonly interrupted?: boolean;
  readonly order?: readonly string[];
}

export interface Phase {
  readonly name: string;
  readonly strategy: PhaseStrategy;
  readonly state: StrategyState;
  /** A canary phase's canary steps, chosen when it was built; the ones still interrupted await a continue. */
  readonly canary?: readonly string[];
  readonly steps: readonly Step[];
  readonly errors?: readonly string[];
}

export interface Plan {
  readonly name: string;
  readonly strategy: PlanStrategy;
  readonly state: StrategyState;
  readonly phases: readonly Phase[];
  readonly errors?: readonly string[];
  /** start's parameters, handed to the steps' pods as environment variables. */
  readonly parameters?: Readonly<Record<string, string>>;
}

/** The base of a phase's strategy: serial-canary wraps serial, parallel-canary parallel. */
export function innerStrategy(s: PhaseStrategy): PlanStrategy {
  return s === 'serial' || s === 'serial-canary' ? 'serial' : 'parallel';
}

export function isCanary(s: PhaseStrategy): boolean {
  return s.endsWith('-canary');
}

/** Two requirements conflict when they are the same pod instance and share a task (`pod-0:[a,b]` and `pod-0:[b]`). */
export function conflicts(a: PodRequirement, b: PodRequirement): boolean {
  return a.pod === b.pod && a.index === b.index && a.tasks.some((t) => b.tasks.includes(t));
}
