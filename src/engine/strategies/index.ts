// The engine's registry of rollout strategies: type name → strategy module, and the lookup for a
// Deployment. The names are the API layer's (src/api/strategies/index.ts); both registries are
// typed over the StrategyType union, so one cannot list a strategy the other lacks.
// docs/strategies.md says how to add one.

import type { Deployment, StrategyType } from '../../api/types.ts';
import { DEFAULT_STRATEGY_TYPE } from '../../api/strategies/index.ts';
import type { RolloutStrategy } from './types.ts';
import { minimumHealth } from './minimumhealth.ts';
import { recreate } from './recreate.ts';
import { rollingUpdate } from './rollingupdate.ts';

/** Every strategy, by spec.strategy.type: one line each. */
export const STRATEGIES = {
  RollingUpdate: rollingUpdate,
  Recreate: recreate,
  MinimumHealth: minimumHealth,
} as const satisfies { readonly [K in StrategyType]: RolloutStrategy<K> };

/** The strategy of a Deployment that names none. */
export const DEFAULT_STRATEGY: RolloutStrategy = STRATEGIES[DEFAULT_STRATEGY_TYPE];

// The lookup runs several times per pass (every maxSurge / maxUnavailable): a scan of a handful
// of names, the default first, costs less than a Map's hashing.
const LIST: readonly RolloutStrategy[] = [
  DEFAULT_STRATEGY,
  ...Object.values(STRATEGIES).filter((s) => s !== DEFAULT_STRATEGY),
];

/** The module of exactly this type name; undefined for one no module implements. */
export function strategyNamed(type: unknown): RolloutStrategy | undefined {
  for (let i = 0; i < LIST.length; i++) if (LIST[i].name === type) return LIST[i];
  return undefined;
}

/**
 * The module for `d`: its spec.strategy.type, the default when missing or empty (as defaulting
 * treats both); undefined for an unknown type, which validation reports before the engine acts.
 */
export function strategyOf(d: Deployment): RolloutStrategy | undefined {
  return strategyNamed(d.spec?.strategy?.type || DEFAULT_STRATEGY_TYPE);
}
