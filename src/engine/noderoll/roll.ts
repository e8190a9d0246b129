// The node roller's decision (docs/semantics/node-roll.md): given a NodeRoll with its checkpoint
// (status), the cluster's nodes and pods, the health gate and the clock, what to do next. Pure: the
// shell carries the actions out and writes the new status, and the next pass decides again from
// what the cluster then shows (level-triggered), so a restart or a new leader resumes from status.
//
// Replace, as the seed's roller with its planned enhancements:
//   start        the original nodes (those the selector matches now) are recorded, once
//   scale up     the group to originals + desiredNodes, once (status.scaledUpTo; never twice)
//   wait         until desiredNodes new nodes are registered and Ready             (scaleUp timeout)
//   cordon       every original node first: an evicted pod lands on a new node, and moves once
//   per node     up to nodesAtATime at a time, in order (a skipped node goes to the end):
//     drain      evict its pods (as far as their budgets allow), then wait until every pod
//                evicted is gone (its graceful shutdown is not cut short)           (drain timeout)
//     terminate  through the group, which shrinks by one
//     wait       until the node has left the cluster                              (deregister timeout)
//     wait       until every workload of the gate is healthy                       (healthy timeout)
//   zone moves   Replace: the moves the seed's appendix derives (zones.ts), one at a time: launch a
//                node (the group puts it in its emptiest zone), wait until it is Ready, then drain
//                and terminate a node of the zone that was fullest, under the same gate; at most as
//                many as planned when the last original node went
//   done         every original node gone, the zones balanced (or the planned moves made)
// The group's own rebalancing (AWS's AZRebalance) is held off from the start to the end: it may
// terminate a node to even out zones behind the roll's back (the seed's hazard).
// Drain is the same without the scale-up and the zone moves, and the group keeps its size (it
// replaces what it loses).
// Any wait past its timeout pauses the roll with a condition naming the node, the step and what it
// waited for; resume (spec.paused false after a pause, or the plugin's resume) restarts the clock.

import type { NodeRollWait, NodeStep } from '../../api/noderoll.ts';
import { restartClocks } from './checkpoint.ts';
import type { RollAction, RollCheckpoint, RollDecision, RollInput, RollNode, RollPod, ZoneMoves } from './types.ts';
import { ZONE_LABEL, isBalanced, rebalanceMoves, zoneCounts } from './zones.ts';

const nameOf = (x: { metadata: { name?: string } }) => x.metadata.name ?? '';

export function isReady(n: RollNode): boolean {
  return n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

/** A pod a drain leaves alone: DaemonSet-managed (its controller puts it back), a mirror pod, or finished. */
const drainIgnores = (p: RollPod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed'
  || p.metadata.ownerReferences?.some((r) => r.controller && r.kind === 'DaemonSet') === true
  || p.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined;

/** The pods a drain evicts: not DaemonSet-managed, not mirror pods, not finished, not already going. */
export function drainablePods(pods: readonly RollPod[], node: string): RollPod[] {
  return pods.filter((p) => p.spec?.nodeName === node && !p.metadata.deletionTimestamp && !drainIgnores(p));
}

/**
 * The pods a drain still waits for: being deleted (evicted, or deleted by anyone) but not yet gone,
 * and not reported terminated by their node. As `kubectl drain` does, a node is taken out only once
 * they are gone, so no pod's graceful shutdown is cut short by its node's termination.
 */
export function stoppingPods(pods: readonly RollPod[], node: string): RollPod[] {
  return pods.filter((p) => p.spec?.nodeName === node && p.metadata.deletionTimestamp !== undefined && !drainIgnores(p));
}

/**
 * The stopping pods in words, those still there after their grace period ended first (the API
 * server sets a deleted pod's deletionTimestamp to the end of its grace period): "default/web-1
 * (still running 12 s after its grace period ended)", "default/web-2 (grace period 30 s)".
 */
function stoppingInWords(pods: readonly RollPod[], now: number): string {
  const late = (p: RollPod) => now - Date.parse(p.metadata.deletionTimestamp ?? '');
  const sorted = [...pods].sort((a, b) => late(b) - late(a));
  const shown = sorted.slice(0, 3).map((p) => {
    const over = late(p);
    const grace = p.metadata.deletionGracePeriodSeconds;
    const why = over >= 1000 ? `still running ${Math.round(over / 1000)} s after its grace period ended`
      : grace !== undefined ? `grace period ${grace} s` : 'stopping';
    return `${p.metadata.namespace ?? ''}/${nameOf(p)} (${why})`;
  });
  return `${shown.join(', ')}${sorted.length > 3 ? ` and ${sorted.length - 3} more` : ''}`;
}

/** The next decision of a roll. */
export function decideRoll(i: RollInput): RollDecision {
  let cp: RollCheckpoint = { ...i.checkpoint };
  const actions: RollAction[] = [];
  if (cp.done) return { actions, checkpoint: cp, message: 'every original node has been replaced' };
  if (i.frozen !== undefined) {
    cp.frozenAt ??= i.now;
    return { actions, checkpoint: cp, message: `frozen: ${i.frozen}` };
  }
  if (cp.frozenAt !== undefined) {
    // The freeze is lifted: the waits it held start their clocks again.
    const { frozenAt: _frozenAt, ...thawed } = restartClocks(cp, i.now);
    cp = thawed;
  }
  if (i.paused || cp.paused) {
    return { actions, checkpoint: cp, message: cp.paused ? `paused: ${cp.paused.message}` : 'paused by an operator (spec.paused)' };
  }
  const byName = new Map(i.nodes.map((n) => [nameOf(n), n]));
  // Start: the original nodes, once.
  if (!cp.originalNodes) {
    cp.originalNodes = [...byName.keys()].sort();
    cp.nodes = cp.originalNodes.map((name) => ({ name, step: 'Pending', since: i.now }));
    cp.zones = Object.keys(zoneCounts(i.nodes)).sort();
    actions.push({ verb: 'holdRebalance', group: i.nodeGroup });
  }
  const originals = new Set(cp.originalNodes);
  const pause = (wait: NodeRollWait, message: string, node?: string): RollDecision => {
    cp.paused = { ...(node ? { node } : {}), wait, message };
    return { actions, checkpoint: cp, message: `paused: ${message}` };
  };
  // Scale up, once; then wait for the new nodes.
  if (i.mode === 'Replace') {
    if (cp.scaledUpTo === undefined) {
      cp.scaledUpTo = cp.originalNodes.length + i.desiredNodes;
      cp.scaledUpAt = i.now;
      actions.push({ verb: 'scaleGroup', group: i.nodeGroup, to: cp.scaledUpTo });
      return { actions, checkpoint: cp, message: `scaling ${i.nodeGroup} up to ${cp.scaledUpTo} nodes`, requeueAfterMs: i.timeoutsMs.scaleUp };
    }
    const ready = i.nodes.filter((n) => !originals.has(nameOf(n)) && isReady(n)).length;
    const started = cp.nodes!.some((n) => n.step !== 'Pending');
    if (!started && ready < i.desiredNodes) {
      const waited = i.now - (cp.scaledUpAt ?? i.now);
      if (waited >= i.timeoutsMs.scaleUp) return pause('scaleUp', `${ready} of ${i.desiredNodes} new nodes registered and Ready after the scale-up`);
      return { actions, checkpoint: cp, message: `waiting for new nodes: ${ready} of ${i.desiredNodes} registered and Ready`, requeueAfterMs: i.timeoutsMs.scaleUp - waited };
    }
    // Cordon every original node first (the seed's "tag old nodes"): each pod moves once.
    if (i.cordonFirst !== false) {
      for (const name of cp.originalNodes) {
        const n = byName.get(name);
        if (n && !n.spec?.unschedulable) actions.push({ verb: 'cordon', node: name });
      }
    }
  }
  // The nodes in work order: skipped ones last.
  const skipped = new Set(cp.skipped ?? []);
  const order = [...cp.nodes!].sort((a, b) => Number(skipped.has(a.name)) - Number(skipped.has(b.name)));
  const nodes = new Map(cp.nodes!.map((n) => [n.name, { ...n }]));
  const set = (name: string, step: NodeStep) => nodes.set(name, { name, step, since: i.now });
  let waitMs: number | undefined;
  const waitAtMost = (ms: number) => { waitMs = waitMs === undefined ? ms : Math.min(waitMs, ms); };
  const words: string[] = [];
  // A node that has left the cluster is deregistered, whatever step it was at.
  for (const p of nodes.values()) if (p.step !== 'Done' && p.step !== 'Deregistered' && !byName.has(p.name) && p.step !== 'Pending') set(p.name, 'Deregistered');
  const inFlight = () => [...nodes.values()].filter((p) => p.step === 'Draining' || p.step === 'Terminating' || p.step === 'Deregistered');
  // Start nodes up to nodesAtATime, in order, while the gate is healthy.
  for (const p of order) {
    if (inFlight().length >= i.nodesAtATime) break;
    const now = nodes.get(p.name)!;
    if (now.step !== 'Pending') continue;
    if (!byName.has(p.name)) {
      set(p.name, 'Done');
      continue;
    }
    if (i.unhealthy.length > 0) break;
    if (i.mode === 'Drain' || i.cordonFirst === false || !originals.has(p.name)) actions.push({ verb: 'cordon', node: p.name });
    set(p.name, 'Draining');
  }
  // Evictions of this pass count against their workloads' budgets (two pods of one Deployment on a
  // node are not both evicted when only one may go).
  const spent = new Map<string, number>();
  const refusal = (pod: RollPod): string | undefined => {
    const b = i.budget(pod);
    if (!b) return undefined;
    const used = spent.get(b.workload) ?? 0;
    if (used >= b.allowed) return b.why ?? `${b.workload}: no more of its pods may go now`;
    spent.set(b.workload, used + 1);
    return undefined;
  };
  for (const p of [...nodes.values()]) {
    const age = i.now - p.since;
    if (p.step === 'Draining') {
      const left = drainablePods(i.pods, p.name);
      const stopping = left.length === 0 ? stoppingPods(i.pods, p.name) : [];
      if (left.length === 0 && stopping.length > 0) {
        // Every pod has been evicted: the node goes once they have stopped, not before.
        if (age >= i.timeoutsMs.drain) return pause('drain', `node ${p.name}: ${stopping.length} evicted pod(s) not gone after ${Math.round(age / 1000)} s: ${stoppingInWords(stopping, i.now)}`, p.name);
        words.push(`draining ${p.name}: waiting for ${stopping.length} evicted pod(s) to stop`);
        waitAtMost(i.timeoutsMs.drain - age);
        continue;
      }
      if (left.length === 0) {
        set(p.name, 'Terminating');
        actions.push({ verb: 'terminate', group: i.nodeGroup, node: p.name, shrink: i.mode === 'Replace' });
        words.push(`terminating ${p.name}`);
        waitAtMost(i.timeoutsMs.deregister);
        continue;
      }
      if (age >= i.timeoutsMs.drain) {
        const why = left.map((pod) => i.budget(pod)).find((b) => b && b.allowed === 0)?.why;
        return pause('drain', `node ${p.name}: ${left.length} pod(s) not evicted after ${Math.round(age / 1000)} s${why ? ` (${why})` : ''}`, p.name);
      }
      const held: string[] = [];
      for (const pod of left) {
        const no = refusal(pod);
        if (no === undefined) actions.push({ verb: 'evict', node: p.name, namespace: pod.metadata.namespace ?? '', pod: nameOf(pod) });
        else if (!held.includes(no)) held.push(no);
      }
      words.push(`draining ${p.name}: ${left.length} pod(s) left${held.length > 0 ? `, waiting because ${held.join('; ')}` : ''}`);
      waitAtMost(i.timeoutsMs.drain - age);
    } else if (p.step === 'Terminating') {
      if (age >= i.timeoutsMs.deregister) return pause('deregister', `node ${p.name} still registered after ${Math.round(age / 1000)} s`, p.name);
      words.push(`waiting for ${p.name} to leave the cluster`);
      waitAtMost(i.timeoutsMs.deregister - age);
    } else if (p.step === 'Deregistered') {
      if (i.unhealthy.length === 0) {
        set(p.name, 'Done');
        continue;
      }
      if (age >= i.timeoutsMs.healthy) return pause('healthy', `after ${p.name}: ${i.unhealthy.join('; ')}`, p.name);
      words.push(`after ${p.name}, waiting for: ${i.unhealthy.join('; ')}`);
      waitAtMost(i.timeoutsMs.healthy - age);
    }
  }
  cp.nodes = [...cp.originalNodes, ...(cp.zoneMoves?.moved ?? [])].map((name) => nodes.get(name)!);
  if (cp.nodes.every((p) => p.step === 'Done')) {
    const rest = i.nodes.filter((n) => !originals.has(nameOf(n)));
    if (i.mode === 'Replace') {
      const move = zoneMove(cp, rest, i.nodeGroup, i.now, i.timeoutsMs.scaleUp);
      actions.push(...move.actions);
      if (move.paused) return pause('scaleUp', move.paused);
      if (move.message) return { actions, checkpoint: cp, message: move.message, ...(move.requeueAfterMs !== undefined ? { requeueAfterMs: move.requeueAfterMs } : {}) };
    }
    cp.done = true;
    actions.push({ verb: 'releaseRebalance', group: i.nodeGroup });
    const moved = cp.zoneMoves?.moved.length ?? 0;
    return { actions, checkpoint: cp, message: `every original node has been replaced; ${zonesInWords(rest, cp.zones)}${moved > 0 ? `; ${moved} zone move(s) made` : ''}` };
  }
  if (words.length === 0 && i.unhealthy.length > 0) words.push(`waiting for: ${i.unhealthy.join('; ')}`);
  return { actions, checkpoint: cp, message: words.join('; ') || 'rolling', ...(waitMs !== undefined ? { requeueAfterMs: Math.max(0, waitMs) } : {}) };
}

/**
 * The next zone move, once every original node is done (Replace). Planned once: the moves that
 * balance the group's zones then. Each: launch a node (the group puts it in its emptiest zone), and
 * once a node not there before is Ready, a node of the zone that was fullest joins the checkpoint's
 * nodes, to be drained and terminated like an original one. `message` unset: no move left.
 */
function zoneMove(cp: RollCheckpoint, nodes: readonly RollNode[], group: string, now: number, scaleUpMs: number): { actions: RollAction[]; message?: string; paused?: string; requeueAfterMs?: number } {
  const counts = zoneCounts(nodes, cp.zones);
  const moves = rebalanceMoves(counts);
  const zm: ZoneMoves = cp.zoneMoves ? { ...cp.zoneMoves, moved: [...cp.zoneMoves.moved] } : { planned: moves.length, moved: [] };
  cp.zoneMoves = zm;
  const n = zm.moved.length + 1;
  if (!zm.launch) {
    if (zm.moved.length >= zm.planned || moves.length === 0) return { actions: [] };
    zm.launch = { before: nodes.map(nameOf).sort(), at: now, from: moves[0].from };
    return {
      actions: [{ verb: 'scaleGroup', group, to: nodes.length + 1 }],
      message: `zone move ${n} of ${zm.planned}: launching a node for zone ${moves[0].to || '(no zone)'}, then one of zone ${moves[0].from || '(no zone)'} goes`,
      requeueAfterMs: scaleUpMs,
    };
  }
  const before = new Set(zm.launch.before);
  const fresh = nodes.filter((x) => !before.has(nameOf(x)) && isReady(x));
  if (fresh.length === 0) {
    const waited = now - zm.launch.at;
    if (waited >= scaleUpMs) return { actions: [], paused: `zone move ${n} of ${zm.planned}: the node launched is not registered and Ready` };
    return { actions: [], message: `zone move ${n} of ${zm.planned}: waiting for the node launched`, requeueAfterMs: scaleUpMs - waited };
  }
  // The newest-named node of the zone that was fullest (of the fullest now, should that one have
  // emptied meanwhile), not the one just launched.
  const older = nodes.filter((x) => before.has(nameOf(x)));
  const olderCounts = zoneCounts(older);
  const fullest = Object.keys(olderCounts).sort((a, b) => olderCounts[b] - olderCounts[a])[0];
  const from = olderCounts[zm.launch.from] ? zm.launch.from : fullest;
  const out = older.filter((x) => (x.metadata.labels?.[ZONE_LABEL] ?? '') === from).map(nameOf).sort().pop()!;
  delete zm.launch;
  zm.moved.push(out);
  cp.nodes = [...cp.nodes!, { name: out, step: 'Pending', since: now }];
  return { actions: [], message: `zone move ${n} of ${zm.planned}: ${out} goes`, requeueAfterMs: 0 };
}

/** The group's zones in words: "zones a 2, b 2, c 2 (balanced)", or the moves that would balance them. */
export function zonesInWords(nodes: readonly RollNode[], zones: readonly string[] = []): string {
  const counts = zoneCounts(nodes, zones);
  const list = Object.keys(counts).sort().map((z) => `${z || '(no zone)'} ${counts[z]}`).join(', ');
  if (isBalanced(counts)) return `zones ${list} (balanced)`;
  const moves = rebalanceMoves(counts);
  return `zones ${list}: ${moves.length} move(s) would balance them (${moves.map((m) => `${m.from} → ${m.to}`).join(', ')})`;
}
