// One pass of the node roller's decision (roll.ts, docs/semantics/node-roll.md): the state its
// phases share, handed explicitly from one to the next. A phase adds actions and words and moves
// nodes on; a phase that ends the pass returns its decision, built here.

import type { NodeStep } from '../../api/noderoll.ts';
import { nameOf } from './cluster.ts';
import type { NodeProgress, RollAction, RollCheckpoint, RollDecision, RollInput, RollNode } from './types.ts';

export interface RollContext {
  readonly i: RollInput;
  /** The checkpoint this pass writes (a copy of the input's). */
  readonly cp: RollCheckpoint;
  /** What to do, in order. */
  readonly actions: RollAction[];
  /** The group's nodes now, by name. */
  readonly byName: ReadonlyMap<string, RollNode>;
  /** The nodes the roll replaces (set by start). */
  originals: ReadonlySet<string>;
  /**
   * Each node of the checkpoint as this pass moves it on (set when the per-node work begins); it
   * goes into the checkpoint only when no wait has timed out.
   */
  progress: Map<string, NodeProgress>;
  /** What the roll is doing and waiting for, in words (the message). */
  readonly words: string[];
  /** Look again within this long: the soonest a wait under way would time out. */
  waitMs?: number;
  /** This pass's evictions per workload: they count against its budget. */
  readonly spent: Map<string, number>;
}

export function newContext(i: RollInput, cp: RollCheckpoint): RollContext {
  return {
    i,
    cp,
    actions: [],
    byName: new Map(i.nodes.map((n) => [nameOf(n), n])),
    originals: new Set(),
    progress: new Map(),
    words: [],
    spent: new Map(),
  };
}

/** The pass's decision: its actions and checkpoint, `message`, and when to look again. */
export function decision(c: RollContext, message: string, requeueAfterMs?: number): RollDecision {
  return { actions: c.actions, checkpoint: c.cp, message, ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}) };
}

/** Look again within `ms` at the latest. */
export function waitAtMost(c: RollContext, ms: number): void {
  c.waitMs = c.waitMs === undefined ? ms : Math.min(c.waitMs, ms);
}

/** A node on to `step`, from now (its analysis' attempt kept). */
export function setStep(c: RollContext, name: string, step: NodeStep): void {
  const analysis = c.progress.get(name)?.analysis;
  c.progress.set(name, { name, step, since: c.i.now, ...(analysis ? { analysis } : {}) });
}

/** The group's nodes that are not original ones. */
export function newNodes(c: RollContext): RollNode[] {
  return c.i.nodes.filter((n) => !c.originals.has(nameOf(n)));
}
