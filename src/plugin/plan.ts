// `kubectl pacer plan list|show SERVICE [PLAN]`: a service's plans as the DC/OS SDK's CLI shows them
// (docs/semantics/plans.md). A service is a Deployment with the Deployments joined to it through
// spec.dependencies; its deploy plan is derived from the Deployments, ReplicaSets and pods read
// through the API server, the same pure derivation the controller uses (engine/plan/deploy.ts).

import type { Deployment, Pod, ReplicaSet } from '../api/types.ts';
import { DEPLOYMENTS, PODS, REPLICASETS } from '../kube/client.ts';
import { deployPlan, planJson, planTree, serviceMembers, viewPlan } from '../engine/index.ts';
import type { Plan } from '../engine/index.ts';
import { PluginError } from './errors.ts';
import type { Session } from './options.ts';
import { printData } from './options.ts';

/** The plans of the service `name` (a member Deployment's name), in the SDK's priority order. */
export async function servicePlans(s: Session, name: string): Promise<Plan[]> {
  await s.client.getDeployment(s.namespace, name); // kubectl's NotFound when there is no such Deployment
  const [deployments, replicaSets, pods] = await Promise.all([
    s.client.list<Deployment>(DEPLOYMENTS, s.namespace),
    s.client.list<ReplicaSet>(REPLICASETS, s.namespace),
    s.client.list<Pod>(PODS, s.namespace),
  ]);
  const members = serviceMembers(deployments.items, s.namespace, name);
  return [deployPlan({ deployments: members, replicaSets: replicaSets.items, pods: pods.items, now: Date.now() })];
}

export async function runPlanNames(s: Session, name: string, o: { output?: string }): Promise<number> {
  const names = (await servicePlans(s, name)).map((p) => p.name);
  if (o.output) printData(s.io, o.output, names);
  else s.io.stdout.write(names.map((n) => `${n}\n`).join(''));
  return 0;
}

export async function runPlanShow(s: Session, name: string, plan: string, o: { output?: string }): Promise<number> {
  const found = (await servicePlans(s, name)).find((p) => p.name === plan);
  if (!found) throw new PluginError(`Plan ${plan} not found`);
  const view = viewPlan(found);
  if (o.output) printData(s.io, o.output, planJson(view, `${s.namespace}/${name}`));
  else s.io.stdout.write(planTree(view).map((l) => `${l}\n`).join(''));
  return 0;
}
