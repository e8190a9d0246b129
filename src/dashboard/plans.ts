// A service's plans as the dashboard shows them: the engine's plans (deploy, recovery, the custom
// Plans that name the service's Deployments; src/engine/dcos/) built from the dashboard's caches,
// each step's status as `kubectl pacer plan show` draws it (the coordinator's candidates included).

import type { Deployment, PlanResource, Pod, ReplicaSet } from '../api/types.ts';
import { coordinate, planJson, serviceMembers, servicePlans, viewPlan } from '../engine/index.ts';
import type { ServicePlansView } from './api.ts';

export interface PlanSources {
  /** Every Deployment of the namespace. */
  deployments: readonly Deployment[];
  replicaSets: readonly ReplicaSet[];
  pods: readonly Pod[];
  plans: readonly PlanResource[];
  now: number;
}

/** The plans of the service `service` in `namespace`; undefined when no Deployment of that name is cached. */
export function servicePlansView(namespace: string, service: string, o: PlanSources): ServicePlansView | undefined {
  const members = serviceMembers(o.deployments, namespace, service);
  if (members.length === 0) return undefined;
  const plans = servicePlans({
    deployments: members,
    namespaceDeployments: o.deployments,
    replicaSets: o.replicaSets,
    pods: o.pods,
    plans: o.plans,
    now: o.now,
  });
  const candidates = coordinate(plans);
  return {
    namespace,
    service,
    members: members.map((d) => d.metadata.name ?? ''),
    plans: plans.map((p) => {
      const j = planJson(
        viewPlan(p, candidates.find((x) => x.plan === p.name)?.steps ?? []),
        `${namespace}/${service}`,
      );
      return {
        name: p.name,
        status: j.status,
        strategy: j.strategy,
        errors: j.errors,
        phases: j.phases.map((ph) => ({
          name: ph.name,
          status: ph.status,
          strategy: ph.strategy,
          steps: ph.steps.map((s) => ({ name: s.name, status: s.status, message: s.message })),
        })),
      };
    }),
  };
}
