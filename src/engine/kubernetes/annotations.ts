// Pacer's bookkeeping annotations (upstream's deployment.kubernetes.io/* under pacer.dev/), the
// rules for copying Deployment annotations onto its new ReplicaSet, revision numbers and the
// revision history of a ReplicaSet that got a newer revision (a rollback).

import type { Deployment, ReplicaSet } from '../../api/types.ts';

export const REVISION_ANNOTATION = 'pacer.dev/revision';
export const REVISION_HISTORY_ANNOTATION = 'pacer.dev/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'pacer.dev/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'pacer.dev/max-replicas';
export const LAST_APPLIED_CONFIG_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** Legacy server-side rollback request (the round-trip of the old spec.rollbackTo). */
export const ROLLBACK_TO_ANNOTATION = 'deprecated.deployment.rollback.to';
export const CHANGE_CAUSE_ANNOTATION = 'kubernetes.io/change-cause';
/** The revision-history annotation is kept at most this long; the oldest entries go first. */
export const MAX_REVISION_HISTORY_LENGTH = 2000;

const SKIP_COPY = new Set([
  LAST_APPLIED_CONFIG_ANNOTATION,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  ROLLBACK_TO_ANNOTATION,
]);

/** Annotations that belong to the object they are on and never travel Deployment ↔ ReplicaSet. */
export function skipCopyAnnotation(key: string): boolean {
  return SKIP_COPY.has(key);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(s, 10, 64): optional sign and decimal digits within int64; null otherwise. */
export function parseInt64(s: string): number | null {
  // The common case, a short unsigned number ("3"), without a regular expression: up to 15 digits
  // is exact as a double and well inside int64.
  if (s.length > 0 && s.length <= 15) {
    let n = 0;
    let i = 0;
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i) - 48;
      if (c < 0 || c > 9) break;
      n = n * 10 + c;
    }
    if (i === s.length) return n;
  }
  if (/^[+-]?[0-9]{1,15}$/.test(s)) return Number(s);
  if (!/^[+-]?[0-9]+$/.test(s)) return null;
  const big = BigInt(s);
  if (big < INT64_MIN || big > INT64_MAX) return null;
  return Number(big);
}

/** The revision of an object: a missing annotation is 0; an unparseable one is null (skipped). */
export function revisionOf(obj: { metadata: { annotations?: Record<string, string> } }): number | null {
  const v = obj.metadata.annotations?.[REVISION_ANNOTATION];
  if (v === undefined) return 0;
  return parseInt64(v);
}

/** The largest parseable revision among `rss` (0 when none). */
export function maxRevision(rss: readonly ReplicaSet[]): number {
  let max = 0;
  for (const rs of rss) {
    const v = revisionOf(rs);
    if (v !== null && v > max) max = v;
  }
  return max;
}

/**
 * The next revision after `rss`'s, as the annotation's text: the largest parseable one plus one,
 * exact as upstream's int64 arithmetic even past 2^53 (an adopted ReplicaSet may carry a huge
 * revision, and a double would round it: upstream's own e2e spec checks the exact digits).
 */
export function nextRevisionText(rss: readonly ReplicaSet[]): string {
  let max = 0n;
  for (const rs of rss) {
    const v = rs.metadata.annotations?.[REVISION_ANNOTATION];
    if (v === undefined || parseInt64(v) === null) continue;
    const n = BigInt(v.trim().replace(/^\+/, ''));
    if (n > max) max = n;
  }
  return (max + 1n).toString();
}

/** The second-highest revision (upstream LastRevision), 0 when there is none. */
export function lastRevision(rss: readonly ReplicaSet[]): number {
  let max = 0;
  let second = 0;
  for (const rs of rss) {
    const v = revisionOf(rs);
    if (v === null) continue;
    if (v >= max) {
      second = max;
      max = v;
    } else if (v > second) {
      second = v;
    }
  }
  return second;
}

/** Result of reading desired-/max-replicas: `valid` false means "treat as absent". */
export interface Int32Annotation {
  value: number;
  valid: boolean;
  /** Why the value was refused; absent for a missing key (not valid, but no error). */
  error?: string;
}

const INT32_MAX = 2147483647;
const UINT32_MAX = 4294967295;

/** A non-negative int32 from an annotation (upstream getNonNegativeInt32FromAnnotation). */
export function getNonNegativeInt32FromAnnotation(rs: ReplicaSet, key: string): Int32Annotation {
  const v = rs.metadata.annotations?.[key];
  if (v === undefined) return { value: 0, valid: false };
  // strconv.ParseUint(v, 10, 32): digits only, at most uint32.
  if (!/^[0-9]+$/.test(v))
    return { value: 0, valid: false, error: `strconv.ParseUint: parsing "${v}": invalid syntax` };
  const n = Number(v);
  if (n > UINT32_MAX) return { value: 0, valid: false, error: `strconv.ParseUint: parsing "${v}": value out of range` };
  if (n > INT32_MAX) return { value: 0, valid: false, error: `value ${n} is out of range (higher than ${INT32_MAX})` };
  return { value: n, valid: true };
}

export function desiredReplicasAnnotation(rs: ReplicaSet): Int32Annotation {
  return getNonNegativeInt32FromAnnotation(rs, DESIRED_REPLICAS_ANNOTATION);
}

export function maxReplicasAnnotation(rs: ReplicaSet): Int32Annotation {
  return getNonNegativeInt32FromAnnotation(rs, MAX_REPLICAS_ANNOTATION);
}

/** Do the desired-/max-replicas annotations differ from these values? */
export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, desired: number, max: number): boolean {
  const a = rs.metadata.annotations;
  return a?.[DESIRED_REPLICAS_ANNOTATION] !== String(desired) || a?.[MAX_REPLICAS_ANNOTATION] !== String(max);
}

/**
 * Sets desired-/max-replicas on `annotations` (a map the caller owns); true when one changed.
 */
export function setReplicasAnnotations(annotations: Record<string, string>, desired: number, max: number): boolean {
  let changed = false;
  const d = String(desired);
  const m = String(max);
  if (annotations[DESIRED_REPLICAS_ANNOTATION] !== d) {
    annotations[DESIRED_REPLICAS_ANNOTATION] = d;
    changed = true;
  }
  if (annotations[MAX_REPLICAS_ANNOTATION] !== m) {
    annotations[MAX_REPLICAS_ANNOTATION] = m;
    changed = true;
  }
  return changed;
}

/** Copies the Deployment's annotations (minus the skip-list) onto `annotations`; only adds/overwrites. */
export function copyDeploymentAnnotations(d: Deployment, annotations: Record<string, string>): boolean {
  let changed = false;
  const src = d.metadata.annotations;
  if (!src) return false;
  for (const k in src) {
    if (skipCopyAnnotation(k) || annotations[k] === src[k]) continue;
    annotations[k] = src[k];
    changed = true;
  }
  return changed;
}

/** Appends `oldRevision` to a comma-separated history, dropping the oldest entries to fit `limit` chars. */
export function appendRevisionHistory(
  history: string | undefined,
  oldRevision: string,
  limit = MAX_REVISION_HISTORY_LENGTH,
): string | undefined {
  if (!history) return oldRevision;
  const entries = history.split(',');
  let total = history.length + oldRevision.length + 1;
  let start = 0;
  while (total > limit && start < entries.length) {
    total -= entries[start].length + 1;
    start++;
  }
  if (total > limit) return undefined; // cannot fit: the history is left as it is
  return [...entries.slice(start), oldRevision].join(',');
}

/**
 * SetNewReplicaSetAnnotations: brings the annotations of the new ReplicaSet `rs` (a copy the
 * caller owns; its annotations map is replaced, never mutated in place) up to date and reports
 * whether anything changed. `exists` false (about to be created) also sets desired-/max-replicas.
 */
export function setNewReplicaSetAnnotations(
  d: Deployment,
  rs: ReplicaSet,
  newRevision: string,
  exists: boolean,
  desiredReplicas: number,
  maxReplicas: number,
  historyLimit = MAX_REVISION_HISTORY_LENGTH,
): boolean {
  const annotations: Record<string, string> = { ...rs.metadata.annotations };
  rs.metadata = { ...rs.metadata, annotations };
  let changed = copyDeploymentAnnotations(d, annotations);

  const oldRevision = annotations[REVISION_ANNOTATION];
  const hadRevision = oldRevision !== undefined;
  let oldRevisionInt = 0;
  if (hadRevision && oldRevision !== '') {
    const parsed = parseInt64(oldRevision);
    // A non-numeric revision on the RS: upstream updates nothing.
    if (parsed === null) return false;
    oldRevisionInt = parsed;
  }
  const newRevisionInt = parseInt64(newRevision);
  if (newRevisionInt === null) return false;

  if (oldRevisionInt < newRevisionInt) {
    annotations[REVISION_ANNOTATION] = newRevision;
    changed = true;
    // The RS held a revision before and gets a newer one: a rollback to it; keep the old number.
    if (hadRevision) {
      const history = appendRevisionHistory(annotations[REVISION_HISTORY_ANNOTATION], oldRevision, historyLimit);
      if (history !== undefined) annotations[REVISION_HISTORY_ANNOTATION] = history;
    }
  }
  if (!exists && setReplicasAnnotations(annotations, desiredReplicas, maxReplicas)) changed = true;
  return changed;
}

/** `d` with a patch action's annotations applied (null removes one); a copy, `d` is left as it is. */
export function withAnnotations(d: Deployment, patch: Readonly<Record<string, string | null>>): Deployment {
  const annotations: Record<string, string> = { ...d.metadata.annotations };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete annotations[k];
    else annotations[k] = v;
  }
  return { ...d, metadata: { ...d.metadata, annotations } };
}

/** An annotation holding JSON: absent, its value, or why it is not JSON (a hand-edited one is reported, not guessed at). */
export function jsonAnnotation(
  annotations: Readonly<Record<string, string>> | undefined,
  key: string,
): { value?: unknown; error?: string } {
  const raw = annotations?.[key];
  if (raw === undefined) return {};
  try {
    return { value: JSON.parse(raw) };
  } catch {
    return { error: `annotation ${key}: not JSON` };
  }
}
