// Where a rollout's time goes, from what `upstream.bench.ts --timeline DIR` keeps: the API server's
// audit log and the phases' change times. For each Deployment of a phase, its rounds: the
// controller's ReplicaSet write (a create or a scale), then the ReplicaSet controller's work on it
// (pod creates and deletes, ReplicaSet status writes), then the controller's next ReplicaSet write.
// Each round's time splits in two at the last ReplicaSet status write before the next scale:
//   * the ReplicaSet side: from the controller's write answered to that status write answered
//     (the ReplicaSet controller's queue and syncs, the pods, kwok);
//   * the reaction: from that status write answered to the controller's next write received
//     (the controller's informer, queue, workers, client and CPU).
// Summed over a rollout's rounds, with the time to the first write before them and the time from the
// last ReplicaSet write to the last status write after them, they are the rollout's time.
//
//   node bench/timeline.ts DIR [--phase update] [--sample d-0]
//
// Pure but for the command at the bottom: rolloutOf and summarize take the audit's events.

import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

/** One audited write, as far as a timeline reads it. */
export interface Write {
  user: string;
  verb: string;
  /** "replicasets", "replicasets/status", "deployments/status", "pods", "events", ... */
  resource: string;
  name: string;
  /** ms since the epoch: the API server received it, and answered it. */
  received: number;
  answered: number;
}

export interface Round {
  /** The controller's ReplicaSet write that starts the round. */
  write: Write;
  /** From the controller's write answered to the ReplicaSet controller's first write about that ReplicaSet or its pods. */
  rsStartMs?: number;
  /** From the write answered to the last ReplicaSet status write before the next controller write. */
  rsSideMs?: number;
  /** From that status write answered to the controller's next ReplicaSet write received. */
  reactionMs?: number;
}

export interface Rollout {
  name: string;
  /** ms from the change to the controller's first write about the Deployment. */
  firstWriteMs: number;
  rounds: Round[];
  /** ms from the last ReplicaSet write answered to the controller's last status write received. */
  tailMs: number;
  /** ms from the change to the controller's last write about the Deployment. */
  totalMs: number;
  /** The ReplicaSet controller's writes during the rollout: ReplicaSet status, pod creates, pod deletes. */
  rsStatusWrites: number;
  podWrites: number;
  /** The controller's own writes during the rollout. */
  ownWrites: number;
}

/** The Deployment `name`'s ReplicaSets are `name-HASH`, their pods `name-HASH-ID`, Events `name...ID`. */
function owns(deployment: string, object: string): boolean {
  return object === deployment || object.startsWith(`${deployment}-`) || object.startsWith(`${deployment}.`);
}

const isRsWrite = (w: Write): boolean => w.resource === 'replicasets' && (w.verb === 'create' || w.verb === 'update');

/**
 * One Deployment's rollout from the writes about it (any order), `controller` and `rsController`
 * being the two users, changed at `changedAt`.
 */
export function rolloutOf(
  name: string,
  changedAt: number,
  writes: Write[],
  controller: string,
  rsController: string,
): Rollout | undefined {
  const mine = writes
    .filter((w) => w.received >= changedAt && owns(name, w.name))
    .sort((a, b) => a.received - b.received);
  const own = mine.filter((w) => w.user === controller);
  if (own.length === 0) return undefined;
  const rsWrites = own.filter(isRsWrite);
  const statuses = mine.filter(
    (w) => w.user === rsController && w.resource === 'replicasets/status' && w.verb === 'update',
  );
  const rsc = mine.filter((w) => w.user === rsController);
  const rounds: Round[] = rsWrites.map((write, i) => {
    const next = rsWrites[i + 1];
    const round: Round = { write };
    const started = rsc.find((w) => w.received >= write.answered && owns(write.name, w.name));
    if (started) round.rsStartMs = started.received - write.answered;
    if (next) {
      const trigger = statuses.filter((s) => s.answered >= write.answered && s.answered <= next.received).at(-1);
      if (trigger) {
        round.rsSideMs = trigger.answered - write.answered;
        round.reactionMs = next.received - trigger.answered;
      }
    }
    return round;
  });
  const last = own.at(-1)!;
  const lastRs = rsWrites.at(-1);
  return {
    name,
    firstWriteMs: own[0].received - changedAt,
    rounds,
    tailMs: lastRs ? last.received - lastRs.answered : 0,
    totalMs: last.received - changedAt,
    rsStatusWrites: statuses.length,
    podWrites: rsc.filter((w) => w.resource === 'pods').length,
    ownWrites: own.length,
  };
}

export interface Summary {
  rollouts: number;
  /** Means per rollout. */
  totalMs: number;
  firstWriteMs: number;
  rounds: number;
  rsSideMs: number;
  reactionMs: number;
  writeMs: number;
  tailMs: number;
  rsStatusWrites: number;
  podWrites: number;
  ownWrites: number;
  /** Per round: p50 / p90 / mean. */
  reaction: [number, number, number];
  rsSide: [number, number, number];
  rsStart: [number, number, number];
  total: [number, number, number];
}

function spread(xs: number[]): [number, number, number] {
  if (xs.length === 0) return [0, 0, 0];
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return [q(0.5), q(0.9), Math.round(s.reduce((a, b) => a + b, 0) / s.length)];
}

/** Means over rollouts and per-round spreads. */
export function summarize(rollouts: Rollout[]): Summary {
  const n = rollouts.length;
  const mean = (f: (r: Rollout) => number) => (n === 0 ? 0 : Math.round(rollouts.reduce((a, r) => a + f(r), 0) / n));
  const meanF = (f: (r: Rollout) => number) =>
    n === 0 ? 0 : Math.round((rollouts.reduce((a, r) => a + f(r), 0) / n) * 10) / 10;
  const rounds = rollouts.flatMap((r) => r.rounds);
  const sum = (r: Rollout, f: (x: Round) => number | undefined) => r.rounds.reduce((a, x) => a + (f(x) ?? 0), 0);
  return {
    rollouts: n,
    totalMs: mean((r) => r.totalMs),
    firstWriteMs: mean((r) => r.firstWriteMs),
    rounds: meanF((r) => r.rounds.length),
    rsSideMs: mean((r) => sum(r, (x) => x.rsSideMs)),
    reactionMs: mean((r) => sum(r, (x) => x.reactionMs)),
    writeMs: mean((r) => sum(r, (x) => x.write.answered - x.write.received)),
    tailMs: mean((r) => r.tailMs),
    rsStatusWrites: meanF((r) => r.rsStatusWrites),
    podWrites: meanF((r) => r.podWrites),
    ownWrites: meanF((r) => r.ownWrites),
    reaction: spread(rounds.flatMap((x) => (x.reactionMs === undefined ? [] : [x.reactionMs]))),
    rsSide: spread(rounds.flatMap((x) => (x.rsSideMs === undefined ? [] : [x.rsSideMs]))),
    rsStart: spread(rounds.flatMap((x) => (x.rsStartMs === undefined ? [] : [x.rsStartMs]))),
    total: spread(rollouts.map((r) => r.totalMs)),
  };
}

// ---- the command -----------------------------------------------------------------------------------

interface Phase {
  bed: string;
  controller: 'upstream' | 'pacer';
  size: number;
  phase: string;
  ns: string;
  started: number;
  ended: number;
  changedAt: Record<string, number>;
}

const USERS = {
  upstream: 'system:serviceaccount:kube-system:deployment-controller',
  pacer: 'system:serviceaccount:pacer-system:pacer-controller',
};
const RS_USER = 'system:serviceaccount:kube-system:replicaset-controller';
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete']);

async function readWrites(file: string, namespaces: Set<string>): Promise<Map<string, Write[]>> {
  const byNs = new Map<string, Write[]>();
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (line === '') continue;
    const e = JSON.parse(line) as {
      verb: string;
      stage: string;
      user: { username: string };
      objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
      requestReceivedTimestamp: string;
      stageTimestamp: string;
    };
    const ns = e.objectRef?.namespace;
    if (e.stage !== 'ResponseComplete' || !WRITE_VERBS.has(e.verb) || !ns || !namespaces.has(ns)) continue;
    const w: Write = {
      user: e.user.username,
      verb: e.verb,
      resource: `${e.objectRef!.resource}${e.objectRef!.subresource ? `/${e.objectRef!.subresource}` : ''}`,
      name: e.objectRef!.name ?? '',
      received: Date.parse(e.requestReceivedTimestamp),
      answered: Date.parse(e.stageTimestamp),
    };
    let list = byNs.get(ns);
    if (!list) byNs.set(ns, (list = []));
    list.push(w);
  }
  return byNs;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { phase: { type: 'string', default: 'update' }, sample: { type: 'string', default: 'd-0' } },
  });
  const dir = positionals[0];
  if (dir === undefined) {
    process.stderr.write('usage: node bench/timeline.ts DIR [--phase create|update] [--sample d-0]\n');
    process.exit(2);
  }
  const phases = readFileSync(join(dir, 'phases.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Phase)
    .filter((p) => p.phase === values.phase && p.bed === 'real');
  if (phases.length === 0) throw new Error(`${dir}/phases.jsonl: no real-bed phase "${values.phase}"`);
  const byNs = await readWrites(join(dir, 'audit.log'), new Set(phases.map((p) => p.ns)));
  for (const p of phases) {
    const user = USERS[p.controller];
    const writes = (byNs.get(p.ns) ?? []).filter((w) => w.received >= p.started && w.received <= p.ended + 3000);
    const rollouts = Object.entries(p.changedAt).flatMap(([name, at]) => {
      const r = rolloutOf(name, at, writes, user, RS_USER);
      return r ? [r] : [];
    });
    process.stdout.write(
      `${JSON.stringify({ controller: p.controller, size: p.size, phase: p.phase, ...summarize(rollouts) })}\n`,
    );
    const sample = p.changedAt[values.sample!];
    if (sample !== undefined) {
      process.stdout.write(`# ${p.controller} ${values.sample}, ms from its change:\n`);
      for (const w of writes
        .filter((x) => x.received >= sample && owns(values.sample!, x.name))
        .sort((a, b) => a.received - b.received)) {
        const who = w.user === user ? 'ctrl' : w.user === RS_USER ? 'rsc ' : w.user.split(':').at(-1);
        process.stdout.write(
          `#   ${w.received - sample}..${w.answered - sample} ${who} ${w.verb} ${w.resource} ${w.name}\n`,
        );
      }
    }
  }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) await main();
