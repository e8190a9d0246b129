// The bulk promotion's model (pure, unit-tested under Node): which Deployments wait at a canary
// step, from the views the stream brings.

import type { DeploymentView } from '../src/dashboard/api.ts';
import type { Model } from './state.ts';

/** The reason Progressing gives while a plan holds the rollout for an operator (docs/semantics/plans.md). */
export const PLAN_WAITING = 'PlanWaiting';

/** How a hold by a custom Plan (plans.pacer.dev) begins its message: its release is that plan's, not the deploy plan's. */
const CUSTOM_PLAN_HOLD = `${PLAN_WAITING}: Deployment waits for plan `;

/**
 * The Deployments a bulk promotion can release: held for an operator by their service's deploy plan
 * (`PlanWaiting`: a canary step or an interrupted plan; not the freeze, which a continue does not
 * lift, nor a custom Plan, whose continue names that plan), by namespace and name.
 */
export function waitingCanaries(m: Model): DeploymentView[] {
  return [...m.deployments.values()]
    .filter(
      (d) =>
        d.state === 'waiting' &&
        d.stateMessage.startsWith(`${PLAN_WAITING}:`) &&
        !d.stateMessage.startsWith(CUSTOM_PLAN_HOLD),
    )
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}
