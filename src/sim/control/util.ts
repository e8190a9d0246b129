// Small helpers shared by the simulated control loops: object keys, pod state predicates, times and
// conditions. Plain functions over plain JSON; nothing here touches the store.

import type { KubeObject } from '../types.ts';
import { controllerOf } from '../../api/owners.ts';

/** The annotations that inject behaviour per workload. Their names are a user contract. */
export const ANN_NEVER_READY = 'sim.pacer.dev/never-ready';
export const ANN_CRASH_LOOP = 'sim.pacer.dev/crash-loop';
export const ANN_START_DELAY = 'sim.pacer.dev/start-delay-ms';
export const ANN_READY_AFTER = 'sim.pacer.dev/ready-after-ms';
/** How long the pod's containers take to stop once it is deleted (its grace period still bounds it). */
export const ANN_STOP_AFTER = 'sim.pacer.dev/stop-after-ms';
/** On a Node: "true" marks it NotReady (as if its kubelet had stopped posting status). */
export const ANN_NODE_NOT_READY = 'sim.pacer.dev/not-ready';

export const LABEL_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_HOSTNAME = 'kubernetes.io/hostname';

/** Upstream's pod-deletion-cost annotation, read by the ReplicaSet controller's deletion order. */
export const ANN_POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

export type OwnerRef = NonNullable<KubeObject['metadata']['ownerReferences']>[number];

/** RFC 3339 with seconds precision, as metav1.Time serialises. */
export function isoTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Parses an RFC 3339 time; undefined when missing or unparseable. */
export function parseTime(s: unknown): number | undefined {
  if (typeof s !== 'string' || s === '') return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : t;
}

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export function keyOf(obj: KubeObject): string {
  return objectKey(obj.metadata.namespace, obj.metadata.name ?? '');
}

export function controllerRef(obj: KubeObject): OwnerRef | undefined {
  return controllerOf(obj);
}

export function isDeleting(obj: KubeObject): boolean {
  return typeof obj.metadata.deletionTimestamp === 'string' && obj.metadata.deletionTimestamp !== '';
}

// ------------------------------------------------------------------------------------------------
// Pods

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  [key: string]: unknown;
}

export function podSpec(pod: KubeObject): Record<string, any> {
  return (pod.spec as Record<string, any> | undefined) ?? {};
}

export function podStatus(pod: KubeObject): Record<string, any> {
  return (pod.status as Record<string, any> | undefined) ?? {};
}

export function nodeNameOf(pod: KubeObject): string {
  const n = podSpec(pod).nodeName;
  return typeof n === 'string' ? n : '';
}

export function phaseOf(pod: KubeObject): string {
  const p = podStatus(pod).phase;
  return typeof p === 'string' && p !== '' ? p : 'Pending';
}

export function isTerminal(pod: KubeObject): boolean {
  const p = phaseOf(pod);
  return p === 'Succeeded' || p === 'Failed';
}

/** Upstream's FilterActivePods: not Succeeded, not Failed, not being deleted. */
export function isActivePod(pod: KubeObject): boolean {
  return !isTerminal(pod) && !isDeleting(pod);
}

export function conditionsOf(obj: KubeObject): Condition[] {
  const c = (obj.status as Record<string, unknown> | undefined)?.conditions;
  return Array.isArray(c) ? (c as Condition[]) : [];
}

export function findCondition(obj: KubeObject, type: string): Condition | undefined {
  return conditionsOf(obj).find((c) => c.type === type);
}

export function isPodReady(pod: KubeObject): boolean {
  return findCondition(pod, 'Ready')?.status === 'True';
}

/** When the pod last became Ready (its Ready condition's lastTransitionTime), if it is Ready. */
export function podReadySince(pod: KubeObject): number | undefined {
  const c = findCondition(pod, 'Ready');
  if (c?.status !== 'True') return undefined;
  return parseTime(c.lastTransitionTime);
}

/**
 * Upstream's IsPodAvailable: Ready, and Ready for longer than minReadySeconds (strictly: the
 * transition time plus minReadySeconds lies before now).
 */
export function isPodAvailable(pod: KubeObject, minReadySeconds: number, now: number): boolean {
  if (!isPodReady(pod)) return false;
  if (!minReadySeconds) return true;
  const since = podReadySince(pod);
  return since !== undefined && since + minReadySeconds * 1000 < now;
}

export function maxRestartCount(pod: KubeObject): number {
  const statuses = podStatus(pod).containerStatuses;
  if (!Array.isArray(statuses)) return 0;
  let max = 0;
  for (const s of statuses) {
    const n = (s as { restartCount?: unknown }).restartCount;
    if (typeof n === 'number' && n > max) max = n;
  }
  return max;
}

/** Sets a condition, keeping lastTransitionTime when the status did not change. Returns the new list. */
export function setCondition(list: Condition[], next: Condition): Condition[] {
  const old = list.find((c) => c.type === next.type);
  const merged = { ...next };
  if (old && old.status === next.status && old.lastTransitionTime) merged.lastTransitionTime = old.lastTransitionTime;
  const out = list.filter((c) => c.type !== next.type);
  if (old) out.splice(list.indexOf(old), 0, merged);
  else out.push(merged);
  return out;
}

// ------------------------------------------------------------------------------------------------
// Misc

/** The apiserver's generateName alphabet: consonants and digits that cannot spell words. */
export const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function randomSuffix(random: () => number, length = 5): string {
  let s = '';
  for (let i = 0; i < length; i++) s += NAME_ALPHABET[Math.floor(random() * NAME_ALPHABET.length)];
  return s;
}

/** A non-negative integer from an annotation, or undefined. */
export function annotationMs(obj: KubeObject, key: string): number | undefined {
  const v = obj.metadata.annotations?.[key];
  if (v === undefined || !/^\s*\d+\s*$/.test(v)) return undefined;
  return Number.parseInt(v, 10);
}

export function annotationTrue(obj: KubeObject, key: string): boolean {
  return obj.metadata.annotations?.[key] === 'true';
}
