// spec.dependencies: references to other pacer.dev Deployments, written `name` (same namespace) or
// `namespace/name`. Parsing lives here, beside the API types, so that the engine's gate and the
// controller's index both read a reference the same way. Checking what was written
// (validateDependencies) is in validation.ts with the other field checks: it needs their name
// checks, and this module stays free of validation.ts so the two do not import each other.

import type { Deployment } from './types.ts';
import { isAppsDeployment } from './types.ts';
import { nativeDependencies } from './native.ts';

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
  // An apps/v1 Deployment names them in an annotation (native.ts): its spec has no such field.
  const refs = isAppsDeployment(d) ? nativeDependencies(d) : d.spec?.dependencies;
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
