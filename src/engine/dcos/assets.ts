// Dirty assets: no pod is worked on by two plans at once (the SDK's plan coordinator,
// docs/semantics/plans.md#plans-together-priority-and-dirty-assets). Plans are asked in priority order (deploy, recovery,
// decommission, then custom plans); interrupted plans are skipped and their launched steps dirty
// nothing. The dirty set starts with the pods of every PREPARED or STARTING step of the plans that
// are not interrupted; a plan is never blocked by a pod one of its own running steps holds; the
// steps a plan picks dirty their pods for the plans after it; DELAYED steps are not picked.

import { isRunning, stepDisplayStatus } from './status.ts';
import { planCandidates } from './tree.ts';
import type { Plan, PodRequirement, Step } from './types.ts';
import { conflicts } from './types.ts';

/** The built-in plans' priority; every other plan comes after them, in the order given. */
export const PLAN_PRIORITY: readonly string[] = ['deploy', 'recovery', 'decommission'];

export function byPriority(plans: readonly Plan[]): Plan[] {
  const rank = (p: Plan) => {
    const i = PLAN_PRIORITY.indexOf(p.name);
    return i < 0 ? PLAN_PRIORITY.length : i;
  };
  return plans
    .map((p, i) => ({ p, i }))
    .sort((a, b) => rank(a.p) - rank(b.p) || a.i - b.i)
    .map((x) => x.p);
}

const steps = (plan: Plan): Step[] => plan.phases.flatMap((p) => p.steps);
const requirements = (xs: readonly Step[]): PodRequirement[] =>
  xs.flatMap((s) => (s.requirement ? [s.requirement] : []));

/** The steps each plan may work on now, in priority order, no pod given to two plans. */
export function coordinate(plans: readonly Plan[]): Array<{ plan: string; steps: Step[] }> {
  const active = byPriority(plans).filter((p) => !p.state.interrupted);
  const dirty = requirements(active.flatMap(steps).filter((s) => s.status === 'PREPARED' || s.status === 'STARTING'));
  const out: Array<{ plan: string; steps: Step[] }> = [];
  for (const plan of active) {
    const own = requirements(steps(plan).filter((s) => isRunning(stepDisplayStatus(s))));
    const blocking = dirty.filter((d) => !own.some((o) => conflicts(d, o)));
    const picked = planCandidates(plan, blocking).filter((s) => s.status !== 'DELAYED');
    dirty.push(...requirements(picked));
    out.push({ plan: plan.name, steps: picked });
  }
  return out;
}
