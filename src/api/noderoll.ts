// pacer.dev/v1alpha1 NodeRoll (docs/semantics/node-roll.md): replace or drain every node of a group,
// one at a time, gated on the health of every workload, checkpointed in its status. Types (the
// status too: the checkpoint as stored), the defaults and the validation of its spec (the CRD states
// what a schema can; this is the rest, and what a reconcile pass reports as InvalidSpec with field
// paths).

import type { AnalysisTemplateRef, LabelSelector, ObjectMeta } from './types.ts';
import { validateNodeRollAnalysis } from './analysisvalidation.ts';
import { parseGoDuration } from './duration.ts';
import type { FieldError } from './fielderrors.ts';
import { dns1123LabelErrors, dns1123SubdomainErrors, validateSelector } from './validation.ts';
import type { WindowsSpec } from './windows.ts';
import { validateWindows } from './windows.ts';

export const NODEROLL_KIND = 'NodeRoll';
export const NODEROLL_PLURAL = 'noderolls';

/**
 * Replace: scale the group up, then remove each original node. Drain: no surge; each node cordoned
 * and drained, then terminated through the group (which replaces it), or, without a group, uncordoned
 * again (in place).
 */
export const NODE_ROLL_MODES = ['Replace', 'Drain'] as const;
export type NodeRollMode = (typeof NODE_ROLL_MODES)[number];

/** The waits a roll times out on, each a Go duration ("10m"). */
export const NODE_ROLL_WAITS = ['scaleUp', 'drain', 'deregister', 'healthy'] as const;
export type NodeRollWait = (typeof NODE_ROLL_WAITS)[number];
export type NodeRollTimeouts = Partial<Record<NodeRollWait, string>>;
/** What a roll pauses on: a wait that timed out, or a node's analysis (a run that ended badly, or none that could be made). */
export type NodeRollPauseCause = NodeRollWait | 'analysis';
/** The Paused condition's reasons for a pause on analysis. */
export type NodeRollAnalysisReason = 'AnalysisFailed' | 'AnalysisInconclusive' | 'AnalysisInvalid';

/**
 * A node's steps in a roll, in order (a skipped node goes back to Pending): Terminating and
 * Deregistered through a group, Drained in place (a Drain roll without spec.nodeGroup: the node
 * drained and uncordoned, awaiting the health gate).
 */
export const NODE_ROLL_STEPS = ['Pending', 'Draining', 'Terminating', 'Deregistered', 'Drained', 'Done'] as const;
export type NodeStep = (typeof NODE_ROLL_STEPS)[number];

export interface NodeRollSpec extends WindowsSpec {
  /** The group's nodes. An empty selector would select every node: refused. */
  nodeSelector?: LabelSelector;
  /**
   * The node group that is scaled and that terminates nodes: the simulated cluster's NodeGroup by
   * its name (`workers`), or a Cluster API MachineDeployment or MachineSet as KIND/NAMESPACE/NAME
   * (`MachineDeployment/capi/workers`), as kubectl names an object by TYPE/NAME. See parseNodeGroup.
   * Left out in Drain mode: the nodes are drained in place (cordoned, drained, uncordoned).
   */
  nodeGroup?: string;
  /** Replace: the number of new nodes, the size of the group when the roll is done. */
  desiredNodes?: number;
  mode?: NodeRollMode;
  /** Nodes taken out at once (default 1). */
  nodesAtATime?: number;
  /**
   * Replace: cordon every original node before the first eviction (default true), so that each
   * evicted pod lands on a new node and moves once. False cordons each node only when its drain
   * begins (the seed's first attempt: pods may land on old nodes and move again).
   */
  cordonFirst?: boolean;
  /**
   * Whose health gates each next node: default every Pacer Deployment and every ReplicaSet; a
   * selector narrows it. With analysis, a run of the templates after each node must be Successful too.
   */
  healthGate?: { selector?: LabelSelector; analysis?: NodeRollAnalysis };
  timeouts?: NodeRollTimeouts;
  paused?: boolean;
  // spec.windows and spec.blackouts (WindowsSpec, docs/semantics/windows.md): outside a window
  // nothing new is cordoned, drained or terminated; a node already under way finishes.
}

/**
 * spec.healthGate.analysis (docs/semantics/node-roll.md#analysis-at-the-health-gate): after each
 * node, once the workloads are healthy, an AnalysisRun of these templates must end Successful before
 * the next node is taken; one that ends otherwise pauses the roll for a person.
 */
export interface NodeRollAnalysis {
  templates: AnalysisTemplateRef[];
  args?: NodeRollArgument[];
  /** The namespace the runs are made in and a template without clusterScope is read from (default "default"). */
  namespace?: string;
}

/** A value the roll gives one of its templates' arguments: a literal, or the name of the node just replaced. */
export interface NodeRollArgument {
  name: string;
  value?: string;
  valueFrom?: { nodeName?: boolean };
}

/** The namespace of a roll's runs when spec.healthGate.analysis.namespace leaves it out. */
export const DEFAULT_NODE_ROLL_ANALYSIS_NAMESPACE = 'default';

/** A node's analysis, as the checkpoint keeps it: the attempt its gate waits for (1, then one more a resume), or skipped by a person. */
export interface NodeAnalysisProgress {
  attempt: number;
  skipped?: boolean;
}

export interface NodeRoll {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: NodeRollSpec;
  status?: NodeRollStatus;
}

/**
 * The status: the roll's checkpoint (times as RFC 3339), a phase, a message, and conditions (Paused
 * names the node and the wait, Frozen, Complete). Read back, any of it may have been edited by hand:
 * the engine repairs it on read (repairCheckpoint).
 */
export interface NodeRollStatus {
  observedGeneration?: number;
  phase?: 'Rolling' | 'Paused' | 'Frozen' | 'Complete' | 'Invalid';
  message?: string;
  originalNodes?: string[];
  scaledUpTo?: number;
  scaledUpAt?: string;
  nodes?: Array<{ name: string; step: NodeStep; since: string; analysis?: NodeAnalysisProgress }>;
  skipped?: string[];
  /** In place: the original nodes already cordoned when the roll started (they stay cordoned). */
  cordonedBefore?: string[];
  paused?: NodeRollPause;
  frozenSince?: string;
  zones?: string[];
  zoneMoves?: { planned: number; moved: string[]; launch?: { nodesBefore: string[]; at: string; from: string } };
  done?: boolean;
  /** With spec.windows or spec.blackouts: whether a window is open, and when it closes or the next opens (RFC 3339). */
  window?: { open: boolean; closesAt?: string; opensAt?: string };
  conditions?: Array<{
    type: string;
    status: 'True' | 'False';
    reason: string;
    message: string;
    lastTransitionTime: string;
  }>;
}

/** A pause for a human: what it paused on, the node, why; on analysis also the run (when there was one) and the condition's reason. */
export interface NodeRollPause {
  node?: string;
  wait: NodeRollPauseCause;
  message: string;
  run?: string;
  reason?: NodeRollAnalysisReason;
}

/** Each wait's timeout when the spec leaves it out (the seed's roll took about four minutes a node). */
export const DEFAULT_NODE_ROLL_TIMEOUT = '10m';

/** The spec with its defaults (mode Replace, one node at a time, 10m for every wait, not paused). */
export function nodeRollDefaults(
  spec: NodeRollSpec,
): Required<Pick<NodeRollSpec, 'mode' | 'nodesAtATime' | 'paused' | 'cordonFirst'>> &
  NodeRollSpec & { timeouts: Required<NodeRollTimeouts> } {
  const timeouts = Object.fromEntries(
    NODE_ROLL_WAITS.map((w) => [w, spec.timeouts?.[w] ?? DEFAULT_NODE_ROLL_TIMEOUT]),
  ) as Required<NodeRollTimeouts>;
  return {
    ...spec,
    mode: spec.mode ?? 'Replace',
    nodesAtATime: spec.nodesAtATime ?? 1,
    paused: spec.paused ?? false,
    cordonFirst: spec.cordonFirst ?? true,
    timeouts,
  };
}

/** The Cluster API kinds a NodeRoll may roll through (docs/semantics/node-roll.md#cluster-api). */
export const CLUSTER_API_NODE_GROUP_KINDS = ['MachineDeployment', 'MachineSet'] as const;
export type ClusterAPINodeGroupKind = (typeof CLUSTER_API_NODE_GROUP_KINDS)[number];

/** The group spec.nodeGroup names: the simulated cluster's NodeGroup, or a Cluster API object. */
export type NodeGroupRef =
  | { kind: 'NodeGroup'; name: string }
  | { kind: ClusterAPINodeGroupKind; namespace: string; name: string };

/**
 * Reads spec.nodeGroup: a bare name is the simulated cluster's NodeGroup (cluster-scoped); KIND/NAMESPACE/NAME
 * a Cluster API MachineDeployment or MachineSet (namespaced). What is wrong with it otherwise, each a
 * sentence for a field error.
 */
export function parseNodeGroup(value: string): NodeGroupRef | { errors: string[] } {
  const parts = value.split('/');
  if (parts.length === 1) {
    const errors = dns1123SubdomainErrors(value);
    return errors.length > 0 ? { errors } : { kind: 'NodeGroup', name: value };
  }
  const form = `a Cluster API node group is KIND/NAMESPACE/NAME, KIND one of ${CLUSTER_API_NODE_GROUP_KINDS.join(', ')} (e.g. MachineDeployment/capi/workers)`;
  if (parts.length !== 3) return { errors: [form] };
  const [kind, namespace, name] = parts as [string, string, string];
  const errors: string[] = [];
  if (!(CLUSTER_API_NODE_GROUP_KINDS as readonly string[]).includes(kind))
    errors.push(`unknown kind "${kind}": ${form}`);
  for (const msg of dns1123LabelErrors(namespace)) errors.push(`namespace "${namespace}": ${msg}`);
  for (const msg of dns1123SubdomainErrors(name)) errors.push(`name "${name}": ${msg}`);
  return errors.length > 0 ? { errors } : { kind: kind as ClusterAPINodeGroupKind, namespace, name };
}

const isEmpty = (s: LabelSelector | undefined) =>
  !s || (Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0);

/** Every problem with a NodeRoll's spec, as field errors (nothing is disrupted while there is one). */
export function validateNodeRoll(roll: NodeRoll): FieldError[] {
  const errs: FieldError[] = [];
  const spec = roll.spec ?? {};
  if (isEmpty(spec.nodeSelector)) {
    errs.push({
      field: 'spec.nodeSelector',
      type: 'Required',
      detail: 'a non-empty selector is required: an empty one would select every node',
    });
  } else {
    validateSelector('spec.nodeSelector', spec.nodeSelector!, errs);
  }
  const mode = spec.mode ?? 'Replace';
  if (spec.nodeGroup === undefined || spec.nodeGroup === '') {
    // Drain without a group drains in place; Replace has nothing to scale without one.
    if (mode !== 'Drain')
      errs.push({
        field: 'spec.nodeGroup',
        type: 'Required',
        detail: 'the node group to scale and to terminate nodes through (only a Drain roll goes without one, in place)',
      });
  } else {
    const parsed = parseNodeGroup(spec.nodeGroup);
    if ('errors' in parsed)
      for (const msg of parsed.errors)
        errs.push({ field: 'spec.nodeGroup', type: 'Invalid', value: spec.nodeGroup, detail: msg });
  }
  if (!(NODE_ROLL_MODES as readonly string[]).includes(mode)) {
    errs.push({
      field: 'spec.mode',
      type: 'NotSupported',
      value: mode,
      detail: `supported values: ${NODE_ROLL_MODES.map((m) => `"${m}"`).join(', ')}`,
    });
  }
  if (mode === 'Replace' && spec.desiredNodes === undefined) {
    errs.push({ field: 'spec.desiredNodes', type: 'Required', detail: 'Replace needs the number of new nodes' });
  } else if (spec.desiredNodes !== undefined && (!Number.isInteger(spec.desiredNodes) || spec.desiredNodes < 1)) {
    errs.push({
      field: 'spec.desiredNodes',
      type: 'Invalid',
      value: spec.desiredNodes,
      detail: 'must be greater than or equal to 1',
    });
  }
  if (spec.nodesAtATime !== undefined && (!Number.isInteger(spec.nodesAtATime) || spec.nodesAtATime < 1)) {
    errs.push({
      field: 'spec.nodesAtATime',
      type: 'Invalid',
      value: spec.nodesAtATime,
      detail: 'must be greater than or equal to 1',
    });
  }
  if (spec.healthGate?.selector) validateSelector('spec.healthGate.selector', spec.healthGate.selector, errs);
  if (spec.healthGate?.analysis !== undefined && spec.healthGate.analysis !== null)
    errs.push(...validateNodeRollAnalysis(spec.healthGate.analysis));
  errs.push(...validateWindows(spec));
  for (const wait of NODE_ROLL_WAITS) {
    const text = spec.timeouts?.[wait];
    if (text === undefined) continue;
    let ms: number;
    try {
      ms = parseGoDuration(text);
    } catch (e) {
      errs.push({ field: `spec.timeouts.${wait}`, type: 'Invalid', value: text, detail: (e as Error).message });
      continue;
    }
    if (ms <= 0)
      errs.push({ field: `spec.timeouts.${wait}`, type: 'Invalid', value: text, detail: 'must be greater than 0' });
  }
  return errs;
}
