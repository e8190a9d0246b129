// apps/v1 defaulting (SetDefaults_Deployment), applied by the engine to every Deployment it reads,
// so that a Deployment stored without the CRD's schema defaults (or fed to `pacer plan` by hand)
// behaves exactly like one the API server defaulted.

import type { Deployment } from './types.ts';
import { DEFAULT_STRATEGY_TYPE, strategyRules } from './strategies/index.ts';

export const DEFAULT_REPLICAS = 1;
export const DEFAULT_REVISION_HISTORY_LIMIT = 10;
export const DEFAULT_PROGRESS_DEADLINE_SECONDS = 600;
// Each strategy's own defaults live in its module (strategies/); re-exported here so that every
// default has one address.
export { DEFAULT_MAX_SURGE, DEFAULT_MAX_UNAVAILABLE } from './strategies/rollingupdate.ts';
export { DEFAULT_MINIMUM_HEALTH_CAPACITY } from './strategies/minimumhealth.ts';
export { DEFAULT_STRATEGY_TYPE } from './strategies/index.ts';

/** A copy of `d` with every upstream default filled in; `d` is not changed. */
export function withDefaults(d: Deployment): Deployment {
  const out: Deployment = structuredClone(d);
  const spec = (out.spec ??= {});
  spec.replicas ??= DEFAULT_REPLICAS;
  const strategy = (spec.strategy ??= {});
  // Upstream defaults an empty type too (`type: ""` in the input), not only a missing one.
  if (!strategy.type) strategy.type = DEFAULT_STRATEGY_TYPE;
  // The type's own defaults; an unknown type has none (validation reports it).
  strategyRules(strategy.type)?.applyDefaults(strategy);
  spec.revisionHistoryLimit ??= DEFAULT_REVISION_HISTORY_LIMIT;
  spec.progressDeadlineSeconds ??= DEFAULT_PROGRESS_DEADLINE_SECONDS;
  spec.minReadySeconds ??= 0;
  spec.paused ??= false;
  return out;
}
