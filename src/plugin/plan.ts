// `kubectl pacer plan list|show|start|stop|continue|interrupt|force-complete|restart SERVICE [PLAN
// [PHASE [STEP]]]`: a service's plans as the DC/OS SDK's CLI shows and steers them
// (docs/semantics/plans.md, docs/plugin.md). The plans are derived, and the commands carried out,
// by src/planops/ (the same code the controller's HTTP API uses); this file prints: the tree (or
// the SDK's JSON), the SDK's answer, 208 on stdout, 400 and 404 as errors, warnings on stderr.

import { coordinate, planJson, planTree, viewPlan } from '../engine/index.ts';
import type { Plan } from '../engine/index.ts';
import { operate, plansOf, serviceObjects } from '../planops/service.ts';
import type { PlanCommand } from '../planops/service.ts';
import { PluginError } from './errors.ts';
import type { Session } from './options.ts';
import { printData } from './options.ts';

const target = (s: Session) => ({ client: s.client, namespace: s.namespace, component: 'kubectl-pacer', warn: (m: string) => s.io.stderr.write(`Warning: ${m}\n`) });

/** The plans of the service `name`, in the SDK's priority order. */
export async function servicePlans(s: Session, name: string): Promise<Plan[]> {
  return plansOf(await serviceObjects(target(s), name));
}

export async function runPlanNames(s: Session, name: string, o: { output?: string }): Promise<number> {
  const names = (await servicePlans(s, name)).map((p) => p.name);
  if (o.output) printData(s.io, o.output, names);
  else s.io.stdout.write(names.map((n) => `${n}\n`).join(''));
  return 0;
}

export async function runPlanShow(s: Session, name: string, plan: string, o: { output?: string }): Promise<number> {
  const plans = await servicePlans(s, name);
  const found = plans.find((p) => p.name === plan);
  if (!found) throw new PluginError(`Plan ${plan} not found`);
  // The candidates as the coordinator hands them out: no pod to two plans.
  const view = viewPlan(found, coordinate(plans).find((x) => x.plan === plan)?.steps ?? []);
  if (o.output) printData(s.io, o.output, planJson(view, `${s.namespace}/${name}`));
  else s.io.stdout.write(planTree(view).map((l) => `${l}\n`).join(''));
  return 0;
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
