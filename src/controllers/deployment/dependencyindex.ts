// The controller's side of dependency-ordered Deployments (the rules are in src/engine/marathon/dependencies.ts):
// an index from each dependency to the Deployments that name it, kept from the Deployment
// informer's events. The engine's buildSnapshot reads the dependents from it (reconciler.ts
// cacheSource).
//
// Who must look again when a Deployment changes (the controller enqueues them):
//  * its dependents, on every stored change and on deletion: whether it is complete, or there at all,
//    is their gate;
//  * its dependencies, when it appears, disappears or changes its dependency list: they gain or
//    lose a dependent (the pacer.dev/dependents finalizer), and a cycle may have closed or opened.

import type { Deployment } from '../../api/types.ts';
import { dependencyKeys } from '../../api/dependencies.ts';

export class DependencyIndex {
  /** dependency key → keys of the Deployments that name it. */
  private readonly dependents = new Map<string, Set<string>>();
  /** Deployment key → its dependency keys as last indexed. */
  private readonly dependencies = new Map<string, string[]>();

  /**
   * Indexes `d` as it now is (undefined: deleted); returns the keys to enqueue besides `d`
   * itself: its dependents, plus its old and new dependencies when the list changed.
   */
  update(key: string, d: Deployment | undefined): string[] {
    const before = this.dependencies.get(key) ?? [];
    const after = d ? dependencyKeys(d) : [];
    const changed = before.length !== after.length || before.some((k, i) => k !== after[i]);
    if (changed) {
      for (const dep of before) {
        const set = this.dependents.get(dep);
        set?.delete(key);
        if (set?.size === 0) this.dependents.delete(dep);
      }
      for (const dep of after) {
        let set = this.dependents.get(dep);
        if (!set) this.dependents.set(dep, (set = new Set()));
        set.add(key);
      }
    }
    if (after.length > 0) this.dependencies.set(key, after);
    else this.dependencies.delete(key);
    const out = new Set(this.dependents.get(key) ?? []);
    // A new or deleted Deployment changes its dependencies' dependent count, as does a changed list.
    if (changed || !d) for (const k of [...before, ...after]) out.add(k);
    out.delete(key);
    return [...out];
  }

  /** Keys of the Deployments that name `key` as a dependency. */
  dependentsOf(key: string): string[] {
    return [...(this.dependents.get(key) ?? [])];
  }

  /** The indexed dependency keys of `key` (undefined when it has none or is unknown). */
  dependenciesOf(key: string): string[] | undefined {
    return this.dependencies.get(key);
  }
}
