// The pod-template-hash, as kube-controller-manager computes it (controller.ComputeHash): FNV-1a
// 32-bit over go-spew's dump of the Deployment's pod template (spew.ts), then the collision count,
// the sum printed in decimal through a vowel-free alphabet so a hash never spells a word. Equal to
// upstream's for the same template (test/unit/engine/kubernetes/hash-upstream.test.ts).

import type { PodTemplateSpec } from '../../api/types.ts';
import { spewPodTemplate } from './spew.ts';

export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a 32-bit, continuing from `h`. */
export function fnv1a32(bytes: Uint8Array, h = FNV_OFFSET): number {
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i];
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}

const encoder = new TextEncoder();

/** Maps each character through the safe alphabet (index = char code mod 27). */
export function safeEncodeString(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += SAFE_ALPHABET[s.charCodeAt(i) % SAFE_ALPHABET.length];
  return out;
}

/**
 * The pod-template-hash of `template` (without the hash label) and the Deployment's collisionCount.
 * Throws a TemplateValueError naming the field when a value cannot be what its Go type says.
 */
export function computeHash(template: PodTemplateSpec | undefined, collisionCount?: number): string {
  let h = fnv1a32(encoder.encode(spewPodTemplate(template ?? {})));
  if (collisionCount !== undefined && collisionCount !== null) {
    const extra = new Uint8Array(8);
    new DataView(extra.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv1a32(extra, h);
  }
  return safeEncodeString(String(h));
}

// A template is hashed once per change, not once per pass: the result is remembered per template
// object (snapshots are immutable) and collision count.
const hashMemo = new WeakMap<object, { collisionCount: number | undefined; hash: string }>();

/** computeHash, remembered for the template object. */
export function templateHashOf(template: PodTemplateSpec | undefined, collisionCount?: number): string {
  if (!template) return computeHash(template, collisionCount);
  const hit = hashMemo.get(template);
  if (hit && hit.collisionCount === collisionCount) return hit.hash;
  const hash = computeHash(template, collisionCount);
  hashMemo.set(template, { collisionCount, hash });
  return hash;
}

/** The ReplicaSet name for a Deployment and a hash. */
export function replicaSetName(deploymentName: string, hash: string): string {
  return `${deploymentName}-${hash}`;
}
