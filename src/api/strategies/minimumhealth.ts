// MinimumHealth (Pacer's, Marathon's upgradeStrategy), API side: minimumHealthCapacity defaults to
// Marathon's 1.0; both shares lie in [0.0, 1.0], refused with Marathon's message
// (docs/semantics/marathon.md#how-pacer-runs-it-on-replicasets). The rollout itself:
// src/engine/strategies/minimumhealth.ts and the formulas in src/engine/marathon/minimumhealth.ts.

import type { DeploymentStrategy } from '../types.ts';
import { jsonTypeName, type FieldError } from '../fielderrors.ts';
import type { StrategyRules } from './types.ts';

/**
 * MinimumHealth without minimumHealthCapacity: Marathon's default for apps, 1.0 (every replica
 * stays available; the new ones start beside the old ones). maximumOverCapacity has no default:
 * absent, it selects the side-by-side rule (see src/engine/marathon/minimumhealth.ts).
 */
export const DEFAULT_MINIMUM_HEALTH_CAPACITY = 1;

/**
 * A share of spec.replicas between 0.0 and 1.0 inclusive, with Marathon's message
 * ("got 1.2, expected between 0.0 and 1.0"). A non-number is reported as the schema would.
 */
function validateShare(field: string, v: unknown, errs: FieldError[]): void {
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    const t = jsonTypeName(v);
    errs.push({ field, type: 'Invalid', value: t, detail: `${field} in body must be of type number: "${t}"` });
    return;
  }
  if (v < 0 || v > 1)
    errs.push({ field, type: 'Invalid', value: v, detail: `got ${String(v)}, expected between 0.0 and 1.0` });
}

/** spec.strategy.minimumHealth. */
function validateMinimumHealth(s: DeploymentStrategy, field: string, errs: FieldError[]): void {
  const path = `${field}.minimumHealth`;
  const mh: unknown = s.minimumHealth;
  if (mh === undefined || mh === null) return; // minimumHealthCapacity defaults to 1.0
  if (typeof mh !== 'object' || Array.isArray(mh)) {
    const t = jsonTypeName(mh);
    errs.push({ field: path, type: 'Invalid', value: t, detail: `${path} in body must be of type object: "${t}"` });
    return;
  }
  const o = mh as Record<string, unknown>;
  validateShare(`${path}.minimumHealthCapacity`, o.minimumHealthCapacity, errs);
  validateShare(`${path}.maximumOverCapacity`, o.maximumOverCapacity, errs);
}

export const minimumHealthRules: StrategyRules<'MinimumHealth'> = {
  name: 'MinimumHealth',
  gradual: true,
  parametersField: 'minimumHealth',
  applyDefaults(strategy) {
    const mh = (strategy.minimumHealth ??= {});
    // A non-object is left for validation to report.
    if (typeof mh === 'object' && !Array.isArray(mh)) mh.minimumHealthCapacity ??= DEFAULT_MINIMUM_HEALTH_CAPACITY;
  },
  // The engine reads minimumHealthCapacity with its default itself (minimumHealthSettings), so a
  // stored object without it is not copied on every pass.
  needsDefaults: () => false,
  validate: validateMinimumHealth,
};
