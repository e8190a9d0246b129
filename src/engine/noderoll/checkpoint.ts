// The roll's checkpoint and the NodeRoll's status (docs/semantics/node-roll.md, The NodeRoll): the
// status is read back repaired (a status edited or partly deleted by hand is never blindly re-run,
// and a scale-up once asked for stays asked for), and written from each decision. Times are ms in
// the checkpoint and RFC 3339 in the status.

import { NODE_ROLL_STEPS } from '../../api/noderoll.ts';
import type { NodeAnalysisProgress, NodeRollPause, NodeRollStatus, NodeRollWait } from '../../api/noderoll.ts';
import { metaTime } from '../../api/duration.ts';
import type { RollCheckpoint, RollDecision } from './types.ts';

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
export function repairCheckpoint(
  status: NodeRollStatus | undefined,
  now: number,
): { checkpoint: RollCheckpoint; repaired: string[] } {
  const s = status ?? {};
  const repaired: string[] = [];
  const originals = s.originalNodes === undefined ? undefined : names(s.originalNodes);
  if (
    s.originalNodes !== undefined &&
    (!Array.isArray(s.originalNodes) || originals!.length !== s.originalNodes.length)
  )
    repaired.push('status.originalNodes: not a list of distinct node names');
  // Zone moves come after every original node: without them there can be none.
  if (s.zoneMoves && !originals) repaired.push('status.zoneMoves: recorded before the roll started: dropped');
  const zoneMoves = originals ? s.zoneMoves : undefined;
  const moved = zoneMoves ? names(zoneMoves.moved) : [];
  const steps = new Map(
    (Array.isArray(s.nodes) ? s.nodes : []).filter((n) => n && isName(n.name)).map((n) => [n.name, n]),
  );
  const nodes =
    originals &&
    [...originals, ...moved.filter((m) => !originals.includes(m))].map((name) => {
      const n = steps.get(name);
      if (n && NODE_ROLL_STEPS.includes(n.step)) {
        const analysis = nodeAnalysis(n.analysis);
        if (n.analysis !== undefined && !analysis)
          repaired.push(
            `status.nodes: node ${name} had an unreadable analysis ${JSON.stringify(n.analysis)}: its first attempt again`,
          );
        return { name, step: n.step, since: msOf(n.since, now), ...(analysis ? { analysis } : {}) };
      }
      repaired.push(
        `status.nodes: node ${name} ${n ? `had an unknown step ${JSON.stringify(n.step)}` : 'had no step'}: Pending again`,
      );
      return { name, step: 'Pending' as const, since: now };
    });
  const scaled = typeof s.scaledUpTo === 'number' && Number.isInteger(s.scaledUpTo) && s.scaledUpTo >= 0;
  if (s.scaledUpTo !== undefined && !scaled)
    repaired.push(
      `status.scaledUpTo: ${JSON.stringify(s.scaledUpTo)} is not a group size: the scale-up counts as asked for`,
    );
  const planned =
    zoneMoves && Number.isInteger(zoneMoves.planned) && zoneMoves.planned >= 0 ? zoneMoves.planned : moved.length;
  return {
    checkpoint: {
      ...(originals ? { originalNodes: originals, nodes: nodes! } : {}),
      // An unreadable size still means the scale-up was asked for: the group is left as it is.
      ...(s.scaledUpTo !== undefined
        ? { scaledUpTo: scaled ? s.scaledUpTo : 0, scaledUpAt: msOf(s.scaledUpAt, now) }
        : {}),
      ...(s.skipped ? { skipped: names(s.skipped) } : {}),
      ...(s.cordonedBefore ? { cordonedBefore: names(s.cordonedBefore) } : {}),
      ...(s.paused ? { paused: s.paused } : {}),
      ...(s.frozenSince !== undefined ? { frozenAt: msOf(s.frozenSince, now) } : {}),
      ...(s.zones ? { zones: names(s.zones) } : {}),
      ...(zoneMoves
        ? {
            zoneMoves: {
              planned,
              moved,
              ...(zoneMoves.launch
                ? {
                    launch: {
                      before: names(zoneMoves.launch.nodesBefore),
                      at: msOf(zoneMoves.launch.at, now),
                      from: String(zoneMoves.launch.from ?? ''),
                    },
                  }
                : {}),
            },
          }
        : {}),
      ...(s.done ? { done: true } : {}),
    },
    repaired,
  };
}

/** A node's analysis as stored, when it reads as one (an attempt of at least 1, skipped or not). */
function nodeAnalysis(v: unknown): NodeAnalysisProgress | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const { attempt, skipped } = v as Record<string, unknown>;
  if (typeof attempt !== 'number' || !Number.isInteger(attempt) || attempt < 1) return undefined;
  if (skipped !== undefined && typeof skipped !== 'boolean') return undefined;
  return { attempt, ...(skipped ? { skipped: true } : {}) };
}

/** The checkpoint a stored status holds (repaired where it had to be: repairCheckpoint). */
export function checkpointOf(status: NodeRollStatus | undefined, now: number): RollCheckpoint {
  return repairCheckpoint(status, now).checkpoint;
}

const WAIT_REASON: Record<NodeRollWait, string> = {
  scaleUp: 'ScaleUpTimeout',
  drain: 'DrainTimeout',
  deregister: 'DeregisterTimeout',
  healthy: 'HealthTimeout',
};

/** The Paused condition's reason: the wait that timed out, or the node's analysis (AnalysisFailed, ...). */
const pauseReason = (p: NodeRollPause): string =>
  p.wait === 'analysis' ? (p.reason ?? 'AnalysisFailed') : (WAIT_REASON[p.wait] ?? 'Paused');

/** The status to store after a decision; conditions keep their transition time while they hold. */
export function statusOf(
  prev: NodeRollStatus | undefined,
  generation: number | undefined,
  d: RollDecision,
  operatorPaused: boolean,
  now: number,
): NodeRollStatus {
  const cp = d.checkpoint;
  const phase = cp.done
    ? 'Complete'
    : cp.frozenAt !== undefined
      ? 'Frozen'
      : cp.paused || operatorPaused
        ? 'Paused'
        : 'Rolling';
  const condition = (type: string, on: boolean, reason: string, message: string) => {
    const before = prev?.conditions?.find((c) => c.type === type);
    const status = on ? ('True' as const) : ('False' as const);
    return {
      type,
      status,
      reason,
      message,
      lastTransitionTime: before && before.status === status ? before.lastTransitionTime : metaTime(now),
    };
  };
  return {
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    phase,
    message: d.message,
    ...(cp.originalNodes ? { originalNodes: cp.originalNodes } : {}),
    ...(cp.scaledUpTo !== undefined ? { scaledUpTo: cp.scaledUpTo, scaledUpAt: metaTime(cp.scaledUpAt ?? now) } : {}),
    ...(cp.nodes
      ? {
          nodes: cp.nodes.map((n) => ({
            name: n.name,
            step: n.step,
            since: metaTime(n.since),
            ...(n.analysis ? { analysis: n.analysis } : {}),
          })),
        }
      : {}),
    ...(cp.skipped && cp.skipped.length > 0 ? { skipped: cp.skipped } : {}),
    ...(cp.cordonedBefore && cp.cordonedBefore.length > 0 ? { cordonedBefore: cp.cordonedBefore } : {}),
    ...(cp.paused ? { paused: cp.paused } : {}),
    ...(cp.frozenAt !== undefined ? { frozenSince: metaTime(cp.frozenAt) } : {}),
    ...(cp.zones ? { zones: cp.zones } : {}),
    ...(cp.zoneMoves
      ? {
          zoneMoves: {
            planned: cp.zoneMoves.planned,
            moved: cp.zoneMoves.moved,
            ...(cp.zoneMoves.launch
              ? {
                  launch: {
                    nodesBefore: cp.zoneMoves.launch.before,
                    at: metaTime(cp.zoneMoves.launch.at),
                    from: cp.zoneMoves.launch.from,
                  },
                }
              : {}),
          },
        }
      : {}),
    ...(cp.done ? { done: true } : {}),
    conditions: [
      cp.paused
        ? condition('Paused', true, pauseReason(cp.paused), cp.paused.message)
        : condition(
            'Paused',
            operatorPaused,
            operatorPaused ? 'PausedByOperator' : 'Rolling',
            operatorPaused ? 'spec.paused is true' : d.message,
          ),
      condition(
        'Frozen',
        cp.frozenAt !== undefined,
        cp.frozenAt !== undefined ? 'Frozen' : 'NotFrozen',
        cp.frozenAt !== undefined ? d.message : 'the freeze switch is off',
      ),
      condition(
        'Complete',
        cp.done === true,
        cp.done ? 'AllNodesReplaced' : 'InProgress',
        cp.done ? d.message : 'not every original node is replaced yet',
      ),
    ],
  };
}

/** Every wait under way starts its clock again (after a pause or a freeze). */
export function restartClocks(cp: RollCheckpoint, now: number): RollCheckpoint {
  return {
    ...cp,
    ...(cp.scaledUpAt !== undefined ? { scaledUpAt: now } : {}),
    ...(cp.nodes
      ? { nodes: cp.nodes.map((n) => (n.step === 'Pending' || n.step === 'Done' ? n : { ...n, since: now })) }
      : {}),
    ...(cp.zoneMoves?.launch ? { zoneMoves: { ...cp.zoneMoves, launch: { ...cp.zoneMoves.launch, at: now } } } : {}),
  };
}
