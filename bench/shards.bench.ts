// Sharding (docs/sharding.md): the same fleet on 1, 2 and 3 `pacer controller --shards S` processes
// over one simulated cluster (in this process). For each replica count: the fleet is created
// straight into the simulated store (N Deployments over --namespaces namespaces), the replicas are
// started and the time until every Deployment is available is taken; then every Deployment gets a
// new image at once and the time until every one has rolled out is taken. Per replica: the shards
// it held, its peak RSS and its CPU seconds (from /proc). The replicas' client limits are raised
// (--qps/--burst, default 200/400 each) so that the controllers, not their rate limiters, set the
// pace. Prints one JSON line per replica count.
//   node bench/shards.bench.ts [--deployments 1000] [--namespaces 30] [--pod-replicas 2] [--shards 3]
//     [--replicas-min 1] [--replicas-max 3] [--qps 200] [--burst 400]

import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Deployment } from '../src/api/types.ts';
import { kubeconfigYaml } from '../src/sim/kubeconfig.ts';
import { REF } from '../src/sim/resources.ts';
import type { KubeObject, ResourceRef } from '../src/sim/types.ts';
import { spawnController } from '../test/fixtures/controllerprocess.ts';
import type { SpawnedController } from '../test/fixtures/controllerprocess.ts';
import { createNamespace, deploymentManifest, startSimWithCrds } from '../test/integration/fixtures/cluster.ts';
import { numberFlag } from './flags.ts';

const arg = (name: string, fallback: number) => numberFlag(name, fallback, { integer: true, min: 1 });
const N = arg('--deployments', 1000);
const NAMESPACES = arg('--namespaces', 30);
const POD_REPLICAS = arg('--pod-replicas', 2);
const SHARDS = arg('--shards', 3);
const MIN_REPLICAS = arg('--replicas-min', 1);
const MAX_REPLICAS = arg('--replicas-max', 3);
const QPS = arg('--qps', 200);
const BURST = arg('--burst', 400);
const DEPLOYMENTS: ResourceRef = { group: 'pacer.dev', version: 'v1alpha1', resource: 'deployments' };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);

/** Peak RSS (MiB) and CPU seconds of a process, from /proc. */
function proc(pid: number | undefined): { peakRssMiB: number; cpuSeconds: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const hwm = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return { peakRssMiB: Math.round(hwm / 1024), cpuSeconds: (Number(stat[11]) + Number(stat[12])) / 100 };
  } catch {
    return undefined;
  }
}

async function run(replicas: number) {
  const dir = mkdtempSync(join(tmpdir(), 'pacer-shards-bench-'));
  const { sim } = await startSimWithCrds({
    nodes: Math.ceil((N * (POD_REPLICAS + 1)) / 100),
    podsPerNode: 110,
    podStartMs: 20,
    podReadyMs: 40,
  });
  const children: Array<SpawnedController & { name: string }> = [];
  try {
    createNamespace(sim, 'pacer-system');
    const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `team-${i}`);
    for (const ns of namespaces) createNamespace(sim, ns);
    const where = (i: number) => namespaces[i % NAMESPACES]!;
    for (let i = 0; i < N; i++)
      sim.store.create(
        DEPLOYMENTS,
        where(i),
        deploymentManifest(where(i), `d${i}`, { replicas: POD_REPLICAS, image: 'app:1' }) as unknown as KubeObject,
      );
    const deployments = () =>
      namespaces.flatMap((ns) => sim.store.list(DEPLOYMENTS, ns).items as unknown as Deployment[]);
    const done = (image: string) =>
      deployments().every((d) => {
        const st = d.status ?? {};
        const img = (d.spec.template?.spec as { containers?: Array<{ image?: string }> })?.containers?.[0]?.image;
        return (
          img === image &&
          (st.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) &&
          st.updatedReplicas === POD_REPLICAS &&
          st.replicas === POD_REPLICAS &&
          st.availableReplicas === POD_REPLICAS
        );
      });
    const until = async (what: string, ok: () => boolean) => {
      for (const end = Date.now() + 60 * 60_000; Date.now() < end; await sleep(250)) if (ok()) return;
      throw new Error(`timed out waiting for ${what}`);
    };
    const t0 = Date.now();
    for (let i = 0; i < replicas; i++) {
      const name = `replica-${i}`;
      const kubeconfig = join(dir, `${name}.kubeconfig`);
      writeFileSync(kubeconfig, kubeconfigYaml(sim.url, name));
      children.push({
        name,
        ...spawnController(
          kubeconfig,
          [
            ...(SHARDS > 1 ? ['--shards', String(SHARDS)] : []),
            '--leader-election-namespace',
            'pacer-system',
            '--kube-api-qps',
            String(QPS),
            '--kube-api-burst',
            String(BURST),
            '--log-format',
            'json',
          ],
          { logs: true, name },
        ),
      });
    }
    await until('every Deployment available', () => done('app:1'));
    const createSeconds = (Date.now() - t0) / 1000;
    log(`${replicas} replica(s): ${N} Deployments available after ${createSeconds.toFixed(1)} s`);
    const cpu0 = children.map((c) => proc(c.child.pid)?.cpuSeconds ?? 0);
    const t1 = Date.now();
    for (const d of deployments())
      sim.store.mutate(DEPLOYMENTS, d.metadata.namespace, d.metadata.name ?? '', (x) => {
        const next = structuredClone(x) as unknown as Deployment;
        (next.spec.template!.spec as { containers: Array<{ image: string }> }).containers[0]!.image = 'app:2';
        return next as unknown as KubeObject;
      });
    await until('every Deployment rolled out', () => done('app:2'));
    const rollSeconds = (Date.now() - t1) / 1000;
    log(`${replicas} replica(s): rolled in ${rollSeconds.toFixed(1)} s`);
    const leases = sim.store.list(REF.leases, 'pacer-system').items as unknown as Array<{
      metadata: { name: string };
      spec?: { holderIdentity?: string };
    }>;
    const identity = (c: SpawnedController) =>
      (JSON.parse(c.logs.find((l) => l.includes('caches synced; campaigning')) ?? '{}') as { identity?: string })
        .identity;
    return {
      bench: 'shards',
      deployments: N,
      namespaces: NAMESPACES,
      podReplicas: POD_REPLICAS,
      shards: SHARDS,
      replicas,
      createSeconds: Math.round(createSeconds * 10) / 10,
      rollSeconds: Math.round(rollSeconds * 10) / 10,
      rolloutsPerMinute: Math.round(N / (rollSeconds / 60)),
      perReplica: children.map((c, i) => ({
        name: c.name,
        shardsHeld: leases
          .filter((l) => l.metadata.name.includes('-shard-') && l.spec?.holderIdentity === identity(c))
          .map((l) => Number(l.metadata.name.split('-shard-')[1])),
        peakRssMiB: proc(c.child.pid)?.peakRssMiB,
        cpuSecondsTotal: proc(c.child.pid)?.cpuSeconds,
        cpuSecondsRoll: Math.round(((proc(c.child.pid)?.cpuSeconds ?? 0) - cpu0[i]!) * 100) / 100,
      })),
    };
  } finally {
    for (const c of children) c.child.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (let r = MIN_REPLICAS; r <= MAX_REPLICAS; r++) process.stdout.write(`${JSON.stringify(await run(r))}\n`);
