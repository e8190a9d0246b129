// A node roll at size (issue "The node roller"), on either bed:
//
// * the simulated cluster (default): a NodeGroup of 20 nodes over 3 zones running 20 Pacer
//   Deployments of 5 replicas (100 pods, maxUnavailable 1), rolled to 20 new nodes with the
//   controller in-process, once with every old node cordoned first (the default) and once cordoning
//   each node only when its drain begins (the seed's first attempt: pods may land on old nodes and
//   move again);
// * the real control plane (--bed real): hack/kube's kube-bed with Cluster API's managers and the
//   in-memory infrastructure provider (hack/capi's capi-bed), whose Machines become kwok Nodes. A
//   MachineDeployment of --nodes kwok nodes (default 4) runs --deployments Pacer Deployments of 4
//   replicas (default 4; maxUnavailable 1, their pods only on the group's nodes), rolled to as many
//   new Machines through Cluster API (spec.nodeGroup MachineDeployment/NS/NAME) by the controller
//   in-process as Pacer's own ServiceAccount; everything sampled from outside through the API server
//   every 200 ms. Cordoning first only (one run: the real bed is slow to start).
//
//   npx node bench/noderoll.bench.ts                 # both, about a minute
//   npx node bench/noderoll.bench.ts --desired 10    # 20 old nodes consolidated onto 10 new ones
//   npx node bench/noderoll.bench.ts --pods-per-node 6   # a node takes 6 pods (the new ones fill up)
//   npx node bench/noderoll.bench.ts --bed real [--nodes 4] [--deployments 4]   # a few minutes
// Prints one JSON line per run: total time, time per node, pods created during the roll per pod
// (1.0: each pod moved once), the fewest available replicas any Deployment had (and each one's,
// on the real bed) against its minimum, and the group's largest size (originals + desired: scaled
// up once).

import { performance } from 'node:perf_hooks';
import type { Deployment } from '../src/api/types.ts';
import { DEPLOYMENTS, NODEROLLS } from '../src/kube/client.ts';
import { REF } from '../src/sim/resources.ts';
import type { KubeObject } from '../src/sim/types.ts';
import { deploymentManifest, eventually, startCluster, waitComplete } from '../test/integration/fixtures/cluster.ts';
import { numberFlag, stringFlag } from './flags.ts';

const BED = stringFlag('--bed') ?? 'sim';
if (BED !== 'sim' && BED !== 'real') {
  process.stderr.write(`--bed: expected sim or real, got "${BED}"\n`);
  process.exit(2);
}
const NODES = numberFlag('--nodes', BED === 'real' ? 4 : 20, { integer: true, min: 1 });
const DESIRED = numberFlag('--desired', NODES, { integer: true, min: 1 });
const PODS_PER_NODE = numberFlag('--pods-per-node', 110, { integer: true, min: 1 });
const DEPLOYMENTS_N = 20;
const REPLICAS = 5;

async function run(cordonFirst: boolean): Promise<Record<string, unknown>> {
  const c = await startCluster({
    nodes: 0,
    zones: ['a', 'b', 'c'],
    podStartMs: 100,
    podReadyMs: 100,
    podsPerNode: PODS_PER_NODE,
  });
  try {
    const store = c.sim.store;
    store.create(REF.nodegroups, undefined, {
      apiVersion: 'sim.pacer.dev/v1',
      kind: 'NodeGroup',
      metadata: { name: 'workers' },
      spec: { replicas: NODES, zones: ['a', 'b', 'c'], launchDelayMs: 200, deregistrationDelayMs: 200 },
    } as KubeObject);
    for (let i = 0; i < DEPLOYMENTS_N; i++) {
      await c.client.create(
        DEPLOYMENTS,
        'default',
        deploymentManifest('default', `app-${i}`, {
          replicas: REPLICAS,
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } },
        }),
      );
    }
    for (let i = 0; i < DEPLOYMENTS_N; i++) await waitComplete(c.client, 'default', `app-${i}`, '1', 120_000);
    const before = new Set(store.list(REF.pods, 'default').items.map((p) => p.metadata.name));
    const created = new Set<string>();
    let lowest = Infinity;
    let largest = 0;
    const sampler = setInterval(() => {
      for (const d of store.list({ group: 'pacer.dev', version: 'v1alpha1', resource: 'deployments' }, 'default')
        .items as unknown as Deployment[])
        lowest = Math.min(lowest, d.status?.availableReplicas ?? 0);
      for (const p of store.list(REF.pods, 'default').items)
        if (!before.has(p.metadata.name)) created.add(p.metadata.name ?? '');
      largest = Math.max(
        largest,
        (store.get(REF.nodegroups, undefined, 'workers')!.spec as { replicas: number }).replicas,
      );
    }, 10);
    const t0 = performance.now();
    await c.client.create(NODEROLLS, undefined, {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'NodeRoll',
      metadata: { name: 'upgrade' },
      spec: {
        nodeSelector: { matchLabels: { 'sim.pacer.dev/node-group': 'workers' } },
        nodeGroup: 'workers',
        desiredNodes: DESIRED,
        cordonFirst,
      },
    });
    await eventually(
      'the roll to complete',
      async () =>
        (await c.client.get<{ status?: { phase?: string } }>(NODEROLLS, undefined, 'upgrade')).status?.phase ===
        'Complete',
      600_000,
    );
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    return {
      bench: 'noderoll',
      cordonFirst,
      nodes: NODES,
      desired: DESIRED,
      podsPerNode: PODS_PER_NODE,
      pods: before.size,
      seconds: Math.round(seconds * 10) / 10,
      secondsPerNode: Math.round((seconds / NODES) * 100) / 100,
      podMovesPerPod: Math.round((created.size / before.size) * 100) / 100,
      fewestAvailable: lowest,
      minimum: REPLICAS - 1,
      largestGroup: largest,
    };
  } finally {
    await c.stop();
  }
}

if (BED === 'real') {
  // Loaded only here: it puts hack/kube's and hack/capi's binaries on PATH.
  const { runReal } = await import('./noderoll-real.ts');
  process.stdout.write(
    `${JSON.stringify(
      await runReal({
        nodes: NODES,
        desired: DESIRED,
        deployments: numberFlag('--deployments', 4, { integer: true, min: 1 }),
        replicas: 4,
      }),
    )}\n`,
  );
} else for (const cordonFirst of [true, false]) process.stdout.write(`${JSON.stringify(await run(cordonFirst))}\n`);
