// `pacer plan -f` for a node roll: a file holding a NodeRoll (with the Nodes, Pods, Pacer
// Deployments and ReplicaSets it acts on) gets the roller's next step, from the same pass the
// controller runs (engine/noderoll/pass.ts): the actions, the Events, the status it would store,
// when it would look again, and the roll as a plan. `objects` feed the next run: the NodeRoll with
// that status and its finalizer put on or taken off as the actions say.

import type { NodeRoll, NodeRollStatus } from '../api/noderoll.ts';
import { finalizersAfter, planJson, planTree, rollPass, rollPlan, viewPlan } from '../engine/index.ts';
import type { PlanJson, RollAction, RollPass, RollPassInput } from '../engine/index.ts';

export interface RollPlanDocument {
  noderoll: string;
  actions: RollAction[];
  events: RollPass['events'];
  status: NodeRollStatus;
  requeueAfterSeconds: number | null;
  /** The request annotations the controller would clear once the status is stored. */
  cleared?: string[];
  plan: PlanJson;
  objects: NodeRoll[];
}

/** The roll's next step as a document, and as text. */
export function rollPlanDocument(input: RollPassInput): { doc: RollPlanDocument; text: string } {
  const pass = rollPass(input);
  const name = input.roll.metadata.name ?? '';
  const view = viewPlan(rollPlan(input.roll.spec ?? {}, pass.status));
  const requeue = pass.requeueAfterMs === undefined ? null : Math.ceil(pass.requeueAfterMs / 1000);
  const doc: RollPlanDocument = {
    noderoll: name,
    actions: pass.actions,
    events: pass.events,
    status: pass.status,
    requeueAfterSeconds: requeue,
    ...(pass.handled.length > 0 ? { cleared: pass.handled } : {}),
    plan: planJson(view, `noderoll/${name}`),
    objects: [{ ...input.roll, metadata: withFinalizer(input.roll, pass.actions), status: pass.status }],
  };
  const lines = [`NodeRoll ${name}`];
  if (pass.actions.length === 0) lines.push('  no changes');
  for (const a of pass.actions) lines.push(`  ${describe(a)}`);
  for (const e of pass.events) lines.push(`  event ${e.type} ${e.reason}: ${e.message}`);
  lines.push(`Status: ${pass.status.phase ?? 'Rolling'}: ${pass.status.message ?? ''}`);
  lines.push(`Requeue: ${requeue === null ? 'on the next change' : `after ${requeue}s`}`);
  lines.push('Plan:', ...planTree(view).map((l) => `  ${l}`));
  return { doc, text: `${lines.join('\n')}\n` };
}

/** The NodeRoll's metadata after the pass's finalizer actions. */
function withFinalizer(roll: NodeRoll, actions: readonly RollAction[]): NodeRoll['metadata'] {
  let finalizers = roll.metadata.finalizers ?? [];
  for (const a of actions)
    if (a.verb === 'addFinalizer' || a.verb === 'removeFinalizer') finalizers = finalizersAfter(finalizers, a.verb);
  const { finalizers: _was, ...rest } = roll.metadata;
  return finalizers.length > 0 ? { ...rest, finalizers } : rest;
}

function describe(a: RollAction): string {
  switch (a.verb) {
    case 'scaleGroup':
      return `scale node group ${a.group} to ${a.to}`;
    case 'holdRebalance':
      return `hold node group ${a.group}'s own zone rebalancing`;
    case 'releaseRebalance':
      return `release node group ${a.group}'s own zone rebalancing`;
    case 'cordon':
      return `cordon node ${a.node}`;
    case 'uncordon':
      return `uncordon node ${a.node} (drained in place)`;
    case 'evict':
      return `evict pod ${a.namespace}/${a.pod} from node ${a.node}`;
    case 'terminate':
      return `terminate node ${a.node} through ${a.group}${a.shrink ? ' (the group shrinks by one)' : ' (the group replaces it)'}`;
    case 'addFinalizer':
      return "add the finalizer that gives the group's rebalancing back should the roll be deleted";
    case 'removeFinalizer':
      return "remove the roll's finalizer";
    case 'createAnalysisRun':
      return `create analysis run ${a.run.metadata.namespace}/${a.run.metadata.name} to judge the cluster after node ${a.node}`;
  }
}
