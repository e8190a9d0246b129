// The steps of a fleet's rollouts, from a watch of its ReplicaSets (upstream.bench.ts): how often
// the Deployment controller scaled a new ReplicaSet up and an old one down, and for each scale-down
// how far it fell short of what the ReplicaSets' availability at that moment allowed. Two
// controllers that apply the same rule to the same states take the same steps; one that scales down
// by less than the availability it could have seen is acting on an older status (or acting between
// two status updates that the other saw together), and needs more, smaller steps. Pure: the bench
// feeds it the watch's events.

/** What the tally reads of a ReplicaSet. */
export interface ReplicaSetView {
  metadata: {
    name: string;
    creationTimestamp?: string;
    ownerReferences?: Array<{ name: string; controller?: boolean }>;
  };
  spec?: { replicas?: number };
  status?: { availableReplicas?: number };
}

export interface StepTally {
  /** spec.replicas raised on a Deployment's newest ReplicaSet (a create is not counted). */
  scaleUps: number;
  /** spec.replicas lowered on an older ReplicaSet. */
  scaleDowns: number;
  /** Scale-downs that took fewer replicas down than the availability then allowed. */
  shortScaleDowns: number;
  /** Replicas those scale-downs left up that the availability then allowed to go. */
  replicasLeft: number;
}

/**
 * Keeps every ReplicaSet of one namespace as last seen and tallies the scaling steps. `minAvailable`
 * is what a rolling update keeps available (replicas - maxUnavailable): 8 of 10 at 25%.
 */
export class StepCounter {
  private readonly minAvailable: number;
  private readonly seen = new Map<string, { owner: string; created: string; replicas: number; available: number }>();
  readonly tally: StepTally = { scaleUps: 0, scaleDowns: 0, shortScaleDowns: 0, replicasLeft: 0 };

  constructor(minAvailable: number) {
    if (!Number.isInteger(minAvailable) || minAvailable < 0)
      throw new Error(`StepCounter: minAvailable must be a whole number of replicas, got ${minAvailable}`);
    this.minAvailable = minAvailable;
  }

  /** One watch event: ADDED or MODIFIED with the ReplicaSet as it now is, DELETED as it was. */
  observe(type: 'ADDED' | 'MODIFIED' | 'DELETED', rs: ReplicaSetView): void {
    const name = rs.metadata.name;
    if (type === 'DELETED') {
      this.seen.delete(name);
      return;
    }
    const owner = rs.metadata.ownerReferences?.find((r) => r.controller)?.name;
    if (owner === undefined) return;
    const now = {
      owner,
      created: rs.metadata.creationTimestamp ?? '',
      replicas: rs.spec?.replicas ?? 0,
      available: rs.status?.availableReplicas ?? 0,
    };
    const before = this.seen.get(name);
    if (before && now.replicas !== before.replicas) this.step(name, before, now.replicas);
    this.seen.set(name, now);
  }

  private step(name: string, before: { owner: string; created: string; replicas: number }, to: number): void {
    const siblings = [...this.seen].filter(([, r]) => r.owner === before.owner);
    const newest = siblings.reduce((a, b) => (b[1].created > a[1].created ? b : a))[0];
    if (to > before.replicas) {
      if (name === newest) this.tally.scaleUps++;
      return;
    }
    if (name === newest) return; // a new ReplicaSet scaled down: a newer change, not a rollout's step
    this.tally.scaleDowns++;
    // Upstream's rolling update takes down what is available above minAvailable, at most the old
    // ReplicaSet's size (scaleDownOldReplicaSetsForRollingUpdate), judged from the states seen now.
    const available = siblings.reduce((n, [, r]) => n + r.available, 0);
    const allowed = Math.min(before.replicas, Math.max(0, available - this.minAvailable));
    const taken = before.replicas - to;
    if (taken < allowed) {
      this.tally.shortScaleDowns++;
      this.tally.replicasLeft += allowed - taken;
    }
  }
}
