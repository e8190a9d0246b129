// Operator commands on a service's plans, carried out through the API server: the one
// implementation behind `kubectl pacer plan ...` and the controller's POST .../plans/<plan>/<op>
// (docs/semantics/plans.md). A service is a Deployment with the Deployments joined to it through
// spec.dependencies; its plans are derived fresh from the Deployments, ReplicaSets and pods
// (engine/plan/), the SDK's operation is applied to them (its answers: 200, 208, 400, 404), and the
// result is written where the gate reads it: each changed Deployment's pacer.dev/plan-state (for
// the revision rolling out: released canary steps, the phase's interrupt, forced slots) and
// pacer.dev/plan-interrupted (the plan's), by merge patches guarded by the resourceVersion they
// were decided on. restart acts as Kubernetes does: a step's pod is deleted (its ReplicaSet starts
// a new one), a phase or the plan is rollout-restarted (a new rollout, under its gate); start's
// parameters become env in every pod template. Each change is an Event on the Deployment it changed.

import type { Deployment, Pod, ReplicaSet } from '../api/types.ts';
import { DEPLOYMENTS, PODS, REPLICASETS } from '../kube/client.ts';
import type { KubeClient } from '../kube/client.ts';
import { KubeError } from '../kube/errors.ts';
import { metaTime } from '../kube/clock.ts';
import {
  PLAN_INTERRUPTED_ANNOTATION, PLAN_STATE_ANNOTATION, applyOperation, deployPlan, newReplicaSetOf, planInterruptedOf, planStateFor, recoveryPlan,
  serviceMembers, slotPods, viewPlan,
} from '../engine/index.ts';
import type { Plan, ServiceObjects } from '../engine/index.ts';

/** Where a command runs: the client and namespace, who reports it (Events), where warnings go. */
export interface Target {
  client: KubeClient;
  namespace: string;
  /** The Events' source component: kubectl-pacer, or the controller. */
  component: string;
  warn?: (message: string) => void;
  now?: () => number;
}

export interface PlanCommand {
  op: PlanOperationName;
  plan: string;
  phase?: string;
  step?: string;
  parameters?: Readonly<Record<string, string>>;
}

/** The SDK's answer: the code, its message, and what was not done (printed as warnings). */
export interface OperationResult {
  code: 200 | 208 | 400 | 404;
  message: string;
  warnings: string[];
}

export const RESTARTED_AT_ANNOTATION = 'kubectl.kubernetes.io/restartedAt';
export const RECOVERY_ONLY_RESTART = 'the recovery plan shows what the ReplicaSets and the kubelet do: only "restart SERVICE recovery PHASE STEP" (the step\'s pod replaced) acts on it';

/** The objects of the service `name` (a member Deployment's name), read fresh; kubectl's NotFound without it. */
export async function serviceObjects(s: Pick<Target, 'client' | 'namespace' | 'now'>, name: string): Promise<ServiceObjects> {
  await s.client.getDeployment(s.namespace, name);
  const [deployments, replicaSets, pods] = await Promise.all([
    s.client.list<Deployment>(DEPLOYMENTS, s.namespace),
    s.client.list<ReplicaSet>(REPLICASETS, s.namespace),
    s.client.list<Pod>(PODS, s.namespace),
  ]);
  return { deployments: serviceMembers(deployments.items, s.namespace, name), replicaSets: replicaSets.items, pods: pods.items, now: s.now?.() ?? Date.now() };
}

/** The plans of a service, in the SDK's priority order. */
export function plansOf(o: ServiceObjects): Plan[] {
  return [deployPlan(o), recoveryPlan(o)];
}

/** `template` with kubectl.kubernetes.io/restartedAt = `now` (RFC 3339, UTC, whole seconds): a rollout restart. */
export function restartedTemplate(d: Deployment, template: Deployment['spec']['template'], now: number): NonNullable<Deployment['spec']['template']> {
  const at = metaTime(now);
  return { ...template, metadata: { ...template?.metadata, annotations: { ...template?.metadata?.annotations, [RESTARTED_AT_ANNOTATION]: at } } };
}

/** The Event reason of each operation (on the Deployments it changed). */
const OPERATION_REASON = {
  start: 'PlanStart', stop: 'PlanStop', continue: 'PlanContinue', interrupt: 'PlanInterrupt', forceComplete: 'PlanForceComplete', restart: 'PlanRestart',
} as const;
export type PlanOperationName = keyof typeof OPERATION_REASON;

/** What one Deployment's merge patch carries: its annotations (null removes one), and maybe its pod template. */
interface Change {
  d: Deployment;
  annotations: Record<string, string | null>;
  template?: NonNullable<Deployment['spec']['template']>;
  /** For its Event: the revision the phase state was written for. */
  revision?: number;
}

/**
 * The annotations the gate should read after `after`: each Deployment's phase state for the
 * rollout under way (when it has one), and the plan's interrupt on every Deployment.
 */
export function changesAfter(o: ServiceObjects, after: Plan): Change[] {
  const out: Change[] = [];
  for (const d of o.deployments) {
    const annotations: Record<string, string | null> = {};
    let revision: number | undefined;
    const newRS = newReplicaSetOf(d, o);
    const phase = after.phases.find((p) => p.name === d.metadata.name);
    if (newRS && phase) {
      const before = planStateFor(d, newRS);
      const canary = new Set(phase.canary ?? []);
      const released = phase.steps.filter((st) => canary.has(st.name) && !st.interrupted).length;
      const state = {
        revision: before.revision,
        proceeds: Math.max(before.proceeds, released),
        interrupted: phase.state.interrupted === true,
        forced: phase.steps.flatMap((st, i) => (st.forced ? [i] : [])),
      };
      const was = { revision: before.revision, proceeds: before.proceeds, interrupted: before.interrupted, forced: [...before.forced] };
      if (JSON.stringify(state) !== JSON.stringify(was)) {
        annotations[PLAN_STATE_ANNOTATION] = JSON.stringify(state);
        revision = state.revision;
      }
    }
    const interrupted = after.state.interrupted === true;
    if (interrupted !== planInterruptedOf(d)) annotations[PLAN_INTERRUPTED_ANNOTATION] = interrupted ? 'true' : null;
    if (Object.keys(annotations).length > 0) out.push({ d, annotations, ...(revision !== undefined ? { revision } : {}) });
  }
  return out;
}

/** `template` with `env` set on every container (start's parameters), or undefined when it already has them. */
export function withParameters(template: Deployment['spec']['template'], env: Readonly<Record<string, string>>): NonNullable<Deployment['spec']['template']> | undefined {
  const spec = (template?.spec ?? {}) as { containers?: Array<{ env?: Array<{ name: string; value?: string }> }> };
  let changed = false;
  const containers = (spec.containers ?? []).map((c) => {
    const list = [...(c.env ?? [])];
    for (const [name, value] of Object.entries(env)) {
      const at = list.findIndex((e) => e.name === name);
      if (at >= 0 && list[at].value === value && Object.keys(list[at]).length === 2) continue;
      changed = true;
      if (at >= 0) list[at] = { name, value };
      else list.push({ name, value });
    }
    return { ...c, env: list };
  });
  return changed ? { ...template, spec: { ...spec, containers } } : undefined;
}

export async function operate(s: Target, service: string, o: PlanCommand): Promise<OperationResult> {
  const { op, plan, phase, step, parameters } = o;
  const objects = await serviceObjects(s, service);
  if (plan === 'recovery') return recoveryOperation(s, objects, op, phase, step);
  if (plan !== 'deploy') return { code: 404, message: `Plan ${plan} not found`, warnings: [] };
  const before = deployPlan(objects);
  const out = applyOperation(before, { op, ...(phase !== undefined ? { phase } : {}), ...(step !== undefined ? { step } : {}), ...(parameters ? { parameters } : {}) });
  if (out.code !== 200) return { code: out.code, message: out.message, warnings: [] };
  const warnings: string[] = [];
  const where = `plan ${plan}${phase ? `, phase ${phase}` : ''}${step ? `, step ${step}` : ''}`;
  const changes = changesAfter(objects, out.plan);
  const byName = new Map(objects.deployments.map((d) => [d.metadata.name, d]));
  const changeOf = (d: Deployment): Change => {
    let c = changes.find((x) => x.d === d);
    if (!c) changes.push((c = { d, annotations: {} }));
    return c;
  };
  // Kubernetes' ways of running steps again: a rollout restart of a phase or of the plan (restart,
  // stop, start of a finished plan), start's parameters as env in the pod templates (a rollout).
  const restarted = new Set<Deployment>();
  if (op === 'start' && parameters && Object.keys(parameters).length > 0) {
    for (const d of objects.deployments) {
      const template = withParameters(d.spec.template, parameters);
      if (template) changeOf(d).template = template;
    }
  }
  const restartAll = op === 'stop' || (op === 'start' && viewPlan(before).status === 'COMPLETE' && !changes.some((c) => c.template));
  if ((op === 'restart' && step === undefined) || restartAll) {
    for (const d of phase === undefined ? objects.deployments : [byName.get(phase)!]) {
      const c = changeOf(d);
      c.template = restartedTemplate(d, c.template ?? d.spec.template, s.now?.() ?? Date.now());
      restarted.add(d);
    }
  }
  for (const c of changes) {
    await patchUnlessChanged(s, c);
    // forceComplete's and restart's answers name their target; the others do not.
    const what = op === 'continue' || op === 'interrupt' ? `${out.message}: ${where}` : out.message;
    const how = [c.revision !== undefined ? `revision ${c.revision}` : '', restarted.has(c.d) ? 'a rollout restart' : c.template ? 'new pod template' : ''].filter((x) => x);
    await recordOperation(s, c.d, OPERATION_REASON[op], `${what}${how.length ? ` (${how.join(', ')})` : ''}`);
  }
  if (op === 'restart' && phase !== undefined && step !== undefined) {
    // One step: its pod is replaced (the ReplicaSet starts a new one in its place).
    const d = byName.get(phase)!;
    const slot = before.phases.find((p) => p.name === phase)!.steps.findIndex((st) => st.name === step);
    const pod = slotPods(d, objects)[slot];
    if (pod) {
      await s.client.delete(PODS, s.namespace, pod.metadata.name ?? '');
      await recordOperation(s, d, OPERATION_REASON[op], `${out.message}: pod ${pod.metadata.name} deleted`);
    }
  } else if (changes.length === 0) {
    warnings.push('nothing was written: no Deployment of the service has a rollout under way that the command changes');
  }
  return { code: 200, message: out.message, warnings };
}

/**
 * The recovery plan shows the ReplicaSets' and the kubelet's work, so only a step's restart acts on
 * it (its pod replaced); its answers are the SDK's (404 for an unknown phase or step).
 */
async function recoveryOperation(s: Target, o: ServiceObjects, op: PlanOperationName, phase: string | undefined, step: string | undefined): Promise<OperationResult> {
  const plan = recoveryPlan(o);
  const out = applyOperation(plan, { op, ...(phase !== undefined ? { phase } : {}), ...(step !== undefined ? { step } : {}) });
  if (out.code === 404 || out.code === 400) return { code: out.code, message: out.message, warnings: [] };
  if (op !== 'restart' || step === undefined) return { code: 400, message: RECOVERY_ONLY_RESTART, warnings: [] };
  if (out.code === 208) return { code: 208, message: out.message, warnings: [] };
  // A recovery phase is named after its pod.
  const pod = o.pods.find((p) => p.metadata.name === phase);
  if (pod) await s.client.delete(PODS, s.namespace, phase!);
  return { code: 200, message: out.message, warnings: [] };
}

/**
 * The Change's merge patch, guarded by the resourceVersion it was decided on. The controller's own
 * writes (status, its annotations) move that on all the time: on a 409 the Deployment is read again,
 * and the patch is sent again only if what the command was decided on (spec, the plan annotations)
 * is as it was; otherwise the conflict stands (another operator changed it) and is reported.
 */
async function patchUnlessChanged(s: Target, c: Change): Promise<void> {
  const name = c.d.metadata.name ?? '';
  const decidedOn = (d: Deployment) => JSON.stringify([d.metadata.generation, d.metadata.annotations?.[PLAN_STATE_ANNOTATION], d.metadata.annotations?.[PLAN_INTERRUPTED_ANNOTATION]]);
  let resourceVersion = c.d.metadata.resourceVersion;
  for (let attempt = 0; ; attempt++) {
    const patch = {
      metadata: { resourceVersion, ...(Object.keys(c.annotations).length > 0 ? { annotations: c.annotations } : {}) },
      ...(c.template ? { spec: { template: c.template } } : {}),
    };
    try {
      await s.client.patchDeployment(s.namespace, name, patch);
      return;
    } catch (err) {
      if (!(err instanceof KubeError) || err.kind !== 'Conflict' || attempt >= 4) throw err;
      const fresh = await s.client.getDeployment(s.namespace, name);
      if (decidedOn(fresh) !== decidedOn(c.d)) throw err;
      resourceVersion = fresh.metadata.resourceVersion;
    }
  }
}

/** An Event on `d` for the operator's command; a user without the right to write Events is warned, the command stands. */
async function recordOperation(s: Target, d: Deployment, reason: string, message: string): Promise<void> {
  const now = metaTime(s.now?.() ?? Date.now());
  const name = `${d.metadata.name}.${Date.now().toString(16)}${Math.floor(Math.random() * 0xffff).toString(16)}`;
  try {
    await s.client.createEvent(s.namespace, {
      apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: s.namespace },
      involvedObject: { apiVersion: d.apiVersion, kind: d.kind, name: d.metadata.name, namespace: s.namespace, uid: d.metadata.uid },
      reason, message, type: 'Normal', source: { component: s.component }, firstTimestamp: now, lastTimestamp: now, count: 1,
      reportingComponent: s.component, reportingInstance: s.component,
    });
  } catch (err) {
    s.warn?.(`the ${reason} event was not recorded: ${(err as Error).message}`);
  }
}
