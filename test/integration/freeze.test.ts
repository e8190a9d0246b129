// The freeze switch on the simulated cluster with the controller in-process, driven through
// `kubectl pacer freeze`: a node roll and a Deployment rollout, both in flight, stop where they are
// (no ReplicaSet resized, no node cordoned, evicted or terminated, no wait timing out) while it is
// on, each status says so, the metric and the Event show it; lifting it lets both finish.

import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Deployment, ReplicaSet } from '../../src/api/types.ts';
import { DEPLOYMENTS, EVENTS, NODEROLLS, NODES, REPLICASETS } from '../../src/kube/client.ts';
import { REF } from '../../src/sim/resources.ts';
import type { KubeObject } from '../../src/sim/types.ts';
import {
  condition,
  createNamespace,
  deploymentManifest,
  eventually,
  pluginOn,
  podTemplate,
  sleep,
  startCluster,
  waitComplete,
} from './fixtures/cluster.ts';
import type { Cluster } from './fixtures/cluster.ts';

interface RollStatus {
  phase?: string;
  paused?: unknown;
  frozenSince?: string;
  nodes?: Array<{ name: string; step: string }>;
  conditions?: Array<{ type: string; status: string; message: string }>;
}

describe('the freeze switch: a node roll and a rollout in flight stop, and go on once it is lifted (simulated cluster)', function () {
  this.timeout(120_000);
  let c: Cluster;
  let dir: string;
  let kubeconfig: string;
  const plugin = pluginOn(() => kubeconfig);
  before(async () => {
    c = await startCluster({ nodes: 0, zones: ['a', 'b', 'c'], podStartMs: 20, podReadyMs: 30 });
    createNamespace(c.sim, 'pacer-system');
    dir = mkdtempSync(join(tmpdir(), 'pacer-freeze-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, c.sim.kubeconfig);
  });
  after(async () => {
    await c?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('holds both while on (statuses, metric, Event), and both finish once it is off', async () => {
    c.sim.store.create(REF.nodegroups, undefined, {
      apiVersion: 'sim.pacer.dev/v1',
      kind: 'NodeGroup',
      metadata: { name: 'workers' },
      spec: { replicas: 3, zones: ['a', 'b', 'c'], launchDelayMs: 50, deregistrationDelayMs: 50 },
    } as KubeObject);
    await c.client.create(
      DEPLOYMENTS,
      'default',
      deploymentManifest('default', 'web', {
        replicas: 4,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } },
      }),
    );
    await waitComplete(c.client, 'default', 'web', '1');
    expect(await plugin('freeze', 'status')).to.deep.equal({
      code: 0,
      stdout: 'pacer is not frozen (no configmap pacer-system/pacer-freeze)\n',
      stderr: '',
    });

    // The roll starts (2 s timeouts: a freeze longer than that must not pause it) ...
    await c.client.create(NODEROLLS, undefined, {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'NodeRoll',
      metadata: { name: 'upgrade' },
      spec: {
        nodeSelector: { matchLabels: { 'sim.pacer.dev/node-group': 'workers' } },
        nodeGroup: 'workers',
        desiredNodes: 3,
        timeouts: { drain: '2s', healthy: '2s' },
      },
    });
    const roll = async () =>
      (await c.client.get<{ status?: RollStatus }>(NODEROLLS, undefined, 'upgrade')).status ?? {};
    await eventually(
      'the roll to be under way',
      async () => (await roll()).nodes?.some((n) => n.step !== 'Pending'),
      60_000,
    );
    // ... and a rollout whose new pods take 1.5 s to be ready.
    await c.client.patch(
      DEPLOYMENTS,
      'default',
      'web',
      { spec: { template: podTemplate('web', 'nginx:2', { 'sim.pacer.dev/ready-after-ms': '1500' }) } },
      'merge',
    );
    const sizes = async () =>
      Object.fromEntries(
        (await c.client.list<ReplicaSet>(REPLICASETS, 'default')).items.map((rs) => [
          rs.metadata.name,
          rs.spec.replicas,
        ]),
      );
    await eventually(
      'the new ReplicaSet to have a pod',
      async () => Object.values(await sizes()).filter((n) => Number(n ?? 0) > 0).length === 2,
    );

    const on = await plugin('freeze', 'on', '--reason', 'incident 42');
    expect(on).to.deep.equal({
      code: 0,
      stdout:
        'pacer frozen (incident 42): no new rollout step, eviction or node termination until "kubectl pacer freeze off"\n',
      stderr: '',
    });
    expect((await plugin('freeze', 'on')).stdout).to.equal('pacer already frozen (incident 42)\n');
    await eventually('both statuses to say frozen', async () => {
      const d = await c.client.get<Deployment>(DEPLOYMENTS, 'default', 'web');
      return condition(d, 'Progressing')?.reason === 'Frozen' && (await roll()).phase === 'Frozen';
    });
    const d = await c.client.get<Deployment>(DEPLOYMENTS, 'default', 'web');
    expect(condition(d, 'Progressing')).to.deep.include({
      status: 'Unknown',
      message: 'Pacer is frozen (incident 42): nothing new is disrupted until "kubectl pacer freeze off"',
    });
    const rollBefore = await roll();
    expect(rollBefore.conditions?.find((x) => x.type === 'Frozen')).to.deep.include({ status: 'True' });
    const sizesBefore = await sizes();
    const cordoned = async () =>
      (await c.client.list<{ metadata: { name: string }; spec?: { unschedulable?: boolean } }>(NODES)).items
        .filter((n) => n.spec?.unschedulable)
        .map((n) => n.metadata.name)
        .sort();
    const cordonedBefore = await cordoned();
    const groupSize = () =>
      (c.sim.store.get(REF.nodegroups, undefined, 'workers')!.spec as { replicas: number }).replicas;
    const groupBefore = groupSize();

    // Longer than the drain and health timeouts: nothing moves, nothing pauses.
    await sleep(3000);
    expect(await sizes(), 'no ReplicaSet resized').to.deep.equal(sizesBefore);
    expect(await cordoned(), 'no node cordoned').to.deep.equal(cordonedBefore);
    expect(groupSize(), 'the group not resized').to.equal(groupBefore);
    const rollFrozen = await roll();
    expect([rollFrozen.phase, rollFrozen.paused, rollFrozen.nodes]).to.deep.equal([
      'Frozen',
      undefined,
      rollBefore.nodes,
    ]);
    expect(await c.ctl.metrics.registry.getSingleMetricAsString('pacer_frozen')).to.contain(
      'pacer_frozen{reason="incident 42"} 1',
    );
    expect((await plugin('freeze', 'status')).stdout).to.match(/^pacer is frozen \(incident 42\) for \d+s\n$/);
    const events = (
      await c.client.list<{ reason: string; involvedObject: { kind: string; name: string } }>(EVENTS, 'pacer-system')
    ).items;
    expect(events.map((e) => `${e.involvedObject.kind}/${e.involvedObject.name} ${e.reason}`)).to.include(
      'ConfigMap/pacer-freeze Frozen',
    );

    // The short timeouts have made their point; the rest of the roll gets the default ones.
    await c.client.patch(NODEROLLS, undefined, 'upgrade', { spec: { timeouts: null } }, 'merge');
    const off = await plugin('freeze', 'off');
    expect(off).to.deep.equal({ code: 0, stdout: 'pacer thawed: rollouts and node rolls go on\n', stderr: '' });
    expect((await plugin('freeze', 'off')).stdout).to.equal('pacer already not frozen\n');
    await waitComplete(c.client, 'default', 'web', '2', 60_000);
    await eventually('the roll to complete', async () => (await roll()).phase === 'Complete', 90_000);
    expect(await c.ctl.metrics.registry.getSingleMetricAsString('pacer_frozen')).to.contain(
      'pacer_frozen{reason=""} 0',
    );
    const rollEvents = (
      await c.client.list<{ reason: string; involvedObject: { kind: string } }>(EVENTS, 'default')
    ).items
      .filter((e) => e.involvedObject.kind === 'NodeRoll')
      .map((e) => e.reason);
    expect(rollEvents).to.include.members(['NodeRollFrozen', 'NodeRollThawed', 'NodeRollComplete']);
  });
});
