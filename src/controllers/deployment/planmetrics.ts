// The pacer_plan_phase_* series at scrape time: each cached Deployment's phase of its service's
// deploy plan (engine/dcos/deploy.ts), from the ReplicaSet and pod caches indexed once per scrape by
// their controller's uid (no pass over every pod for every Deployment).

import type { Deployment, ObjectMeta, Pod, ReplicaSet } from '../../api/types.ts';
import { controllerOf } from '../../api/owners.ts';
import { phaseSummary } from '../../engine/index.ts';
import type { PlanPhaseSample } from '../../observe/metrics.ts';

function byController<T extends { metadata: Pick<ObjectMeta, 'ownerReferences'> }>(
  items: readonly T[],
): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const x of items) {
    const uid = controllerOf(x)?.uid;
    if (uid === undefined) continue;
    const list = out.get(uid);
    if (list) list.push(x);
    else out.set(uid, [x]);
  }
  return out;
}

export function planPhaseSamples(
  deployments: readonly Deployment[],
  replicaSets: readonly ReplicaSet[],
  pods: readonly Pod[],
  now: number,
): PlanPhaseSample[] {
  const rsBy = byController(replicaSets);
  const podsBy = byController(pods);
  return deployments.map((d) => {
    const owned = rsBy.get(d.metadata.uid ?? '') ?? [];
    const summary = phaseSummary(d, {
      replicaSets: owned,
      pods: owned.flatMap((rs) => podsBy.get(rs.metadata.uid ?? '') ?? []),
      now,
    });
    return { namespace: d.metadata.namespace ?? '', name: d.metadata.name ?? '', plan: 'deploy', ...summary };
  });
}
