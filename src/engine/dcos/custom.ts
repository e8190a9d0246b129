// Custom plans: a Plan resource (plans.pacer.dev) names phases of steps, each step a Deployment of
// its namespace rolled to its current spec. The tree is derived from the Deployments each time
// (level-triggered); only the operator's overrides of one run are kept, in the Plan's
// pacer.dev/plan-state annotation: docs/semantics/plans.md#custom-plans-pacers-mapping.

import type { Deployment, PlanResource, PlanResourceStatus } from '../../api/types.ts';
import { PLAN_LEVEL_STRATEGIES, PLAN_PHASE_STRATEGIES, RESERVED_PLAN_NAMES } from '../../api/types.ts';
import { getCondition, INVALID_SPEC, PROGRESSING, REASON } from '../kubernetes/conditions.ts';
import { jsonAnnotation } from '../kubernetes/annotations.ts';
import { templateHashOf } from '../kubernetes/hash.ts';
import { semanticEqual } from '../kubernetes/template.ts';
import { buildPhase } from './strategy.ts';
import { buildPlan, planCandidates, planErrors, viewPlan } from './tree.ts';
import type { Phase, Plan, Step, StepStatus } from './types.ts';

/** The same annotation key as a Deployment's phase state, on the Plan: the operator's overrides. */
export const CUSTOM_PLAN_STATE_ANNOTATION = 'pacer.dev/plan-state';

export interface PhaseOverride {
  readonly interrupted?: boolean;
  /** Canary steps released by continue. */
  readonly proceeds?: number;
  /** The canary steps, as picked when the operator first acted on this run. */
  readonly canary?: readonly string[];
}

/** The operator's overrides of one run of a custom plan. */
export interface CustomPlanState {
  /** Deployment name → its template hash ('' when missing): the change this run rolls. */
  readonly targets: Readonly<Record<string, string>>;
  readonly interrupted: boolean;
  readonly phases: Readonly<Record<string, PhaseOverride>>;
  /** Steps an operator force-completed, as "phase/step". */
  readonly forced: readonly string[];
}

/** A Deployment of the Plan's namespace by name. */
export type DeploymentLookup = (name: string) => Deployment | undefined;

/** Every Deployment the plan names, once, in plan order. */
export function planStepNames(p: PlanResource): string[] {
  return [...new Set((p.spec?.phases ?? []).flatMap((ph) => ph.steps ?? []))];
}

/** The change one Deployment carries: its template's hash ('' when missing). */
export function deploymentTarget(d: Deployment | undefined): string {
  return d ? templateHashOf(d.spec?.template, d.status?.collisionCount) : '';
}

/** The change the plan's Deployments carry now: name → template hash ('' when missing). */
export function planTargets(p: PlanResource, lookup: DeploymentLookup): Record<string, string> {
  return Object.fromEntries(planStepNames(p).map((name) => [name, deploymentTarget(lookup(name))]));
}

const FRESH = (interrupted: boolean, targets: Readonly<Record<string, string>>): CustomPlanState => ({
  targets,
  interrupted,
  phases: {},
  forced: [],
});

/** The stored overrides, or why they cannot be read (then none: the run is as created). */
export function parseCustomPlanState(p: PlanResource): { state?: CustomPlanState; error?: string } {
  const { value: v, error } = jsonAnnotation(p.metadata.annotations, CUSTOM_PLAN_STATE_ANNOTATION);
  if (error !== undefined || v === undefined) return error !== undefined ? { error } : {};
  const isObject = (x: unknown): x is Record<string, unknown> =>
    typeof x === 'object' && x !== null && !Array.isArray(x);
  const strings = (x: unknown) => Array.isArray(x) && x.every((s) => typeof s === 'string');
  const o = isObject(v) ? v : undefined;
  const ok =
    o &&
    isObject(o.targets) &&
    Object.values(o.targets).every((t) => typeof t === 'string') &&
    typeof (o.interrupted ?? false) === 'boolean' &&
    isObject(o.phases ?? {}) &&
    strings(o.forced ?? []) &&
    Object.values((o.phases ?? {}) as Record<string, unknown>).every(
      (ph) =>
        isObject(ph) &&
        typeof (ph.interrupted ?? false) === 'boolean' &&
        Number.isInteger(ph.proceeds ?? 0) &&
        ((ph.proceeds as number) ?? 0) >= 0 &&
        strings(ph.canary ?? []),
    );
  if (!ok)
    return {
      error: `annotation ${CUSTOM_PLAN_STATE_ANNOTATION}: expected {"targets": {NAME: HASH}, "interrupted": bool, "phases": {NAME: {"interrupted": bool, "proceeds": N, "canary": [STEP]}}, "forced": ["PHASE/STEP"]}`,
    };
  return {
    state: {
      targets: o.targets as Record<string, string>,
      interrupted: o.interrupted === true,
      phases: (o.phases ?? {}) as Record<string, PhaseOverride>,
      forced: (o.forced ?? []) as string[],
    },
  };
}

const sameTargets = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

/** The overrides for the run the Deployments carry now: the stored ones if they were given to it, else a new run, interrupted. */
export function customPlanStateFor(
  p: PlanResource,
  targets: Readonly<Record<string, string>>,
): CustomPlanState & { current: boolean } {
  const { state } = parseCustomPlanState(p);
  if (state && sameTargets(state.targets, targets)) return { ...state, current: true };
  return { ...FRESH(true, targets), current: false };
}

/** A step's status from its Deployment, with the reason it cannot succeed (ERROR). */
export function deploymentStepStatus(
  name: string,
  d: Deployment | undefined,
): { status: StepStatus; errors?: string[] } {
  if (!d) return { status: 'ERROR', errors: [`deployments.pacer.dev "${name}" not found`] };
  if (d.metadata.deletionTimestamp) return { status: 'ERROR', errors: [`deployment ${name} is being deleted`] };
  const invalid = getCondition(d.status, INVALID_SPEC);
  if (invalid?.status === 'True')
    return { status: 'ERROR', errors: [`deployment ${name}: ${invalid.message ?? 'invalid spec'}`] };
  const st = d.status;
  if (!st || (st.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) return { status: 'PENDING' };
  const progressing = getCondition(st, PROGRESSING);
  if (progressing?.status === 'False' && progressing.reason === REASON.timedOut) {
    return { status: 'ERROR', errors: [`deployment ${name}: ${progressing.message ?? REASON.timedOut}`] };
  }
  const replicas = d.spec?.replicas ?? 1;
  const updated = st.updatedReplicas ?? 0;
  if (updated === replicas && (st.replicas ?? 0) === replicas && (st.availableReplicas ?? 0) === replicas)
    return { status: 'COMPLETE' };
  return { status: updated > 0 ? 'STARTED' : 'PENDING' };
}

/** What is wrong with the Plan itself (the CRD rejects these at admission; a Plan stored before is still reported). */
export function planResourceErrors(p: PlanResource): string[] {
  const errs: string[] = [];
  const name = p.metadata.name ?? '';
  if ((RESERVED_PLAN_NAMES as readonly string[]).includes(name))
    errs.push(`plan name ${name} is reserved for the service's own plans`);
  const strategy = p.spec?.strategy;
  if (strategy !== undefined && !(PLAN_LEVEL_STRATEGIES as readonly string[]).includes(strategy))
    errs.push(`spec.strategy: unsupported value "${strategy}"`);
  const seen = new Map<string, string>();
  for (const ph of p.spec?.phases ?? []) {
    if (ph.strategy !== undefined && !(PLAN_PHASE_STRATEGIES as readonly string[]).includes(ph.strategy))
      errs.push(`phase ${ph.name}: unsupported strategy "${ph.strategy}"`);
    for (const step of ph.steps ?? []) {
      const other = seen.get(step);
      if (other !== undefined) errs.push(`deployment ${step} is a step of phase ${other} and of phase ${ph.name}`);
      else seen.set(step, ph.name);
    }
  }
  return errs;
}

/** The plan's tree now: statuses from the Deployments, overrides from the run's state. */
export function customPlan(
  p: PlanResource,
  lookup: DeploymentLookup,
  state = customPlanStateFor(p, planTargets(p, lookup)),
): Plan {
  const forced = new Set(state.forced);
  const phases = (p.spec?.phases ?? []).map((spec): Phase => {
    const steps: Step[] = (spec.steps ?? []).map((name) => {
      const own = deploymentStepStatus(name, lookup(name));
      const isForced = forced.has(`${spec.name}/${name}`) && own.status !== 'COMPLETE';
      return {
        name,
        status: isForced ? 'COMPLETE' : own.status,
        ...(own.errors && !isForced ? { errors: own.errors } : {}),
        ...(isForced ? { forced: true } : {}),
      };
    });
    const strategy = spec.strategy ?? 'serial';
    const built = buildPhase(
      spec.name,
      strategy,
      steps,
      spec.requiredProceeds !== undefined ? { requiredProceeds: spec.requiredProceeds } : {},
    );
    const override = state.phases[spec.name] ?? {};
    const canary = built.canary
      ? (override.canary ?? built.canary).filter((n) => steps.some((s) => s.name === n))
      : undefined;
    const released = override.proceeds ?? 0;
    return {
      ...built,
      state: { ...built.state, ...(override.interrupted ? { interrupted: true } : {}) },
      ...(canary ? { canary } : {}),
      steps: steps.map((s) => {
        const at = canary?.indexOf(s.name) ?? -1;
        return at >= released ? { ...s, interrupted: true } : s;
      }),
    };
  });
  return buildPlan(p.metadata.name ?? '', p.spec?.strategy ?? 'serial', phases, {
    interrupted: state.interrupted,
    errors: planResourceErrors(p),
  });
}

/**
 * A gate holding a rollout: Progressing's reason and message. A plan's (an operator must act, or it
 * is not its turn yet) or the analysis' (a person must look: analysis/rollout.ts).
 */
export interface PlanHold {
  readonly reason:
    | 'PlanWaiting'
    | 'PlanPending'
    | 'AnalysisPaused'
    | 'AnalysisInconclusive'
    | 'AnalysisInvalid'
    | 'AnalysisRunning';
  readonly message: string;
}

/**
 * Why a plan holds `d`'s rollout, or undefined: `d`'s step in one of `plans` is PENDING and not a
 * candidate. The first plan that holds it is named; only waiting for the steps before it needs
 * no operator (PlanPending).
 */
export function customPlanHold(
  d: Deployment,
  plans: readonly PlanResource[],
  lookup: DeploymentLookup,
): PlanHold | undefined {
  const name = d.metadata.name ?? '';
  for (const p of plans) {
    const phaseSpec = (p.spec?.phases ?? []).find((ph) => (ph.steps ?? []).includes(name));
    if (!phaseSpec) continue;
    const state = customPlanStateFor(p, planTargets(p, lookup));
    const plan = customPlan(p, lookup, state);
    const phase = plan.phases.find((ph) => ph.name === phaseSpec.name)!;
    const step = phase.steps.find((s) => s.name === name)!;
    if (step.status !== 'PENDING' || planCandidates(plan).some((s) => s.name === name)) continue;
    const plural = p.metadata.name ?? '';
    const kubectl = (op: string, ...args: string[]) => ['kubectl pacer plan', op, name, plural, ...args].join(' ');
    const waiting = (message: string): PlanHold => ({ reason: 'PlanWaiting', message });
    if (plan.state.interrupted) {
      return waiting(
        state.current
          ? `Deployment waits for plan ${plural}, which is interrupted: ${kubectl('continue')}`
          : `Deployment waits for plan ${plural} to be started: ${kubectl('start')}`,
      );
    }
    const errors = planErrors(plan);
    if (errors.length > 0)
      return waiting(`Deployment waits for plan ${plural}, which has errors: ${errors.join('; ')}`);
    if (step.interrupted)
      return waiting(
        `Deployment waits for plan ${plural}: canary step ${name} waits for ${kubectl('continue', phase.name)}`,
      );
    if (phase.state.interrupted)
      return waiting(
        `Deployment waits for plan ${plural}: phase ${phase.name} is interrupted (${kubectl('continue', phase.name)})`,
      );
    return { reason: 'PlanPending', message: `Deployment waits for its turn in plan ${plural} (phase ${phase.name})` };
  }
  return undefined;
}

/** The Plan's status as the plan controller writes it: every element's status now. */
export function planResourceStatus(p: PlanResource, lookup: DeploymentLookup): PlanResourceStatus {
  const v = viewPlan(customPlan(p, lookup));
  return {
    ...(p.metadata.generation !== undefined ? { observedGeneration: p.metadata.generation } : {}),
    status: v.status,
    ...(v.errors.length > 0 ? { errors: [...v.errors] } : {}),
    phases: v.phases.map((ph) => ({
      name: ph.name,
      status: ph.status,
      steps: ph.steps.map((s) => ({
        name: s.name,
        status: s.status,
        ...(s.forced ? { message: 'forced complete by an operator' } : {}),
      })),
    })),
  };
}

/** The Plan's status to write, or undefined when the stored one already says it (key order and empty values aside, as a real API server re-encodes it). */
export function planStatusUpdate(p: PlanResource, lookup: DeploymentLookup): PlanResourceStatus | undefined {
  const status = planResourceStatus(p, lookup);
  return semanticEqual(status, p.status ?? {}) ? undefined : status;
}

/** The plans among `plans` that name `name` as a step. */
export function plansNaming(plans: readonly PlanResource[], name: string): PlanResource[] {
  return plans.filter((p) => (p.spec?.phases ?? []).some((ph) => (ph.steps ?? []).includes(name)));
}
