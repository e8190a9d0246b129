// Revision history cleanup: old ReplicaSets beyond revisionHistoryLimit are deleted, oldest
// revision first, but only the first `count − limit` are candidates and one that still has pods
// (or an unobserved spec, or is being deleted) is skipped, not replaced by a later one.

import type { Deployment, ReplicaSet } from '../../api/types.ts';
import { revisionOf } from './annotations.ts';
import { compareByCreation, specReplicas, statusReplicas } from './replicasets.ts';

const MAX_INT32 = 2147483647;

/** revisionHistoryLimit is set and not MaxInt32. */
export function hasRevisionHistoryLimit(d: Deployment): boolean {
  const l = d.spec.revisionHistoryLimit;
  return l !== undefined && l !== null && l !== MAX_INT32;
}

/** Revision ascending; equal or unparseable revisions fall back to creationTimestamp, then name. */
export function compareByRevision(a: ReplicaSet, b: ReplicaSet): number {
  const ra = revisionOf(a);
  const rb = revisionOf(b);
  if (ra === null || rb === null || ra === rb) return compareByCreation(a, b);
  return ra < rb ? -1 : 1;
}

/** The old ReplicaSets cleanupDeployment deletes, in deletion order. */
export function replicaSetsToCleanUp(d: Deployment, oldRSs: readonly ReplicaSet[]): ReplicaSet[] {
  if (!hasRevisionHistoryLimit(d)) return [];
  const cleanable = oldRSs.filter((rs) => !rs.metadata.deletionTimestamp);
  const diff = cleanable.length - (d.spec.revisionHistoryLimit ?? 0);
  if (diff <= 0) return [];
  cleanable.sort(compareByRevision);
  const out: ReplicaSet[] = [];
  for (let i = 0; i < diff; i++) {
    const rs = cleanable[i];
    if (statusReplicas(rs) !== 0 || specReplicas(rs) !== 0) continue;
    if ((rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
    out.push(rs);
  }
  return out;
}
