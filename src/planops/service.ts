// Operator commands on a service's plans, carried out through the API server: the one
// implementation behind `kubectl pacer plan ...` and the controller's POST .../plans/<plan>/<op>
// (docs/semantics/plans.md). A service is a Deployment with the Deployments joined to it through
// spec.dependencies; its plans are derived fresh from the Deployments, ReplicaSets and pods
// (engine/dcos/), the SDK's operation is applied to them (its answers: 200, 208, 400, 404), and the
// result is written where the gate reads it: each changed Deployment's pacer.dev/plan-state (for
// the revision rolling out: released canary steps, the phase's interrupt, forced slots) and
// pacer.dev/plan-interrupted (the plan's), by merge patches guarded by the resourceVersion they
// were decided on. restart acts as Kubernetes does: a step's pod is deleted (its ReplicaSet starts
// a new one), a phase or the plan is rollout-restarted (a new rollout, under its gate); start's
// parameters become env in every pod template. Each change is an Event on the Deployment it changed.

import type { Deployment, ObjectMeta, PlanResource, Pod, ReplicaSet } from '../api/types.ts';
import { API_VERSION, PLAN_KIND } from '../api/types.ts';
import { DEPLOYMENTS, PLANS, PODS, REPLICASETS } from '../kube/client.ts';
import type { KubeClient, ResourceType } from '../kube/client.ts';
import { KubeError, isKind } from '../kube/errors.ts';
import { metaTime } from '../kube/clock.ts';
import {
  CUSTOM_PLAN_STATE_ANNOTATION,
  PLAN_INTERRUPTED_ANNOTATION,
  PLAN_STATE_ANNOTATION,
  applyOperation,
  customPlan,
  customPlanStateFor,
  deployPlan,
  newReplicaSetOf,
  planInterruptedOf,
  planStateFor,
  planStepNames,
  planTargets,
  recoveryPlan,
  serviceMembers,
  slotPods,
  viewPlan,
} from '../engine/index.ts';
import type { CustomPlanState } from '../engine/index.ts';
import type { Operation, Plan, ServiceObjects } from '../engine/index.ts';

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
export const RECOVERY_ONLY_RESTART =
  'the recovery plan shows what the ReplicaSets and the kubelet do: only "restart SERVICE recovery PHASE STEP" (the step\'s pod replaced) acts on it';

/** A service's objects, and whether the cluster serves Plan resources (custom plans). */
export type ServiceView = ServiceObjects & { plansServed: boolean };

/** The objects of the service `name` (a member Deployment's name), read fresh; kubectl's NotFound without it. */
export async function serviceObjects(
  s: Pick<Target, 'client' | 'namespace' | 'now'>,
  name: string,
): Promise<ServiceView> {
  await s.client.getDeployment(s.namespace, name);
  const [deployments, replicaSets, pods, plans] = await Promise.all([
    s.client.list<Deployment>(DEPLOYMENTS, s.namespace),
    s.client.list<ReplicaSet>(REPLICASETS, s.namespace),
    s.client.list<Pod>(PODS, s.namespace),
    // Without the Plan CRD there are no custom plans (404), the service's own plans still are.
    s.client.list<PlanResource>(PLANS, s.namespace).catch((err: unknown) => {
      if (isKind(err, 'NotFound')) return undefined;
      throw err;
    }),
  ]);
  return {
    deployments: serviceMembers(deployments.items, s.namespace, name),
    namespaceDeployments: deployments.items,
    replicaSets: replicaSets.items,
    pods: pods.items,
    plans: plans?.items ?? [],
    plansServed: plans !== undefined,
    now: s.now?.() ?? Date.now(),
  };
}

/** `template` with kubectl.kubernetes.io/restartedAt = `now` (RFC 3339, UTC, whole seconds): a rollout restart. */
export function restartedTemplate(
  template: Deployment['spec']['template'],
  now: number,
): NonNullable<Deployment['spec']['template']> {
  const at = metaTime(now);
  return {
    ...template,
    metadata: {
      ...template?.metadata,
      annotations: { ...template?.metadata?.annotations, [RESTARTED_AT_ANNOTATION]: at },
    },
  };
}

/** The Event reason of each operation (on the Deployments it changed). */
const OPERATION_REASON = {
  start: 'PlanStart',
  stop: 'PlanStop',
  continue: 'PlanContinue',
  interrupt: 'PlanInterrupt',
  forceComplete: 'PlanForceComplete',
  restart: 'PlanRestart',
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
      const was = {
        revision: before.revision,
        proceeds: before.proceeds,
        interrupted: before.interrupted,
        forced: [...before.forced],
      };
      if (JSON.stringify(state) !== JSON.stringify(was)) {
        annotations[PLAN_STATE_ANNOTATION] = JSON.stringify(state);
        revision = state.revision;
      }
    }
    const interrupted = after.state.interrupted === true;
    if (interrupted !== planInterruptedOf(d)) annotations[PLAN_INTERRUPTED_ANNOTATION] = interrupted ? 'true' : null;
    if (Object.keys(annotations).length > 0)
      out.push({ d, annotations, ...(revision !== undefined ? { revision } : {}) });
  }
  return out;
}

/** The SDK operation a command asks for (its phase, step and parameters only when given). */
function operationOf(cmd: PlanCommand): Operation {
  const { op, phase, step, parameters } = cmd;
  return {
    op,
    ...(phase !== undefined ? { phase } : {}),
    ...(step !== undefined ? { step } : {}),
    ...(parameters ? { parameters } : {}),
  };
}

/** `template` with `env` set on every container (start's parameters), or undefined when it already has them. */
export function withParameters(
  template: Deployment['spec']['template'],
  env: Readonly<Record<string, string>>,
): NonNullable<Deployment['spec']['template']> | undefined {
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
  if (plan !== 'deploy') {
    const own = new Set(objects.deployments.map((d) => d.metadata.name));
    const custom = objects.plans?.find((p) => p.metadata.name === plan && planStepNames(p).some((n) => own.has(n)));
    if (!custom) return { code: 404, message: `Plan ${plan} not found`, warnings: [] };
    return customOperation(s, objects, custom, o);
  }
  const before = deployPlan(objects);
  const out = applyOperation(before, operationOf(o));
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
  const restartAll =
    op === 'stop' || (op === 'start' && viewPlan(before).status === 'COMPLETE' && !changes.some((c) => c.template));
  if ((op === 'restart' && step === undefined) || restartAll) {
    for (const d of phase === undefined ? objects.deployments : [byName.get(phase)!]) {
      const c = changeOf(d);
      c.template = restartedTemplate(c.template ?? d.spec.template, s.now?.() ?? Date.now());
      restarted.add(d);
    }
  }
  for (const c of changes) {
    await patchUnlessChanged(s, c);
    // forceComplete's and restart's answers name their target; the others do not.
    const what = op === 'continue' || op === 'interrupt' ? `${out.message}: ${where}` : out.message;
    const how = [
      c.revision !== undefined ? `revision ${c.revision}` : '',
      restarted.has(c.d) ? 'a rollout restart' : c.template ? 'new pod template' : '',
    ].filter((x) => x);
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
async function recoveryOperation(
  s: Target,
  o: ServiceObjects,
  op: PlanOperationName,
  phase: string | undefined,
  step: string | undefined,
): Promise<OperationResult> {
  const plan = recoveryPlan(o);
  const out = applyOperation(plan, {
    op,
    ...(phase !== undefined ? { phase } : {}),
    ...(step !== undefined ? { step } : {}),
  });
  if (out.code === 404 || out.code === 400) return { code: out.code, message: out.message, warnings: [] };
  if (op !== 'restart' || step === undefined) return { code: 400, message: RECOVERY_ONLY_RESTART, warnings: [] };
  if (out.code === 208) return { code: 208, message: out.message, warnings: [] };
  // A recovery phase is named after its pod.
  const pod = o.pods.find((p) => p.metadata.name === phase);
  if (pod) await s.client.delete(PODS, s.namespace, phase!);
  return { code: 200, message: out.message, warnings: [] };
}

/**
 * The Change's merge patch, guarded by the resourceVersion it was decided on (patchGuarded): what
 * it was decided on is the spec and the plan annotations.
 */
async function patchUnlessChanged(s: Target, c: Change): Promise<void> {
  const decidedOn = (d: Deployment) =>
    JSON.stringify([
      d.metadata.generation,
      d.metadata.annotations?.[PLAN_STATE_ANNOTATION],
      d.metadata.annotations?.[PLAN_INTERRUPTED_ANNOTATION],
    ]);
  const patch = {
    metadata: Object.keys(c.annotations).length > 0 ? { annotations: c.annotations } : {},
    ...(c.template ? { spec: { template: c.template } } : {}),
  };
  await patchGuarded(s, DEPLOYMENTS, c.d, patch, decidedOn);
}

/**
 * A merge patch of `obj`, guarded by the resourceVersion it was decided on. The controller's own
 * writes (status, its annotations) move that on all the time: on a 409 the object is read again,
 * and the patch is sent again only if what the command was decided on (`decidedOn`) is as it was;
 * otherwise the conflict stands (another operator changed it) and is reported.
 */
async function patchGuarded<T extends { metadata: ObjectMeta }>(
  s: Target,
  type: ResourceType,
  obj: T,
  patch: { metadata: Record<string, unknown> } & Record<string, unknown>,
  decidedOn: (x: T) => string,
): Promise<T> {
  const name = obj.metadata.name ?? '';
  let resourceVersion = obj.metadata.resourceVersion;
  for (let attempt = 0; ; attempt++) {
    try {
      return await s.client.patch<T>(
        type,
        s.namespace,
        name,
        { ...patch, metadata: { ...patch.metadata, resourceVersion } },
        'merge',
      );
    } catch (err) {
      if (!(err instanceof KubeError) || err.kind !== 'Conflict' || attempt >= 4) throw err;
      // Read again by a list of the one name: the verbs the plan commands already need (list, patch).
      const fresh = (await s.client.list<T>(type, s.namespace, { fieldSelector: `metadata.name=${name}` })).items[0];
      if (!fresh || decidedOn(fresh) !== decidedOn(obj)) throw err;
      resourceVersion = fresh.metadata.resourceVersion;
    }
  }
}

/** An Event on `d` (a Deployment, a Plan, the freeze switch) for the operator's command; a user without the right to write Events is warned, the command stands. */
export async function recordOperation(
  s: Target,
  d: { apiVersion?: string; kind?: string; metadata: ObjectMeta },
  reason: string,
  message: string,
): Promise<void> {
  const now = metaTime(s.now?.() ?? Date.now());
  const name = `${d.metadata.name}.${Date.now().toString(16)}${Math.floor(Math.random() * 0xffff).toString(16)}`;
  try {
    await s.client.createEvent(s.namespace, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: s.namespace },
      involvedObject: {
        apiVersion: d.apiVersion,
        kind: d.kind,
        name: d.metadata.name,
        namespace: s.namespace,
        uid: d.metadata.uid,
      },
      reason,
      message,
      type: 'Normal',
      source: { component: s.component },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      reportingComponent: s.component,
      reportingInstance: s.component,
    });
  } catch (err) {
    s.warn?.(`the ${reason} event was not recorded: ${(err as Error).message}`);
  }
}

/**
 * An operation on a custom plan (a Plan resource). The SDK's answer comes from the plan as it
 * stands; a 200 is carried out in Kubernetes terms: start's parameters become env in the pod
 * templates of every Deployment the plan names; stop, a restart, and start of a COMPLETE plan
 * that changes nothing rollout-restart the Deployments concerned (a step is one Deployment);
 * then the Plan's pacer.dev/plan-state records the operator's overrides for the run those
 * templates now carry. Templates are written first: until the Plan's state follows, the new run
 * counts as not started, and the Deployments wait.
 */
async function customOperation(s: Target, o: ServiceView, p: PlanResource, cmd: PlanCommand): Promise<OperationResult> {
  const { op, phase, step, parameters } = cmd;
  const all = o.namespaceDeployments ?? o.deployments;
  const lookup = (name: string) => all.find((d) => d.metadata.name === name);
  const state = customPlanStateFor(p, planTargets(p, lookup));
  const before = customPlan(p, lookup, state);
  const out = applyOperation(before, operationOf(cmd));
  if (out.code !== 200) return { code: out.code, message: out.message, warnings: [] };
  const names = before.phases.flatMap((ph) => ph.steps.map((st) => st.name));
  const templates = new Map<string, NonNullable<Deployment['spec']['template']>>();
  if (op === 'start' && parameters && Object.keys(parameters).length > 0) {
    for (const name of names) {
      const d = lookup(name);
      const t = d && withParameters(d.spec.template, parameters);
      if (t) templates.set(name, t);
    }
  }
  const restartAll =
    op === 'stop' || (op === 'start' && viewPlan(before).status === 'COMPLETE' && templates.size === 0);
  if (op === 'restart' || restartAll) {
    const scope =
      restartAll || phase === undefined
        ? names
        : step !== undefined
          ? [step]
          : before.phases.find((ph) => ph.name === phase)!.steps.map((st) => st.name);
    for (const name of scope) {
      const d = lookup(name);
      if (d) templates.set(name, restartedTemplate(templates.get(name) ?? d.spec.template, s.now?.() ?? Date.now()));
    }
  }
  const warnings: string[] = [];
  // As stored: the API server defaults what a template leaves out, and the run is the stored template's.
  const written = new Map<string, Deployment>();
  for (const [name, template] of templates) {
    written.set(
      name,
      await patchGuarded(s, DEPLOYMENTS, lookup(name)!, { metadata: {}, spec: { template } }, (x) =>
        String(x.metadata.generation),
      ),
    );
  }
  // The run the Deployments now carry, and the overrides the operation leaves.
  const targets = planTargets(p, (name) => written.get(name) ?? lookup(name));
  const next: CustomPlanState = {
    targets,
    interrupted: out.plan.state.interrupted === true,
    phases: Object.fromEntries(
      out.plan.phases.map((ph) => {
        const canary = ph.canary ?? [];
        const released = canary.filter((n) => ph.steps.find((st) => st.name === n)?.interrupted !== true).length;
        // The canary stays as the SDK's strategy keeps it: a restart or stop does not arm it again.
        return [
          ph.name,
          {
            ...(ph.state.interrupted ? { interrupted: true } : {}),
            ...(canary.length > 0 ? { proceeds: released, canary: [...canary] } : {}),
          },
        ];
      }),
    ),
    // A restarted or re-run step is no longer forced.
    forced: out.plan.phases.flatMap((ph) =>
      ph.steps.filter((st) => st.forced && !templates.has(st.name)).map((st) => `${ph.name}/${st.name}`),
    ),
  };
  const decidedOn = (x: PlanResource) =>
    JSON.stringify([x.metadata.generation, x.metadata.annotations?.[CUSTOM_PLAN_STATE_ANNOTATION]]);
  await patchGuarded(
    s,
    PLANS,
    p,
    { metadata: { annotations: { [CUSTOM_PLAN_STATE_ANNOTATION]: JSON.stringify(next) } } },
    decidedOn,
  );
  const where = `plan ${p.metadata.name}${phase ? `, phase ${phase}` : ''}${step ? `, step ${step}` : ''}`;
  const what = op === 'continue' || op === 'interrupt' ? `${out.message}: ${where}` : out.message;
  const how =
    templates.size > 0
      ? ` (${op === 'start' && parameters && Object.keys(parameters).length > 0 ? 'new pod templates' : 'a rollout restart'}: ${[...templates.keys()].join(', ')})`
      : '';
  await recordOperation(s, { ...p, apiVersion: API_VERSION, kind: PLAN_KIND }, OPERATION_REASON[op], `${what}${how}`);
  // A missing Deployment's target is '': its step is an ERROR that holds the plan.
  const missing = Object.entries(targets)
    .filter(([, hash]) => hash === '')
    .map(([name]) => name);
  if (missing.length > 0) warnings.push(`the plan names Deployments that do not exist: ${missing.join(', ')}`);
  return { code: 200, message: out.message, warnings };
}
