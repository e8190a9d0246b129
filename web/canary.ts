// The bulk promotion's model (pure, unit-tested under Node): which Deployments wait at a canary
// step, from the views the stream brings.

import type { DeploymentView } from '../src/dashboard/api.ts';
import type { Model } from './state.ts';

/** The reason Progressing gives while a plan holds the rollout for an operator (docs/semantics/plans.md). */
export const PLAN_WAITING = 'PlanWaiting';

/**
 * The Deployments a bulk promotion can release: waiting for an operator because of a plan
 * (`PlanWaiting`, a canary step or an interrupted plan; not the freeze, which a continue does not
 * lift), by namespace and name.
 */
export function waitingCanaries(m: Model): DeploymentView[] {
  return [...m.deployments.values()]
    .filter((d) => d.state === 'waiting' && d.stateMessage.startsWith(`${PLAN_WAITING}:`))
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}
