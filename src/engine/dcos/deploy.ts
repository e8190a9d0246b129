// The deploy plan of a service, derived from the cluster each time (level-triggered: the same
// objects always give the same plan): one phase per Deployment in dependency order, one step per
// replica slot, a step's status its pod's, each phase held as the gate holds its rollout (gate.ts):
// docs/semantics/plans.md#the-deploy-plan-of-a-service-pacers-mapping.

import type { Deployment, PlanResource, Pod, ReplicaSet } from '../../api/types.ts';
import { dependencyKeys, deploymentKey } from '../../api/dependencies.ts';
import { getCondition, INVALID_SPEC } from '../kubernetes/conditions.ts';
import { dependencyLevels, formatCycle, levelGroups } from '../marathon/dependencies.ts';
import { findNewReplicaSet } from '../kubernetes/replicasets.ts';
import { canarySlots, phaseStrategyOf, planInterruptedOf, planStateFor, releasedCanarySlots } from './gate.ts';
import { stepDisplayStatus } from './status.ts';
import { buildPlan, phaseStatus } from './tree.ts';
import type { Phase, Plan, Step, StepStatus } from './types.ts';

/** Waiting reasons that mean the kubelet backs off (the SDK's DELAYED). */
const BACK_OFF = new Set(['CrashLoopBackOff', 'ImagePullBackOff', 'ErrImagePull']);

interface ContainerStatusLite {
  state?: { waiting?: { reason?: string } };
}

/** A pod's step status, `now` in ms. */
export function podStepStatus(pod: Pod, minReadySeconds: number, now: number): StepStatus {
  const statuses = Array.isArray(pod.status?.containerStatuses)
    ? (pod.status!.containerStatuses as ContainerStatusLite[])
    : [];
  if (statuses.some((c) => BACK_OFF.has(c.state?.waiting?.reason ?? '')) || pod.status?.phase === 'Failed')
    return 'DELAYED';
  if (!(pod.spec as { nodeName?: string } | undefined)?.nodeName) return 'PREPARED';
  if (pod.status?.phase !== 'Running') return pod.status?.phase === 'Succeeded' ? 'PENDING' : 'STARTING';
  const ready = pod.status.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') return 'STARTED';
  const since = Date.parse(ready.lastTransitionTime ?? '');
  if (minReadySeconds > 0 && (Number.isNaN(since) || since + minReadySeconds * 1000 > now)) return 'STARTED';
  return 'COMPLETE';
}

/** The Deployments joined to `name` through spec.dependencies, either way (itself included). */
export function serviceMembers(all: readonly Deployment[], namespace: string, name: string): Deployment[] {
  const byKey = new Map(all.map((d) => [deploymentKey(d.metadata.namespace, d.metadata.name), d]));
  const start = deploymentKey(namespace, name);
  if (!byKey.has(start)) return [];
  const edges = new Map<string, Set<string>>();
  const link = (a: string, b: string) => (edges.get(a) ?? edges.set(a, new Set()).get(a)!).add(b);
  for (const [k, d] of byKey) {
    for (const dep of dependencyKeys(d)) {
      if (byKey.has(dep)) {
        link(k, dep);
        link(dep, k);
      }
    }
  }
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length > 0)
    for (const n of edges.get(queue.shift()!) ?? [])
      if (!seen.has(n)) {
        seen.add(n);
        queue.push(n);
      }
  return [...seen].sort().map((k) => byKey.get(k)!);
}

export interface ServiceObjects {
  /** The service's Deployments (serviceMembers). */
  readonly deployments: readonly Deployment[];
  /** ReplicaSets and pods of their namespaces (others are ignored). */
  readonly replicaSets: readonly ReplicaSet[];
  readonly pods: readonly Pod[];
  readonly now: number;
  /** The Plan resources of the namespace (custom plans); absent: none. */
  readonly plans?: readonly PlanResource[];
  /** Every Deployment of the namespace, which a custom plan's steps may name; absent: the service's. */
  readonly namespaceDeployments?: readonly Deployment[];
}

const owned = (d: Deployment, rs: ReplicaSet) =>
  rs.metadata.ownerReferences?.some((o) => o.controller && o.uid === d.metadata.uid) === true;

/** The ReplicaSet that runs `d`'s current template, among those it controls. */
export function newReplicaSetOf(d: Deployment, o: Pick<ServiceObjects, 'replicaSets'>): ReplicaSet | undefined {
  return findNewReplicaSet(
    d,
    o.replicaSets.filter((rs) => rs.metadata.namespace === d.metadata.namespace && owned(d, rs)),
  );
}

/** The pods filling `d`'s replica slots: its current template's pods, not being deleted, oldest first. */
export function slotPods(
  d: Deployment,
  o: Pick<ServiceObjects, 'replicaSets' | 'pods'>,
  newRS = newReplicaSetOf(d, o),
): Pod[] {
  if (!newRS) return [];
  return o.pods
    .filter(
      (p) =>
        p.metadata.namespace === d.metadata.namespace &&
        !p.metadata.deletionTimestamp &&
        p.metadata.ownerReferences?.some((r) => r.controller && r.uid === newRS.metadata.uid),
    )
    .sort(
      (a, b) =>
        (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
        (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
    );
}

/**
 * The phase of one Deployment (its own steps, strategy and overrides), from its ReplicaSets and
 * pods: `replicaSets` those it may own, `pods` those of its current template's ReplicaSet (or more).
 */
export function phaseOf(
  d: Deployment,
  o: Pick<ServiceObjects, 'replicaSets' | 'pods' | 'now'>,
  errors: readonly string[] = invalidSpecErrors(d),
): Phase {
  const name = d.metadata.name ?? '';
  const replicas = d.spec.replicas ?? 1;
  const listed = d.spec.template?.spec?.containers;
  const containers = Array.isArray(listed) ? listed.map((c) => String((c as { name?: unknown }).name ?? '')) : [];
  const newRS = newReplicaSetOf(d, o);
  const pods = slotPods(d, o, newRS);
  const minReady = d.spec.minReadySeconds ?? 0;
  const state = planStateFor(d, newRS);
  const forced = new Set(state.forced);
  const steps: Step[] = Array.from({ length: replicas }, (_, i) => {
    const pod = pods[i];
    const own: StepStatus = pod ? podStepStatus(pod, minReady, o.now) : 'PENDING';
    // An operator's forceComplete stands for the slot's pod until it completes by itself.
    const isForced = forced.has(i) && own !== 'COMPLETE';
    return {
      name: `${name}-${i}:[${containers.join(', ')}]`,
      status: isForced ? 'COMPLETE' : own,
      requirement: { pod: name, index: i, tasks: containers },
      ...(errors.length > 0 ? { errors } : {}),
      ...(isForced ? { forced: true } : {}),
    };
  });
  // The phase as the gate holds it (gate.ts): serial waits in slot order, the canary slots not yet
  // released wait for continue, the operator's interrupt.
  const strategy = phaseStrategyOf(d);
  const canary = canarySlots(d);
  const released = releasedCanarySlots(d, newRS);
  return {
    name,
    strategy,
    state: {
      ...(state.interrupted ? { interrupted: true } : {}),
      ...(strategy.startsWith('serial') ? { order: steps.map((st) => st.name) } : {}),
    },
    ...(canary > 0 ? { canary: steps.slice(0, canary).map((st) => st.name) } : {}),
    steps: steps.map((st, i) => (i >= released && i < canary ? { ...st, interrupted: true } : st)),
  };
}

function invalidSpecErrors(d: Deployment): string[] {
  const invalid = getCondition(d.status, INVALID_SPEC);
  return invalid?.status === 'True' ? [invalid.message ?? 'invalid spec'] : [];
}

/** The deploy plan of the service `objects.deployments` form. */
export function deployPlan(o: ServiceObjects): Plan {
  const { levels, cycles } = dependencyLevels(o.deployments);
  const key = (d: Deployment) => deploymentKey(d.metadata.namespace, d.metadata.name);
  const byKey = new Map(o.deployments.map((d) => [key(d), d]));
  const ordered = levelGroups(levels)
    .flat()
    .map((k) => byKey.get(k)!);
  const unlevelled = o.deployments.filter((d) => !levels.has(key(d))).sort((a, b) => key(a).localeCompare(key(b)));
  const phases = [...ordered, ...unlevelled].map((d) => {
    const errors = invalidSpecErrors(d);
    if (!levels.has(key(d))) {
      const cycle = cycles.find((c) => c.includes(key(d)));
      errors.push(
        cycle ? `dependency cycle: ${formatCycle(cycle, d.metadata.namespace)}` : 'depends on a dependency cycle',
      );
    }
    return phaseOf(d, o, errors);
  });
  const planInterrupted = o.deployments.some(planInterruptedOf);
  return buildPlan('deploy', 'serial', phases, { interrupted: planInterrupted });
}

/** One Deployment's phase as the metrics show it: strategy, aggregate status, steps by status. */
export function phaseSummary(
  d: Deployment,
  o: Pick<ServiceObjects, 'replicaSets' | 'pods' | 'now'>,
): { strategy: string; status: string; steps: Record<string, number> } {
  const phase = phaseOf(d, o);
  const steps: Record<string, number> = {};
  for (const st of phase.steps) {
    const status = stepDisplayStatus(st);
    steps[status] = (steps[status] ?? 0) + 1;
  }
  return { strategy: phase.strategy, status: phaseStatus(phase).status, steps };
}
