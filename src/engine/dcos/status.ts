// Statuses of plan elements by the DC/OS SDK's rules: a step's from its tasks, what a step shows,
// and a parent's aggregated from its children (the first of fifteen rules that matches):
// docs/semantics/plans.md#statuses.

import type { Status, Step, StepStatus } from './types.ts';

/** PREPARED, STARTING, STARTED and IN_PROGRESS: work is underway (Status.isRunning). */
export function isRunning(s: Status): boolean {
  return s === 'PREPARED' || s === 'STARTING' || s === 'STARTED' || s === 'IN_PROGRESS';
}

/** What a step shows: WAITING while interrupted and not yet launched, else what it stores. */
export function stepDisplayStatus(step: Step): Status {
  if (step.errors && step.errors.length > 0) return 'ERROR';
  if (step.interrupted && (step.status === 'PENDING' || step.status === 'PREPARED')) return 'WAITING';
  return step.status;
}

/**
 * A step's status from the statuses of its tasks (DeploymentStep): errors first, then no task
 * (PREPARED once offers are being evaluated for it, else PENDING), then the least status in the
 * order ERROR, DELAYED, PENDING, PREPARED, STARTING, STARTED; COMPLETE only when every task is.
 * `current` is kept when none of the rules applies.
 */
export function stepStatusFromTasks(
  tasks: readonly StepStatus[],
  o: { errors?: boolean; prepared?: boolean; current?: StepStatus } = {},
): StepStatus {
  if (o.errors) return 'ERROR';
  if (tasks.length === 0) return o.prepared ? 'PREPARED' : 'PENDING';
  for (const s of ['ERROR', 'DELAYED', 'PENDING', 'PREPARED', 'STARTING', 'STARTED'] as const) {
    if (tasks.includes(s)) return s;
  }
  if (tasks.every((s) => s === 'COMPLETE')) return 'COMPLETE';
  return o.current ?? 'PENDING';
}

export interface AggregateInput {
  /** Every child's (display) status. */
  readonly children: readonly Status[];
  /** The statuses of the children the parent's strategy picks now (with no dirty assets). */
  readonly candidates: readonly Status[];
  /** The parent's own errors and its children's. */
  readonly errors: readonly string[];
  readonly interrupted: boolean;
}

/** The rule that decided, for tests and for `pacer plans simulate --explain`. */
export interface Aggregate {
  readonly status: Status;
  readonly rule: number;
}

/** PlanUtils.getAggregateStatus: the first of the fifteen rules that matches. */
export function aggregate(i: AggregateInput): Aggregate {
  const child = (s: Status) => i.children.includes(s);
  const candidate = (s: Status) => i.candidates.includes(s);
  const all = (xs: readonly Status[], s: Status) => xs.every((x) => x === s);
  if (i.errors.length > 0 || child('ERROR')) return { status: 'ERROR', rule: 1 };
  if (all(i.children, 'COMPLETE')) return { status: 'COMPLETE', rule: 2 };
  if (i.interrupted) return { status: 'WAITING', rule: 3 };
  if (all(i.candidates, 'DELAYED') && all(i.children, 'DELAYED')) return { status: 'DELAYED', rule: 4 };
  if (child('PREPARED')) return { status: 'IN_PROGRESS', rule: 5 };
  if (candidate('WAITING')) return { status: 'WAITING', rule: 6 };
  if (candidate('IN_PROGRESS')) return { status: 'IN_PROGRESS', rule: 7 };
  if (child('COMPLETE') && candidate('PENDING')) return { status: 'IN_PROGRESS', rule: 8 };
  if (child('COMPLETE') && candidate('STARTING')) return { status: 'IN_PROGRESS', rule: 9 };
  if (child('COMPLETE') && candidate('STARTED')) return { status: 'IN_PROGRESS', rule: 10 };
  if (candidate('PENDING')) return { status: 'PENDING', rule: 11 };
  if (child('WAITING')) return { status: 'WAITING', rule: 12 };
  if (candidate('STARTING')) return { status: 'STARTING', rule: 13 };
  if (candidate('STARTED')) return { status: 'STARTED', rule: 14 };
  return { status: 'ERROR', rule: 15 };
}
