// apps/v1 defaulting (SetDefaults_Deployment), applied by the engine to every Deployment it reads,
// so that a Deployment stored without the CRD's schema defaults (or fed to `pacer plan` by hand)
// behaves exactly like one the API server defaulted.

import type { Deployment } from './types.ts';

export const DEFAULT_REPLICAS = 1;
export const DEFAULT_MAX_SURGE = '25%';
export const DEFAULT_MAX_UNAVAILABLE = '25%';
export const DEFAULT_REVISION_HISTORY_LIMIT = 10;
export const DEFAULT_PROGRESS_DEADLINE_SECONDS = 600;
/**
 * MinimumHealth without minimumHealthCapacity: Marathon's default for apps, 1.0 (every replica
 * stays available; the new ones start beside the old ones). maximumOverCapacity has no default:
 * absent, it selects the side-by-side rule (see src/engine/minimumhealth.ts).
 */
export const DEFAULT_MINIMUM_HEALTH_CAPACITY = 1;

/** A copy of `d` with every upstream default filled in; `d` is not changed. */
export function withDefaults(d: Deployment): Deployment {
  const out: Deployment = structuredClone(d);
  const spec = (out.spec ??= {});
  spec.replicas ??= DEFAULT_REPLICAS;
  const strategy = (spec.strategy ??= {});
  // Upstream defaults an empty type too (`type: ""` in the input), not only a missing one.
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = (strategy.rollingUpdate ??= {});
    ru.maxUnavailable ??= DEFAULT_MAX_UNAVAILABLE;
    ru.maxSurge ??= DEFAULT_MAX_SURGE;
  } else if (strategy.type === 'MinimumHealth') {
    const mh = (strategy.minimumHealth ??= {});
    // A non-object is left for validation to report.
    if (typeof mh === 'object' && !Array.isArray(mh)) mh.minimumHealthCapacity ??= DEFAULT_MINIMUM_HEALTH_CAPACITY;
  }
  spec.revisionHistoryLimit ??= DEFAULT_REVISION_HISTORY_LIMIT;
  spec.progressDeadlineSeconds ??= DEFAULT_PROGRESS_DEADLINE_SECONDS;
  spec.minReadySeconds ??= 0;
  spec.paused ??= false;
  return out;
}
