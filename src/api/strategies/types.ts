// What the API layer knows of a rollout strategy: its name, its parameters field, its defaults and
// its validation. One module per strategy next to this file, listed in index.ts; defaults.ts and
// validation.ts ask them instead of comparing spec.strategy.type.
//
// The engine's strategy modules (src/engine/strategies/) extend these rules with the rollout itself.
// They live in two layers because src/api may not import src/engine (docs/layering.md), while
// defaulting and validation are API concerns (apps/v1 SetDefaults_Deployment and
// ValidateDeploymentStrategy) that must work without the engine. Both registries are typed over the
// StrategyType union, so a strategy added to one and not the other does not compile.

import type { DeploymentStrategy, StrategyType } from '../types.ts';
import type { FieldError } from '../fielderrors.ts';

/** A field of spec.strategy that carries one strategy's parameters. */
export type StrategyParametersField = Exclude<keyof DeploymentStrategy, 'type'>;

export interface StrategyRules<T extends StrategyType = StrategyType> {
  /** spec.strategy.type. */
  readonly name: T;
  /**
   * The field of spec.strategy holding this strategy's parameters (none for Recreate). The field
   * of another strategy is Forbidden under this type (validation.ts checks that for every strategy).
   */
  readonly parametersField?: StrategyParametersField;
  /**
   * Whether old and new pods serve side by side during a rollout (RollingUpdate, MinimumHealth), so
   * that an analysis can judge the first new ones and stop the rest; Recreate stops every old pod
   * first. spec.analysis is Forbidden under a strategy that is not gradual.
   */
  readonly gradual: boolean;
  /** Fills in this type's defaults, in place, on a copy withDefaults already made. */
  applyDefaults(strategy: DeploymentStrategy): void;
  /**
   * Whether the engine must apply defaults before it can read a stored object of this type: a
   * parameter it reads without a default of its own is missing. False lets the engine skip
   * withDefaults' deep copy on every pass (decide.ts `defaulted`).
   */
  needsDefaults(strategy: DeploymentStrategy): boolean;
  /**
   * This type's own field errors (defaults applied), appended to `errs`; `field` is
   * "spec.strategy". The forbidden fields of other strategies are not this function's business.
   */
  validate(strategy: DeploymentStrategy, field: string, errs: FieldError[]): void;
}
