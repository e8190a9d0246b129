// The chaos run (docs/testing.md#chaos): Deployments of every strategy (RollingUpdate of several
// surge/unavailable shapes, Recreate, MinimumHealth, dependency pairs, deploy-plan phase strategies
// serial, parallel and serial-canary, and a custom Plan over three of them) changed at random (new
// images, scale, pause and resume, restarts, a return to the previous image, an operator's plan
// commands) on the simulated cluster while a NodeRoll replaces the node group they partly run on,
// while its API server injects errors (500, 429, 409), latency, dropped watches and expired
// resourceVersions, and while the controller, its own process, is SIGKILLed and restarted at random
// moments; with two replicas electing a leader, the kills move leadership between them; sharded
// (`shards`, docs/sharding.md), the fleet is spread over namespaces of every shard, five Deployments
// a namespace (a dependency pair stays together), and the kills move shards between the replicas.
// Seeded: the same seed makes the same changes in the same order (the timing of what answers them is
// not).
//
// An observer outside the controller reads the simulated cluster's store (no faults on that path)
// every few milliseconds and checks the promises:
//   surge        Σ ReplicaSet spec.replicas ≤ replicas + maxSurge, once the controller has observed the spec
//                (not while waiting for dependencies: then no step is taken, a scale included; after a
//                scale-down, above the lowered bound only ever down: upstream's proportional scaling)
//   available    ready pods ≥ replicas − maxUnavailable (MinimumHealth: ceil(replicas × capacity)),
//                once the Deployment has been whole at its current size (a scale-up starts below it)
//   recreate     never pods of two templates of a Recreate Deployment at once
//   drained      a node of the group is terminated only once no pod of a ReplicaSet still runs on it
//                (every one evicted first: drain before terminate)
//   scaled once  the group never asks for more than its original nodes + desiredNodes + 1 (a zone
//                move's launch): a restarted controller or a new leader never scales it twice
// and at the end, with faults and kills stopped and an operator doing what the held Deployments'
// Progressing messages ask (`kubectl pacer plan start|continue ...`): every Deployment converged
// (observed, complete, every replica of the current template available), the Plan COMPLETE, the
// roll Complete with none of the original nodes left and the group at its desired size, no
// Deployment lost, no ReplicaSet without its Deployment, each Deployment's revisions distinct with its
// own revision the newest.
// The figures go to bench/RESULTS.md (bench/chaos.bench.ts runs the big size).

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  Deployment,
  DeploymentPlanSpec,
  DeploymentSpec,
  PlanResource,
  Pod,
  ReplicaSet,
} from '../../src/api/types.ts';
import { operate, restartedTemplate } from '../../src/planops/service.ts';
import type { PlanCommand } from '../../src/planops/service.ts';
import { ANN_DELETE_NODE } from '../../src/sim/control/nodegroups.ts';
import { withDefaults } from '../../src/api/defaults.ts';
import { maxSurge, minAvailable } from '../../src/engine/fenceposts.ts';
import { shardOf } from '../../src/engine/shards.ts';
import { REF } from '../../src/sim/resources.ts';
import { rng } from '../../src/sim/faults.ts';
import type { KubeObject, ResourceRef } from '../../src/sim/types.ts';
import { deploymentManifest, podTemplate, startSimWithCrds } from '../integration/fixtures/cluster.ts';
import { spawnController } from '../fixtures/controllerprocess.ts';

const DEPLOYMENTS_REF: ResourceRef = { group: 'pacer.dev', version: 'v1alpha1', resource: 'deployments' };
const PLANS_REF: ResourceRef = { group: 'pacer.dev', version: 'v1alpha1', resource: 'plans' };
const NODEROLLS_REF: ResourceRef = { group: 'pacer.dev', version: 'v1alpha1', resource: 'noderolls' };
const GROUP = 'workers';
const GROUP_NODES = 3;
/** The custom Plan: a canary phase over d0, then d1 and d2 in parallel. */
const PLAN = 'waves';
const PLAN_STEPS = ['d0', 'd1', 'd2'];
const NS = 'chaos';

export interface ChaosOptions {
  deployments: number;
  /** Controller replicas: with 2 they elect a leader (short leases), and a kill moves leadership. */
  replicas?: number;
  /**
   * Shards (docs/sharding.md): the replicas run with --shards, the Deployments spread over
   * namespaces of every shard, five a namespace; a kill moves the victim's shards.
   */
  shards?: number;
  /** SIGKILLs of the controller during the churn. */
  kills: number;
  /** How long the churn lasts (changes, faults and kills), in ms. */
  churnMs: number;
  /** Changes per second during the churn. */
  changesPerSecond: number;
  /** The simulated API server's faults during the churn (src/sim/README.md). */
  faults: string;
  seed: number;
  /** How long the cluster may take to converge once the churn stops. */
  convergeTimeoutMs: number;
  log?: (line: string) => void;
}

export interface ChaosFigures {
  deployments: number;
  kills: number;
  changes: number;
  /** Errors injected by code, watches dropped, resourceVersions expired. */
  faults: { errors: Record<number, number>; watchDrops: number; expiries: number };
  samples: number;
  violations: string[];
  /** From the end of the churn until every Deployment had converged (ms); undefined when they did not. */
  convergedMs?: number;
  /** Deployments not converged at the timeout, in words. */
  unconverged: string[];
  /** End-state problems: lost objects, orphans, revisions. */
  endState: string[];
  /** The operator's plan commands during the churn, by answer ("continue 200", "start error"). */
  operations: Record<string, number>;
  /** The node roll: its phase at the end, the nodes it replaced, when it was first seen Complete (ms after the churn began). */
  roll: { phase?: string; replaced: number; completeAtMs?: number };
  churnMs: number;
}

const STRATEGIES: Array<NonNullable<DeploymentSpec['strategy']>> = [
  { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
  { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } },
  { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
  { type: 'RollingUpdate', rollingUpdate: { maxSurge: 2, maxUnavailable: 1 } },
  { type: 'Recreate' },
  { type: 'MinimumHealth', minimumHealth: { minimumHealthCapacity: 0.5, maximumOverCapacity: 0.2 } },
  { type: 'MinimumHealth', minimumHealth: { minimumHealthCapacity: 1 } },
];
/** The deploy-plan gates the rolling Deployments take in turn (none, then each phase strategy). */
const PLAN_GATES: Array<DeploymentPlanSpec | undefined> = [
  undefined,
  { strategy: 'serial' },
  { strategy: 'parallel' },
  { strategy: 'serial-canary', requiredProceeds: 1 },
];

const key = (d: { metadata: { name?: string } }) => d.metadata.name ?? '';
const controllerUid = (o: { metadata: { ownerReferences?: Array<{ uid: string; controller?: boolean }> } }) =>
  o.metadata.ownerReferences?.find((r) => r.controller)?.uid;
const isReady = (p: Pod) =>
  !p.metadata.deletionTimestamp &&
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
const isLive = (p: Pod) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';

export async function runChaos(o: ChaosOptions): Promise<ChaosFigures> {
  const log = o.log ?? (() => undefined);
  const random = rng(o.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  const nodes = Math.max(3, Math.ceil((o.deployments * 8) / 100));
  const { sim, client } = await startSimWithCrds({ nodes, podStartMs: 20, podReadyMs: 40 });
  const dir = mkdtempSync(join(tmpdir(), 'pacer-chaos-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, sim.kubeconfig);
  // Unsharded, the whole fleet lives in one namespace; sharded, block b of five Deployments (d5b to
  // d5b+4: a dependency pair never straddles two) in a namespace of shard b mod shards, the first
  // block (the custom Plan's steps) in NS itself when NS is of shard 0.
  const shards = o.shards ?? 1;
  const blocks = Math.ceil(o.deployments / 5);
  const blockNamespaces = Array.from({ length: shards > 1 ? blocks : 1 }, (_, b) => {
    if (shards === 1 || (b === 0 && shardOf(NS, shards) === 0)) return NS;
    for (let t = 0; ; t++) if (shardOf(`${NS}-${b}-${t}`, shards) === b % shards) return `${NS}-${b}-${t}`;
  });
  const namespaces = [...new Set([NS, ...blockNamespaces])];
  const nsOf = (name: string): string => blockNamespaces[Math.floor(Number(name.slice(1)) / 5)] ?? NS;
  for (const ns of namespaces)
    sim.store.create(REF.namespaces, undefined, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns },
    } as KubeObject);

  const controllers = o.replicas ?? 1;
  const children: Array<ChildProcess | undefined> = [];
  const electing =
    controllers > 1
      ? [
          '--leader-elect=true',
          '--leader-election-namespace',
          NS,
          '--leader-election-lease-duration',
          '2s',
          '--leader-election-renew-deadline',
          '1500ms',
          '--leader-election-retry-period',
          '500ms',
          ...(shards > 1 ? ['--shards', String(shards)] : []),
        ]
      : ['--leader-elect=false'];
  const start = (i: number) => {
    children[i] = spawnController(kubeconfig, [...electing, '--kube-api-qps', '200', '--kube-api-burst', '400']).child;
  };
  const kill = async (i: number) => {
    const c = children[i];
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };

  const list = <T>(ref: ResourceRef): T[] =>
    namespaces.flatMap((ns) => sim.store.list(ref, ns).items) as unknown as T[];
  const deployments = () => list<Deployment>(DEPLOYMENTS_REF);
  const figures: ChaosFigures = {
    deployments: o.deployments,
    kills: 0,
    changes: 0,
    faults: { errors: {} as Record<number, number>, watchDrops: 0, expiries: 0 },
    samples: 0,
    violations: [],
    unconverged: [],
    endState: [],
    churnMs: o.churnMs,
    operations: {},
    roll: { replaced: 0 },
  };
  const violation = (what: string) => {
    if (figures.violations.length < 50) figures.violations.push(`${new Date().toISOString()} ${what}`);
  };

  // The observer: per Deployment, the size it was last whole at (the availability promise holds from then).
  const wholeAt = new Map<string, number>();
  // Per Deployment: Σ ReplicaSet spec.replicas at the last sample, and the surge bound it was last within.
  const lastTotal = new Map<string, number>();
  const withinBound = new Map<string, number>();
  let originals: string[] = [];
  let churnStart = 0;
  let rollCompleteAt: number | undefined;
  const sample = () => {
    figures.samples++;
    const rss = list<ReplicaSet>(REF.replicasets);
    const pods = list<Pod>(REF.pods);
    checkGroup(pods);
    if (
      churnStart > 0 &&
      rollCompleteAt === undefined &&
      (sim.store.get(NODEROLLS_REF, undefined, 'chaos') as { status?: { phase?: string } } | undefined)?.status
        ?.phase === 'Complete'
    ) {
      rollCompleteAt = Date.now() - churnStart;
    }
    for (const raw of deployments()) {
      const d = withDefaults(raw);
      const name = key(d);
      const uid = d.metadata.uid;
      const owned = rss.filter((rs) => controllerUid(rs) === uid);
      const ownedUids = new Set(owned.map((rs) => rs.metadata.uid));
      const mine = pods.filter((p) => ownedUids.has(controllerUid(p)));
      const replicas = d.spec.replicas ?? 1;
      const observed = (d.status?.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);
      if (d.spec.strategy?.type === 'Recreate') {
        const live = mine.filter(isLive);
        const hashes = new Set(live.map((p) => p.metadata.labels?.['pod-template-hash']));
        if (hashes.size > 1) {
          // What each template runs, and what its ReplicaSet said: enough to tell a cache race from a rule broken.
          const per = [...hashes].map((h) => {
            const of = live.filter((p) => p.metadata.labels?.['pod-template-hash'] === h);
            const rs = owned.find((r) => r.metadata.labels?.['pod-template-hash'] === h);
            const st = rs?.status;
            return (
              `${h}: ${of.length} pods (${of.filter((p) => p.metadata.deletionTimestamp).length} terminating), ReplicaSet spec ${rs?.spec.replicas} ` +
              `generation ${rs?.metadata.generation} status ${st?.replicas}/${st?.terminatingReplicas ?? '-'} observed ${st?.observedGeneration}`
            );
          });
          violation(
            `${name}: Recreate runs pods of ${hashes.size} templates at once: ${per.join('; ')}${d.spec.paused ? '; paused' : ''}`,
          );
        }
        continue;
      }
      // Waiting for its dependencies a Deployment takes no step at all, a scale included (Marathon's
      // order: docs/semantics/marathon.md), so it may stand above a smaller spec.replicas meanwhile.
      const waiting = d.status?.conditions?.some((c) => c.type === 'DependenciesReady' && c.status !== 'True') === true;
      const total = owned.reduce((n, rs) => n + (rs.spec.replicas ?? 0), 0);
      const bound = replicas + maxSurge(d);
      const before = lastTotal.get(name);
      lastTotal.set(name, total);
      if (total <= bound) withinBound.set(name, bound);
      // Above a lowered bound, only ever down: upstream's proportional scaling (sync.go scale;
      // engine/scale.ts proportionalSizes) gives the leftover of a scale-down to the first
      // ReplicaSet and clamps it at 0, so it can leave more than replicas + maxSurge (4 → 2 over
      // four ReplicaSets of 1 leaves 3: engine/scale.test.ts, plan/gate.test.ts). Every active
      // ReplicaSet then records the new size; the rollout's next pass scales old ones down (a
      // paused Deployment's, once resumed), however long it takes to come (a killed controller,
      // backoff after injected errors). The end-state convergence check still requires that it does.
      const leftAboveLoweredBound =
        (withinBound.get(name) ?? 0) > bound &&
        before !== undefined &&
        total <= before &&
        owned.every(
          (rs) =>
            (rs.spec.replicas ?? 0) === 0 ||
            rs.metadata.annotations?.['pacer.dev/desired-replicas'] === String(replicas),
        );
      if (observed && !waiting && total > bound && !leftAboveLoweredBound) {
        const sizes = owned
          .map(
            (rs) =>
              `${key(rs)}=${rs.spec.replicas} (rev ${rs.metadata.annotations?.['pacer.dev/revision']}, desired ${rs.metadata.annotations?.['pacer.dev/desired-replicas']})`,
          )
          .join(', ');
        violation(
          `${name}: ReplicaSets sized ${total} > replicas ${replicas} + maxSurge ${maxSurge(d)}: ${sizes}; generation ${d.metadata.generation}${d.spec.paused ? ', paused' : ''}`,
        );
      }
      const ready = mine.filter(isReady).length;
      if (wholeAt.get(name) !== replicas) {
        // New, or scaled: the promise holds once it has been whole at this size (a scale-up starts below it).
        if (ready >= replicas && observed) wholeAt.set(name, replicas);
        continue;
      }
      if (ready < minAvailable(d)) violation(`${name}: ${ready} ready < minimum ${minAvailable(d)} of ${replicas}`);
    }
  };

  const groupNodes = () =>
    sim.store
      .list(REF.nodes, undefined)
      .items.filter((n) => n.metadata.labels?.['sim.pacer.dev/node-group'] === GROUP)
      .map((n) => n.metadata.name ?? '')
      .sort();
  const rollConverged = (): string | undefined => {
    const roll = sim.store.get(NODEROLLS_REF, undefined, 'chaos') as
      | { status?: { phase?: string; message?: string } }
      | undefined;
    if (!roll) return 'node roll: lost';
    if (roll.status?.phase !== 'Complete')
      return `node roll: ${roll.status?.phase ?? 'not started'}${roll.status?.message ? ` (${roll.status.message})` : ''}`;
    const left = originals.filter((n) => groupNodes().includes(n));
    return left.length > 0 ? `node roll: Complete but ${left.join(', ')} still there` : undefined;
  };
  /** The group at its desired size with its own rebalancing given back. */
  const groupEndState = (): string[] => {
    const group = sim.store.get(REF.nodegroups, undefined, GROUP) as
      | { metadata: { annotations?: Record<string, string> }; spec: { replicas: number; rebalance?: boolean } }
      | undefined;
    if (!group) return [`node group ${GROUP} lost`];
    const out: string[] = [];
    if (group.spec.replicas !== GROUP_NODES)
      out.push(`node group ${GROUP} asks for ${group.spec.replicas} nodes, not ${GROUP_NODES}`);
    if (group.spec.rebalance !== true || group.metadata.annotations?.['pacer.dev/rebalance-held-by'] !== undefined)
      out.push(`node group ${GROUP}: its rebalancing not given back`);
    return out;
  };

  // The node group: drain before terminate, and never scaled beyond what the roll may ask.
  const checkGroup = (pods: readonly Pod[]) => {
    const group = sim.store.get(REF.nodegroups, undefined, GROUP) as { spec: { replicas: number } } | undefined;
    const most = (originals.length || GROUP_NODES) + GROUP_NODES + 1;
    if (group && group.spec.replicas > most)
      violation(
        `node group ${GROUP} asked for ${group.spec.replicas} nodes > ${most} (originals + desired + one zone move)`,
      );
    for (const node of sim.store.list(REF.nodes, undefined).items) {
      if (node.metadata.annotations?.[ANN_DELETE_NODE] === undefined) continue;
      const left = pods.filter(
        (p) => p.spec?.nodeName === node.metadata.name && isLive(p) && !p.metadata.deletionTimestamp,
      );
      if (left.length > 0)
        violation(
          `node ${node.metadata.name} terminated with ${left.length} pod(s) not evicted: ${left.map(key).join(', ')}`,
        );
    }
  };

  // The operator: plan commands through the one implementation behind `kubectl pacer plan`, over
  // the faulty API server like any client (a failed command is counted, as a person would retry).
  const pending = new Set<Promise<void>>();
  const command = (service: string, cmd: PlanCommand) => {
    const tally = (answer: string) => {
      figures.operations[`${cmd.op} ${answer}`] = (figures.operations[`${cmd.op} ${answer}`] ?? 0) + 1;
    };
    const p: Promise<void> = operate({ client, namespace: nsOf(service), component: 'chaos' }, service, cmd)
      .then(
        (r) => tally(String(r.code)),
        () => tally('error'),
      )
      .finally(() => pending.delete(p));
    pending.add(p);
    return p;
  };
  const operatorAtRandom = (all: readonly Deployment[]) => {
    const steered = all.filter((d) => d.spec.plan || PLAN_STEPS.includes(key(d)));
    if (steered.length === 0) return;
    const d = pick(steered);
    const name = key(d);
    if (PLAN_STEPS.includes(name)) {
      const op = pick(['start', 'continue', 'continue', 'interrupt', 'stop'] as const);
      void command(name, { op, plan: PLAN, ...(op === 'continue' && random() < 0.5 ? { phase: 'canary' } : {}) });
    } else {
      void command(name, { op: pick(['continue', 'continue', 'interrupt'] as const), plan: 'deploy', phase: name });
    }
  };
  /**
   * What a person does at the end: each held Deployment's Progressing message names the command to
   * run; a drain the roll says waits on a Deployment that may lose no pod (maxUnavailable 0, whole)
   * is helped as with any PodDisruptionBudget that blocks a drain: `kubectl rollout restart` moves
   * its pods off the cordoned node through its own surge.
   */
  const operatorFinishes = async () => {
    const held = deployments().filter((d) =>
      d.status?.conditions?.some((c) => c.type === 'Progressing' && c.reason === 'PlanWaiting'),
    );
    await Promise.all(held.map((d) => command(key(d), waitingFor(d))));
    const roll = sim.store.get(NODEROLLS_REF, undefined, 'chaos') as { status?: { message?: string } } | undefined;
    for (const [, name] of (roll?.status?.message ?? '').matchAll(
      new RegExp(`deployment ${NS}[-0-9]*/(\\S+) would fall below its minimum`, 'g'),
    )) {
      sim.store.mutate(DEPLOYMENTS_REF, nsOf(name), name, (x) => {
        const dep = structuredClone(x) as unknown as Deployment;
        dep.spec.template = restartedTemplate(dep.spec.template, Date.now());
        return dep as unknown as KubeObject;
      });
      figures.operations['rollout restart'] = (figures.operations['rollout restart'] ?? 0) + 1;
    }
  };

  /** Until `done`, the operator doing what is asked of them every second; false at the timeout. */
  const settle = async (done: () => boolean, timeoutMs: number): Promise<boolean> => {
    for (const end = Date.now() + timeoutMs; Date.now() < end; ) {
      await operatorFinishes();
      if (await until(done, Math.min(1000, end - Date.now()))) return true;
    }
    return false;
  };

  const changeOne = () => {
    const all = deployments();
    const d = pick(all);
    const name = key(d);
    const action = random();
    figures.changes++;
    if (action >= 0.9) {
      operatorAtRandom(all);
      return;
    }
    sim.store.mutate(DEPLOYMENTS_REF, nsOf(name), name, (x) => {
      const dep = structuredClone(x) as unknown as Deployment;
      const image =
        (dep.spec.template?.spec as { containers?: Array<{ image?: string }> } | undefined)?.containers?.[0]?.image ??
        'app:1';
      const version = Number(/:(\d+)$/.exec(image)?.[1] ?? 1);
      if (action < 0.5) dep.spec.template = podTemplate(name, `app:${version + 1}`);
      else if (action < 0.63) dep.spec.replicas = 1 + Math.floor(random() * 6);
      else if (action < 0.72) dep.spec.paused = !dep.spec.paused;
      else if (action < 0.82)
        dep.spec.template = podTemplate(name, `app:${Math.max(1, version - 1)}`); // back to the previous image
      else
        dep.spec.template = {
          ...podTemplate(name, image),
          metadata: { labels: { app: name }, annotations: { 'pacer.dev/restartedAt': new Date().toISOString() } },
        };
      return dep as unknown as KubeObject;
    });
  };

  try {
    // The fleet: every strategy, every fifth Deployment depending on the one before it, the rolling
    // ones from d3 on behind each deploy-plan gate in turn, every fourth in the roll's health gate;
    // part of it on a node group of three nodes over three zones (its own rebalancing on).
    for (let i = 0; i < o.deployments; i++) {
      const name = `d${i}`;
      const strategy = STRATEGIES[i % STRATEGIES.length];
      const d = deploymentManifest(nsOf(name), name, {
        replicas: 2 + Math.floor(random() * 4),
        image: 'app:1',
        strategy,
      });
      if (i % 5 === 4) d.spec.dependencies = [`d${i - 1}`];
      const gate =
        strategy.type === 'RollingUpdate' && i >= PLAN_STEPS.length
          ? PLAN_GATES[(i + Math.floor(i / STRATEGIES.length)) % PLAN_GATES.length]
          : undefined;
      if (gate) d.spec.plan = gate;
      if (i % 4 === 1) d.metadata.labels = { gate: 'yes' };
      sim.store.create(DEPLOYMENTS_REF, nsOf(name), d as unknown as KubeObject);
    }
    sim.store.create(REF.nodegroups, undefined, {
      apiVersion: 'sim.pacer.dev/v1',
      kind: 'NodeGroup',
      metadata: { name: GROUP },
      spec: {
        replicas: GROUP_NODES,
        zones: ['a', 'b', 'c'],
        rebalance: true,
        launchDelayMs: 200,
        deregistrationDelayMs: 200,
      },
    } as KubeObject);
    for (let i = 0; i < controllers; i++) start(i);
    const sampler = setInterval(sample, 10);
    try {
      // Warm up without faults: everything converges once before the chaos (the canary-gated
      // Deployments' first rollouts wait for an operator too).
      const warm = await settle(
        () =>
          deployments().every(
            (d) => converged(d, list<ReplicaSet>(REF.replicasets), list<Pod>(REF.pods)) === undefined,
          ),
        o.convergeTimeoutMs,
      );
      if (!warm)
        throw new Error(
          `the fleet did not converge before the chaos: ${deployments()
            .map((d) => converged(d, list<ReplicaSet>(REF.replicasets), list<Pod>(REF.pods)))
            .filter(Boolean)
            .join('; ')}`,
        );
      originals = groupNodes();
      // The Plan comes once its Deployments are complete (a new Plan's run starts interrupted: it
      // would hold them), the roll with the churn.
      sim.store.create(PLANS_REF, nsOf(PLAN_STEPS[0]), {
        apiVersion: 'pacer.dev/v1alpha1',
        kind: 'Plan',
        metadata: { name: PLAN, namespace: nsOf(PLAN_STEPS[0]) },
        spec: {
          phases: [
            { name: 'canary', strategy: 'serial-canary', requiredProceeds: 1, steps: PLAN_STEPS.slice(0, 1) },
            { name: 'rest', strategy: 'parallel', steps: PLAN_STEPS.slice(1) },
          ],
        },
      } as unknown as KubeObject);
      sim.store.create(NODEROLLS_REF, undefined, {
        apiVersion: 'pacer.dev/v1alpha1',
        kind: 'NodeRoll',
        metadata: { name: 'chaos' },
        spec: {
          nodeSelector: { matchLabels: { 'sim.pacer.dev/node-group': GROUP } },
          nodeGroup: GROUP,
          desiredNodes: GROUP_NODES,
          healthGate: { selector: { matchLabels: { gate: 'yes' } } },
        },
      } as KubeObject);
      log(
        `fleet of ${o.deployments} converged; churn for ${o.churnMs} ms with ${o.kills} kills, rolling nodes ${originals.join(', ')}`,
      );
      sim.faults.set(o.faults);
      const t0 = Date.now();
      churnStart = t0;
      const killTimes = Array.from({ length: o.kills }, () => t0 + random() * o.churnMs).sort((a, b) => a - b);
      const perChange = 1000 / o.changesPerSecond;
      let nextChange = t0;
      while (Date.now() - t0 < o.churnMs) {
        const now = Date.now();
        while (nextChange <= now) {
          changeOne();
          nextChange += perChange;
        }
        if (killTimes.length > 0 && killTimes[0] <= now) {
          killTimes.shift();
          // With two replicas, either: the leader's death moves leadership once its Lease expires;
          // sharded, the victim's shards go to the others once their Leases expire.
          const victim = Math.floor(random() * controllers);
          await kill(victim);
          figures.kills++;
          await sleep(random() * 300);
          start(victim);
        }
        await sleep(10);
      }
      figures.faults = sim.faults.stats();
      sim.faults.clear();
      await Promise.all([...pending]);
      // Unpause what the churn left paused: a paused Deployment does not roll, by design.
      for (const d of deployments().filter((x) => x.spec.paused)) {
        sim.store.mutate(
          DEPLOYMENTS_REF,
          nsOf(key(d)),
          key(d),
          (x) => ({ ...x, spec: { ...(x.spec as object), paused: false } }) as KubeObject,
        );
      }
      const t1 = Date.now();
      const notConverged = () => {
        const rss = list<ReplicaSet>(REF.replicasets);
        const pods = list<Pod>(REF.pods);
        return [
          ...deployments().map((d) => converged(d, rss, pods)),
          planConverged(list<PlanResource>(PLANS_REF)),
          rollConverged(),
        ].filter((x): x is string => x !== undefined);
      };
      const done = await settle(() => notConverged().length === 0, o.convergeTimeoutMs);
      if (done) figures.convergedMs = Date.now() - t1;
      figures.unconverged = notConverged();
      figures.endState = [
        ...endState(deployments(), list<ReplicaSet>(REF.replicasets), o.deployments),
        ...groupEndState(),
      ];
      const roll = sim.store.get(NODEROLLS_REF, undefined, 'chaos') as { status?: { phase?: string } } | undefined;
      figures.roll = {
        ...(roll?.status?.phase ? { phase: roll.status.phase } : {}),
        replaced: originals.filter((n) => !groupNodes().includes(n)).length,
        ...(rollCompleteAt !== undefined ? { completeAtMs: rollCompleteAt } : {}),
      };
    } finally {
      clearInterval(sampler);
    }
  } finally {
    for (let i = 0; i < controllers; i++) await kill(i);
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}

/** The command a held Deployment's Progressing message asks for (docs/semantics/plans.md). */
function waitingFor(d: Deployment): PlanCommand {
  const message = d.status?.conditions?.find((c) => c.type === 'Progressing')?.message ?? '';
  // A custom plan names the command in full: kubectl pacer plan start|continue SERVICE PLAN [PHASE].
  const m = /kubectl pacer plan (start|continue) (\S+) (\S+)(?: (\S+))?/.exec(message);
  if (m) return { op: m[1] as 'start' | 'continue', plan: m[3], ...(m[4] ? { phase: m[4] } : {}) };
  // The deploy plan: interrupted as a whole, or its phase (interrupted, or a canary step waiting).
  return /deploy plan is interrupted/.test(message)
    ? { op: 'continue', plan: 'deploy' }
    : { op: 'continue', plan: 'deploy', phase: key(d) };
}

/** Why the Plan is not COMPLETE, or undefined. */
function planConverged(plans: readonly PlanResource[]): string | undefined {
  const p = plans.find((x) => key(x) === PLAN);
  if (!p) return `plan ${PLAN}: lost`;
  return p.status?.status === 'COMPLETE' ? undefined : `plan ${PLAN}: ${p.status?.status ?? 'no status'}`;
}

/** Why `d` has not converged, or undefined: observed, every replica of its current template ready and available, nothing else left. */
function converged(d: Deployment, rss: readonly ReplicaSet[], pods: readonly Pod[]): string | undefined {
  const name = key(d);
  const replicas = d.spec.replicas ?? 1;
  const st = d.status ?? {};
  if ((st.observedGeneration ?? 0) < (d.metadata.generation ?? 0))
    return `${name}: generation ${d.metadata.generation} not observed (${st.observedGeneration ?? 0})`;
  if (st.updatedReplicas !== replicas || st.replicas !== replicas || st.availableReplicas !== replicas) {
    return `${name}: ${st.updatedReplicas ?? 0} updated, ${st.replicas ?? 0} total, ${st.availableReplicas ?? 0} available of ${replicas}`;
  }
  const owned = rss.filter((rs) => controllerUid(rs) === d.metadata.uid);
  const live = owned.filter((rs) => (rs.spec.replicas ?? 0) > 0);
  if (live.length !== 1) return `${name}: ${live.length} ReplicaSets with replicas`;
  const ready = pods.filter((p) => controllerUid(p) === live[0].metadata.uid && isReady(p)).length;
  if (ready !== replicas) return `${name}: ${ready} ready pods of ${replicas}`;
  return undefined;
}

/** Lost Deployments, ReplicaSets without their Deployment, revisions repeated or not the Deployment's newest. */
function endState(all: readonly Deployment[], rss: readonly ReplicaSet[], expected: number): string[] {
  const out: string[] = [];
  if (all.length !== expected) out.push(`${expected - all.length} Deployment(s) lost`);
  const uids = new Set(all.map((d) => d.metadata.uid));
  for (const rs of rss) if (!uids.has(controllerUid(rs))) out.push(`ReplicaSet ${key(rs)} has no Deployment`);
  for (const d of all) {
    const revisions = rss
      .filter((rs) => controllerUid(rs) === d.metadata.uid)
      .map((rs) => Number(rs.metadata.annotations?.['pacer.dev/revision'] ?? NaN));
    if (new Set(revisions).size !== revisions.length)
      out.push(`${key(d)}: revisions repeated (${revisions.join(', ')})`);
    const newest = Math.max(...revisions);
    if (String(newest) !== d.metadata.annotations?.['pacer.dev/revision'])
      out.push(
        `${key(d)}: revision ${d.metadata.annotations?.['pacer.dev/revision']} is not its newest ReplicaSet's ${newest}`,
      );
  }
  return out;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (done()) return true;
    await sleep(50);
  }
  return done();
}
