// spec.dependencies: references to other pacer.dev Deployments, written `name` (same namespace) or
// `namespace/name`. Parsing and validation live here, beside the API types, so that validation.ts,
// the engine's gate and the controller's index all read a reference the same way.

import type { Deployment } from './types.ts';
import type { FieldError } from './validation.ts';
import { dns1123LabelErrors, dns1123SubdomainErrors } from './validation.ts';

export interface DependencyRef {
  namespace: string;
  name: string;
}

/** "namespace/name": how Deployments are keyed everywhere (work queue, caches, messages). */
export function deploymentKey(namespace: string | undefined, name: string | undefined): string {
  return `${namespace ?? 'default'}/${name ?? ''}`;
}

/** A reference as written, resolved against the namespace of the Deployment that holds it. */
export function parseDependency(ref: string, namespace: string | undefined): DependencyRef {
  const i = ref.indexOf('/');
  if (i < 0) return { namespace: namespace ?? 'default', name: ref };
  return { namespace: ref.slice(0, i), name: ref.slice(i + 1) };
}

/** The keys ("namespace/name") of `d`'s dependencies, in the order written, without repeats. */
export function dependencyKeys(d: Deployment): string[] {
  const refs = d.spec?.dependencies;
  if (!Array.isArray(refs) || refs.length === 0) return [];
  const out: string[] = [];
  for (const ref of refs) {
    if (typeof ref !== 'string') continue;
    const r = parseDependency(ref, d.metadata.namespace);
    const key = deploymentKey(r.namespace, r.name);
    if (!out.includes(key)) out.push(key);
  }
  return out;
}

/**
 * spec.dependencies: a list of strings, each a DNS-1123 subdomain (a Deployment name), optionally
 * prefixed by a DNS-1123 label (a namespace) and '/'. Messages are apimachinery's.
 */
export function validateDependencies(refs: unknown): FieldError[] {
  const field = 'spec.dependencies';
  if (refs === undefined || refs === null) return [];
  if (!Array.isArray(refs)) {
    return [{ field, type: 'Invalid', value: typeof refs, detail: `${field} in body must be of type array: "${typeof refs}"` }];
  }
  const errs: FieldError[] = [];
  refs.forEach((ref: unknown, i) => {
    const at = `${field}[${i}]`;
    if (typeof ref !== 'string') {
      errs.push({ field: at, type: 'Invalid', value: ref ?? null, detail: `${at} in body must be of type string` });
      return;
    }
    const parts = ref.split('/');
    if (parts.length > 2) {
      errs.push({ field: at, type: 'Invalid', value: ref, detail: "must be a name or namespace/name" });
      return;
    }
    const problems = parts.length === 2
      ? [...dns1123LabelErrors(parts[0]).map((m) => `namespace part ${m}`), ...dns1123SubdomainErrors(parts[1]).map((m) => `name part ${m}`)]
      : dns1123SubdomainErrors(ref);
    for (const detail of problems) errs.push({ field: at, type: 'Invalid', value: ref, detail });
  });
  return errs;
}
