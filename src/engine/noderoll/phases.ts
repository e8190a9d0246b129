// The phases of a node roll (docs/semantics/node-roll.md, What the roller does), a function each,
// in the order decideRoll (roll.ts) runs them on every pass. A phase reads and writes the pass's
// context (context.ts) and returns a decision when it ends the pass. Whether a wait has lasted too
// long is for overdue (pause.ts) alone to say. The zone moves at the end are in zonemoves.ts.

import { drainablePods, isReady, nameOf, stoppingInWords, stoppingPods } from './cluster.ts';
import { decision, newNodes, setStep, waitAtMost } from './context.ts';
import type { RollContext } from './context.ts';
import { nodeGate } from './analysis.ts';
import { judged, overdue } from './pause.ts';
import type { NodeProgress, RollDecision, RollInput, RollPod } from './types.ts';
import { zoneCounts, zonesInWords } from './zones.ts';
import { closedForNew } from './window.ts';

/**
 * A Drain roll without a node group drains in place: each node is cordoned, drained and uncordoned,
 * nothing is terminated and no group is held.
 */
export const inPlace = (i: RollInput): boolean => i.mode === 'Drain' && i.nodeGroup === '';

/** Start, once: the original nodes (those the selector matches now) and their zones recorded, the group's own rebalancing held. */
export function start(c: RollContext): void {
  const { i, cp } = c;
  if (!cp.originalNodes) {
    cp.originalNodes = [...c.byName.keys()].sort();
    cp.nodes = cp.originalNodes.map((name) => ({ name, step: 'Pending', since: i.now }));
    cp.zones = Object.keys(zoneCounts(i.nodes)).sort();
    if (!inPlace(i)) c.actions.push({ verb: 'holdRebalance', group: i.nodeGroup });
    else {
      const cordoned = cp.originalNodes.filter((name) => c.byName.get(name)?.spec?.unschedulable === true);
      if (cordoned.length > 0) cp.cordonedBefore = cordoned;
    }
  }
  c.originals = new Set(cp.originalNodes);
}

/** Scale up (Replace), once: the group to its original nodes + desiredNodes (scaledUpTo recorded, so never twice). */
export function scaleUp(c: RollContext): RollDecision | undefined {
  const { i, cp } = c;
  if (cp.scaledUpTo !== undefined) return undefined;
  if (closedForNew(c)) return decision(c, c.words.join('; '));
  cp.scaledUpTo = cp.originalNodes!.length + i.desiredNodes;
  cp.scaledUpAt = i.now;
  c.actions.push({ verb: 'scaleGroup', group: i.nodeGroup, to: cp.scaledUpTo });
  return decision(c, `scaling ${i.nodeGroup} up to ${cp.scaledUpTo} nodes`, i.timeoutsMs.scaleUp);
}

/** Wait for the new nodes (Replace): until desiredNodes of them are registered and Ready, unless a node has been taken out already. */
export function awaitNewNodes(c: RollContext): RollDecision | undefined {
  const { i, cp } = c;
  const ready = newNodes(c).filter(isReady).length;
  const started = cp.nodes!.some((n) => n.step !== 'Pending');
  if (!started && ready < i.desiredNodes) {
    const t = overdue(c, {
      wait: 'scaleUp',
      since: cp.scaledUpAt ?? i.now,
      why: () => `${ready} of ${i.desiredNodes} new nodes registered and Ready after the scale-up`,
    });
    if ('paused' in t) return t.paused;
    return decision(c, `waiting for new nodes: ${ready} of ${i.desiredNodes} registered and Ready`, t.leftMs);
  }
  return undefined;
}

/** Cordon every original node first (Replace, unless cordonFirst is false: the seed's "tag old nodes"), so each evicted pod moves once. */
export function cordonOriginals(c: RollContext): void {
  if (c.i.cordonFirst === false) return;
  for (const name of c.cp.originalNodes!) {
    const n = c.byName.get(name);
    if (n && !n.spec?.unschedulable) c.actions.push({ verb: 'cordon', node: name });
  }
}

/**
 * The per-node work: a node that has left the cluster is Deregistered, nodes are started up to
 * nodesAtATime, and each node under way takes its next step (drain, terminate, wait to deregister,
 * wait for health). The checkpoint records every node's step as the pass moved it, also when a
 * wait that has lasted too long ends the pass paused: a node terminated earlier in that pass is
 * recorded Terminating, as the action issued says.
 */
export function nodeWork(c: RollContext): RollDecision | undefined {
  const { cp } = c;
  // The nodes in work order: skipped ones last.
  const skipped = new Set(cp.skipped ?? []);
  const order = [...cp.nodes!].sort((a, b) => Number(skipped.has(a.name)) - Number(skipped.has(b.name)));
  c.progress = new Map(cp.nodes!.map((n) => [n.name, { ...n }]));
  markGone(c);
  startNodes(c, order);
  for (const p of [...c.progress.values()]) {
    const paused =
      p.step === 'Draining'
        ? drain(c, p)
        : p.step === 'Terminating'
          ? awaitDeregistered(c, p)
          : p.step === 'Deregistered' || p.step === 'Drained'
            ? awaitHealthy(c, p)
            : undefined;
    if (paused) {
      recordSteps(c);
      return paused;
    }
  }
  recordSteps(c);
  return undefined;
}

/** The checkpoint's nodes, in the roll's order, at the steps this pass moved them to. */
function recordSteps(c: RollContext): void {
  c.cp.nodes = [...c.cp.originalNodes!, ...(c.cp.zoneMoves?.moved ?? [])].map((name) => c.progress.get(name)!);
}

/** A node that has left the cluster is Deregistered, whatever step it was at (a Pending one is Done: startNodes). */
function markGone(c: RollContext): void {
  for (const p of c.progress.values()) {
    if (p.step !== 'Done' && p.step !== 'Deregistered' && !c.byName.has(p.name) && p.step !== 'Pending')
      setStep(c, p.name, 'Deregistered');
  }
}

/** Nodes draining, terminating or awaiting health (after leaving the cluster, or uncordoned in place). */
function underWay(c: RollContext): number {
  let n = 0;
  for (const p of c.progress.values())
    if (p.step === 'Draining' || p.step === 'Terminating' || p.step === 'Deregistered' || p.step === 'Drained') n++;
  return n;
}

/**
 * Start nodes, in work order, while fewer than nodesAtATime are under way and the gate is healthy:
 * cordoned (unless every original node was cordoned first) and Draining. A node already gone is Done.
 */
export function startNodes(c: RollContext, order: readonly NodeProgress[]): void {
  const { i } = c;
  for (const p of order) {
    if (underWay(c) >= i.nodesAtATime) break;
    if (c.progress.get(p.name)!.step !== 'Pending') continue;
    if (!c.byName.has(p.name)) {
      setStep(c, p.name, 'Done');
      continue;
    }
    if (i.unhealthy.length > 0) break;
    if (closedForNew(c)) break;
    if (i.mode === 'Drain' || i.cordonFirst === false || !c.originals.has(p.name))
      c.actions.push({ verb: 'cordon', node: p.name });
    setStep(c, p.name, 'Draining');
  }
}

/**
 * Drain: evict the node's pods; once none is left to evict, wait until every pod evicted has
 * stopped; then terminate the node (in place: uncordon it).
 */
export function drain(c: RollContext, p: NodeProgress): RollDecision | undefined {
  const left = drainablePods(c.i.pods, p.name);
  if (left.length > 0) return evict(c, p, left);
  const stopping = stoppingPods(c.i.pods, p.name);
  if (stopping.length > 0) return awaitStopped(c, p, stopping);
  if (inPlace(c.i)) uncordon(c, p);
  else terminate(c, p);
  return undefined;
}

/**
 * In place: the drained node is schedulable again (unless it was cordoned before the roll: it is
 * left as the roll found it), and the roll waits for health (awaitHealthy) before the next.
 */
export function uncordon(c: RollContext, p: NodeProgress): void {
  setStep(c, p.name, 'Drained');
  if (c.cp.cordonedBefore?.includes(p.name)) {
    c.words.push(`drained ${p.name}, left cordoned as it was before the roll`);
    return;
  }
  c.actions.push({ verb: 'uncordon', node: p.name });
  c.words.push(`uncordoned ${p.name}`);
}

/** Why a pod may not be evicted now (its workload's budget, this pass's evictions counted), or undefined: it may. */
function refusal(c: RollContext, pod: RollPod): string | undefined {
  const b = c.i.budget(pod);
  if (!b) return undefined;
  const used = c.spent.get(b.workload) ?? 0;
  if (used >= b.allowed) return b.why ?? `${b.workload}: no more of its pods may go now`;
  c.spent.set(b.workload, used + 1);
  return undefined;
}

/** Evict the pods the node still runs, as far as their budgets allow. */
export function evict(c: RollContext, p: NodeProgress, left: readonly RollPod[]): RollDecision | undefined {
  const t = overdue(c, {
    wait: 'drain',
    since: p.since,
    node: p.name,
    why: (waited) => {
      const why = left.map((pod) => c.i.budget(pod)).find((b) => b && b.allowed === 0)?.why;
      return `node ${p.name}: ${left.length} pod(s) not evicted after ${Math.round(waited / 1000)} s${why ? ` (${why})` : ''}`;
    },
  });
  if ('paused' in t) return t.paused;
  const held: string[] = [];
  for (const pod of left) {
    const no = refusal(c, pod);
    if (no === undefined)
      c.actions.push({ verb: 'evict', node: p.name, namespace: pod.metadata.namespace ?? '', pod: nameOf(pod) });
    else if (!held.includes(no)) held.push(no);
  }
  c.words.push(
    `draining ${p.name}: ${left.length} pod(s) left${held.length > 0 ? `, waiting because ${held.join('; ')}` : ''}`,
  );
  waitAtMost(c, t.leftMs);
  return undefined;
}

/** Wait until every pod evicted from the node has stopped: the node goes once they have, not before. */
export function awaitStopped(c: RollContext, p: NodeProgress, stopping: readonly RollPod[]): RollDecision | undefined {
  const t = overdue(c, {
    wait: 'drain',
    since: p.since,
    node: p.name,
    why: (waited) =>
      `node ${p.name}: ${stopping.length} evicted pod(s) not gone after ${Math.round(waited / 1000)} s: ${stoppingInWords(stopping, c.i.now)}`,
  });
  if ('paused' in t) return t.paused;
  c.words.push(`draining ${p.name}: waiting for ${stopping.length} evicted pod(s) to stop`);
  waitAtMost(c, t.leftMs);
  return undefined;
}

/** Terminate the drained node through the group (Replace: the group shrinks by one; Drain: it replaces the node). */
export function terminate(c: RollContext, p: NodeProgress): void {
  setStep(c, p.name, 'Terminating');
  c.actions.push({ verb: 'terminate', group: c.i.nodeGroup, node: p.name, shrink: c.i.mode === 'Replace' });
  c.words.push(`terminating ${p.name}`);
  waitAtMost(c, c.i.timeoutsMs.deregister);
}

/** Wait until the terminated node has left the cluster. */
export function awaitDeregistered(c: RollContext, p: NodeProgress): RollDecision | undefined {
  const t = overdue(c, {
    wait: 'deregister',
    since: p.since,
    node: p.name,
    why: (waited) => `node ${p.name} still registered after ${Math.round(waited / 1000)} s`,
  });
  if ('paused' in t) return t.paused;
  c.words.push(`waiting for ${p.name} to leave the cluster`);
  waitAtMost(c, t.leftMs);
  return undefined;
}

/**
 * Wait until every workload of the gate is healthy, and with spec.healthGate.analysis until the
 * node's run is Successful: then the node is Done. The run starts once the workloads are healthy
 * and, once started, is read whatever they do; it has no timeout (its metrics have counts, so it
 * ends by itself). A run that ends Failed, Error or Inconclusive, or one that cannot be made,
 * pauses the roll (judged).
 */
export function awaitHealthy(c: RollContext, p: NodeProgress): RollDecision | undefined {
  const { unhealthy, analysis } = c.i;
  const gate = analysis ? nodeGate(analysis, p) : ({ kind: 'passed' } as const);
  if (gate.kind === 'pause') return judged(c, { node: p.name, ...gate });
  if (gate.kind === 'measuring') {
    c.words.push(`after ${p.name}, waiting for analysis run ${gate.run} (${gate.phase})`);
    return undefined;
  }
  if (unhealthy.length === 0) {
    if (gate.kind === 'start') {
      c.actions.push({ verb: 'createAnalysisRun', node: p.name, run: gate.run });
      c.words.push(`after ${p.name}, analysis run ${gate.run.metadata.name} started`);
      return undefined;
    }
    setStep(c, p.name, 'Done');
    return undefined;
  }
  const t = overdue(c, {
    wait: 'healthy',
    since: p.since,
    node: p.name,
    why: () => `after ${p.name}: ${unhealthy.join('; ')}`,
  });
  if ('paused' in t) return t.paused;
  c.words.push(`after ${p.name}, waiting for: ${unhealthy.join('; ')}`);
  waitAtMost(c, t.leftMs);
  return undefined;
}

/** Is every node of the roll (the original ones and those the zone moves took) done? */
export function everyNodeDone(c: RollContext): boolean {
  return c.cp.nodes!.every((p) => p.step === 'Done');
}

/** A pass that goes on: what the roll does and waits for, in words, and when to look again. */
export function rolling(c: RollContext): RollDecision {
  if (c.words.length === 0 && c.i.unhealthy.length > 0) c.words.push(`waiting for: ${c.i.unhealthy.join('; ')}`);
  return decision(c, c.words.join('; ') || 'rolling', c.waitMs !== undefined ? Math.max(0, c.waitMs) : undefined);
}

/** Done: every original node replaced (and the zone moves made); the group's rebalancing given back. In place: every node drained and back. */
export function done(c: RollContext): RollDecision {
  c.cp.done = true;
  if (inPlace(c.i)) {
    const left = c.cp.cordonedBefore ?? [];
    return decision(
      c,
      `every original node has been drained in place and uncordoned${left.length > 0 ? ` (${left.join(', ')} left cordoned, as before the roll)` : ''}`,
    );
  }
  c.actions.push({ verb: 'releaseRebalance', group: c.i.nodeGroup });
  const moved = c.cp.zoneMoves?.moved.length ?? 0;
  return decision(
    c,
    `every original node has been replaced; ${zonesInWords(newNodes(c), c.cp.zones)}${moved > 0 ? `; ${moved} zone move(s) made` : ''}`,
  );
}
