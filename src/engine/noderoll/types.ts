// The node roller's vocabulary (docs/semantics/node-roll.md): what its decision reads (the nodes,
// the pods, the checkpoint) and what it gives back (actions, the new checkpoint, a message). Types
// only; the checkpoint as the NodeRoll's status stores it is NodeRollStatus (src/api/noderoll.ts).

import type { AnalysisRun } from '../../api/analysis.ts';
import type {
  NodeAnalysisProgress,
  NodeRollArgument,
  NodeRollMode,
  NodeRollPause,
  NodeRollWait,
  NodeStep,
} from '../../api/noderoll.ts';
import type { NamedTemplate } from '../analysis/build.ts';
import type { PodBudget } from './health.ts';

/** A node, as far as the roll reads it. */
export interface RollNode {
  metadata: { name?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec?: { unschedulable?: boolean };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

/** A pod, as far as a drain reads it. */
export interface RollPod {
  metadata: {
    name?: string;
    namespace?: string;
    deletionTimestamp?: string;
    deletionGracePeriodSeconds?: number;
    ownerReferences?: Array<{ uid?: string; kind: string; controller?: boolean }>;
    annotations?: Record<string, string>;
  };
  spec?: { nodeName?: string };
  status?: { phase?: string; conditions?: ReadonlyArray<{ type: string; status: string }> };
}

/** One original node's progress, as the checkpoint keeps it. */
export interface NodeProgress {
  name: string;
  step: NodeStep;
  /** When the current step began (ms), for its timeout. */
  since: number;
  /** With spec.healthGate.analysis: the attempt of the run its gate waits for (absent: 1), or skipped by a person. */
  analysis?: NodeAnalysisProgress;
}

/** The checkpoint (the NodeRoll's status), as the decision reads and writes it. */
export interface RollCheckpoint {
  /** The nodes the roll replaces, fixed when it starts. */
  originalNodes?: string[];
  /** The group size asked for by the scale-up: set once, so the group is never scaled twice. */
  scaledUpTo?: number;
  /** When the scale-up was asked for (ms). */
  scaledUpAt?: number;
  nodes?: NodeProgress[];
  /** Nodes an operator skipped: revisited once the others are done. */
  skipped?: string[];
  /**
   * In place: the original nodes already cordoned (by someone else) when the roll started; they
   * stay cordoned after their drain, as the roll found them.
   */
  cordonedBefore?: string[];
  /** Set while paused for a human: what timed out, or the node's analysis. */
  paused?: NodeRollPause;
  /** Since when the freeze switch has held the roll (ms): its waits' clocks start again once it is lifted. */
  frozenAt?: number;
  /** The zones of the original nodes, recorded at the start (a zone the roll empties still counts). */
  zones?: string[];
  /** Replace: the zone moves at the end (planned once, when the last original node is done). */
  zoneMoves?: ZoneMoves;
  done?: boolean;
}

/** The zone moves: how many were planned, the nodes taken out so far, and the launch under way. */
export interface ZoneMoves {
  planned: number;
  /** The nodes taken out of a full zone, one per move (they join the checkpoint's nodes). */
  moved: string[];
  /** A node launched for the next move: the nodes there were before, when (ms), and the zone a node then leaves. */
  launch?: { before: string[]; at: number; from: string };
}

export interface RollInput {
  mode: NodeRollMode;
  /** The group's name; '' for a Drain roll in place (no group). */
  nodeGroup: string;
  desiredNodes: number;
  nodesAtATime: number;
  /** Replace: cordon every original node before the first eviction (default true). */
  cordonFirst?: boolean;
  /** Each wait's timeout, in ms. */
  timeoutsMs: Record<NodeRollWait, number>;
  /** The operator paused it (spec.paused). */
  paused: boolean;
  /** The freeze switch is on, in words (engine/freeze.ts): nothing is done, no wait times out. */
  frozen?: string;
  /**
   * With spec.windows or spec.blackouts (engine/windows.ts): whether one is open now, and when closed
   * why in words. Closed: nothing new is started (no scale-up, cordon, node or zone move); what is
   * under way finishes.
   */
  window?: { open: boolean; words?: string };
  checkpoint: RollCheckpoint;
  /** The nodes the selector matches now. */
  nodes: readonly RollNode[];
  pods: readonly RollPod[];
  /** The workloads of the health gate that are not healthy, each said in words; empty when all are. */
  unhealthy: readonly string[];
  /** A pod's workload and how many of its pods may be evicted now (health.ts pacerBudgets); undefined: no budget of Pacer's. */
  budget(pod: RollPod): PodBudget | undefined;
  /** spec.healthGate.analysis, with its templates and the roll's runs (analysis.ts); undefined: no analysis. */
  analysis?: RollAnalysis;
  now: number;
}

export type RollAction =
  | { verb: 'scaleGroup'; group: string; to: number }
  /** The group's own zone rebalancing off for the roll (hold) and back as it was (release). */
  | { verb: 'holdRebalance' | 'releaseRebalance'; group: string }
  /** Cordon (spec.unschedulable true) and, after a drain in place, uncordon (false). */
  | { verb: 'cordon' | 'uncordon'; node: string }
  | { verb: 'evict'; node: string; namespace: string; pod: string }
  | { verb: 'terminate'; group: string; node: string; shrink: boolean }
  /** The roll's finalizer (NODEROLL_FINALIZER) on, while the roll holds something to give back, and off. */
  | { verb: 'addFinalizer' | 'removeFinalizer' }
  /** The run that judges the cluster after `node` (spec.healthGate.analysis). */
  | { verb: 'createAnalysisRun'; node: string; run: AnalysisRun };

export interface RollDecision {
  actions: RollAction[];
  checkpoint: RollCheckpoint;
  /** What the roll is doing or waiting for, in words (the status's message). */
  message: string;
  /** Look again after this long (a timeout to check), or undefined to wait for a change. */
  requeueAfterMs?: number;
}

/** What a pass knows of spec.healthGate.analysis: the templates found for it, its arguments, the roll's runs. */
export interface RollAnalysis {
  /** The NodeRoll: its name and uid (the runs' owner). */
  roll: { name: string; uid?: string };
  /** Where the runs are made (spec.healthGate.analysis.namespace, default "default"). */
  namespace: string;
  /** Each template reference with its template when it exists, and its field. */
  templates: readonly NamedTemplate[];
  args: readonly NodeRollArgument[];
  /** The runs this roll made (its label, in its namespace). */
  runs: readonly AnalysisRun[];
  /** Why no run can be made at all (the analysis resources not served), in words. */
  unavailable?: string;
}
