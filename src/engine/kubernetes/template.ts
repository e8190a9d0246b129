// Template equality as upstream's EqualIgnoreHash: semantically deep-equal (a missing member, null,
// {} and [] alike) once the pod-template-hash label is ignored on both sides. Pacer's departure: the
// pod specs are compared with the API server's pod defaults applied to both sides, as a pacer.dev
// Deployment's template is stored as written. Nothing is mutated.
// docs/semantics/kubernetes-deployments.md#new-and-old-replicasets

import type { PodSpec, PodTemplateSpec } from '../../api/types.ts';
import { podSpecWithDefaults } from '../../api/poddefaults.ts';
import { POD_TEMPLATE_HASH_LABEL } from './hash.ts';

// Defaulting copies; it is done once per pod spec object (snapshots are immutable).
const defaultedSpecs = new WeakMap<object, PodSpec>();

function defaultedSpec(spec: PodSpec | undefined): PodSpec {
  if (!spec) return podSpecWithDefaults(spec);
  let out = defaultedSpecs.get(spec);
  if (!out) defaultedSpecs.set(spec, (out = podSpecWithDefaults(spec)));
  return out;
}

function isEmptyValue(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') {
    for (const k in v as Record<string, unknown>) {
      if (!isEmptyValue((v as Record<string, unknown>)[k])) return false;
    }
    return true;
  }
  return false;
}

/** Deep equality where missing, null, {} and [] are equal. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return isEmptyValue(a) && isEmptyValue(b);
  }
  const aArray = Array.isArray(a);
  const bArray = Array.isArray(b);
  if (aArray && bArray) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!semanticEqual(a[i], b[i])) return false;
    return true;
  }
  if (aArray || bArray) return isEmptyValue(a) && isEmptyValue(b);
  return membersEqual(a as Record<string, unknown>, b as Record<string, unknown>, undefined);
}

/** Member-wise semantic equality of two objects, ignoring the member `skip`. */
function membersEqual(a: Record<string, unknown>, b: Record<string, unknown>, skip: string | undefined): boolean {
  for (const k in a) {
    if (k === skip) continue;
    if (!semanticEqual(a[k], b[k])) return false;
  }
  for (const k in b) {
    if (k === skip || k in a) continue;
    if (!isEmptyValue(b[k])) return false;
  }
  return true;
}

/** Are two pod templates equal once the pod-template-hash label is ignored on both? */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  if (a === b) return true;
  const am = a?.metadata;
  const bm = b?.metadata;
  if (a?.spec !== b?.spec && !semanticEqual(defaultedSpec(a?.spec), defaultedSpec(b?.spec))) return false;
  if (am !== bm) {
    const al = (am?.labels ?? {}) as Record<string, unknown>;
    const bl = (bm?.labels ?? {}) as Record<string, unknown>;
    if (!membersEqual(al, bl, POD_TEMPLATE_HASH_LABEL)) return false;
    if (!membersEqual((am ?? {}) as Record<string, unknown>, (bm ?? {}) as Record<string, unknown>, 'labels'))
      return false;
  }
  // Anything beside metadata and spec on the template itself.
  const at = (a ?? {}) as Record<string, unknown>;
  const bt = (b ?? {}) as Record<string, unknown>;
  for (const k in at) {
    if (k === 'metadata' || k === 'spec') continue;
    if (!semanticEqual(at[k], bt[k])) return false;
  }
  for (const k in bt) {
    if (k === 'metadata' || k === 'spec' || k in at) continue;
    if (!isEmptyValue(bt[k])) return false;
  }
  return true;
}
