// MinimumHealth (Pacer's; Marathon's minimumHealthCapacity and maximumOverCapacity,
// docs/semantics/marathon.md#minimum-health): RollingUpdate's rollout step with Marathon's
// envelope as the budget and the fenceposts. The capacity formulas and the two phases of the
// side-by-side rule are in src/engine/marathon/minimumhealth.ts; defaults and validation in
// src/api/strategies/minimumhealth.ts.

import type { Deployment } from '../../api/types.ts';
import { minimumHealthRules } from '../../api/strategies/minimumhealth.ts';
import { minimumHealthBudget, minimumHealthEnvelope, minimumHealthSettings } from '../marathon/minimumhealth.ts';
import { deploymentReplicas } from '../kubernetes/replicasets.ts';
import { rolloutRolling } from './rollingupdate.ts';
import type { Fenceposts } from '../limits.ts';
import type { RolloutStrategy } from './types.ts';

/** The envelope as fenceposts: surge = maxTotal − n, unavailable = n − m. */
export function minimumHealthFenceposts(d: Deployment): Fenceposts {
  const replicas = deploymentReplicas(d);
  const { maxTotal, minAvailable } = minimumHealthEnvelope(minimumHealthSettings(d));
  return { surge: maxTotal - replicas, unavailable: replicas - minAvailable };
}

export const minimumHealth: RolloutStrategy<'MinimumHealth'> = {
  ...minimumHealthRules,
  readsPods: false,
  fenceposts: minimumHealthFenceposts,
  budget: (d, newRS) => minimumHealthBudget(minimumHealthSettings(d), newRS),
  rollout: rolloutRolling,
  // Defaults filled in; no maximumOverCapacity: the new pods start beside the old ones.
  describe(d) {
    const s = minimumHealthSettings(d);
    return [
      { name: 'MinimumHealthCapacity', value: String(s.minimumHealthCapacity) },
      {
        name: 'MaximumOverCapacity',
        value: s.maximumOverCapacity === undefined ? '<none>' : String(s.maximumOverCapacity),
      },
    ];
  },
};
