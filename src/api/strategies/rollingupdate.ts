// RollingUpdate (apps/v1), API side: maxSurge and maxUnavailable default to 25% each, and are
// validated as upstream's ValidateRollingUpdateDeployment does, with its field paths and messages
// (docs/semantics/kubernetes-deployments.md#defaults-and-validation). The rollout itself:
// src/engine/strategies/rollingupdate.ts.

import type { DeploymentStrategy, IntOrString } from '../types.ts';
import { NON_NEGATIVE, regexError, type FieldError } from '../fielderrors.ts';
import type { StrategyRules } from './types.ts';

export const DEFAULT_MAX_SURGE = '25%';
export const DEFAULT_MAX_UNAVAILABLE = '25%';

const PERCENT_FORMAT = '[0-9]+%';
const PERCENT = new RegExp(`^${PERCENT_FORMAT}$`);
export const PERCENT_ERROR = regexError(
  "a valid percent string must be a numeric string followed by an ending '%'",
  PERCENT_FORMAT,
  '1%',
  '93%',
);

/**
 * getIntOrPercentValue: a valid percentage gives its number, an int itself, and any other string
 * what strconv.Atoi makes of it (0 on failure). So "a%" counts as 0 and "5" as 5, as upstream.
 */
function literalIntOrPercent(v: IntOrString | undefined): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return 0;
  if (PERCENT.test(v)) return Number.parseInt(v.slice(0, -1), 10);
  return /^[+-]?[0-9]+$/.test(v) ? Number.parseInt(v, 10) : 0;
}

/** ValidatePositiveIntOrPercent. */
function validateIntOrPercent(field: string, v: unknown, errs: FieldError[]): void {
  if (v === undefined || v === null) return; // upstream's zero value: an int 0, which is valid
  if (typeof v === 'string') {
    if (!PERCENT.test(v)) errs.push({ field, type: 'Invalid', value: v, detail: PERCENT_ERROR });
  } else if (typeof v === 'number' && Number.isInteger(v)) {
    if (v < 0) errs.push({ field, type: 'Invalid', value: v, detail: NON_NEGATIVE });
  } else {
    errs.push({ field, type: 'Invalid', value: v, detail: "must be an integer or percentage (e.g '5%')" });
  }
}

/** ValidateRollingUpdateDeployment, on spec.strategy.rollingUpdate (which defaulting always sets). */
function validateRollingUpdate(s: DeploymentStrategy, field: string, errs: FieldError[]): void {
  const path = `${field}.rollingUpdate`;
  const ru = s.rollingUpdate;
  if (ru === undefined || ru === null) {
    errs.push({ field: path, type: 'Required', detail: 'this should be defaulted and never be nil' });
    return;
  }
  validateIntOrPercent(`${path}.maxUnavailable`, ru.maxUnavailable, errs);
  validateIntOrPercent(`${path}.maxSurge`, ru.maxSurge, errs);
  if (literalIntOrPercent(ru.maxUnavailable) === 0 && literalIntOrPercent(ru.maxSurge) === 0) {
    errs.push({
      field: `${path}.maxUnavailable`,
      type: 'Invalid',
      value: ru.maxUnavailable ?? 0,
      detail: 'may not be 0 when `maxSurge` is 0',
    });
  }
  const mu = ru.maxUnavailable;
  if (typeof mu === 'string' && PERCENT.test(mu) && Number.parseInt(mu.slice(0, -1), 10) > 100) {
    errs.push({ field: `${path}.maxUnavailable`, type: 'Invalid', value: mu, detail: 'must not be greater than 100%' });
  }
}

export const rollingUpdateRules: StrategyRules<'RollingUpdate'> = {
  name: 'RollingUpdate',
  gradual: true,
  parametersField: 'rollingUpdate',
  applyDefaults(strategy) {
    const ru = (strategy.rollingUpdate ??= {});
    ru.maxUnavailable ??= DEFAULT_MAX_UNAVAILABLE;
    ru.maxSurge ??= DEFAULT_MAX_SURGE;
  },
  needsDefaults: (strategy) =>
    strategy.rollingUpdate?.maxSurge === undefined || strategy.rollingUpdate.maxUnavailable === undefined,
  validate: validateRollingUpdate,
};
