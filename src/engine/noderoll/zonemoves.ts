// The zone moves that end a Replace roll (docs/semantics/node-roll.md#zones): planned once, when
// every original node is done, from the group's zones then (zones.ts), and made one at a time; each
// launches a node, waits for it, then takes a node of the fullest zone out like an original one.
// Never more moves than planned.

import { isReady, nameOf } from './cluster.ts';
import { decision, newNodes } from './context.ts';
import type { RollContext } from './context.ts';
import { overdue } from './pause.ts';
import type { RollDecision, RollNode, ZoneMoves } from './types.ts';
import { ZONE_LABEL, rebalanceMoves, zoneCounts } from './zones.ts';
import { closedForNew } from './window.ts';
import type { ZoneMove } from './zones.ts';

/** Zone moves (Replace): the next move's step, or undefined when no move is left (the roll is done). */
export function zoneMoves(c: RollContext): RollDecision | undefined {
  const nodes = newNodes(c);
  const moves = rebalanceMoves(zoneCounts(nodes, c.cp.zones));
  const zm: ZoneMoves = c.cp.zoneMoves
    ? { ...c.cp.zoneMoves, moved: [...c.cp.zoneMoves.moved] }
    : { planned: moves.length, moved: [] };
  c.cp.zoneMoves = zm;
  if (zm.launch) return awaitLaunched(c, zm, nodes);
  if (zm.moved.length >= zm.planned || moves.length === 0) return undefined;
  // Outside a window the next move waits (window.ts): its node would be drained.
  if (closedForNew(c)) return decision(c, c.words.join('; '));
  return launch(c, zm, nodes, moves[0]);
}

/** Launch a node for the next move: the group grows by one (and, as a cloud's group does, puts it in its emptiest zone). */
function launch(c: RollContext, zm: ZoneMoves, nodes: readonly RollNode[], move: ZoneMove): RollDecision {
  zm.launch = { before: nodes.map(nameOf).sort(), at: c.i.now, from: move.from };
  c.actions.push({ verb: 'scaleGroup', group: c.i.nodeGroup, to: nodes.length + 1 });
  return decision(
    c,
    `zone move ${zm.moved.length + 1} of ${zm.planned}: launching a node for zone ${move.to || '(no zone)'}, then one of zone ${move.from || '(no zone)'} goes`,
    c.i.timeoutsMs.scaleUp,
  );
}

/** Wait until a node that was not there before the launch is Ready (the scaleUp timeout); then a node goes. */
function awaitLaunched(c: RollContext, zm: ZoneMoves, nodes: readonly RollNode[]): RollDecision {
  const before = new Set(zm.launch!.before);
  if (nodes.some((x) => !before.has(nameOf(x)) && isReady(x)))
    return takeOut(
      c,
      zm,
      nodes.filter((x) => before.has(nameOf(x))),
    );
  const n = zm.moved.length + 1;
  const t = overdue(c, {
    wait: 'scaleUp',
    since: zm.launch!.at,
    why: () => `zone move ${n} of ${zm.planned}: the node launched is not registered and Ready`,
  });
  if ('paused' in t) return t.paused;
  return decision(c, `zone move ${n} of ${zm.planned}: waiting for the node launched`, t.leftMs);
}

/**
 * The newest-named node of the zone that was fullest (of the fullest now, should that one have
 * emptied meanwhile), not the one just launched, joins the checkpoint's nodes: drained and
 * terminated like an original one.
 */
function takeOut(c: RollContext, zm: ZoneMoves, older: readonly RollNode[]): RollDecision {
  const counts = zoneCounts(older);
  const fullest = Object.keys(counts).sort((a, b) => counts[b] - counts[a])[0];
  const from = counts[zm.launch!.from] ? zm.launch!.from : fullest;
  const out = older
    .filter((x) => (x.metadata.labels?.[ZONE_LABEL] ?? '') === from)
    .map(nameOf)
    .sort()
    .pop()!;
  delete zm.launch;
  zm.moved.push(out);
  c.cp.nodes = [...c.cp.nodes!, { name: out, step: 'Pending', since: c.i.now }];
  return decision(c, `zone move ${zm.moved.length} of ${zm.planned}: ${out} goes`, 0);
}
