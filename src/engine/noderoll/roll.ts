// The node roller's decision (docs/semantics/node-roll.md): from a NodeRoll's checkpoint, the
// group's nodes and pods, the health gate and the clock, what to do next. Pure and level-triggered:
// the shell carries the actions out and stores the checkpoint, and the next pass decides again from
// what the cluster then shows, so a restart or a new leader resumes from the status. A pass is the
// roll's phases in order (phases.ts, zonemoves.ts); when a roll pauses is pause.ts's to say.

import { newContext } from './context.ts';
import { held } from './pause.ts';
import { awaitNewNodes, cordonOriginals, done, everyNodeDone, nodeWork, rolling, scaleUp, start } from './phases.ts';
import type { RollDecision, RollInput } from './types.ts';
import { zoneMoves } from './zonemoves.ts';
import { closedForNew, outsideWindow } from './window.ts';

/** The next decision of a roll. */
export function decideRoll(i: RollInput): RollDecision {
  const gate = held(i);
  if ('decision' in gate) return gate.decision;
  // Outside its maintenance windows a roll not yet started does not start (window.ts).
  const closed = outsideWindow(i);
  if (closed !== undefined && !gate.checkpoint.originalNodes)
    return { actions: [], checkpoint: gate.checkpoint, message: `not started: ${closed}` };
  const c = newContext(i, gate.checkpoint);
  start(c);
  if (i.mode === 'Replace') {
    const waiting = scaleUp(c) ?? awaitNewNodes(c);
    if (waiting) return waiting;
    if (!closedForNew(c)) cordonOriginals(c);
  }
  const paused = nodeWork(c);
  if (paused) return paused;
  if (!everyNodeDone(c)) return rolling(c);
  return (i.mode === 'Replace' ? zoneMoves(c) : undefined) ?? done(c);
}
