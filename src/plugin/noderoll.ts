// `kubectl pacer node-roll status|pause|resume [--skip-analysis]|skip NAME [NODE]` (docs/plugin.md): a
// NodeRoll as its checkpoint tells it, and the operator's levers. pause and resume of the operator's own
// hold are spec.paused; resume after a timeout or a node's analysis, and skip, are requests (annotations) the controller carries out
// on the checkpoint and then clears, so they hold across restarts and leader changes; skip is checked
// here first, against the checkpoint, with the controller's own rule. The patches carry no
// resourceVersion: the controller writes the status all the time, and each request is safe to
// apply to whatever version is stored (the controller judges it again).

import type { NodeRoll } from '../api/noderoll.ts';
import { NODEROLL_PLURAL } from '../api/noderoll.ts';
import { GROUP } from '../api/types.ts';
import { humanDuration } from '../api/duration.ts';
import {
  NODE_ROLL_PLAN,
  RESUME_ANNOTATION,
  SKIP_ANALYSIS_ANNOTATION,
  SKIP_ANNOTATION,
  checkpointOf,
  nodeRunName,
  planJson,
  planTree,
  rollPlan,
  skipNode,
  viewPlan,
} from '../engine/index.ts';
import { NODEROLLS } from '../kube/client.ts';
import { PluginError } from './errors.ts';
import { tabwrite } from './format.ts';
import type { Session } from './options.ts';
import { printData } from './options.ts';
import { follow, intoMap, printFollowing } from './watch.ts';

const PREFIX = `noderoll.${GROUP}/`;
const RESOURCE = `${NODEROLL_PLURAL}.${GROUP}`;

async function getRoll(s: Session, name: string): Promise<NodeRoll> {
  return s.client.get<NodeRoll>(NODEROLLS, undefined, name);
}

/** The roll as text: phase and message, the spec in a line, each original node's step, the pause. Pure. */
export function describeRoll(roll: NodeRoll, now: number): string {
  const st = roll.status ?? {};
  const spec = roll.spec ?? {};
  const lines = [`NodeRoll ${roll.metadata.name}: ${st.phase ?? 'Pending'}`];
  if (st.message) lines.push(`  ${st.message}`);
  const mode = spec.mode ?? 'Replace';
  lines.push(
    `Mode: ${mode}, ${spec.nodesAtATime ?? 1} node(s) at a time, ${spec.nodeGroup ? `group ${spec.nodeGroup}` : 'in place (no group)'}${mode === 'Replace' ? ` to ${spec.desiredNodes} new node(s)` : ''}${spec.paused ? ', paused (spec.paused)' : ''}`,
  );
  if (st.paused)
    lines.push(`Paused: ${st.paused.node ? `node ${st.paused.node}, ` : ''}${st.paused.wait}: ${st.paused.message}`);
  const gate = spec.healthGate?.analysis;
  if (gate)
    lines.push(
      `Analysis: ${(gate.templates ?? []).map((t) => `${t.clusterScope ? 'cluster:' : ''}${t.templateName}`).join(', ')} after each node, runs in namespace ${gate.namespace ?? 'default'}`,
    );
  if (st.nodes && st.nodes.length > 0) {
    const skipped = new Set(st.skipped ?? []);
    // With analysis: the run each node's gate waits for (or waited for), once its replacement is done.
    const run = (n: NonNullable<typeof st.nodes>[number]) =>
      n.analysis?.skipped
        ? '(analysis skipped)'
        : n.step === 'Deregistered' || n.step === 'Done' || n.analysis
          ? nodeRunName(roll.metadata.name ?? '', n.name, n.analysis?.attempt ?? 1)
          : '-';
    const rows = [
      `NODE\tSTEP\tSINCE${gate ? '\tRUN' : ''}`,
      ...st.nodes.map(
        (n) =>
          `${n.name}\t${n.step}${skipped.has(n.name) ? ' (skipped)' : ''}\t${n.step === 'Pending' ? '-' : humanDuration(Math.max(0, now - Date.parse(n.since)))}${gate ? `\t${run(n)}` : ''}`,
      ),
    ];
    lines.push(tabwrite(`${rows.join('\n')}\n`).trimEnd());
  }
  return `${lines.join('\n')}\n`;
}

export async function runNodeRollStatus(s: Session, name: string, o: { output?: string }): Promise<number> {
  const roll = await getRoll(s, name);
  if (o.output) printData(s.io, o.output, roll);
  else s.io.stdout.write(describeRoll(roll, Date.now()));
  return 0;
}

/** pause: spec.paused true (kubectl's "already paused" when it is). */
export async function runNodeRollPause(s: Session, name: string): Promise<number> {
  const roll = await getRoll(s, name);
  if (roll.spec.paused === true) throw new PluginError(`${RESOURCE} "${name}" is already paused`);
  await s.client.patch(NODEROLLS, undefined, name, { spec: { paused: true } }, 'merge');
  s.io.stdout.write(`${PREFIX}${name} paused\n`);
  return 0;
}

/**
 * resume: lifts spec.paused, and asks the controller to lift a pause a timeout or a node's analysis
 * set (from the checkpoint): after a run that ended badly, the node's next attempt is a new run;
 * with `skipAnalysis`, the node the analysis paused on passes its gate without one.
 */
export async function runNodeRollResume(s: Session, name: string, o: { skipAnalysis?: boolean } = {}): Promise<number> {
  const roll = await getRoll(s, name);
  const st = roll.status ?? {};
  if (roll.spec.paused !== true && !st.paused) throw new PluginError(`${RESOURCE} "${name}" is not paused`);
  const onAnalysis = st.paused?.wait === 'analysis' ? st.paused.node : undefined;
  if (o.skipAnalysis && onAnalysis === undefined)
    throw new PluginError(
      `${RESOURCE} "${name}" is not paused on a node's analysis${st.paused ? ` (${st.paused.wait}: ${st.paused.message})` : ''}: --skip-analysis does not apply`,
    );
  const annotations = {
    ...(st.paused ? { [RESUME_ANNOTATION]: new Date().toISOString() } : {}),
    ...(o.skipAnalysis && onAnalysis !== undefined ? { [SKIP_ANALYSIS_ANNOTATION]: onAnalysis } : {}),
  };
  await s.client.patch(
    NODEROLLS,
    undefined,
    name,
    {
      ...(Object.keys(annotations).length > 0 ? { metadata: { annotations } } : {}),
      ...(roll.spec.paused === true ? { spec: { paused: false } } : {}),
    },
    'merge',
  );
  const what =
    onAnalysis === undefined
      ? ''
      : o.skipAnalysis
        ? ` (node ${onAnalysis} passes its analysis without a run)`
        : st.paused?.run !== undefined
          ? ` (node ${onAnalysis}: a new analysis run, attempt ${(st.nodes?.find((n) => n.name === onAnalysis)?.analysis?.attempt ?? 1) + 1})`
          : ` (node ${onAnalysis}: its analysis is tried again)`;
  s.io.stdout.write(`${PREFIX}${name} resumed${what}\n`);
  return 0;
}

/** skip NODE: the node goes back to the end of the order; refused here as the controller would refuse it. */
export async function runNodeRollSkip(s: Session, name: string, node: string): Promise<number> {
  const roll = await getRoll(s, name);
  const r = skipNode(checkpointOf(roll.status, Date.now()), node, Date.now());
  if (r.error) throw new PluginError(r.error);
  const already = roll.metadata.annotations?.[SKIP_ANNOTATION];
  const nodes = [...new Set([...(already ? already.split(',') : []), node])].join(',');
  await s.client.patch(
    NODEROLLS,
    undefined,
    name,
    { metadata: { annotations: { [SKIP_ANNOTATION]: nodes } } },
    'merge',
  );
  s.io.stdout.write(`${PREFIX}${name}: node ${node} skipped (revisited once the others are done)\n`);
  return 0;
}

/** `noderoll/NAME` (kubectl's TYPE/NAME, any spelling of the type): the NodeRoll's name; undefined for anything else. */
export function nodeRollRef(arg: string): string | undefined {
  return /^(?:noderolls?)(?:\.pacer\.dev)?\/(.+)$/.exec(arg)?.[1];
}

/** `plan show noderoll/NAME [node-roll]`: the roll as a plan (engine/noderoll/plan.ts), -w to follow it. */
export async function runNodeRollPlan(
  s: Session,
  name: string,
  plan: string | undefined,
  o: { output?: string; watch?: boolean; timeoutMs?: number },
): Promise<number> {
  if (plan !== undefined && plan !== NODE_ROLL_PLAN) throw new PluginError(`Plan ${plan} not found`);
  const roll = await getRoll(s, name);
  const tree = (r: NodeRoll) => planTree(viewPlan(rollPlan(r.spec ?? {}, r.status))).join('\n');
  if (o.output) {
    printData(s.io, o.output, planJson(viewPlan(rollPlan(roll.spec ?? {}, roll.status)), `${PREFIX}${name}`));
    return 0;
  }
  const seen = new Map<string, NodeRoll>([[name, roll]]);
  return printFollowing(
    s,
    o,
    tree(roll),
    () => {
      const r = seen.get(name);
      return r && tree(r);
    },
    (changed, signal) => [
      follow<NodeRoll>(
        s.client,
        NODEROLLS,
        undefined,
        { fieldSelector: `metadata.name=${name}` },
        intoMap(seen, changed),
        signal,
      ),
    ],
  );
}
