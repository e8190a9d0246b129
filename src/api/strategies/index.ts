// The API layer's registry of rollout strategies: type name → rules (defaults, validation).
// src/engine/strategies/index.ts is the engine's registry of the same names; docs/strategies.md
// says how to add one.

import type { Deployment, StrategyType } from '../types.ts';
import type { StrategyRules } from './types.ts';
import { minimumHealthRules } from './minimumhealth.ts';
import { recreateRules } from './recreate.ts';
import { rollingUpdateRules } from './rollingupdate.ts';

/** Every strategy, by spec.strategy.type: one line each, exactly the StrategyType union. */
export const STRATEGY_RULES = {
  RollingUpdate: rollingUpdateRules,
  Recreate: recreateRules,
  MinimumHealth: minimumHealthRules,
} as const satisfies { readonly [K in StrategyType]: StrategyRules<K> };

/** The type of a Deployment that names none (apps/v1: an empty string counts as none). */
export const DEFAULT_STRATEGY_TYPE = rollingUpdateRules.name;

/** The type names, sorted as apimachinery lists supported values. */
export const STRATEGY_TYPES: readonly StrategyType[] = (Object.keys(STRATEGY_RULES) as StrategyType[]).sort();

const BY_NAME: ReadonlyMap<unknown, StrategyRules> = new Map(
  Object.values(STRATEGY_RULES).map((r: StrategyRules) => [r.name, r]),
);

/** The rules of exactly this type (no default applied); undefined for one no module implements. */
export function strategyRules(type: unknown): StrategyRules | undefined {
  return BY_NAME.get(type);
}

/** spec.strategy.type as displayed (plugin, metrics, logs): the default when it is missing. */
export function strategyTypeOf(d: Deployment): string {
  return d.spec?.strategy?.type ?? DEFAULT_STRATEGY_TYPE;
}
