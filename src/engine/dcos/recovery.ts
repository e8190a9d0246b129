// The recovery plan of a service, derived from the cluster (docs/semantics/plans.md#the-recovery-plan-pacers-mapping).
// In the DC/OS SDK it relaunches failed tasks into their own configuration, never the new one. In
// Kubernetes the ReplicaSets and the kubelet do that work; the plan shows it. Kubernetes replaces
// pods by count, not by identity, so from the objects alone a replacement of a current-template pod
// looks like a scale-up (it fills the deploy plan's last slot). What can be told apart, and is shown:
//   * a pod of an older revision that is not available: its own ReplicaSet replaced it (a rollout's
//     old ReplicaSets only shrink), into its own revision;
//   * a pod restarting in place (a container restarted and the pod is not available): the kubelet's
//     back-off, crash loops and failing liveness probes, whatever its revision.
// One phase per such pod (serial, one step `<pod>:[<containers>]`, its status the pod's); the plan
// is parallel and, with nothing to recover, empty: COMPLETE. A current-template pod restarting in
// place is also a deploy step: the two steps name the same pod instance, so the coordinator gives it
// to the deploy plan (its priority), as the SDK's dirty assets do. Finished recoveries leave the
// plan (Pacer keeps no memory of them; their Events remain).

import type { Deployment, Pod, ReplicaSet } from '../../api/types.ts';
import { revisionOf } from '../kubernetes/annotations.ts';
import { newReplicaSetOf, podStepStatus, slotPods } from './deploy.ts';
import type { ServiceObjects } from './deploy.ts';
import { buildPhase } from './strategy.ts';
import { buildPlan } from './tree.ts';
import type { Phase, Plan } from './types.ts';

interface ContainerStatusLite { name?: string; restartCount?: number }

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
  const owned = o.replicaSets.filter((rs) => rs.metadata.namespace === d.metadata.namespace && rs.metadata.ownerReferences?.some((r) => r.controller && r.uid === d.metadata.uid));
  const newRS = newReplicaSetOf(d, o);
  const slots = slotPods(d, o, newRS);
  const out: Phase[] = [];
  for (const rs of owned) {
    const current = rs === newRS;
    const tasks = containersOf(rs);
    const pods = o.pods.filter((p) => !p.metadata.deletionTimestamp && p.metadata.ownerReferences?.some((r) => r.controller && r.uid === rs.metadata.uid));
    for (const p of pods) {
      const status = podStepStatus(p, minReady, o.now);
      if (status === 'COMPLETE' || (current && restarts(p) === 0)) continue;
      if (!current && restarts(p) === 0 && status === 'PENDING') continue;
      const podName = p.metadata.name ?? '';
      // The pod instance it works on: a current-template pod is the deploy plan's slot (same asset);
      // an older revision's pod is an instance of that revision.
      const slot = slots.indexOf(p);
      const requirement = current && slot >= 0
        ? { pod: name, index: slot, tasks }
        : { pod: `${name}@${revisionOf(rs) ?? '?'}`, index: pods.indexOf(p), tasks };
      out.push(buildPhase(podName, 'serial', [{ name: `${podName}:[${tasks.join(', ')}]`, status, requirement }]));
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** The recovery plan of the service `objects.deployments` form. */
export function recoveryPlan(o: ServiceObjects): Plan {
  return buildPlan('recovery', 'parallel', o.deployments.flatMap((d) => recoveries(d, o)));
}
