// `kubectl pacer plan list|show|start|stop|continue|interrupt|force-complete|restart SERVICE [PLAN
// [PHASE [STEP]]]`: a service's plans as the DC/OS SDK's CLI shows and steers them
// (docs/semantics/plans.md, docs/plugin.md). The plans are derived, and the commands carried out,
// by src/planops/ (the same code the controller's HTTP API uses); this file prints: the tree (or
// the SDK's JSON), the SDK's answer, 208 on stdout, 400 and 404 as errors, warnings on stderr.

import type { Deployment, PlanResource, Pod, ReplicaSet } from '../api/types.ts';
import { coordinate, planJson, planTree, serviceMembers, servicePlans, viewPlan } from '../engine/index.ts';
import { DEPLOYMENTS, PLANS, PODS, REPLICASETS } from '../kube/client.ts';
import type { Plan } from '../engine/index.ts';
import { operate, serviceObjects } from '../planops/service.ts';
import type { PlanCommand } from '../planops/service.ts';
import { PluginError } from './errors.ts';
import type { Session } from './options.ts';
import { PLUGIN_COMPONENT, printData } from './options.ts';
import { follow, intoMap, printFollowing } from './watch.ts';
import { nodeRollRef, runNodeRollPlan } from './noderoll.ts';

const target = (s: Session) => ({
  client: s.client,
  namespace: s.namespace,
  component: PLUGIN_COMPONENT,
  warn: (m: string) => s.io.stderr.write(`Warning: ${m}\n`),
});

/** The plans of the service `name`, in the SDK's priority order. */
async function readServicePlans(s: Session, name: string): Promise<Plan[]> {
  return servicePlans(await serviceObjects(target(s), name));
}

export async function runPlanNames(s: Session, name: string, o: { output?: string }): Promise<number> {
  const names = (await readServicePlans(s, name)).map((p) => p.name);
  if (o.output) printData(s.io, o.output, names);
  else s.io.stdout.write(names.map((n) => `${n}\n`).join(''));
  return 0;
}

/** The tree of `plan` among `plans`, its candidates as the coordinator hands them out (no pod to two plans). */
function treeOf(plans: readonly Plan[], plan: string): string[] | undefined {
  const found = plans.find((p) => p.name === plan);
  return found && planTree(viewPlan(found, coordinate(plans).find((x) => x.plan === plan)?.steps ?? []));
}

export async function runPlanShow(
  s: Session,
  name: string,
  plan: string | undefined,
  o: { output?: string; watch?: boolean; timeoutMs?: number },
): Promise<number> {
  const roll = nodeRollRef(name);
  if (roll !== undefined) return runNodeRollPlan(s, roll, plan, o);
  plan ??= 'deploy';
  const objects = await serviceObjects(target(s), name);
  const plans = servicePlans(objects);
  const found = plans.find((p) => p.name === plan);
  if (!found) throw new PluginError(`Plan ${plan} not found`);
  if (o.output) {
    printData(
      s.io,
      o.output,
      planJson(viewPlan(found, coordinate(plans).find((x) => x.plan === plan)?.steps ?? []), `${s.namespace}/${name}`),
    );
    return 0;
  }
  // -w: follow the namespace's Deployments, ReplicaSets, pods (and Plans).
  const maps = {
    d: new Map<string, Deployment>(),
    rs: new Map<string, ReplicaSet>(),
    pod: new Map<string, Pod>(),
    plan: new Map<string, PlanResource>(),
  };
  for (const d of objects.namespaceDeployments ?? objects.deployments) maps.d.set(d.metadata.name ?? '', d);
  return printFollowing(
    s,
    o,
    treeOf(plans, plan)!.join('\n'),
    () => {
      const all = [...maps.d.values()];
      if (!all.some((d) => d.metadata.name === name)) return undefined;
      const members = serviceMembers(all, s.namespace, name);
      return treeOf(
        servicePlans({
          deployments: members,
          namespaceDeployments: all,
          replicaSets: [...maps.rs.values()],
          pods: [...maps.pod.values()],
          plans: [...maps.plan.values()],
          now: Date.now(),
        }),
        plan,
      )?.join('\n');
    },
    (changed, signal) => [
      follow<Deployment>(s.client, DEPLOYMENTS, s.namespace, {}, intoMap(maps.d, changed), signal),
      follow<ReplicaSet>(s.client, REPLICASETS, s.namespace, {}, intoMap(maps.rs, changed), signal),
      follow<Pod>(s.client, PODS, s.namespace, {}, intoMap(maps.pod, changed), signal),
      ...(objects.plansServed
        ? [follow<PlanResource>(s.client, PLANS, s.namespace, {}, intoMap(maps.plan, changed), signal)]
        : []),
    ],
  );
}

/** One operator command: the SDK's answer on stdout (208 too), 400 and 404 as errors (exit 1). */
export async function runPlanOperation(s: Session, service: string, command: PlanCommand): Promise<number> {
  const r = await operate(target(s), service, command);
  for (const w of r.warnings) s.io.stderr.write(`Warning: ${w}\n`);
  if (r.code === 400 || r.code === 404) throw new PluginError(r.message);
  s.io.stdout.write(`${r.message}\n`);
  return 0;
}

/** `-p KEY=VALUE` flags as start's parameters (the names are checked by the operation: 400). */
export function parseParameters(flags: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of flags) {
    const at = f.indexOf('=');
    if (at < 0) throw new PluginError(`invalid parameter "${f}": expected KEY=VALUE`);
    out[f.slice(0, at)] = f.slice(at + 1);
  }
  return out;
}
