// `kubectl pacer plan list|show SERVICE [PLAN]`: a service's plans as the DC/OS SDK's CLI shows them
// (docs/semantics/plans.md). A service is a Deployment with the Deployments joined to it through
// spec.dependencies; its deploy plan is derived from the Deployments, ReplicaSets and pods read
// through the API server, the same pure derivation the controller uses (engine/plan/deploy.ts).
//
// `kubectl pacer plan continue|interrupt|force-complete|restart SERVICE [PLAN [PHASE [STEP]]]`: the
// SDK's operation on that plan (engine/plan/operations.ts, its answers: 208 printed, 400 and 404
// errors), its result written where the gate reads it: each changed Deployment's
// pacer.dev/plan-state annotation for the revision rolling out (released canary steps, interrupts,
// forced slots), by a merge patch guarded by the resourceVersion it was decided on (a concurrent
// change is a 409). restart acts as Kubernetes does: a step's pod is deleted (its ReplicaSet starts
// a new one), a phase or the plan gets `kubectl rollout restart` (a new rollout, under its gate).
// Each change is recorded as an Event on the Deployment it changed.

import type { Deployment, Pod, ReplicaSet } from '../api/types.ts';
import { DEPLOYMENTS, PODS, REPLICASETS } from '../kube/client.ts';
import { KubeError } from '../kube/errors.ts';
import {
  PLAN_INTERRUPTED_ANNOTATION, PLAN_STATE_ANNOTATION, applyOperation, coordinate, deployPlan, newReplicaSetOf, planInterruptedOf, planJson, planStateFor,
  planTree, recoveryPlan, serviceMembers, slotPods, viewPlan,
} from '../engine/index.ts';
import { restartPatch } from './restart.ts';
import type { Plan, ServiceObjects } from '../engine/index.ts';
import { PluginError } from './errors.ts';
import type { Session } from './options.ts';
import { printData } from './options.ts';

/** The objects of the service `name` (a member Deployment's name), read fresh. */
async function serviceObjects(s: Session, name: string): Promise<ServiceObjects> {
  await s.client.getDeployment(s.namespace, name); // kubectl's NotFound when there is no such Deployment
  const [deployments, replicaSets, pods] = await Promise.all([
    s.client.list<Deployment>(DEPLOYMENTS, s.namespace),
    s.client.list<ReplicaSet>(REPLICASETS, s.namespace),
    s.client.list<Pod>(PODS, s.namespace),
  ]);
  return { deployments: serviceMembers(deployments.items, s.namespace, name), replicaSets: replicaSets.items, pods: pods.items, now: Date.now() };
}

/** The plans of the service `name`, in the SDK's priority order. */
export async function servicePlans(s: Session, name: string): Promise<Plan[]> {
  const o = await serviceObjects(s, name);
  return [deployPlan(o), recoveryPlan(o)];
}

export async function runPlanNames(s: Session, name: string, o: { output?: string }): Promise<number> {
  const names = (await servicePlans(s, name)).map((p) => p.name);
  if (o.output) printData(s.io, o.output, names);
  else s.io.stdout.write(names.map((n) => `${n}\n`).join(''));
  return 0;
}

export async function runPlanShow(s: Session, name: string, plan: string, o: { output?: string }): Promise<number> {
  const plans = await servicePlans(s, name);
  const found = plans.find((p) => p.name === plan);
  if (!found) throw new PluginError(`Plan ${plan} not found`);
  // The candidates as the coordinator hands them out: no pod to two plans.
  const view = viewPlan(found, coordinate(plans).find((x) => x.plan === plan)?.steps ?? []);
  if (o.output) printData(s.io, o.output, planJson(view, `${s.namespace}/${name}`));
  else s.io.stdout.write(planTree(view).map((l) => `${l}\n`).join(''));
  return 0;
}

/** The Event reason of each operation (on the Deployments it changed). */
const OPERATION_REASON = {
  start: 'PlanStart', stop: 'PlanStop', continue: 'PlanContinue', interrupt: 'PlanInterrupt', forceComplete: 'PlanForceComplete', restart: 'PlanRestart',
} as const;
export type PluginOperation = keyof typeof OPERATION_REASON;

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

export async function runPlanOperation(
  s: Session, service: string, op: PluginOperation, plan: string, phase: string | undefined, step?: string, parameters?: Readonly<Record<string, string>>,
): Promise<number> {
  const objects = await serviceObjects(s, service);
  if (plan === 'recovery') return recoveryOperation(s, objects, op, phase, step);
  if (plan !== 'deploy') throw new PluginError(`Plan ${plan} not found`);
  const before = deployPlan(objects);
  const out = applyOperation(before, { op, ...(phase !== undefined ? { phase } : {}), ...(step !== undefined ? { step } : {}), ...(parameters ? { parameters } : {}) });
  if (out.code === 404 || out.code === 400) throw new PluginError(out.message);
  if (out.code === 208) {
    s.io.stdout.write(`${out.message}\n`);
    return 0;
  }
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
      const patch = restartPatch(d, Date.now()) as { spec: { template: NonNullable<Deployment['spec']['template']> } };
      const c = changeOf(d);
      c.template = { ...(c.template ?? d.spec.template), metadata: { ...(c.template ?? d.spec.template)?.metadata, annotations: { ...(c.template ?? d.spec.template)?.metadata?.annotations, ...patch.spec.template.metadata!.annotations } } };
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
    s.io.stderr.write(`Warning: nothing was written: no Deployment of the service has a rollout under way that the command changes\n`);
  }
  s.io.stdout.write(`${out.message}\n`);
  return 0;
}

/**
 * The recovery plan shows the ReplicaSets' and the kubelet's work, so only a step's restart acts on
 * it (its pod replaced); its answers are the SDK's (404 for an unknown phase or step).
 */
async function recoveryOperation(s: Session, o: ServiceObjects, op: PluginOperation, phase: string | undefined, step: string | undefined): Promise<number> {
  const plan = recoveryPlan(o);
  if (op !== 'restart' || step === undefined) {
    const out = applyOperation(plan, { op, ...(phase !== undefined ? { phase } : {}), ...(step !== undefined ? { step } : {}) });
    if (out.code === 404 || out.code === 400) throw new PluginError(out.message);
    throw new PluginError(`the recovery plan shows what the ReplicaSets and the kubelet do: only "restart SERVICE recovery PHASE STEP" (the step's pod replaced) acts on it`);
  }
  const out = applyOperation(plan, { op, ...(phase !== undefined ? { phase } : {}), step });
  if (out.code === 404 || out.code === 400) throw new PluginError(out.message);
  if (out.code === 208) {
    s.io.stdout.write(`${out.message}\n`);
    return 0;
  }
  // A recovery phase is named after its pod.
  const pod = o.pods.find((p) => p.metadata.name === phase);
  if (pod) await s.client.delete(PODS, s.namespace, phase!);
  s.io.stdout.write(`${out.message}\n`);
  return 0;
}

/**
 * The Change's merge patch, guarded by the resourceVersion it was decided on. The controller's own
 * writes (status, its annotations) move that on all the time: on a 409 the Deployment is read again,
 * and the patch is sent again only if what the command was decided on (spec, the plan annotations)
 * is as it was; otherwise the conflict stands (another operator changed it) and is reported.
 */
async function patchUnlessChanged(s: Session, c: Change): Promise<void> {
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

/** `-p KEY=VALUE` flags as start's parameters (the names are checked by the operation: 400). */
export function parseParameters(flags: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of flags) {
    const at = f.indexOf('=');
    if (at < 0) throw new PluginError(`invalid parameter "${f}": expected KEY=VALUE`);
    out[f.slice(0, at)] = f.slice(at + 1);
  }
  return out;
}

/** An Event on `d` for the operator's command; a user without the right to write Events is warned, the command stands. */
async function recordOperation(s: Session, d: Deployment, reason: string, message: string): Promise<void> {
  const now = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  const name = `${d.metadata.name}.${Date.now().toString(16)}${Math.floor(Math.random() * 0xffff).toString(16)}`;
  try {
    await s.client.createEvent(s.namespace, {
      apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: s.namespace },
      involvedObject: { apiVersion: d.apiVersion, kind: d.kind, name: d.metadata.name, namespace: s.namespace, uid: d.metadata.uid },
      reason, message, type: 'Normal', source: { component: 'kubectl-pacer' }, firstTimestamp: now, lastTimestamp: now, count: 1,
      reportingComponent: 'kubectl-pacer', reportingInstance: 'kubectl-pacer',
    });
  } catch (err) {
    s.io.stderr.write(`Warning: the ${reason} event was not recorded: ${(err as Error).message}\n`);
  }
}
