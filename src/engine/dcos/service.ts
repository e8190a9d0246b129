// The plans of a service, in the DC/OS SDK's priority order: deploy, recovery, then the custom
// plans (Plan resources) that name any of its Deployments, by name. What `kubectl pacer plan list`
// and GET /v1/service/<namespace>/<name>/plans list, and what the operations act on.

import { customPlan, planStepNames } from './custom.ts';
import { deployPlan } from './deploy.ts';
import type { ServiceObjects } from './deploy.ts';
import { recoveryPlan } from './recovery.ts';
import type { Plan } from './types.ts';

export function servicePlans(o: ServiceObjects): Plan[] {
  const members = new Set(o.deployments.map((d) => d.metadata.name));
  const all = o.namespaceDeployments ?? o.deployments;
  const lookup = (name: string) => all.find((d) => d.metadata.name === name);
  const custom = (o.plans ?? [])
    .filter((p) => planStepNames(p).some((n) => members.has(n)))
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))
    .map((p) => customPlan(p, lookup));
  return [deployPlan(o), recoveryPlan(o), ...custom];
}
