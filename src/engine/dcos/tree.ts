// A plan as a whole: building it (serial strategies capture their order), each element's status
// aggregated from below, the steps it offers for work now, and a view of all of it that the CLI,
// the HTTP API and the simulator print (docs/semantics/plans.md).

import { aggregate, stepDisplayStatus } from './status.ts';
import type { Aggregate } from './status.ts';
import { captureOrder, phaseCandidates, phaseInterrupted, stepCandidates } from './strategy.ts';
import type { Phase, Plan, PlanStrategy, PodRequirement, Status, Step } from './types.ts';

/** A phase's errors include its steps'. */
export function phaseErrors(phase: Phase): string[] {
  return [...(phase.errors ?? []), ...phase.steps.flatMap((s) => s.errors ?? [])];
}

export function planErrors(plan: Plan): string[] {
  return [...(plan.errors ?? []), ...plan.phases.flatMap(phaseErrors)];
}

export function phaseStatus(phase: Phase): Aggregate {
  return aggregate({
    children: phase.steps.map(stepDisplayStatus),
    candidates: stepCandidates(phase).map(stepDisplayStatus),
    errors: phaseErrors(phase),
    interrupted: phaseInterrupted(phase),
  });
}

export function planStatus(plan: Plan): Aggregate {
  const of = (p: Phase) => phaseStatus(p).status;
  return aggregate({
    children: plan.phases.map(of),
    candidates: phaseCandidates(plan, of).map(of),
    errors: planErrors(plan),
    interrupted: plan.state.interrupted === true,
  });
}

/** The steps of the plan's candidate phases that those phases pick, given the pods held elsewhere. */
export function planCandidates(plan: Plan, dirty: readonly PodRequirement[] = []): Step[] {
  return phaseCandidates(plan, (p) => phaseStatus(p).status).flatMap((p) => stepCandidates(p, dirty));
}

/** A new plan: serial captures the phases not COMPLETE now. */
export function buildPlan(
  name: string,
  strategy: PlanStrategy,
  phases: readonly Phase[],
  o: { errors?: readonly string[]; interrupted?: boolean } = {},
): Plan {
  const order =
    strategy === 'serial'
      ? captureOrder(phases.map((p) => ({ name: p.name, status: phaseStatus(p).status })))
      : undefined;
  return {
    name,
    strategy,
    state: { ...(o.interrupted ? { interrupted: true } : {}), ...(order ? { order } : {}) },
    phases,
    ...(o.errors && o.errors.length > 0 ? { errors: o.errors } : {}),
  };
}

export interface StepView {
  readonly name: string;
  /** What it shows (WAITING while interrupted and not launched). */
  readonly status: Status;
  /** What it stores. */
  readonly stored: Status;
  readonly candidate: boolean;
  readonly forced: boolean;
}

export interface PhaseView {
  readonly name: string;
  readonly strategy: string;
  readonly status: Status;
  /** The aggregation rule that decided the status (1–15). */
  readonly rule: number;
  readonly interrupted: boolean;
  readonly steps: readonly StepView[];
}

export interface PlanView {
  readonly name: string;
  readonly strategy: string;
  readonly status: Status;
  readonly rule: number;
  readonly interrupted: boolean;
  readonly errors: readonly string[];
  readonly phases: readonly PhaseView[];
}

/** Every element's status, and which steps are candidates now (`candidates`: the coordinator's pick when given). */
export function viewPlan(plan: Plan, candidates: readonly Step[] = planCandidates(plan)): PlanView {
  const picked = new Set(candidates);
  const top = planStatus(plan);
  return {
    name: plan.name,
    strategy: plan.strategy,
    status: top.status,
    rule: top.rule,
    interrupted: plan.state.interrupted === true,
    errors: planErrors(plan),
    phases: plan.phases.map((p) => {
      const a = phaseStatus(p);
      return {
        name: p.name,
        strategy: p.strategy,
        status: a.status,
        rule: a.rule,
        interrupted: phaseInterrupted(p),
        steps: p.steps.map((s) => ({
          name: s.name,
          status: stepDisplayStatus(s),
          stored: s.errors?.length ? 'ERROR' : s.status,
          candidate: picked.has(s),
          forced: s.forced === true,
        })),
      };
    }),
  };
}
