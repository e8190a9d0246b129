// calculateStatus: the Deployment status computed from its ReplicaSets, with the Available
// condition recomputed and the rest of the conditions carried over. terminatingReplicas is the
// ReplicaSets' sum when every synced one reports it (Kubernetes 1.35+, terminatingReplicaSum). Pacer
// adds `ready` (the READY printer column) and `selector` (for the scale subresource) to its own
// kind, not to an apps/v1 Deployment (native mode).

import type { Deployment, DeploymentCondition, DeploymentStatus, ReplicaSet } from '../../api/types.ts';
import { isAppsDeployment } from '../../api/types.ts';
import { selectorToString } from '../../api/selector.ts';
import { AVAILABLE, INVALID_SPEC, MESSAGE, REASON, newCondition, parseTime, setCondition } from './conditions.ts';
import {
  availableReplicaSum,
  deploymentReplicas,
  readyReplicaSum,
  specReplicaSum,
  statusReplicaSum,
  terminatingReplicaSum,
} from './replicasets.ts';

/**
 * The status for `allRSs` (old and new, undefined skipped), starting from `base` (the working
 * status: its conditions and collisionCount carry over; an InvalidSpec condition is dropped).
 * `maxUnavailable` is the pass's MaxUnavailable (limits.ts): Available needs replicas − it.
 */
export function calculateStatus(
  d: Deployment,
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  base: DeploymentStatus,
  now: number,
  maxUnavailable: number,
): DeploymentStatus {
  const available = availableReplicaSum(allRSs);
  const replicas = deploymentReplicas(d);
  const ready = readyReplicaSum(allRSs);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata.generation ?? 0,
    replicas: statusReplicaSum(allRSs),
    updatedReplicas: newRS ? statusReplicaSum([newRS]) : 0,
    readyReplicas: ready,
    availableReplicas: available,
    unavailableReplicas: Math.max(0, specReplicaSum(allRSs) - available),
  };
  const terminating = terminatingReplicaSum(allRSs);
  if (terminating !== undefined) status.terminatingReplicas = terminating;
  if (base.collisionCount !== undefined) status.collisionCount = base.collisionCount;
  if (base.stableRS !== undefined) status.stableRS = base.stableRS;
  if (base.abortedRS !== undefined) status.abortedRS = base.abortedRS;
  if (base.conditions) status.conditions = base.conditions.filter((c) => c.type !== INVALID_SPEC);
  if (available >= replicas - maxUnavailable) {
    setCondition(
      status,
      newCondition(AVAILABLE, 'True', REASON.minimumReplicasAvailable, MESSAGE.minimumAvailable, now),
    );
  } else {
    setCondition(
      status,
      newCondition(AVAILABLE, 'False', REASON.minimumReplicasUnavailable, MESSAGE.minimumUnavailable, now),
    );
  }
  // Pacer's additions for its printer columns and scale subresource; apps/v1 has neither field.
  if (isAppsDeployment(d)) return status;
  status.selector = selectorToString(d.spec.selector);
  status.ready = `${ready}/${replicas}`;
  return status;
}

function conditionEqual(a: DeploymentCondition, b: DeploymentCondition): boolean {
  return (
    a.type === b.type &&
    a.status === b.status &&
    a.reason === b.reason &&
    a.message === b.message &&
    sameTime(a.lastUpdateTime, b.lastUpdateTime) &&
    sameTime(a.lastTransitionTime, b.lastTransitionTime)
  );
}

/** Two timestamps are the same instant (at millisecond precision), whatever their spelling. */
function sameTime(a: string | undefined, b: string | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return parseTime(a) === parseTime(b);
}

/**
 * Would writing `next` change the stored `prev`? Counts compare with missing = 0 (Go's omitempty);
 * collisionCount and terminatingReplicas are pointers upstream, so missing and 0 differ.
 */
export function statusEqual(prev: DeploymentStatus | undefined, next: DeploymentStatus): boolean {
  const p = prev ?? {};
  if ((p.observedGeneration ?? 0) !== (next.observedGeneration ?? 0)) return false;
  if ((p.replicas ?? 0) !== (next.replicas ?? 0)) return false;
  if ((p.updatedReplicas ?? 0) !== (next.updatedReplicas ?? 0)) return false;
  if ((p.readyReplicas ?? 0) !== (next.readyReplicas ?? 0)) return false;
  if ((p.availableReplicas ?? 0) !== (next.availableReplicas ?? 0)) return false;
  if ((p.unavailableReplicas ?? 0) !== (next.unavailableReplicas ?? 0)) return false;
  if (p.collisionCount !== next.collisionCount) return false;
  if (p.terminatingReplicas !== next.terminatingReplicas) return false;
  if ((p.selector ?? '') !== (next.selector ?? '')) return false;
  if ((p.ready ?? '') !== (next.ready ?? '')) return false;
  if (p.stableRS !== next.stableRS || p.abortedRS !== next.abortedRS) return false;
  const pc = p.conditions ?? [];
  const nc = next.conditions ?? [];
  if (pc.length !== nc.length) return false;
  for (let i = 0; i < pc.length; i++) if (!conditionEqual(pc[i], nc[i])) return false;
  return true;
}
