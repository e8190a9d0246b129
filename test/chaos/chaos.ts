// The chaos run (docs/testing.md#chaos): Deployments of every strategy (RollingUpdate of several
// surge/unavailable shapes, Recreate, MinimumHealth, dependency pairs) changed at random (new
// images, scale, pause and resume, restarts, a return to the previous image) on the simulated
// cluster while its API server injects errors (500, 429, 409), latency, dropped watches and expired
// resourceVersions, and while the controller, its own process, is SIGKILLed and restarted at random
// moments; with two replicas electing a leader, the kills move leadership between them. Seeded: the
// same seed makes the same changes in the same order.
//
// An observer outside the controller reads the simulated cluster's store (no faults on that path)
// every few milliseconds and checks the promises:
//   surge        Σ ReplicaSet spec.replicas ≤ replicas + maxSurge, once the controller has observed the spec
//                (not while waiting for dependencies: then no step is taken, a scale included)
//   available    ready pods ≥ replicas − maxUnavailable (MinimumHealth: ceil(replicas × capacity)),
//                once the Deployment has been whole at its current size (a scale-up starts below it)
//   recreate     never pods of two templates of a Recreate Deployment at once
// and at the end, with faults and kills stopped: every Deployment converged (observed, complete,
// every replica of the current template available), no Deployment lost, no ReplicaSet without its
// Deployment, each Deployment's revisions distinct with its own revision the newest.
// The figures go to bench/RESULTS.md (bench/chaos.bench.ts runs the big size).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Deployment, DeploymentSpec, Pod, ReplicaSet } from '../../src/api/types.ts';
import { withDefaults } from '../../src/api/defaults.ts';
import { maxSurge, minAvailable } from '../../src/engine/fenceposts.ts';
import { REF } from '../../src/sim/resources.ts';
import { rng } from '../../src/sim/faults.ts';
import type { KubeObject, ResourceRef } from '../../src/sim/types.ts';
import { deploymentManifest, podTemplate, startSimWithCrds } from '../integration/fixtures/cluster.ts';

const DEPLOYMENTS_REF: ResourceRef = { group: 'pacer.dev', version: 'v1alpha1', resource: 'deployments' };
const FIXTURE = new URL('../integration/fixtures/pacer-controller.ts', import.meta.url).pathname;
const NS = 'chaos';

export interface ChaosOptions {
  deployments: number;
  /** Controller replicas: with 2 they elect a leader (short leases), and a kill moves leadership. */
  replicas?: number;
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

const key = (d: { metadata: { name?: string } }) => d.metadata.name ?? '';
const controllerUid = (o: { metadata: { ownerReferences?: Array<{ uid: string; controller?: boolean }> } }) => o.metadata.ownerReferences?.find((r) => r.controller)?.uid;
const isReady = (p: Pod) => !p.metadata.deletionTimestamp && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
const isLive = (p: Pod) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';

export async function runChaos(o: ChaosOptions): Promise<ChaosFigures> {
  const log = o.log ?? (() => undefined);
  const random = rng(o.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  const nodes = Math.max(3, Math.ceil((o.deployments * 8) / 100));
  const { sim } = await startSimWithCrds({ nodes, podStartMs: 20, podReadyMs: 40 });
  const dir = mkdtempSync(join(tmpdir(), 'pacer-chaos-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, sim.kubeconfig);
  sim.store.create(REF.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } as KubeObject);

  const controllers = o.replicas ?? 1;
  const children: Array<ChildProcess | undefined> = [];
  const electing = controllers > 1
    ? ['--leader-elect=true', '--leader-election-namespace', NS, '--leader-election-lease-duration', '2s', '--leader-election-renew-deadline', '1500ms', '--leader-election-retry-period', '500ms']
    : ['--leader-elect=false'];
  const start = (i: number) => {
    children[i] = spawn(process.execPath, [FIXTURE, 'controller', '--kubeconfig', kubeconfig, '--metrics-bind-address', '0', '--health-probe-bind-address', '0',
      '--api-bind-address', '0', '--webhook-bind-address', '0', ...electing, '--kube-api-qps', '200', '--kube-api-burst', '400'],
    { stdio: ['ignore', 'ignore', process.env.PACER_DEBUG_CHILD ? 'inherit' : 'ignore'], env: { ...process.env, KUBECONFIG: '' } });
  };
  const kill = async (i: number) => {
    const c = children[i];
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };

  const list = <T>(ref: ResourceRef): T[] => sim.store.list(ref, NS).items as unknown as T[];
  const deployments = () => list<Deployment>(DEPLOYMENTS_REF);
  const figures: ChaosFigures = { deployments: o.deployments, kills: 0, changes: 0, faults: { errors: {} as Record<number, number>, watchDrops: 0, expiries: 0 }, samples: 0, violations: [], unconverged: [], endState: [], churnMs: o.churnMs };
  const violation = (what: string) => {
    if (figures.violations.length < 50) figures.violations.push(`${new Date().toISOString()} ${what}`);
  };

  // The observer: per Deployment, the size it was last whole at (the availability promise holds from then).
  const wholeAt = new Map<string, number>();
  const sample = () => {
    figures.samples++;
    const rss = list<ReplicaSet>(REF.replicasets);
    const pods = list<Pod>(REF.pods);
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
        const hashes = new Set(mine.filter(isLive).map((p) => p.metadata.labels?.['pod-template-hash']));
        if (hashes.size > 1) violation(`${name}: Recreate runs pods of ${hashes.size} templates at once`);
        continue;
      }
      // Waiting for its dependencies a Deployment takes no step at all, a scale included (Marathon's
      // order: docs/semantics/marathon.md), so it may stand above a smaller spec.replicas meanwhile.
      const waiting = d.status?.conditions?.some((c) => c.type === 'DependenciesReady' && c.status !== 'True') === true;
      if (observed && !waiting) {
        const total = owned.reduce((n, rs) => n + (rs.spec.replicas ?? 0), 0);
        if (total > replicas + maxSurge(d)) {
          const sizes = owned.map((rs) => `${key(rs)}=${rs.spec.replicas} (rev ${rs.metadata.annotations?.['pacer.dev/revision']}, desired ${rs.metadata.annotations?.['pacer.dev/desired-replicas']})`).join(', ');
          violation(`${name}: ReplicaSets sized ${total} > replicas ${replicas} + maxSurge ${maxSurge(d)}: ${sizes}; generation ${d.metadata.generation}${d.spec.paused ? ', paused' : ''}`);
        }
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

  const changeOne = () => {
    const all = deployments();
    const d = pick(all);
    const name = key(d);
    const action = random();
    sim.store.mutate(DEPLOYMENTS_REF, NS, name, (x) => {
      const dep = structuredClone(x) as unknown as Deployment;
      const image = (dep.spec.template?.spec as { containers?: Array<{ image?: string }> } | undefined)?.containers?.[0]?.image ?? 'app:1';
      const version = Number(/:(\d+)$/.exec(image)?.[1] ?? 1);
      if (action < 0.55) dep.spec.template = podTemplate(name, `app:${version + 1}`);
      else if (action < 0.7) dep.spec.replicas = 1 + Math.floor(random() * 6);
      else if (action < 0.8) dep.spec.paused = !dep.spec.paused;
      else if (action < 0.9) dep.spec.template = podTemplate(name, `app:${Math.max(1, version - 1)}`); // back to the previous image
      else dep.spec.template = { ...podTemplate(name, image), metadata: { labels: { app: name }, annotations: { 'pacer.dev/restartedAt': new Date().toISOString() } } };
      return dep as unknown as KubeObject;
    });
    figures.changes++;
  };

  try {
    // The fleet: every strategy, every fifth Deployment depending on the one before it.
    for (let i = 0; i < o.deployments; i++) {
      const name = `d${i}`;
      const d = deploymentManifest(NS, name, { replicas: 2 + Math.floor(random() * 4), image: 'app:1', strategy: STRATEGIES[i % STRATEGIES.length] });
      if (i % 5 === 4) d.spec.dependencies = [`d${i - 1}`];
      sim.store.create(DEPLOYMENTS_REF, NS, d as unknown as KubeObject);
    }
    for (let i = 0; i < controllers; i++) start(i);
    const sampler = setInterval(sample, 10);
    try {
      // Warm up without faults: everything converges once before the chaos.
      await until(() => deployments().every((d) => converged(d, list<ReplicaSet>(REF.replicasets), list<Pod>(REF.pods)) === undefined), o.convergeTimeoutMs);
      log(`fleet of ${o.deployments} converged; churn for ${o.churnMs} ms with ${o.kills} kills`);
      sim.faults.set(o.faults);
      const t0 = Date.now();
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
          // With two replicas, either: the leader's death moves leadership once its Lease expires.
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
      // Unpause what the churn left paused: a paused Deployment does not roll, by design.
      for (const d of deployments().filter((x) => x.spec.paused)) {
        sim.store.mutate(DEPLOYMENTS_REF, NS, key(d), (x) => ({ ...x, spec: { ...(x.spec as object), paused: false } }) as KubeObject);
      }
      const t1 = Date.now();
      const done = await until(() => deployments().every((d) => converged(d, list<ReplicaSet>(REF.replicasets), list<Pod>(REF.pods)) === undefined), o.convergeTimeoutMs);
      if (done) figures.convergedMs = Date.now() - t1;
      const rss = list<ReplicaSet>(REF.replicasets);
      const pods = list<Pod>(REF.pods);
      figures.unconverged = deployments().map((d) => converged(d, rss, pods)).filter((x): x is string => x !== undefined);
      figures.endState = endState(deployments(), rss, o.deployments);
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

/** Why `d` has not converged, or undefined: observed, every replica of its current template ready and available, nothing else left. */
function converged(d: Deployment, rss: readonly ReplicaSet[], pods: readonly Pod[]): string | undefined {
  const name = key(d);
  const replicas = d.spec.replicas ?? 1;
  const st = d.status ?? {};
  if ((st.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) return `${name}: generation ${d.metadata.generation} not observed (${st.observedGeneration ?? 0})`;
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
    const revisions = rss.filter((rs) => controllerUid(rs) === d.metadata.uid).map((rs) => Number(rs.metadata.annotations?.['pacer.dev/revision'] ?? NaN));
    if (new Set(revisions).size !== revisions.length) out.push(`${key(d)}: revisions repeated (${revisions.join(', ')})`);
    const newest = Math.max(...revisions);
    if (String(newest) !== d.metadata.annotations?.['pacer.dev/revision']) out.push(`${key(d)}: revision ${d.metadata.annotations?.['pacer.dev/revision']} is not its newest ReplicaSet's ${newest}`);
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
