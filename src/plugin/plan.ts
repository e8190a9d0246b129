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
import {
  PLAN_STATE_ANNOTATION, applyOperation, deployPlan, newReplicaSetOf, planJson, planStateFor, planTree, serviceMembers, slotPods, viewPlan,
} from '../engine/index.ts';
import { restartPatch } from './restart.ts';
import type { Plan, PlanState, ServiceObjects } from '../engine/index.ts';
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
  return [deployPlan(await serviceObjects(s, name))];
}

export async function runPlanNames(s: Session, name: string, o: { output?: string }): Promise<number> {
  const names = (await servicePlans(s, name)).map((p) => p.name);
  if (o.output) printData(s.io, o.output, names);
  else s.io.stdout.write(names.map((n) => `${n}\n`).join(''));
  return 0;
}

export async function runPlanShow(s: Session, name: string, plan: string, o: { output?: string }): Promise<number> {
  const found = (await servicePlans(s, name)).find((p) => p.name === plan);
  if (!found) throw new PluginError(`Plan ${plan} not found`);
  const view = viewPlan(found);
  if (o.output) printData(s.io, o.output, planJson(view, `${s.namespace}/${name}`));
  else s.io.stdout.write(planTree(view).map((l) => `${l}\n`).join(''));
  return 0;
}

/** The Event reason of each operation (on the Deployments it changed). */
const OPERATION_REASON = { continue: 'PlanContinue', interrupt: 'PlanInterrupt', forceComplete: 'PlanForceComplete', restart: 'PlanRestart' } as const;
export type PluginOperation = keyof typeof OPERATION_REASON;

/** The state the gate should read after `after`, per Deployment: only those with a rollout under way. */
export function statesAfter(o: ServiceObjects, after: Plan): Array<{ d: Deployment; state: PlanState }> {
  const out: Array<{ d: Deployment; state: PlanState }> = [];
  for (const d of o.deployments) {
    const newRS = newReplicaSetOf(d, o);
    const phase = after.phases.find((p) => p.name === d.metadata.name);
    if (!newRS || !phase) continue;
    const before = planStateFor(d, newRS);
    const canary = new Set(phase.canary ?? []);
    const released = phase.steps.filter((st) => canary.has(st.name) && !st.interrupted).length;
    const state: PlanState = {
      revision: before.revision,
      proceeds: Math.max(before.proceeds, released),
      interrupted: phase.state.interrupted === true,
      planInterrupted: after.state.interrupted === true,
      forced: phase.steps.flatMap((st, i) => (st.forced ? [i] : [])),
    };
    if (JSON.stringify(state) !== JSON.stringify(before)) out.push({ d, state });
  }
  return out;
}

export async function runPlanOperation(
  s: Session, service: string, op: PluginOperation, plan: string, phase: string | undefined, step?: string,
): Promise<number> {
  const objects = await serviceObjects(s, service);
  if (plan !== 'deploy') throw new PluginError(`Plan ${plan} not found`);
  const before = deployPlan(objects);
  const out = applyOperation(before, { op, ...(phase !== undefined ? { phase } : {}), ...(step !== undefined ? { step } : {}) });
  if (out.code === 404 || out.code === 400) throw new PluginError(out.message);
  if (out.code === 208) {
    s.io.stdout.write(`${out.message}\n`);
    return 0;
  }
  const where = `plan ${plan}${phase ? `, phase ${phase}` : ''}${step ? `, step ${step}` : ''}`;
  const byName = new Map(objects.deployments.map((d) => [d.metadata.name, d]));
  if (op === 'restart' && step === undefined) {
    // A phase or the plan: every step again, in its strategy's order: a rollout restart.
    for (const d of phase === undefined ? objects.deployments : [byName.get(phase)!]) {
      await s.client.patchDeployment(s.namespace, d.metadata.name ?? '', restartPatch(d, Date.now()));
      await recordOperation(s, d, OPERATION_REASON[op], `${out.message}: a rollout restart`);
    }
    s.io.stdout.write(`${out.message}\n`);
    return 0;
  }
  const changes = statesAfter(objects, out.plan);
  for (const { d, state } of changes) {
    const name = d.metadata.name ?? '';
    await s.client.patchDeploymentMetadata(s.namespace, name, d.metadata.resourceVersion, { annotations: { [PLAN_STATE_ANNOTATION]: JSON.stringify(state) } });
    // forceComplete's and restart's answers name their target; continue's and interrupt's do not.
    const what = op === 'continue' || op === 'interrupt' ? `${out.message}: ${where}` : out.message;
    await recordOperation(s, d, OPERATION_REASON[op], `${what} (revision ${state.revision})`);
  }
  if (changes.length === 0 && op !== 'restart') {
    s.io.stderr.write(`Warning: nothing was written: no Deployment of the service has a rollout under way that the command changes\n`);
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
  }
  s.io.stdout.write(`${out.message}\n`);
  return 0;
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
