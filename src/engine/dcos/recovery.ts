// The recovery plan of a service, derived from the cluster: one phase for each pod being replaced
// or restarted in place that can be told apart from a scale-up. Nothing is remembered; a finished
// recovery leaves the plan: docs/semantics/plans.md#the-recovery-plan-pacers-mapping.

import type { Deployment, Pod, ReplicaSet } from '../../api/types.ts';
import { revisionOf } from '../kubernetes/annotations.ts';
import { newReplicaSetOf, podStepStatus, slotPods } from './deploy.ts';
import type { ServiceObjects } from './deploy.ts';
import { buildPhase } from './strategy.ts';
import { buildPlan } from './tree.ts';
import type { Phase, Plan } from './types.ts';

interface ContainerStatusLite {
  name?: string;
  restartCount?: number;
}

function restarts(p: Pod): number {
  const cs = Array.isArray(p.status?.containerStatuses) ? (p.status!.containerStatuses as ContainerStatusLite[]) : [];
  return cs.reduce((n, c) => n + (c.restartCount ?? 0), 0);
}

/** The container names of a ReplicaSet's pod template (a pod's own spec says the same). */
function containersOf(rs: ReplicaSet): string[] {
  const listed = rs.spec.template?.spec?.containers;
  return Array.isArray(listed) ? listed.map((c) => String((c as { name?: unknown }).name ?? '')) : [];
}

function recoveries(d: Deployment, o: Pick<ServiceObjects, 'replicaSets' | 'pods' | 'now'>): Phase[] {
  const name = d.metadata.name ?? '';
  const minReady = d.spec.minReadySeconds ?? 0;
  const owned = o.replicaSets.filter(
    (rs) =>
      rs.metadata.namespace === d.metadata.namespace &&
      rs.metadata.ownerReferences?.some((r) => r.controller && r.uid === d.metadata.uid),
  );
  const newRS = newReplicaSetOf(d, o);
  const slots = slotPods(d, o, newRS);
  const out: Phase[] = [];
  for (const rs of owned) {
    const current = rs === newRS;
    const tasks = containersOf(rs);
    const pods = o.pods.filter(
      (p) =>
        !p.metadata.deletionTimestamp &&
        p.metadata.ownerReferences?.some((r) => r.controller && r.uid === rs.metadata.uid),
    );
    for (const p of pods) {
      const status = podStepStatus(p, minReady, o.now);
      if (status === 'COMPLETE' || (current && restarts(p) === 0)) continue;
      if (!current && restarts(p) === 0 && status === 'PENDING') continue;
      const podName = p.metadata.name ?? '';
      // The pod instance it works on: a current-template pod is the deploy plan's slot (same asset);
      // an older revision's pod is an instance of that revision.
      const slot = slots.indexOf(p);
      const requirement =
        current && slot >= 0
          ? { pod: name, index: slot, tasks }
          : { pod: `${name}@${revisionOf(rs) ?? '?'}`, index: pods.indexOf(p), tasks };
      out.push(buildPhase(podName, 'serial', [{ name: `${podName}:[${tasks.join(', ')}]`, status, requirement }]));
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** The recovery plan of the service `objects.deployments` form. */
export function recoveryPlan(o: ServiceObjects): Plan {
  return buildPlan(
    'recovery',
    'parallel',
    o.deployments.flatMap((d) => recoveries(d, o)),
  );
}
