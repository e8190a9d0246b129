// The pacer_plan_phase_* series at scrape time: each cached Deployment's phase of its service's
// deploy plan (engine/dcos/deploy.ts), from the ReplicaSet and pod caches grouped by their
// controller's uid (no pass over every pod for every Deployment).
//
// A phase is a function of the Deployment, the ReplicaSets it controls, their pods and (only with
// minReadySeconds) the time. While the cache holds the same Deployment object (an informer replaces
// it on every change) and the same versions of its ReplicaSets and pods (their uids and
// resourceVersions, in the cache's order), the phase is the one computed at an earlier scrape: the
// sampler keeps it and hands back the same sample object, which the registry keeps its rendered
// lines by in turn (observe/metrics.ts). The caches' handlers tell the sampler which ReplicaSets and
// Deployments changed, so that a scrape reads the caches only for those: at 10,000 Deployments and
// 100,000 pods, computing every phase at each scrape was most of the scrape's time, and then
// grouping every pod and comparing every Deployment's versions was (bench/RESULTS.md). What is kept
// names the objects' versions instead of holding them, so that a rolled pod's old object is not
// kept alive until the next scrape.

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

/**
 * The versions of `objects` in order: each one's uid and resourceVersion (strings the objects
 * already hold, so nothing is copied); undefined when one lacks either.
 */
function versionsOf(
  objects: ReadonlyArray<{ metadata: Pick<ObjectMeta, 'uid' | 'resourceVersion'> }>,
): string[] | undefined {
  const out: string[] = [];
  for (const { metadata } of objects) {
    if (metadata.uid === undefined || metadata.resourceVersion === undefined) return undefined;
    out.push(metadata.uid, metadata.resourceVersion);
  }
  return out;
}

const sameVersions = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Until when (ms) a phase computed at `now` holds with the same objects: forever without
 * minReadySeconds; with it, until the first Ready pod's minReadySeconds have passed (a step turns
 * COMPLETE then without any object changing), and not past `now` when a Ready pod's transition
 * time cannot be read.
 */
export function phaseValidUntil(d: Deployment, pods: readonly Pod[], now: number): number {
  const minReady = d.spec.minReadySeconds ?? 0;
  if (!(minReady > 0)) return Infinity;
  let until = Infinity;
  for (const p of pods) {
    const ready = p.status?.conditions?.find((c) => c.type === 'Ready');
    if (ready?.status !== 'True') continue;
    const since = Date.parse(ready.lastTransitionTime ?? '');
    if (Number.isNaN(since)) return now;
    const complete = since + minReady * 1000;
    if (complete > now) until = Math.min(until, complete);
  }
  return until;
}

interface Kept {
  /** The ReplicaSets' and pods' versions it was computed from. */
  versions: string[];
  /** The uids of the ReplicaSets it was computed from. */
  replicaSets: string[];
  validUntil: number;
  sample: PlanPhaseSample;
}

/** What the caches' handlers tell the sampler: an object added, replaced (`old` given) or deleted. */
export interface PlanPhaseChanges {
  pod(obj: Pod, old?: Pod): void;
  replicaSet(obj: ReplicaSet, old?: ReplicaSet): void;
}

export interface PlanPhaseSampler extends PlanPhaseChanges {
  /**
   * The phases of `deployments`, each computed again only when its Deployment was replaced (an
   * informer replaces it on every change), a change of its ReplicaSets or their pods was reported
   * since the previous call and their versions differ, or its minReadySeconds ran out: otherwise
   * the same sample object as before, which the registry keeps its rendered lines by. The caches'
   * lists are taken (and grouped by controller) only when some Deployment needs them. They are
   * computed as they are taken, one Deployment at a time, so that the scrape taking them can give
   * the event loop back between two (observe/metrics.ts, the warmers). Changes reported while the
   * phases are being taken count for the next call.
   */
  sample(
    deployments: readonly Deployment[],
    replicaSets: () => readonly ReplicaSet[],
    pods: () => readonly Pod[],
    now: number,
  ): Iterable<PlanPhaseSample>;
}

/**
 * How many changed owners the sampler notes between two scrapes before it stops noting and counts
 * every Deployment as changed (a controller nobody scrapes would otherwise note the uid of every
 * ReplicaSet it ever saw change).
 */
export const CHANGES_NOTED = 1 << 16;

/** What changed since the last scrape: the Deployments and ReplicaSets marked, or everything. */
class Changed {
  readonly deployments = new Set<string>();
  readonly replicaSets = new Set<string>();
  everything = false;

  /** Marks the controller of `obj` (a pod's ReplicaSet, a ReplicaSet's Deployment). */
  note(kind: 'deployments' | 'replicaSets', obj: { metadata: Pick<ObjectMeta, 'ownerReferences'> } | undefined): void {
    if (this.everything) return;
    const uid = obj && controllerOf(obj)?.uid;
    if (uid === undefined) return;
    const into = this[kind];
    into.add(uid);
    if (into.size < CHANGES_NOTED) return;
    this.everything = true;
    this.deployments.clear();
    this.replicaSets.clear();
  }

  /** Whether a Deployment whose phase was computed from `replicaSets` may have changed. */
  touches(d: Deployment, replicaSets: readonly string[]): boolean {
    return (
      this.everything ||
      this.deployments.has(d.metadata.uid ?? '') ||
      replicaSets.some((uid) => this.replicaSets.has(uid))
    );
  }
}

/**
 * The Deployment controller's sampler, told of every change of the ReplicaSet and pod caches (their
 * informers' handlers). A pod's change marks its ReplicaSet (the one before and after, when its
 * controller changed), a ReplicaSet's marks its Deployment; a resync (the same object delivered
 * again) marks nothing.
 */
export function planPhaseSampler(): PlanPhaseSampler {
  const kept = new WeakMap<Deployment, Kept>();
  let changed = new Changed();
  return {
    pod(obj, old) {
      if (old === obj) return;
      changed.note('replicaSets', obj);
      changed.note('replicaSets', old);
    },
    replicaSet(obj, old) {
      if (old === obj) return;
      changed.note('deployments', obj);
      changed.note('deployments', old);
    },
    sample(deployments, replicaSets, pods, now) {
      const since = changed;
      changed = new Changed();
      // Phases not taken (a phase that threw ends the scrape) lose their marks with `since`: the
      // next scrape looks at every Deployment again.
      return samplePhases(kept, since, deployments, replicaSets, pods, now, () => {
        changed.everything = true;
      });
    },
  };
}

/**
 * The phases of `deployments`. A Deployment with a kept phase still valid at `now` that nothing in
 * `changed` touches is handed back its kept sample without any ReplicaSet or pod being looked at;
 * for the others the lists are taken and grouped by controller (once, on the first that needs
 * them), their versions compared with the kept ones, and the phase computed again when they differ.
 * `unfinished` is called when the generator ends before every phase was handed out.
 */
function* samplePhases(
  kept: WeakMap<Deployment, Kept>,
  changed: Changed,
  deployments: readonly Deployment[],
  replicaSets: () => readonly ReplicaSet[],
  pods: () => readonly Pod[],
  now: number,
  unfinished: () => void,
): Generator<PlanPhaseSample> {
  let grouped: { rsBy: Map<string, ReplicaSet[]>; podsBy: Map<string, Pod[]> } | undefined;
  const phaseOf = (d: Deployment): PlanPhaseSample => {
    const had = kept.get(d);
    if (had && now < had.validUntil && !changed.touches(d, had.replicaSets)) return had.sample;
    grouped ??= { rsBy: byController(replicaSets()), podsBy: byController(pods()) };
    const owned = grouped.rsBy.get(d.metadata.uid ?? '') ?? [];
    const ownedPods = owned.flatMap((rs) => grouped?.podsBy.get(rs.metadata.uid ?? '') ?? []);
    const rsVersions = versionsOf(owned);
    const podVersions = versionsOf(ownedPods);
    const versions = rsVersions && podVersions ? [...rsVersions, '|', ...podVersions] : undefined;
    if (had && versions && now < had.validUntil && sameVersions(had.versions, versions)) return had.sample;
    const sample: PlanPhaseSample = {
      namespace: d.metadata.namespace ?? '',
      name: d.metadata.name ?? '',
      plan: 'deploy',
      ...phaseSummary(d, { replicaSets: owned, pods: ownedPods, now }),
    };
    if (versions === undefined) kept.delete(d);
    else
      kept.set(d, {
        versions,
        replicaSets: owned.map((rs) => rs.metadata.uid ?? ''),
        validUntil: phaseValidUntil(d, ownedPods, now),
        sample,
      });
    return sample;
  };
  let handed = 0;
  try {
    for (const d of deployments) {
      const sample = phaseOf(d);
      handed++;
      yield sample;
    }
  } finally {
    if (handed < deployments.length) unfinished();
  }
}
