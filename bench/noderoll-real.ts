// bench/noderoll.bench.ts --bed real: a node roll through Cluster API on the real control plane
// (kube-bed with capi-bed: Cluster API's core manager and its in-memory infrastructure provider,
// whose Machines become kwok Nodes). The controller runs in-process as Pacer's own ServiceAccount
// with manifests/base's roles; the bench samples from outside through the API server as the admin.

import '../test/setup.ts'; // kube-bed, capi-bed and kubectl first on PATH
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Deployment } from '../src/api/types.ts';
import { DEPLOYMENTS, KubeClient, NODEROLLS, PODS } from '../src/kube/client.ts';
import { loadKubeConfig } from '../src/kube/clientnode.ts';
import type { ResourceType } from '../src/kube/client.ts';
import {
  deploymentManifest,
  eventually,
  startTestController,
  waitComplete,
} from '../test/integration/fixtures/cluster.ts';
import { startCapiBed } from '../test/fixtures/capibed.ts';
import { startRealBed } from '../test/fixtures/realbed.ts';

const ROOT = new URL('../', import.meta.url).pathname;
const POOL = 'node.cluster.x-k8s.io/pool';
const MACHINE_DEPLOYMENTS: ResourceType = {
  group: 'cluster.x-k8s.io',
  version: 'v1beta2',
  plural: 'machinedeployments',
  kind: 'MachineDeployment',
  namespaced: true,
};

export interface RealOptions {
  nodes: number;
  desired: number;
  deployments: number;
  replicas: number;
}

export async function runReal(o: RealOptions): Promise<Record<string, unknown>> {
  const real = await startRealBed({ nodes: 1, podStartMs: 100, podReadyMs: 100 });
  let capi: Awaited<ReturnType<typeof startCapiBed>> | undefined;
  let stopController: (() => Promise<void>) | undefined;
  const kubectl = async (args: string[], input?: string) => {
    const r = await real.kubectl(args, input);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  try {
    capi = await startCapiBed(real);
    const ns = capi.info.namespace;
    const client = new KubeClient(loadKubeConfig({ kubeconfig: real.info.kubeconfig }), { userAgent: 'pacer-bench' });
    await kubectl(['apply', '-f', '-'], capi.machineDeployment('workers', o.nodes, { labels: { [POOL]: 'workers' } }));
    await eventually(
      `the ${o.nodes} Machines' Nodes`,
      async () =>
        (await kubectl(['get', 'nodes', '-l', `${POOL}=workers`, '-o', 'name'])).trim().split('\n').filter(Boolean)
          .length === o.nodes,
      300_000,
    );
    await kubectl(['apply', '-f', join(ROOT, 'crds')]);
    await kubectl(['wait', '--for=condition=Established', 'crd/deployments.pacer.dev', 'crd/noderolls.pacer.dev']);
    const controller = await startTestController(await real.controllerKubeconfig());
    stopController = () => controller.stop();
    const names = Array.from({ length: o.deployments }, (_, i) => `app-${i}`);
    for (const name of names) {
      const d = deploymentManifest('default', name, {
        replicas: o.replicas,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } },
      });
      // Only on the group's nodes, so that every drain moves some.
      const template = d.spec.template!;
      template.spec = { ...template.spec!, nodeSelector: { [POOL]: 'workers' } };
      await client.create(DEPLOYMENTS, 'default', d);
    }
    for (const name of names) await waitComplete(client, 'default', name, '1', 180_000);
    const podNames = async () =>
      (await client.list<{ metadata: { name?: string } }>(PODS, 'default')).items.map((p) => p.metadata.name ?? '');
    const before = new Set(await podNames());
    const created = new Set<string>();
    const fewest: Record<string, number> = Object.fromEntries(names.map((n) => [n, o.replicas]));
    let largest = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const d of (await client.list<Deployment>(DEPLOYMENTS, 'default')).items)
          fewest[d.metadata.name ?? ''] = Math.min(
            fewest[d.metadata.name ?? ''] ?? Infinity,
            d.status?.availableReplicas ?? 0,
          );
        for (const p of await podNames()) if (!before.has(p)) created.add(p);
        const md = await client.get<{ spec: { replicas: number } }>(MACHINE_DEPLOYMENTS, ns, 'workers');
        largest = Math.max(largest, md.spec.replicas);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const t0 = performance.now();
    await client.create(NODEROLLS, undefined, {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'NodeRoll',
      metadata: { name: 'upgrade' },
      spec: {
        nodeSelector: { matchLabels: { [POOL]: 'workers' } },
        nodeGroup: `MachineDeployment/${ns}/workers`,
        desiredNodes: o.desired,
        timeouts: { scaleUp: '5m', drain: '5m', deregister: '5m', healthy: '5m' },
      },
    });
    await eventually(
      'the roll to complete',
      async () => {
        const r = await client.get<{ status?: { phase?: string; message?: string } }>(NODEROLLS, undefined, 'upgrade');
        if (r.status?.phase === 'Paused' || r.status?.phase === 'Invalid')
          throw new Error(`the roll stopped: ${r.status.phase}: ${r.status.message}`);
        return r.status?.phase === 'Complete';
      },
      1_800_000,
    );
    const seconds = (performance.now() - t0) / 1000;
    sampling = false;
    await sampler;
    return {
      bench: 'noderoll',
      bed: 'real',
      provider: 'MachineDeployment (Cluster API, in-memory infrastructure, kwok Nodes)',
      cordonFirst: true,
      nodes: o.nodes,
      desired: o.desired,
      pods: before.size,
      seconds: Math.round(seconds * 10) / 10,
      secondsPerNode: Math.round((seconds / o.nodes) * 100) / 100,
      podMovesPerPod: Math.round((created.size / before.size) * 100) / 100,
      fewestAvailable: Math.min(...Object.values(fewest)),
      fewestAvailableEach: fewest,
      minimum: o.replicas - 1,
      largestGroup: largest,
      forbidden: (await real.forbidden()).length,
    };
  } finally {
    await stopController?.();
    await capi?.stop();
    await real.stop();
  }
}
