// Queries over a Deployment's ReplicaSets: ordering, which one is new, which are old or active,
// replica sums, and the helpers the scaling path uses (FindActiveOrLatest, IsSaturated).

import type { Deployment, ReplicaSet } from '../../api/types.ts';
import { DESIRED_REPLICAS_ANNOTATION, desiredReplicasAnnotation } from './annotations.ts';
import { equalIgnoreHash } from './template.ts';
import { POD_TEMPLATE_HASH_LABEL } from './hash.ts';
import { parseTime } from './conditions.ts';

/** spec.replicas; the API server defaults a missing value to 1 (apps/v1). */
export function specReplicas(rs: ReplicaSet): number {
  return rs.spec.replicas ?? 1;
}

/** The Deployment's spec.replicas (defaults applied by the engine beforehand). */
export function deploymentReplicas(d: Deployment): number {
  return d.spec.replicas ?? 1;
}

export function statusReplicas(rs: ReplicaSet): number {
  return rs.status?.replicas ?? 0;
}

export function availableReplicas(rs: ReplicaSet): number {
  return rs.status?.availableReplicas ?? 0;
}

export function readyReplicas(rs: ReplicaSet): number {
  return rs.status?.readyReplicas ?? 0;
}

function creationMs(rs: ReplicaSet): number {
  const t = rs.metadata.creationTimestamp;
  if (t === undefined) return Number.NEGATIVE_INFINITY;
  const ms = parseTime(t);
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
}

function isSortedByCreation(rss: readonly ReplicaSet[]): boolean {
  for (let i = 1; i < rss.length; i++) if (compareByCreation(rss[i - 1], rss[i]) > 0) return false;
  return true;
}

function compareNames(a: ReplicaSet, b: ReplicaSet): number {
  const an = a.metadata.name ?? '';
  const bn = b.metadata.name ?? '';
  return an < bn ? -1 : an > bn ? 1 : 0;
}

/** Oldest first: creationTimestamp ascending, then name ascending. */
export function compareByCreation(a: ReplicaSet, b: ReplicaSet): number {
  const at = a.metadata.creationTimestamp;
  const bt = b.metadata.creationTimestamp;
  if (at !== bt) {
    const d = creationMs(a) - creationMs(b);
    if (d !== 0 && !Number.isNaN(d)) return d < 0 ? -1 : 1;
  }
  return compareNames(a, b);
}

/** A sorted copy, oldest first. */
export function sortByCreation(rss: readonly ReplicaSet[]): ReplicaSet[] {
  // Lists usually arrive in creation order already: check before sorting.
  return rss.length < 2 || isSortedByCreation(rss) ? [...rss] : [...rss].sort(compareByCreation);
}

/** A sorted copy, newest first. */
export function sortByCreationNewestFirst(rss: readonly ReplicaSet[]): ReplicaSet[] {
  return [...rss].sort((a, b) => compareByCreation(b, a));
}

// Template comparisons are remembered per pair of template objects, so a template is compared
// once per change rather than once per pass. Snapshots are treated as immutable: an object that
// is changed in place (instead of replaced) would be answered from this memo.
const templateMemo = new WeakMap<object, { against: object; equal: boolean }>();

function templateMatches(
  rsTemplate: ReplicaSet['spec']['template'],
  dTemplate: Deployment['spec']['template'],
): boolean {
  if (!rsTemplate || !dTemplate) return equalIgnoreHash(rsTemplate, dTemplate);
  const hit = templateMemo.get(rsTemplate);
  if (hit && hit.against === dTemplate) return hit.equal;
  const equal = equalIgnoreHash(rsTemplate, dTemplate);
  templateMemo.set(rsTemplate, { against: dTemplate, equal });
  return equal;
}

/**
 * The new ReplicaSet: the oldest one whose template equals the Deployment's (ignoring the hash
 * label), or whose pod-template-hash label is the Deployment template's current hash.
 *
 * The second test is Pacer's, not upstream's: the API server fills in pod defaults
 * (dnsPolicy, imagePullPolicy, ...) on a ReplicaSet's template but not on the template inside a
 * custom resource, so the ReplicaSet created for a template never compares equal to it again.
 * The hash label names the template it was created from (as Argo Rollouts finds its ReplicaSets).
 * Equality still finds a ReplicaSet whose template was copied back verbatim (rollout undo).
 */
export function findNewReplicaSet(d: Deployment, rss: readonly ReplicaSet[], hash?: string): ReplicaSet | undefined {
  let found: ReplicaSet | undefined;
  for (const rs of rss) {
    if (found && compareByCreation(found, rs) <= 0) continue;
    if (
      (hash !== undefined && rs.metadata.labels?.[POD_TEMPLATE_HASH_LABEL] === hash) ||
      templateMatches(rs.spec.template, d.spec.template)
    )
      found = rs;
  }
  return found;
}

/** Every ReplicaSet but the new one (by uid, else by name). */
export function findOldReplicaSets(rss: readonly ReplicaSet[], newRS: ReplicaSet | undefined): ReplicaSet[] {
  if (!newRS) return [...rss];
  return rss.filter((rs) => !sameReplicaSet(rs, newRS));
}

export function sameReplicaSet(a: ReplicaSet, b: ReplicaSet): boolean {
  if (a === b) return true;
  if (a.metadata.uid && b.metadata.uid) return a.metadata.uid === b.metadata.uid;
  return a.metadata.name === b.metadata.name && a.metadata.namespace === b.metadata.namespace;
}

export function isActive(rs: ReplicaSet | undefined): rs is ReplicaSet {
  return rs !== undefined && specReplicas(rs) > 0;
}

export function activeReplicaSets(rss: readonly (ReplicaSet | undefined)[]): ReplicaSet[] {
  const out: ReplicaSet[] = [];
  for (const rs of rss) if (isActive(rs)) out.push(rs);
  return out;
}

/** Σ spec.replicas */
export function specReplicaSum(rss: readonly (ReplicaSet | undefined)[]): number {
  let n = 0;
  for (const rs of rss) if (rs) n += specReplicas(rs);
  return n;
}

/** Σ status.replicas */
export function statusReplicaSum(rss: readonly (ReplicaSet | undefined)[]): number {
  let n = 0;
  for (const rs of rss) if (rs) n += statusReplicas(rs);
  return n;
}

/** Σ status.readyReplicas */
export function readyReplicaSum(rss: readonly (ReplicaSet | undefined)[]): number {
  let n = 0;
  for (const rs of rss) if (rs) n += readyReplicas(rs);
  return n;
}

/** Σ status.availableReplicas */
export function availableReplicaSum(rss: readonly (ReplicaSet | undefined)[]): number {
  let n = 0;
  for (const rs of rss) if (rs) n += availableReplicas(rs);
  return n;
}

/**
 * Σ status.terminatingReplicas, or undefined when it cannot be told: a ReplicaSet its controller has
 * synced (observedGeneration above 0) that does not report the count (an older controller, or the
 * DeploymentReplicaSetTerminatingReplicas feature off) makes the whole sum unknown; one not synced
 * yet that reports nothing counts 0.
 */
export function terminatingReplicaSum(rss: readonly (ReplicaSet | undefined)[]): number | undefined {
  let n = 0;
  for (const rs of rss) {
    if (!rs) continue;
    const t = rs.status?.terminatingReplicas;
    if (t === undefined) {
      if ((rs.status?.observedGeneration ?? 0) === 0) continue;
      return undefined;
    }
    n += t;
  }
  return n;
}

/**
 * The one ReplicaSet to give all replicas to: the only active one; with none active, the new one
 * or else the newest old one; undefined when several are active.
 */
export function findActiveOrLatest(
  newRS: ReplicaSet | undefined,
  oldRSs: readonly ReplicaSet[],
): ReplicaSet | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const newestFirst = sortByCreationNewestFirst(oldRSs);
  const active = activeReplicaSets([...newestFirst, newRS]);
  if (active.length === 0) return newRS ?? newestFirst[0];
  if (active.length === 1) return active[0];
  return undefined;
}

/** The new ReplicaSet runs every replica, recorded for this size, all available. */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (!rs) return false;
  const desired = rs.metadata.annotations?.[DESIRED_REPLICAS_ANNOTATION];
  // Upstream parses this one as a signed int32 (ParseInt(v, 10, 32)).
  if (desired === undefined || !/^[+-]?[0-9]+$/.test(desired)) return false;
  const n = Number(desired);
  if (n > 2147483647 || n < -2147483648) return false;
  const replicas = deploymentReplicas(d);
  return specReplicas(rs) === replicas && n === replicas && availableReplicas(rs) === replicas;
}

/** The desired-replicas annotation when valid (used by isScalingEvent). */
export function desiredReplicasOf(rs: ReplicaSet): number | undefined {
  const a = desiredReplicasAnnotation(rs);
  return a.valid ? a.value : undefined;
}
