// Which ReplicaSets belong to a Deployment (ClaimReplicaSets): those with its controller
// ownerReference whose labels still match; matching orphans are adopted; owned ones that no
// longer match are released. ReplicaSets controlled by anything else are left alone.

import type { Deployment, OwnerReference, ReplicaSet } from '../../api/types.ts';
import { API_VERSION, APPS_API_VERSION, KIND, isAppsDeployment } from '../../api/types.ts';
import { selectorMatches } from '../../api/selector.ts';
import { controllerOf } from '../../api/owners.ts';

export interface Claim {
  /** The Deployment's ReplicaSets after adoption (adopted ones as updated), in input order. */
  owned: ReplicaSet[];
  /** Orphans that get the controller ownerReference (as they should be stored). */
  adopted: ReplicaSet[];
  /** Owned ReplicaSets that lose the ownerReference (as they should be stored). */
  released: ReplicaSet[];
  /** Adoptions and releases in input order: the writes to issue. */
  writes: ReplicaSet[];
}

/** The controller ownerReference a Deployment puts on its ReplicaSets (metav1.NewControllerRef). */
export function newControllerRef(d: Deployment): OwnerReference {
  return {
    apiVersion: isAppsDeployment(d) ? APPS_API_VERSION : API_VERSION,
    kind: KIND,
    name: d.metadata.name ?? '',
    uid: d.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

export function claimReplicaSets(d: Deployment, candidates: readonly ReplicaSet[]): Claim {
  const uid = d.metadata.uid;
  const deleting = d.metadata.deletionTimestamp !== undefined;
  const owned: ReplicaSet[] = [];
  const adopted: ReplicaSet[] = [];
  const released: ReplicaSet[] = [];
  const writes: ReplicaSet[] = [];
  for (const rs of candidates) {
    const ref = controllerOf(rs);
    const matches = selectorMatches(d.spec.selector, rs.metadata.labels);
    if (ref) {
      if (ref.uid !== uid) continue; // someone else's
      if (matches) {
        owned.push(rs);
        continue;
      }
      if (deleting) continue;
      const refs = (rs.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
      const metadata = { ...rs.metadata };
      if (refs.length > 0) metadata.ownerReferences = refs;
      else delete metadata.ownerReferences;
      released.push({ ...rs, metadata });
      writes.push(released[released.length - 1]);
      continue;
    }
    if (deleting || !matches || rs.metadata.deletionTimestamp) continue;
    if (d.metadata.namespace && rs.metadata.namespace && d.metadata.namespace !== rs.metadata.namespace) continue;
    const after: ReplicaSet = {
      ...rs,
      metadata: { ...rs.metadata, ownerReferences: [...(rs.metadata.ownerReferences ?? []), newControllerRef(d)] },
    };
    adopted.push(after);
    owned.push(after);
    writes.push(after);
  }
  return { owned, adopted, released, writes };
}
