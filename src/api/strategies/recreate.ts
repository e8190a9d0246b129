// Recreate (apps/v1), API side: no parameters, hence no defaults and nothing of its own to
// validate (rollingUpdate and minimumHealth are Forbidden under it, as any other strategy's
// parameters are: validation.ts). The rollout itself: src/engine/strategies/recreate.ts.

import type { StrategyRules } from './types.ts';

export const recreateRules: StrategyRules<'Recreate'> = {
  name: 'Recreate',
  gradual: false,
  applyDefaults() {},
  needsDefaults: () => false,
  validate() {},
};
