// Operator commands on a plan (start, stop, interrupt, continue, forceComplete, restart) with the
// DC/OS SDK's semantics and answers, the HTTP status and message of its plans API. Pure: each
// returns its answer and the plan after it, the same plan unless the answer is 200:
// docs/semantics/plans.md#operations.

import { isRunning, stepDisplayStatus } from './status.ts';
import { interruptPhase, phaseInterrupted, proceedPhase } from './strategy.ts';
import { phaseStatus, planStatus } from './tree.ts';
import type { Phase, Plan, Step } from './types.ts';

export const OPERATIONS = ['start', 'stop', 'interrupt', 'continue', 'forceComplete', 'restart'] as const;
export type OperationName = (typeof OPERATIONS)[number];

export interface Operation {
  readonly op: OperationName;
  readonly phase?: string;
  readonly step?: string;
  readonly parameters?: Readonly<Record<string, string>>;
}

export interface Outcome {
  readonly code: 200 | 208 | 400 | 404;
  readonly message: string;
  /** The plan after the operation: the same object unless the code is 200. */
  readonly plan: Plan;
}

export const ALREADY_REPORTED = 'Command has already been reported or completed';
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The parameter names start refuses (they must be environment-variable names). */
export function invalidParameterName(parameters: Readonly<Record<string, string>>): string | undefined {
  return Object.keys(parameters).find((k) => !ENV_NAME.test(k));
}

/** Parameters as the SDK prints them: {A=1, B=2}. */
function formatParameters(p: Readonly<Record<string, string>>): string {
  return `{${Object.entries(p)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ')}}`;
}

const restartStep = (s: Step): Step => {
  const { forced: _forced, ...rest } = s;
  return { ...rest, status: 'PENDING' };
};
const completeStep = (s: Step): Step => (s.status === 'COMPLETE' ? s : { ...s, status: 'COMPLETE', forced: true });
const restartPhase = (p: Phase): Phase => ({ ...p, steps: p.steps.map(restartStep) });
const restartPlan = (plan: Plan): Plan => ({ ...plan, phases: plan.phases.map(restartPhase) });

function withPhases(plan: Plan, names: ReadonlySet<string>, f: (p: Phase) => Phase): Plan {
  return { ...plan, phases: plan.phases.map((p) => (names.has(p.name) ? f(p) : p)) };
}

export function applyOperation(plan: Plan, o: Operation): Outcome {
  const ok = (next: Plan, message: string): Outcome => ({ code: 200, message, plan: next });
  const already: Outcome = { code: 208, message: ALREADY_REPORTED, plan };
  const notFound = (kind: 'Phase' | 'Step', name: string): Outcome => ({
    code: 404,
    message: `${kind} ${name} not found`,
    plan,
  });
  const phases = o.phase === undefined ? [] : plan.phases.filter((p) => p.name === o.phase);
  if (o.phase !== undefined && phases.length === 0) return notFound('Phase', o.phase);

  switch (o.op) {
    case 'start': {
      const params = o.parameters ?? {};
      const bad = invalidParameterName(params);
      if (bad !== undefined)
        return {
          code: 400,
          message: `Couldn't parse parameters: ${bad} is not a valid environment variable name`,
          plan,
        };
      let next: Plan = { ...plan, parameters: { ...params } };
      if (planStatus(next).status === 'COMPLETE') next = restartPlan(next);
      return ok(
        { ...next, state: { ...next.state, interrupted: false } },
        `Received cmd: start ${plan.name} with parameters: ${formatParameters(params)}`,
      );
    }
    case 'stop':
      return ok(restartPlan({ ...plan, state: { ...plan.state, interrupted: true } }), 'Received cmd: stop');
    case 'continue': {
      if (o.phase === undefined) {
        const s = planStatus(plan).status;
        if (isRunning(s) || s === 'COMPLETE') return already;
        return ok({ ...plan, state: { ...plan.state, interrupted: false } }, 'Received cmd: continue');
      }
      if (
        phases.every((p) => {
          const s = phaseStatus(p).status;
          return isRunning(s) || s === 'COMPLETE';
        })
      )
        return already;
      return ok(withPhases(plan, new Set([o.phase]), proceedPhase), 'Received cmd: continue');
    }
    case 'interrupt': {
      if (o.phase === undefined) {
        if (plan.state.interrupted || planStatus(plan).status === 'COMPLETE') return already;
        return ok({ ...plan, state: { ...plan.state, interrupted: true } }, 'Received cmd: interrupt');
      }
      if (phases.every((p) => phaseInterrupted(p) || phaseStatus(p).status === 'COMPLETE')) return already;
      return ok(withPhases(plan, new Set([o.phase]), interruptPhase), 'Received cmd: interrupt');
    }
    case 'forceComplete':
    case 'restart': {
      if (o.step !== undefined && o.phase === undefined) return { code: 400, message: 'Missing phase', plan };
      const phase = phases[0];
      const matches = phase && o.step !== undefined ? phase.steps.filter((s) => s.name === o.step) : [];
      if (o.step !== undefined && matches.length !== 1) return notFound('Step', o.step);
      const step = matches[0];
      const message = `Received cmd: ${o.op} for Plan: ${plan.name}, Phase: ${o.phase ?? 'null'}, Step: ${o.step ?? 'null'}`;
      const status = step ? stepDisplayStatus(step) : phase ? phaseStatus(phase).status : planStatus(plan).status;
      // The first phase of that name only, as the SDK.
      const onPhase = (f: (p: Phase) => Phase): Plan => ({
        ...plan,
        phases: plan.phases.map((p) => (p === phase ? f(p) : p)),
      });
      const onStep =
        (f: (s: Step) => Step) =>
        (p: Phase): Phase => ({ ...p, steps: p.steps.map((s) => (s === step ? f(s) : s)) });
      if (o.op === 'forceComplete') {
        if (status === 'COMPLETE') return already;
        if (step) return ok(onPhase(onStep(completeStep)), message);
        if (phase)
          return ok(
            onPhase((p) => ({ ...p, steps: p.steps.map(completeStep) })),
            message,
          );
        return ok({ ...plan, phases: plan.phases.map((p) => ({ ...p, steps: p.steps.map(completeStep) })) }, message);
      }
      if (status === 'PENDING') return already;
      if (step) return ok(onPhase(onStep((s) => restartStep({ ...s, interrupted: false }))), message);
      if (phase)
        return ok(
          onPhase((p) => restartPhase(proceedPhase(p))),
          message,
        );
      return ok(restartPlan({ ...plan, state: { ...plan.state, interrupted: false } }), message);
    }
  }
}
