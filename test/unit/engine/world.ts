// The tiny world the engine's property tests run rollouts in: a Deployment and its ReplicaSets,
// where each ReplicaSet's pods follow its size at once (new pods unavailable, scale-downs taking the
// unavailable pods first) and pods turn available in an order the test's random mask decides.

import type { Deployment, ReplicaSet } from '../../../src/api/types.ts';
import type { Decision } from '../../../src/engine/types.ts';

export interface World {
  d: Deployment;
  rss: ReplicaSet[];
  now: number;
}

/** The world after the pass's writes. */
export function apply(decision: Decision, now: number): World {
  const rss = decision.objects.replicaSets.map((rs) => {
    const spec = rs.spec.replicas ?? 1;
    const available = Math.min(rs.status?.availableReplicas ?? 0, spec);
    return {
      ...rs,
      status: {
        replicas: spec,
        readyReplicas: available,
        availableReplicas: available,
        observedGeneration: rs.metadata.generation ?? 1,
      },
    };
  });
  return { d: decision.objects.deployment, rss, now };
}

/** Some unavailable pods turn available, as the mask decides (all of them with `all`). */
export function ripen(w: World, mask: number[], all = false): World {
  const rss = w.rss.map((rs, i) => {
    const pods = rs.status?.replicas ?? 0;
    const available = rs.status?.availableReplicas ?? 0;
    const gain = all ? pods - available : Math.min(pods - available, mask[i % mask.length] % (pods - available + 1));
    if (gain <= 0) return rs;
    return { ...rs, status: { ...rs.status!, readyReplicas: available + gain, availableReplicas: available + gain } };
  });
  return { ...w, rss };
}

/** Σ spec.replicas after each write of the pass, in the order issued: the highest. */
export function peakDuring(before: readonly ReplicaSet[], decision: Decision): number {
  const sizes = new Map(before.map((r) => [r.metadata.name, r.spec.replicas ?? 1]));
  const total = () => [...sizes.values()].reduce((a, b) => a + b, 0);
  let most = total();
  for (const a of decision.actions) {
    if (a.verb === 'create' || a.verb === 'scale') sizes.set(a.name, a.replicas);
    else if (a.verb === 'delete') sizes.delete(a.name);
    most = Math.max(most, total());
  }
  return most;
}
