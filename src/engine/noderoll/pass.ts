// One pass over a NodeRoll (docs/semantics/node-roll.md): what the controller asks on every
// reconcile and `pacer plan -f` asks of a file, from the same objects. Pure: the NodeRoll, every
// node, every pod, the Pacer Deployments and ReplicaSets (the health gate and Pacer's budgets), the
// freeze, the cluster's default windows and the clock in; the status to store, the actions to carry out before it, the Events,
// and the operator's requests (annotations) to clear once the status is stored, out.
//
//   deleted (a deletionTimestamp)          → the group's rebalancing given back if the roll held it,
//                                            then its finalizer off (the freeze holds both)
//   invalid spec, a selector that matches no node when the roll would start, too little room for
//   what the group runs (capacity.ts)      → phase Invalid with field errors; nothing else
//   otherwise                              → the checkpoint repaired where edited by hand (a Warning
//                                            Event says what), the requests applied, then decideRoll
// A roll carries its finalizer from its start (before it holds the group's rebalancing) to its end
// (after it gives it back), so that deleting it half-way still gives the rebalancing back.

import type { AnalysisRun, AnalysisTemplate } from '../../api/analysis.ts';
import { RUN_NODEROLL_LABEL } from '../../api/analysis.ts';
import type { Deployment, LabelSelector, ReplicaSet } from '../../api/types.ts';
import { selectorMatches } from '../../api/selector.ts';
import {
  DEFAULT_NODE_ROLL_ANALYSIS_NAMESPACE,
  NODE_ROLL_WAITS,
  nodeRollDefaults,
  validateNodeRoll,
} from '../../api/noderoll.ts';
import type { NodeRoll, NodeRollStatus, NodeRollWait } from '../../api/noderoll.ts';
import { parseGoDuration } from '../../api/duration.ts';
import { formatFieldError } from '../../api/validation.ts';
import type { EventRecord } from '../types.ts';
import type { RollAction, RollAnalysis } from './types.ts';
import { capacityShortfall } from './capacity.ts';
import type { SizedNode, SizedPod } from './capacity.ts';
import { pacerBudgets, unhealthyWorkloads } from './health.ts';
import { repairCheckpoint, statusOf } from './checkpoint.ts';
import { applyRequests } from './requests.ts';
import { decideRoll } from './roll.ts';
import { hasWindows, untilWindowChange, windowState } from '../windows.ts';
import type { WindowState } from '../windows.ts';
import { closedInWords, effectiveWindows } from '../defaultwindows.ts';
import type { DefaultWindows } from '../defaultwindows.ts';
import { withWindow } from './window.ts';

export interface RollPassInput {
  roll: NodeRoll;
  /** Every node (the selector picks the group's). */
  nodes: readonly SizedNode[];
  pods: readonly SizedPod[];
  deployments: readonly Deployment[];
  replicaSets: readonly ReplicaSet[];
  /** The freeze switch, in words, while it is on. */
  frozen?: string;
  /** The cluster's default maintenance windows (engine/defaultwindows.ts), when its ConfigMap names any. */
  defaultWindows?: DefaultWindows;
  /**
   * The analysis resources, when the cluster serves them (spec.healthGate.analysis reads them): the
   * AnalysisRuns, AnalysisTemplates and ClusterAnalysisTemplates (of any namespace: the pass picks).
   */
  analysis?: {
    runs: readonly AnalysisRun[];
    templates: readonly AnalysisTemplate[];
    clusterTemplates: readonly AnalysisTemplate[];
  };
  now: number;
}

export interface RollPass {
  /** The status to store (the one stored when nothing changed). */
  status: NodeRollStatus;
  /** To carry out, in order, before the status is stored. */
  actions: RollAction[];
  events: EventRecord[];
  /** Request annotations to clear once the status is stored. */
  handled: string[];
  /** Look again after this long (a timeout to check); undefined: wait for a change. */
  requeueAfterMs?: number;
  /** The roll's message (the status's). */
  message: string;
}

/** Held by a started roll until it has given back what it holds (the group's rebalancing). */
export const NODEROLL_FINALIZER = 'pacer.dev/noderoll';

/** Does the roll carry its finalizer (a Complete roll without it needs no pass)? */
export const hasFinalizer = (roll: NodeRoll) => roll.metadata.finalizers?.includes(NODEROLL_FINALIZER) === true;

/** The roll's finalizers once a finalizer action is carried out (another writer's are kept, in order). */
export function finalizersAfter(
  current: readonly string[] | undefined,
  verb: 'addFinalizer' | 'removeFinalizer',
): string[] {
  const others = (current ?? []).filter((f) => f !== NODEROLL_FINALIZER);
  return verb === 'addFinalizer' ? [...others, NODEROLL_FINALIZER] : others;
}

/** A deleted roll: its group's rebalancing back (release is a no-op unless this roll holds it), then its finalizer off. */
function deleted(roll: NodeRoll, frozen: string | undefined): RollPass {
  const prev = roll.status ?? {};
  if (!hasFinalizer(roll)) return { status: prev, actions: [], events: [], handled: [], message: prev.message ?? '' };
  if (frozen !== undefined)
    return {
      status: prev,
      actions: [],
      events: [],
      handled: [],
      message: `deleted; frozen: ${frozen}: the group's rebalancing is given back once the freeze is lifted`,
    };
  const group = roll.spec?.nodeGroup;
  const actions: RollAction[] = [];
  // Whatever the checkpoint says: the hold is carried out before the status recording the start is
  // stored, so a roll deleted in between holds it with no trace in its status.
  if (!prev.done && typeof group === 'string' && group !== '') actions.push({ verb: 'releaseRebalance', group });
  actions.push({ verb: 'removeFinalizer' });
  return {
    status: prev,
    actions,
    events: [],
    handled: [],
    message: prev.done ? 'deleted' : "deleted before it ended: the group's rebalancing given back",
  };
}

function invalid(roll: NodeRoll, message: string): RollPass {
  const prev = roll.status ?? {};
  return {
    status: { ...prev, observedGeneration: roll.metadata.generation, phase: 'Invalid', message },
    actions: [],
    events: [],
    handled: [],
    message,
  };
}

/** What the decision reads of spec.healthGate.analysis: its templates found, its arguments, the roll's runs. */
function rollAnalysis(i: RollPassInput): RollAnalysis | undefined {
  const spec = i.roll.spec.healthGate?.analysis;
  if (!spec) return undefined;
  const name = i.roll.metadata.name ?? '';
  const uid = i.roll.metadata.uid;
  const namespace = spec.namespace ?? DEFAULT_NODE_ROLL_ANALYSIS_NAMESPACE;
  const ns = (o: { metadata: { namespace?: string } }) => (o.metadata.namespace ?? 'default') === namespace;
  const found = i.analysis;
  return {
    roll: { name, ...(uid !== undefined ? { uid } : {}) },
    namespace,
    templates: spec.templates.map((ref, k) => {
      const template = ref.clusterScope
        ? found?.clusterTemplates.find((t) => t.metadata.name === ref.templateName)
        : found?.templates.find((t) => ns(t) && t.metadata.name === ref.templateName);
      return { ref, field: `spec.healthGate.analysis.templates[${k}].templateName`, ...(template ? { template } : {}) };
    }),
    args: spec.args ?? [],
    // This roll's own: its label, and its uid when the run says (a roll of the same name made before
    // and deleted does not count).
    runs: (found?.runs ?? []).filter(
      (r) =>
        ns(r) &&
        r.metadata.labels?.[RUN_NODEROLL_LABEL] === name &&
        (uid === undefined || !r.metadata.ownerReferences?.some((o) => o.kind === 'NodeRoll' && o.uid !== uid)),
    ),
    ...(found
      ? {}
      : {
          unavailable:
            'the analysis resources (analysisruns, analysistemplates, clusteranalysistemplates.pacer.dev) are not served: kubectl apply -f crds/, then restart the controller',
        }),
  };
}

/** The pass over `i.roll`; a Complete roll is left as it is. */
export function rollPass(i: RollPassInput): RollPass {
  const { roll, now } = i;
  const prev = roll.status;
  if (roll.metadata.deletionTimestamp) return deleted(roll, i.frozen);
  // Done: the finalizer off, should a crash have come between the release and its removal.
  if (prev?.done)
    return {
      status: prev,
      actions: hasFinalizer(roll) ? [{ verb: 'removeFinalizer' }] : [],
      events: [],
      handled: [],
      message: prev.message ?? '',
    };
  const errors = validateNodeRoll(roll).map(formatFieldError);
  if (errors.length > 0) return invalid(roll, errors.join('; '));
  const spec = nodeRollDefaults(roll.spec);
  const matching = i.nodes.filter((n) => selectorMatches(spec.nodeSelector as LabelSelector, n.metadata.labels));
  if (!prev?.originalNodes) {
    // Nothing to roll is a mistake to report, not a roll that is done; and a roll that would leave
    // too little room for what the group runs is refused before it disrupts anything.
    if (matching.length === 0)
      return invalid(roll, `spec.nodeSelector: Invalid value: ${JSON.stringify(spec.nodeSelector)}: matches no node`);
    const short = capacityShortfall({
      mode: spec.mode,
      desiredNodes: spec.desiredNodes ?? 0,
      nodesAtATime: spec.nodesAtATime,
      nodes: matching,
      pods: i.pods,
    });
    if (short)
      return invalid(
        roll,
        formatFieldError({ field: short.field, type: 'Invalid', value: short.value, detail: short.detail }),
      );
  }
  const events: EventRecord[] = [];
  // A checkpoint edited or partly deleted by hand is repaired (and said so), not blindly re-run.
  const stored = repairCheckpoint(prev, now);
  if (stored.repaired.length > 0)
    events.push({ type: 'Warning', reason: 'NodeRollCheckpointRepaired', message: stored.repaired.join('; ') });
  // The operator's requests (kubectl pacer node-roll resume|skip), carried out on the checkpoint.
  const requests = applyRequests(stored.checkpoint, roll.metadata.annotations, now);
  for (const e of requests.errors) events.push({ type: 'Warning', reason: 'NodeRollRequestRefused', message: e });
  const analysis = rollAnalysis(i);
  // spec.windows and spec.blackouts with the cluster's default (engine/windows.ts,
  // defaultwindows.ts): outside a window nothing new starts; an invalid default holds the roll.
  const eff = effectiveWindows(spec, i.defaultWindows);
  const win: WindowState | undefined =
    eff.invalid !== undefined ? { open: false } : hasWindows(eff.spec) ? windowState(eff.spec, now) : undefined;
  const winWords = win && !win.open ? closedInWords(eff, win) : undefined;
  const decision = decideRoll({
    mode: spec.mode,
    nodeGroup: spec.nodeGroup ?? '',
    desiredNodes: spec.desiredNodes ?? 0,
    nodesAtATime: spec.nodesAtATime,
    cordonFirst: spec.cordonFirst,
    timeoutsMs: Object.fromEntries(NODE_ROLL_WAITS.map((w) => [w, parseGoDuration(spec.timeouts[w])])) as Record<
      NodeRollWait,
      number
    >,
    paused: spec.paused,
    ...(i.frozen !== undefined ? { frozen: i.frozen } : {}),
    checkpoint: requests.checkpoint,
    nodes: matching,
    pods: i.pods,
    unhealthy: unhealthyWorkloads(i.deployments, i.replicaSets, spec.healthGate?.selector),
    budget: pacerBudgets(i.deployments, i.replicaSets, i.pods),
    ...(analysis ? { analysis } : {}),
    ...(win ? { window: { open: win.open, ...(winWords ? { words: winWords } : {}) } } : {}),
    now,
  });
  let status = statusOf(prev, roll.metadata.generation, decision, spec.paused, now);
  if (win && !status.done)
    status = withWindow(
      status,
      prev,
      win,
      winWords,
      now,
      eff.invalid !== undefined ? 'DefaultWindowsInvalid' : undefined,
    );
  // Look again when the window opens (or closes: the status says so).
  const change = win && !status.done ? untilWindowChange(win, now) : undefined;
  const requeueAfterMs =
    change === undefined ? decision.requeueAfterMs : Math.min(decision.requeueAfterMs ?? change, change);
  const actions = [...decision.actions];
  if (status.done) {
    if (hasFinalizer(roll)) actions.push({ verb: 'removeFinalizer' });
  } else if (status.originalNodes && !hasFinalizer(roll)) {
    actions.unshift({ verb: 'addFinalizer' });
  }
  for (const a of decision.actions)
    if (a.verb === 'createAnalysisRun')
      events.push({
        type: 'Normal',
        reason: 'NodeRollAnalysisStarted',
        message: `analysis run ${a.run.metadata.namespace}/${a.run.metadata.name} judges the cluster after node ${a.node}`,
      });
  if (status.paused && !prev?.paused)
    events.push({ type: 'Warning', reason: 'NodeRollPaused', message: status.paused.message });
  if (status.frozenSince !== undefined && prev?.frozenSince === undefined)
    events.push({ type: 'Normal', reason: 'NodeRollFrozen', message: decision.message });
  if (status.frozenSince === undefined && prev?.frozenSince !== undefined)
    events.push({ type: 'Normal', reason: 'NodeRollThawed', message: 'the freeze switch is off: the roll goes on' });
  if (status.done) events.push({ type: 'Normal', reason: 'NodeRollComplete', message: decision.message });
  const wasOpen = prev?.window?.open;
  const wasInvalid = prev?.conditions?.some((c) => c.type === 'Window' && c.reason === 'DefaultWindowsInvalid');
  if (eff.invalid !== undefined && !status.done) {
    if (!wasInvalid) events.push({ type: 'Warning', reason: 'NodeRollDefaultWindowsInvalid', message: eff.invalid });
  } else if (status.window && wasOpen !== status.window.open && (wasOpen !== undefined || !status.window.open))
    events.push(
      status.window.open
        ? { type: 'Normal', reason: 'NodeRollWindowOpened', message: 'a maintenance window is open: the roll goes on' }
        : { type: 'Normal', reason: 'NodeRollOutsideWindow', message: winWords ?? '' },
    );
  return {
    status,
    actions,
    events,
    handled: requests.handled,
    message: decision.message,
    ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}),
  };
}
