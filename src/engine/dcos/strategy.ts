// Strategies: which children of a parent may be worked on now (the candidates), and what interrupt
// and continue do to them; serial, parallel and the canary phases as the DC/OS SDK has them:
// docs/semantics/plans.md#strategies.

import { stepDisplayStatus } from './status.ts';
import type { Phase, PhaseStrategy, Plan, PodRequirement, Status, Step, StrategyState } from './types.ts';
import { conflicts, innerStrategy, isCanary } from './types.ts';

/** Serial's captured order: the children not COMPLETE now (the SDK captures them on first use). */
export function captureOrder(children: ReadonlyArray<{ name: string; status: Status }>): string[] {
  return children.filter((c) => c.status !== 'COMPLETE').map((c) => c.name);
}

/** A child as a strategy sees it. */
interface Child {
  readonly name: string;
  readonly status: Status;
  readonly interrupted: boolean;
  readonly requirement?: PodRequirement;
}

function eligible(c: Child, dirty: readonly PodRequirement[]): boolean {
  if (c.status === 'COMPLETE' || c.status === 'ERROR' || c.interrupted) return false;
  return !(c.requirement && dirty.some((d) => conflicts(d, c.requirement!)));
}

/** The children a serial or parallel strategy picks (none while it is interrupted). */
function pick(
  strategy: 'serial' | 'parallel',
  state: StrategyState,
  children: readonly Child[],
  dirty: readonly PodRequirement[],
): Child[] {
  if (state.interrupted) return [];
  const ok = children.filter((c) => eligible(c, dirty));
  if (strategy === 'parallel') return ok;
  const order = state.order ?? [];
  const status = new Map(children.map((c) => [c.name, c.status]));
  return ok.filter((c) => {
    const at = order.indexOf(c.name);
    return order.slice(0, Math.max(at, 0)).every((before) => status.get(before) === 'COMPLETE');
  });
}

const stepChild = (s: Step): Child => ({
  name: s.name,
  status: stepDisplayStatus(s),
  interrupted: s.interrupted === true,
  ...(s.requirement ? { requirement: s.requirement } : {}),
});

/** The canary steps still waiting for a continue. */
export function waitingCanarySteps(phase: Phase): string[] {
  if (!isCanary(phase.strategy)) return [];
  return (phase.canary ?? []).filter((n) => phase.steps.find((s) => s.name === n)?.interrupted === true);
}

/** A phase is interrupted through its strategy; a canary one while a canary step waits and no released one is unfinished. */
export function phaseInterrupted(phase: Phase): boolean {
  const waiting = waitingCanarySteps(phase);
  if (waiting.length > 0) {
    const released = (phase.canary ?? []).filter((n) => !waiting.includes(n));
    return released.every((n) => phase.steps.find((s) => s.name === n)?.status === 'COMPLETE');
  }
  return phase.state.interrupted === true;
}

/** The steps a phase's strategy picks now, given the pods other work holds. */
export function stepCandidates(phase: Phase, dirty: readonly PodRequirement[] = []): Step[] {
  const children = phase.steps.map(stepChild);
  const waiting = waitingCanarySteps(phase);
  let picked: Child[];
  if (waiting.length > 0) {
    // The canary period: only the released canary steps, whatever the wrapped strategy's flag says.
    const canary = new Set(phase.canary);
    picked = children.filter((c) => canary.has(c.name) && eligible(c, dirty));
  } else {
    picked = pick(innerStrategy(phase.strategy), phase.state, children, dirty);
  }
  const names = new Set(picked.map((c) => c.name));
  return phase.steps.filter((s) => names.has(s.name));
}

/** The phases a plan's strategy picks now, each seen with its aggregate status. */
export function phaseCandidates(plan: Plan, statusOf: (p: Phase) => Status): Phase[] {
  const children: Child[] = plan.phases.map((p) => ({
    name: p.name,
    status: statusOf(p),
    interrupted: phaseInterrupted(p),
  }));
  const names = new Set(pick(plan.strategy, plan.state, children, []).map((c) => c.name));
  return plan.phases.filter((p) => names.has(p.name));
}

/**
 * A new phase as the strategy builds it: serial's order captured, and for a canary the first
 * `requiredProceeds` steps that are PENDING or interrupted interrupted (fewer when fewer are left).
 */
export function buildPhase(
  name: string,
  strategy: PhaseStrategy,
  steps: readonly Step[],
  o: { requiredProceeds?: number; errors?: readonly string[] } = {},
): Phase {
  let out = steps;
  let canary: string[] | undefined;
  if (isCanary(strategy)) {
    const n = o.requiredProceeds ?? 2;
    canary = steps
      .filter((s) => s.status !== 'COMPLETE' && (s.status === 'PENDING' || s.interrupted))
      .slice(0, n)
      .map((s) => s.name);
    out = steps.map((s) => (canary!.includes(s.name) ? { ...s, interrupted: true } : s));
  }
  return {
    name,
    strategy,
    state:
      innerStrategy(strategy) === 'serial'
        ? { order: captureOrder(out.map((s) => ({ name: s.name, status: stepDisplayStatus(s) }))) }
        : {},
    ...(canary ? { canary } : {}),
    steps: out,
    ...(o.errors && o.errors.length > 0 ? { errors: o.errors } : {}),
  };
}

/** continue on a phase: a canary releases its next waiting step; otherwise the strategy's flag is cleared. */
export function proceedPhase(phase: Phase): Phase {
  const waiting = waitingCanarySteps(phase);
  if (waiting.length > 0) {
    return { ...phase, steps: phase.steps.map((s) => (s.name === waiting[0] ? { ...s, interrupted: false } : s)) };
  }
  return { ...phase, state: { ...phase.state, interrupted: false } };
}

/** interrupt on a phase: ignored during a canary period. */
export function interruptPhase(phase: Phase): Phase {
  if (waitingCanarySteps(phase).length > 0) return phase;
  return { ...phase, state: { ...phase.state, interrupted: true } };
}
