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

import { NODE_ROLL_STEPS } from '../../api/noderoll.ts';
import type { NodeRollMode, NodeRollStatus, NodeRollWait, NodeStep } from '../../api/noderoll.ts';
import { metaTime } from '../../api/duration.ts';
import type { PodBudget } from './health.ts';
import { ZONE_LABEL, isBalanced, rebalanceMoves, zoneCounts } from './zones.ts';

/** A node, as far as the roll reads it. */
export interface RollNode {
  metadata: { name?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec?: { unschedulable?: boolean };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

/** A pod, as far as a drain reads it. */
export interface RollPod {
  metadata: { name?: string; namespace?: string; deletionTimestamp?: string; deletionGracePeriodSeconds?: number; ownerReferences?: Array<{ uid?: string; kind: string; controller?: boolean }>; annotations?: Record<string, string> };
  spec?: { nodeName?: string };
  status?: { phase?: string; conditions?: ReadonlyArray<{ type: string; status: string }> };
}

/** One original node's progress, as the checkpoint keeps it. */
export interface NodeProgress {
  name: string;
  step: NodeStep;
  /** When the current step began (ms), for its timeout. */
  since: number;
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
  /** Set while paused for a human: what timed out. */
  paused?: { node?: string; wait: NodeRollWait; message: string };
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
  checkpoint: RollCheckpoint;
  /** The nodes the selector matches now. */
  nodes: readonly RollNode[];
  pods: readonly RollPod[];
  /** The workloads of the health gate that are not healthy, each said in words; empty when all are. */
  unhealthy: readonly string[];
  /** A pod's workload and how many of its pods may be evicted now (health.ts pacerBudgets); undefined: no budget of Pacer's. */
  budget(pod: RollPod): PodBudget | undefined;
  now: number;
}

export type RollAction =
  | { verb: 'scaleGroup'; group: string; to: number }
  /** The group's own zone rebalancing off for the roll (hold) and back as it was (release). */
  | { verb: 'holdRebalance' | 'releaseRebalance'; group: string }
  | { verb: 'cordon'; node: string }
  | { verb: 'evict'; node: string; namespace: string; pod: string }
  | { verb: 'terminate'; group: string; node: string; shrink: boolean }
  /** The roll's finalizer (NODEROLL_FINALIZER) on, while the roll holds something to give back, and off. */
  | { verb: 'addFinalizer' | 'removeFinalizer' };

export interface RollDecision {
  actions: RollAction[];
  checkpoint: RollCheckpoint;
  /** What the roll is doing or waiting for, in words (the status's message). */
  message: string;
  /** Look again after this long (a timeout to check), or undefined to wait for a change. */
  requeueAfterMs?: number;
}

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

/** Every wait under way starts its clock again (after a pause or a freeze). */
function restartClocks(cp: RollCheckpoint, now: number): RollCheckpoint {
  return {
    ...cp,
    ...(cp.scaledUpAt !== undefined ? { scaledUpAt: now } : {}),
    ...(cp.nodes ? { nodes: cp.nodes.map((n) => (n.step === 'Pending' || n.step === 'Done' ? n : { ...n, since: now })) } : {}),
    ...(cp.zoneMoves?.launch ? { zoneMoves: { ...cp.zoneMoves, launch: { ...cp.zoneMoves.launch, at: now } } } : {}),
  };
}

/** resume: the pause is lifted and every wait under way starts its clock again. */
export function resumeRoll(cp: RollCheckpoint, now: number): RollCheckpoint {
  const { paused: _paused, ...rest } = restartClocks(cp, now);
  return rest;
}

/**
 * skip NODE: a node whose drain is blocked goes back to Pending and to the end of the order (it
 * stays cordoned; what it still runs stays); the roll goes on with the others and comes back to it.
 * Only a node not yet terminated can be skipped.
 */
export function skipNode(cp: RollCheckpoint, node: string, now: number): { checkpoint?: RollCheckpoint; error?: string } {
  const p = cp.nodes?.find((n) => n.name === node);
  if (!p) return { error: `node ${node} is not one of the roll's original nodes` };
  if (p.step !== 'Pending' && p.step !== 'Draining') return { error: `node ${node} is already ${p.step === 'Done' ? 'done' : 'being terminated'}` };
  const resumed = cp.paused?.node === node ? resumeRoll(cp, now) : cp;
  return {
    checkpoint: {
      ...resumed,
      skipped: [...new Set([...(cp.skipped ?? []), node])],
      nodes: resumed.nodes!.map((n) => (n.name === node ? { name: node, step: 'Pending', since: now } : n)),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The checkpoint as the NodeRoll's status stores it (NodeRollStatus, src/api/noderoll.ts).

const msOf = (s: string | undefined, fallback: number) => {
  const t = Date.parse(s ?? '');
  return Number.isNaN(t) ? fallback : t;
};

const isName = (x: unknown): x is string => typeof x === 'string' && x !== '';
const names = (xs: unknown): string[] => (Array.isArray(xs) ? [...new Set(xs.filter(isName))] : []);

/**
 * The checkpoint a stored status holds, and what in it had to be repaired (a status edited or
 * partly deleted by hand: docs/semantics/node-roll.md, The NodeRoll). Times it cannot read count
 * from `now`; a node of the roll without a readable step is Pending again (draining and
 * terminating are safe to repeat: a node already gone is then Done); steps of nodes not in the roll
 * are dropped; a scale-up already asked for is kept, so the group is never scaled twice.
 */
export function repairCheckpoint(status: NodeRollStatus | undefined, now: number): { checkpoint: RollCheckpoint; repaired: string[] } {
  const s = status ?? {};
  const repaired: string[] = [];
  const originals = s.originalNodes === undefined ? undefined : names(s.originalNodes);
  if (s.originalNodes !== undefined && (!Array.isArray(s.originalNodes) || originals!.length !== s.originalNodes.length)) repaired.push('status.originalNodes: not a list of distinct node names');
  // Zone moves come after every original node: without them there can be none.
  if (s.zoneMoves && !originals) repaired.push('status.zoneMoves: recorded before the roll started: dropped');
  const zoneMoves = originals ? s.zoneMoves : undefined;
  const moved = zoneMoves ? names(zoneMoves.moved) : [];
  const steps = new Map((Array.isArray(s.nodes) ? s.nodes : []).filter((n) => n && isName(n.name)).map((n) => [n.name, n]));
  const nodes = originals && [...originals, ...moved.filter((m) => !originals.includes(m))].map((name) => {
    const n = steps.get(name);
    if (n && NODE_ROLL_STEPS.includes(n.step)) return { name, step: n.step, since: msOf(n.since, now) };
    repaired.push(`status.nodes: node ${name} ${n ? `had an unknown step ${JSON.stringify(n.step)}` : 'had no step'}: Pending again`);
    return { name, step: 'Pending' as const, since: now };
  });
  const scaled = typeof s.scaledUpTo === 'number' && Number.isInteger(s.scaledUpTo) && s.scaledUpTo >= 0;
  if (s.scaledUpTo !== undefined && !scaled) repaired.push(`status.scaledUpTo: ${JSON.stringify(s.scaledUpTo)} is not a group size: the scale-up counts as asked for`);
  const planned = zoneMoves && Number.isInteger(zoneMoves.planned) && zoneMoves.planned >= 0 ? zoneMoves.planned : moved.length;
  return {
    checkpoint: {
      ...(originals ? { originalNodes: originals, nodes: nodes! } : {}),
      // An unreadable size still means the scale-up was asked for: the group is left as it is.
      ...(s.scaledUpTo !== undefined ? { scaledUpTo: scaled ? s.scaledUpTo : 0, scaledUpAt: msOf(s.scaledUpAt, now) } : {}),
      ...(s.skipped ? { skipped: names(s.skipped) } : {}),
      ...(s.paused ? { paused: s.paused } : {}),
      ...(s.frozenSince !== undefined ? { frozenAt: msOf(s.frozenSince, now) } : {}),
      ...(s.zones ? { zones: names(s.zones) } : {}),
      ...(zoneMoves ? {
        zoneMoves: {
          planned, moved,
          ...(zoneMoves.launch ? { launch: { before: names(zoneMoves.launch.nodesBefore), at: msOf(zoneMoves.launch.at, now), from: String(zoneMoves.launch.from ?? '') } } : {}),
        },
      } : {}),
      ...(s.done ? { done: true } : {}),
    },
    repaired,
  };
}

/** The checkpoint a stored status holds (repaired where it had to be: repairCheckpoint). */
export function checkpointOf(status: NodeRollStatus | undefined, now: number): RollCheckpoint {
  return repairCheckpoint(status, now).checkpoint;
}

const WAIT_REASON: Record<NodeRollWait, string> = { scaleUp: 'ScaleUpTimeout', drain: 'DrainTimeout', deregister: 'DeregisterTimeout', healthy: 'HealthTimeout' };

/** The status to store after a decision; conditions keep their transition time while they hold. */
export function statusOf(prev: NodeRollStatus | undefined, generation: number | undefined, d: RollDecision, operatorPaused: boolean, now: number): NodeRollStatus {
  const cp = d.checkpoint;
  const phase = cp.done ? 'Complete' : cp.frozenAt !== undefined ? 'Frozen' : cp.paused || operatorPaused ? 'Paused' : 'Rolling';
  const condition = (type: string, on: boolean, reason: string, message: string) => {
    const before = prev?.conditions?.find((c) => c.type === type);
    const status = on ? 'True' as const : 'False' as const;
    return { type, status, reason, message, lastTransitionTime: before && before.status === status ? before.lastTransitionTime : metaTime(now) };
  };
  return {
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    phase,
    message: d.message,
    ...(cp.originalNodes ? { originalNodes: cp.originalNodes } : {}),
    ...(cp.scaledUpTo !== undefined ? { scaledUpTo: cp.scaledUpTo, scaledUpAt: metaTime(cp.scaledUpAt ?? now) } : {}),
    ...(cp.nodes ? { nodes: cp.nodes.map((n) => ({ name: n.name, step: n.step, since: metaTime(n.since) })) } : {}),
    ...(cp.skipped && cp.skipped.length > 0 ? { skipped: cp.skipped } : {}),
    ...(cp.paused ? { paused: cp.paused } : {}),
    ...(cp.frozenAt !== undefined ? { frozenSince: metaTime(cp.frozenAt) } : {}),
    ...(cp.zones ? { zones: cp.zones } : {}),
    ...(cp.zoneMoves ? {
      zoneMoves: {
        planned: cp.zoneMoves.planned, moved: cp.zoneMoves.moved,
        ...(cp.zoneMoves.launch ? { launch: { nodesBefore: cp.zoneMoves.launch.before, at: metaTime(cp.zoneMoves.launch.at), from: cp.zoneMoves.launch.from } } : {}),
      },
    } : {}),
    ...(cp.done ? { done: true } : {}),
    conditions: [
      cp.paused
        ? condition('Paused', true, WAIT_REASON[cp.paused.wait], cp.paused.message)
        : condition('Paused', operatorPaused, operatorPaused ? 'PausedByOperator' : 'Rolling', operatorPaused ? 'spec.paused is true' : d.message),
      condition('Frozen', cp.frozenAt !== undefined, cp.frozenAt !== undefined ? 'Frozen' : 'NotFrozen', cp.frozenAt !== undefined ? d.message : 'the freeze switch is off'),
      condition('Complete', cp.done === true, cp.done ? 'AllNodesReplaced' : 'InProgress', cp.done ? d.message : 'not every original node is replaced yet'),
    ],
  };
}

/** An operator's requests on a NodeRoll, as annotations the plugin writes and the controller clears once carried out. */
export const RESUME_ANNOTATION = 'pacer.dev/resume';
export const SKIP_ANNOTATION = 'pacer.dev/skip';

/**
 * The checkpoint after the operator's requests (resume; skip of the nodes named, comma-separated),
 * and what could not be done. Carrying a request out twice changes nothing more.
 */
export function applyRequests(cp: RollCheckpoint, annotations: Readonly<Record<string, string>> | undefined, now: number): { checkpoint: RollCheckpoint; errors: string[]; handled: string[] } {
  let out = cp;
  const errors: string[] = [];
  const handled: string[] = [];
  const skip = annotations?.[SKIP_ANNOTATION];
  if (skip !== undefined) {
    handled.push(SKIP_ANNOTATION);
    for (const node of skip.split(',').map((x) => x.trim()).filter((x) => x !== '')) {
      const r = skipNode(out, node, now);
      if (r.checkpoint) out = r.checkpoint;
      else errors.push(r.error!);
    }
  }
  if (annotations?.[RESUME_ANNOTATION] !== undefined) {
    handled.push(RESUME_ANNOTATION);
    if (out.paused) out = resumeRoll(out, now);
  }
  return { checkpoint: out, errors, handled };
}
