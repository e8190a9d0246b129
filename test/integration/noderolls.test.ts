// A node roll on the simulated cluster with the controller in-process: a NodeGroup of 3 nodes over
// 3 zones runs two Pacer Deployments; a NodeRoll replaces the 3 nodes with 3 new ones. Checked
// throughout by sampling: no Deployment ever below its minimum (replicas − maxUnavailable); at the
// end the old nodes are gone, the group holds 3 new nodes over the zones, each pod moved at most once,
// the group was scaled up once, and the NodeRoll's status says Complete.

import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPlugin } from '../../src/plugin/program.ts';
import type { Deployment, Pod } from '../../src/api/types.ts';
import { DEPLOYMENTS, NODEROLLS, PODS } from '../../src/kube/client.ts';
import { REF } from '../../src/sim/resources.ts';
import type { KubeObject } from '../../src/sim/types.ts';
import { deploymentManifest, eventually, startCluster, waitComplete } from './fixtures/cluster.ts';
import type { Cluster } from './fixtures/cluster.ts';

describe('node roll: a group of 3 nodes replaced under two Deployments (simulated cluster)', function () {
  this.timeout(120_000);
  let c: Cluster;
  before(async () => {
    c = await startCluster({ nodes: 0, zones: ['a', 'b', 'c'], podStartMs: 20, podReadyMs: 30 });
  });
  after(() => c?.stop());

  it('replaces every node, one at a time, never below any Deployment\'s minimum, each pod moving at most once', async () => {
    c.sim.store.create(REF.nodegroups, undefined, { apiVersion: 'sim.pacer.dev/v1', kind: 'NodeGroup', metadata: { name: 'workers' }, spec: { replicas: 3, zones: ['a', 'b', 'c'], launchDelayMs: 50, deregistrationDelayMs: 50 } } as KubeObject);
    for (const name of ['web', 'api']) {
      await c.client.create(DEPLOYMENTS, 'default', deploymentManifest('default', name, { replicas: 3, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } } }));
    }
    for (const name of ['web', 'api']) await waitComplete(c.client, 'default', name, '1');
    const podsBefore = new Set((await c.client.list<Pod>(PODS, 'default')).items.map((p) => p.metadata.name));
    const oldNodes = c.sim.store.list(REF.nodes, undefined).items.map((n) => n.metadata.name).sort();
    expect(oldNodes).to.deep.equal(['workers-1', 'workers-2', 'workers-3']);

    let lowest = Infinity;
    const sampler = setInterval(() => {
      for (const d of c.sim.store.list({ group: 'pacer.dev', version: 'v1alpha1', resource: 'deployments' }, 'default').items as unknown as Deployment[]) {
        lowest = Math.min(lowest, d.status?.availableReplicas ?? 0);
      }
    }, 5);
    const created = new Set<string>();
    const podWatch = setInterval(() => { for (const p of c.sim.store.list(REF.pods, 'default').items) created.add(p.metadata.name ?? ''); }, 5);
    try {
      await c.client.create(NODEROLLS, undefined, {
        apiVersion: 'pacer.dev/v1alpha1', kind: 'NodeRoll', metadata: { name: 'upgrade' },
        spec: { nodeSelector: { matchLabels: { 'sim.pacer.dev/node-group': 'workers' } }, nodeGroup: 'workers', desiredNodes: 3 },
      });
      await eventually('the roll to complete', async () => (await c.client.get<{ status?: { phase?: string } }>(NODEROLLS, undefined, 'upgrade')).status?.phase === 'Complete', 90_000);
    } finally {
      clearInterval(sampler);
      clearInterval(podWatch);
    }
    const nodes = c.sim.store.list(REF.nodes, undefined).items;
    expect(nodes.map((n) => n.metadata.name).some((n) => oldNodes.includes(n)), 'the old nodes are gone').to.equal(false);
    expect(nodes.map((n) => n.metadata.labels?.['topology.kubernetes.io/zone']).sort(), 'three new nodes over the zones').to.deep.equal(['a', 'b', 'c']);
    expect(lowest, 'no Deployment below replicas − maxUnavailable').to.be.at.least(2);
    // Each original pod was replaced at most once: at most 3 new pods per Deployment.
    const fresh = [...created].filter((n) => !podsBefore.has(n));
    expect(fresh.length, `new pods: ${fresh.join(', ')}`).to.be.at.most(6);
    const group = c.sim.store.get(REF.nodegroups, undefined, 'workers')!;
    expect((group.spec as { replicas: number }).replicas).to.equal(3);
    for (const name of ['web', 'api']) await waitComplete(c.client, 'default', name, '1');
    const status = (await c.client.get<{ status: { message: string; scaledUpTo: number; conditions: Array<{ type: string; status: string }> } }>(NODEROLLS, undefined, 'upgrade')).status;
    expect(status.scaledUpTo, 'scaled up once, to originals + desired').to.equal(6);
    expect(status.message).to.equal('every original node has been replaced; zones a 1, b 1, c 1 (balanced)');
    expect(status.conditions.find((x) => x.type === 'Complete')?.status).to.equal('True');
  });

  it('a drain Pacer\'s budget blocks pauses the roll naming the node; kubectl pacer node-roll skip rolls the others; resume after the budget is relaxed finishes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pacer-noderoll-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, c.sim.kubeconfig);
    const plugin = async (...args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runPlugin([...args, '--kubeconfig', kubeconfig], { stdout: { write: (x: string) => out.push(x) }, stderr: { write: (x: string) => err.push(x) } });
      return { code, stdout: out.join(''), stderr: err.join('') };
    };
    try {
      // db: one replica that may not go (maxUnavailable 0).
      await c.client.create(DEPLOYMENTS, 'default', deploymentManifest('default', 'db', { replicas: 1, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }));
      await waitComplete(c.client, 'default', 'db', '1');
      const dbNode = (await c.client.list<Pod>(PODS, 'default')).items.find((p) => p.metadata.labels?.app === 'db')!.spec!.nodeName as string;
      await c.client.create(NODEROLLS, undefined, {
        apiVersion: 'pacer.dev/v1alpha1', kind: 'NodeRoll', metadata: { name: 'again' },
        spec: { nodeSelector: { matchLabels: { 'sim.pacer.dev/node-group': 'workers' } }, nodeGroup: 'workers', desiredNodes: 3, timeouts: { drain: '2s' } },
      });
      const roll = () => c.client.get<{ status?: { phase?: string; paused?: { node?: string; wait: string; message: string }; nodes?: Array<{ name: string; step: string }> } }>(NODEROLLS, undefined, 'again');
      await eventually('the roll paused on db\'s node', async () => (await roll()).status?.paused?.node === dbNode, 60_000);
      expect((await roll()).status!.paused).to.deep.include({ wait: 'drain' });
      expect((await roll()).status!.paused!.message).to.match(new RegExp(`^node ${dbNode}: 1 pod\\(s\\) not evicted after \\d+ s \\(deployment default/db would fall below its minimum of 1 available \\(1 available\\)\\)$`));
      // The pager's series: paused, with the wait and the node.
      expect(await c.ctl.metrics.registry.getSingleMetricAsString('pacer_noderoll_paused')).to.contain(`pacer_noderoll_paused{name="again",wait="drain",node="${dbNode}"} 1`);
      const status = await plugin('node-roll', 'status', 'again');
      expect(status.stdout).to.match(/^NodeRoll again: Paused\n/);
      const skipped = await plugin('node-roll', 'skip', 'again', dbNode);
      expect([skipped.code, skipped.stdout, skipped.stderr]).to.deep.equal([0, `noderoll.pacer.dev/again: node ${dbNode} skipped (revisited once the others are done)\n`, '']);
      // The skip is carried out (the pause lifted, the node last), the others are rolled, and the roll
      // comes back to db's node and pauses on it again.
      await eventually('the others done, paused again on db\'s node', async () => {
        const st = (await roll()).status as { paused?: { node?: string }; skipped?: string[]; nodes?: Array<{ step: string }> };
        return st.skipped?.includes(dbNode) && st.paused?.node === dbNode && st.nodes!.filter((n) => n.step === 'Done').length === 2;
      }, 60_000);
      const wrong = await plugin('node-roll', 'skip', 'again', 'nope');
      expect([wrong.code, wrong.stderr]).to.deep.equal([1, 'error: node nope is not one of the roll\'s original nodes\n']);
      await c.client.patch(DEPLOYMENTS, 'default', 'db', { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } } } }, 'merge');
      const resumed = await plugin('node-roll', 'resume', 'again');
      expect([resumed.code, resumed.stdout, resumed.stderr]).to.deep.equal([0, 'noderoll.pacer.dev/again resumed\n', '']);
      await eventually('the roll to complete', async () => (await roll()).status?.phase === 'Complete', 60_000);
      expect((await plugin('node-roll', 'resume', 'again')).stderr).to.equal('error: noderolls.pacer.dev "again" is not paused\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
