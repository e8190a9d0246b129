// When is a node roll paused? (docs/semantics/node-roll.md) As this file says, and nowhere else:
//  * overdue: a wait (scaleUp, drain, deregister, healthy) that has lasted its timeout pauses the
//    roll for a human. Every wait of every phase asks it.
//  * judged: a node's analysis (spec.healthGate.analysis) whose run ended Failed, Error or
//    Inconclusive, or that cannot start (a template missing or invalid), pauses the roll for a human.
//    Nothing else pauses a roll by itself.
//  * held: a roll paused (by overdue, or by its operator: spec.paused), frozen or done does nothing; a
//    pause is lifted by resume (requests.ts), and resumed or thawed its waits' clocks start again.

import type { NodeRollAnalysisReason, NodeRollWait } from '../../api/noderoll.ts';
import { restartClocks } from './checkpoint.ts';
import type { RollContext } from './context.ts';
import type { RollCheckpoint, RollDecision, RollInput } from './types.ts';

/** A wait under way: which, since when (ms), on which node, and why it would pause, told how long it has lasted (ms). */
export interface Wait {
  wait: NodeRollWait;
  since: number;
  node?: string;
  why(waitedMs: number): string;
}

/**
 * Has a wait lasted too long? Once it has lasted its timeout (spec.timeouts) or longer, the roll
 * pauses: the checkpoint records the wait, the node and why, and the pass ends with the actions it
 * has so far (nodeWork records the steps they moved nodes to). Otherwise, the time left before it
 * would (the pass looks again by then).
 */
export function overdue(c: RollContext, w: Wait): { paused: RollDecision } | { leftMs: number } {
  const waited = c.i.now - w.since;
  const timeout = c.i.timeoutsMs[w.wait];
  if (waited >= timeout) {
    const message = w.why(waited);
    c.cp.paused = { ...(w.node ? { node: w.node } : {}), wait: w.wait, message };
    return { paused: { actions: c.actions, checkpoint: c.cp, message: `paused: ${message}` } };
  }
  return { leftMs: timeout - waited };
}

/**
 * A node's analysis pauses the roll (analysis.ts says when): the checkpoint records the node, the
 * run (when there was one), the Paused condition's reason and why; the pass ends with the actions it
 * has so far, as for a wait that timed out.
 */
export function judged(
  c: RollContext,
  a: { node: string; reason: NodeRollAnalysisReason; message: string; run?: string },
): RollDecision {
  c.cp.paused = {
    node: a.node,
    wait: 'analysis',
    message: a.message,
    ...(a.run !== undefined ? { run: a.run } : {}),
    reason: a.reason,
  };
  return { actions: c.actions, checkpoint: c.cp, message: `paused: ${a.message}` };
}

/**
 * A roll with nothing to do on this pass, and why: done; frozen (its waits' clocks stop: frozenAt);
 * paused, by a wait that timed out or by its operator. Otherwise the checkpoint to decide from, its
 * waits' clocks started again when the freeze was just lifted.
 */
export function held(i: RollInput): { decision: RollDecision } | { checkpoint: RollCheckpoint } {
  let cp: RollCheckpoint = { ...i.checkpoint };
  if (cp.done) return nothing(cp, 'every original node has been replaced');
  if (i.frozen !== undefined) {
    cp.frozenAt ??= i.now;
    return nothing(cp, `frozen: ${i.frozen}`);
  }
  if (cp.frozenAt !== undefined) {
    // The freeze is lifted: the waits it held start their clocks again.
    const { frozenAt: _frozenAt, ...thawed } = restartClocks(cp, i.now);
    cp = thawed;
  }
  if (i.paused || cp.paused)
    return nothing(cp, cp.paused ? `paused: ${cp.paused.message}` : 'paused by an operator (spec.paused)');
  return { checkpoint: cp };
}

const nothing = (checkpoint: RollCheckpoint, message: string): { decision: RollDecision } => ({
  decision: { actions: [], checkpoint, message },
});
