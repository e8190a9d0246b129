// A node roll on the simulated cluster with the controller in-process: a NodeGroup of 3 nodes over
// 3 zones runs two Pacer Deployments; a NodeRoll replaces the 3 nodes with 3 new ones. Checked
// throughout by sampling: no Deployment ever below its minimum (replicas − maxUnavailable); at the
// end the old nodes are gone, the group holds 3 new nodes over the zones, each pod moved at most once,
// the group was scaled up once, and the NodeRoll's status says Complete. The pods take 400 ms to stop
// once evicted, and no node is terminated while a pod it held is still stopping.

import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Deployment, Pod } from '../../src/api/types.ts';
import { DEPLOYMENTS, NODEROLLS, PODS, SIM_NODEGROUPS } from '../../src/kube/client.ts';
import { REF } from '../../src/sim/resources.ts';
import { ANN_TERMINATED_AT } from '../../src/sim/control/nodegroups.ts';
import type { KubeObject } from '../../src/sim/types.ts';
import {
  deploymentManifest,
  eventually,
  pluginOn,
  startCluster,
  startSimWithCrds,
  waitComplete,
} from './fixtures/cluster.ts';
import type { ChildProcess } from 'node:child_process';
import { spawnController } from '../fixtures/controllerprocess.ts';
import type { Cluster } from './fixtures/cluster.ts';

const NODEROLLS_REF = { group: 'pacer.dev', version: 'v1alpha1', resource: 'noderolls' };

describe('node roll: a group of 3 nodes replaced under two Deployments (simulated cluster)', function () {
  this.timeout(120_000);
  let c: Cluster;
  before(async () => {
    c = await startCluster({ nodes: 0, zones: ['a', 'b', 'c'], podStartMs: 20, podReadyMs: 30 });
  });
  after(() => c?.stop());

  it("replaces every node, one at a time, never below any Deployment's minimum, each pod moving at most once, no node terminated before its pods have stopped", async () => {
    c.sim.store.create(REF.nodegroups, undefined, {
      apiVersion: 'sim.pacer.dev/v1',
      kind: 'NodeGroup',
      metadata: { name: 'workers' },
      spec: { replicas: 3, zones: ['a', 'b', 'c'], launchDelayMs: 50, deregistrationDelayMs: 50 },
    } as KubeObject);
    for (const name of ['web', 'api']) {
      await c.client.create(
        DEPLOYMENTS,
        'default',
        deploymentManifest('default', name, {
          replicas: 3,
          podAnnotations: { 'sim.pacer.dev/stop-after-ms': '400' },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } },
        }),
      );
    }
    for (const name of ['web', 'api']) await waitComplete(c.client, 'default', name, '1');
    const podsBefore = new Set((await c.client.list<Pod>(PODS, 'default')).items.map((p) => p.metadata.name));
    const oldNodes = c.sim.store
      .list(REF.nodes, undefined)
      .items.map((n) => n.metadata.name)
      .sort();
    expect(oldNodes).to.deep.equal(['workers-1', 'workers-2', 'workers-3']);

    let lowest = Infinity;
    /** A node terminated (by the group) while a pod bound to it was still stopping: "node: pod". */
    const cutShort = new Set<string>();
    const sampler = setInterval(() => {
      for (const d of c.sim.store.list({ group: 'pacer.dev', version: 'v1alpha1', resource: 'deployments' }, 'default')
        .items as unknown as Deployment[]) {
        lowest = Math.min(lowest, d.status?.availableReplicas ?? 0);
      }
      const terminated = new Set(
        c.sim.store
          .list(REF.nodes, undefined)
          .items.filter((n) => n.metadata.annotations?.[ANN_TERMINATED_AT] !== undefined)
          .map((n) => n.metadata.name),
      );
      for (const p of c.sim.store.list(REF.pods, 'default').items) {
        const on = (p.spec as { nodeName?: string }).nodeName;
        if (p.metadata.deletionTimestamp && terminated.has(on)) cutShort.add(`${on}: ${p.metadata.name}`);
      }
    }, 5);
    const created = new Set<string>();
    const podWatch = setInterval(() => {
      for (const p of c.sim.store.list(REF.pods, 'default').items) created.add(p.metadata.name ?? '');
    }, 5);
    try {
      await c.client.create(NODEROLLS, undefined, {
        apiVersion: 'pacer.dev/v1alpha1',
        kind: 'NodeRoll',
        metadata: { name: 'upgrade' },
        spec: {
          nodeSelector: { matchLabels: { 'sim.pacer.dev/node-group': 'workers' } },
          nodeGroup: 'workers',
          desiredNodes: 3,
        },
      });
      await eventually(
        'the roll to complete',
        async () =>
          (await c.client.get<{ status?: { phase?: string } }>(NODEROLLS, undefined, 'upgrade')).status?.phase ===
          'Complete',
        90_000,
      );
    } finally {
      clearInterval(sampler);
      clearInterval(podWatch);
    }
    const nodes = c.sim.store.list(REF.nodes, undefined).items;
    expect(
      nodes.map((n) => n.metadata.name).some((n) => oldNodes.includes(n)),
      'the old nodes are gone',
    ).to.equal(false);
    expect(
      nodes.map((n) => n.metadata.labels?.['topology.kubernetes.io/zone']).sort(),
      'three new nodes over the zones',
    ).to.deep.equal(['a', 'b', 'c']);
    expect(lowest, 'no Deployment below replicas − maxUnavailable').to.be.at.least(2);
    expect([...cutShort], 'no node terminated while a pod it held was stopping').to.deep.equal([]);
    // Each original pod was replaced at most once: at most 3 new pods per Deployment.
    const fresh = [...created].filter((n) => !podsBefore.has(n));
    expect(fresh.length, `new pods: ${fresh.join(', ')}`).to.be.at.most(6);
    const group = c.sim.store.get(REF.nodegroups, undefined, 'workers')!;
    expect((group.spec as { replicas: number }).replicas).to.equal(3);
    for (const name of ['web', 'api']) await waitComplete(c.client, 'default', name, '1');
    const status = (
      await c.client.get<{
        status: { message: string; scaledUpTo: number; conditions: Array<{ type: string; status: string }> };
      }>(NODEROLLS, undefined, 'upgrade')
    ).status;
    expect(status.scaledUpTo, 'scaled up once, to originals + desired').to.equal(6);
    expect(status.message).to.equal('every original node has been replaced; zones a 1, b 1, c 1 (balanced)');
    expect(status.conditions.find((x) => x.type === 'Complete')?.status).to.equal('True');
  });

  it("a drain Pacer's budget blocks pauses the roll naming the node; kubectl pacer node-roll skip rolls the others; resume after the budget is relaxed finishes", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pacer-noderoll-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, c.sim.kubeconfig);
    const plugin = pluginOn(() => kubeconfig);
    try {
      // db: one replica that may not go (maxUnavailable 0).
      await c.client.create(
        DEPLOYMENTS,
        'default',
        deploymentManifest('default', 'db', {
          replicas: 1,
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        }),
      );
      await waitComplete(c.client, 'default', 'db', '1');
      const dbNode = (await c.client.list<Pod>(PODS, 'default')).items.find((p) => p.metadata.labels?.app === 'db')!
        .spec!.nodeName as string;
      await c.client.create(NODEROLLS, undefined, {
        apiVersion: 'pacer.dev/v1alpha1',
        kind: 'NodeRoll',
        metadata: { name: 'again' },
        spec: {
          nodeSelector: { matchLabels: { 'sim.pacer.dev/node-group': 'workers' } },
          nodeGroup: 'workers',
          desiredNodes: 3,
          timeouts: { drain: '2s' },
        },
      });
      const roll = () =>
        c.client.get<{
          status?: {
            phase?: string;
            paused?: { node?: string; wait: string; message: string };
            nodes?: Array<{ name: string; step: string }>;
          };
        }>(NODEROLLS, undefined, 'again');
      await eventually(
        "the roll paused on db's node",
        async () => (await roll()).status?.paused?.node === dbNode,
        60_000,
      );
      expect((await roll()).status!.paused).to.deep.include({ wait: 'drain' });
      expect((await roll()).status!.paused!.message).to.match(
        new RegExp(
          `^node ${dbNode}: 1 pod\\(s\\) not evicted after \\d+ s \\(deployment default/db would fall below its minimum of 1 available \\(1 available\\)\\)$`,
        ),
      );
      // The pager's series: paused, with the wait and the node.
      expect(await c.ctl.metrics.registry.getSingleMetricAsString('pacer_noderoll_paused')).to.contain(
        `pacer_noderoll_paused{name="again",wait="drain",node="${dbNode}"} 1`,
      );
      const status = await plugin('node-roll', 'status', 'again');
      expect(status.stdout).to.match(/^NodeRoll again: Paused\n/);
      // The roll as a plan: the node it paused on is the step in ERROR.
      const plan = await plugin('plan', 'show', 'noderoll/again');
      expect(plan.code).to.equal(0);
      expect(plan.stdout.split('\n')[0]).to.equal('node-roll (serial strategy) (ERROR)');
      expect(plan.stdout).to.contain(`${dbNode} (ERROR)`);
      const json = JSON.parse(
        (await plugin('plan', 'show', 'noderolls.pacer.dev/again', 'node-roll', '-o', 'json')).stdout,
      ) as { phases: Array<{ name: string }>; status: string };
      expect([json.status, json.phases.map((p) => p.name)]).to.deep.equal(['ERROR', ['scale-up', 'roll', 'rebalance']]);
      expect((await plugin('plan', 'show', 'noderoll/again', 'deploy')).stderr).to.equal(
        'error: Plan deploy not found\n',
      );
      const skipped = await plugin('node-roll', 'skip', 'again', dbNode);
      expect([skipped.code, skipped.stdout, skipped.stderr]).to.deep.equal([
        0,
        `noderoll.pacer.dev/again: node ${dbNode} skipped (revisited once the others are done)\n`,
        '',
      ]);
      // The skip is carried out (the pause lifted, the node last), the others are rolled, and the roll
      // comes back to db's node and pauses on it again.
      await eventually(
        "the others done, paused again on db's node",
        async () => {
          const st = (await roll()).status as {
            paused?: { node?: string };
            skipped?: string[];
            nodes?: Array<{ step: string }>;
          };
          return (
            st.skipped?.includes(dbNode) &&
            st.paused?.node === dbNode &&
            st.nodes!.filter((n) => n.step === 'Done').length === 2
          );
        },
        60_000,
      );
      const wrong = await plugin('node-roll', 'skip', 'again', 'nope');
      expect([wrong.code, wrong.stderr]).to.deep.equal([
        1,
        "error: node nope is not one of the roll's original nodes\n",
      ]);
      await c.client.patch(
        DEPLOYMENTS,
        'default',
        'db',
        { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } } } },
        'merge',
      );
      const resumed = await plugin('node-roll', 'resume', 'again');
      expect([resumed.code, resumed.stdout, resumed.stderr]).to.deep.equal([
        0,
        'noderoll.pacer.dev/again resumed\n',
        '',
      ]);
      await eventually('the roll to complete', async () => (await roll()).status?.phase === 'Complete', 60_000);
      expect((await plugin('node-roll', 'resume', 'again')).stderr).to.equal(
        'error: noderolls.pacer.dev "again" is not paused\n',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a PodDisruptionBudget allowing 0 disruptions blocks a drain through the Eviction API: paused after the drain timeout naming the node; resume once it is relaxed finishes', async () => {
    // pdb-app: maxUnavailable 1 by its own strategy (Pacer's budget lets one go), but a PDB allows none.
    await c.client.create(
      DEPLOYMENTS,
      'default',
      deploymentManifest('default', 'pdb-app', {
        replicas: 2,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } },
      }),
    );
    await waitComplete(c.client, 'default', 'pdb-app', '1');
    c.sim.store.create(REF.poddisruptionbudgets, 'default', {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'pdb-app', namespace: 'default' },
      spec: { maxUnavailable: 0, selector: { matchLabels: { app: 'pdb-app' } } },
    } as KubeObject);
    await c.client.create(NODEROLLS, undefined, {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'NodeRoll',
      metadata: { name: 'pdb' },
      spec: {
        nodeSelector: { matchLabels: { 'sim.pacer.dev/node-group': 'workers' } },
        nodeGroup: 'workers',
        desiredNodes: 3,
        timeouts: { drain: '2s' },
      },
    });
    type St = {
      phase?: string;
      paused?: { node?: string; wait: string; message: string };
      conditions?: Array<{ type: string; status: string; reason: string; message: string }>;
    };
    const roll = async () => (await c.client.get<{ status?: St }>(NODEROLLS, undefined, 'pdb')).status ?? {};
    const paused = await eventually(
      'the roll paused on a drain the PDB blocks',
      async () => {
        const st = await roll();
        return st.paused?.wait === 'drain' && st;
      },
      60_000,
    );
    expect(paused.paused!.message).to.match(/^node \S+: \d+ pod\(s\) not evicted after \d+ s$/);
    expect(paused.conditions?.find((x) => x.type === 'Paused')).to.deep.include({
      status: 'True',
      reason: 'DrainTimeout',
    });
    const held = (await c.client.list<Pod>(PODS, 'default')).items
      .filter((p) => p.metadata.labels?.app === 'pdb-app')
      .map((p) => p.spec!.nodeName);
    expect(held, 'the node it paused on holds a pod the PDB protects').to.include(paused.paused!.node);
    c.sim.store.delete(REF.poddisruptionbudgets, 'default', 'pdb-app', {});
    await c.client.patch(
      NODEROLLS,
      undefined,
      'pdb',
      { metadata: { annotations: { 'pacer.dev/resume': 'now' } } },
      'merge',
    );
    await eventually('the roll to complete', async () => (await roll()).phase === 'Complete', 90_000);
  });

  it("zones the roll leaves unbalanced are balanced by moves at the end (launch, then drain a node of the fullest zone); the group's own rebalancing is off meanwhile and back after", async () => {
    // Originals b 2, c 2, then a 1; launches go to the emptiest zone, ties by zone name: the 3 new
    // nodes land a, a, b, leaving a 2, b 1, c 0 once the originals go.
    c.sim.store.create(REF.nodegroups, undefined, {
      apiVersion: 'sim.pacer.dev/v1',
      kind: 'NodeGroup',
      metadata: { name: 'zoned' },
      spec: { replicas: 4, zones: ['b', 'c'], launchDelayMs: 50, deregistrationDelayMs: 50 },
    } as KubeObject);
    const members = () =>
      c.sim.store
        .list(REF.nodes, undefined)
        .items.filter((n) => n.metadata.labels?.['sim.pacer.dev/node-group'] === 'zoned');
    await eventually('4 nodes in the group', () => members().length === 4);
    await c.client.patch(
      SIM_NODEGROUPS,
      undefined,
      'zoned',
      { spec: { replicas: 5, zones: ['a', 'b', 'c'], rebalance: true } },
      'merge',
    );
    await eventually('5 nodes in the group', () => members().length === 5);
    expect(
      members()
        .map((n) => n.metadata.labels?.['topology.kubernetes.io/zone'])
        .sort(),
    ).to.deep.equal(['a', 'b', 'b', 'c', 'c']);
    // The hazard: with rebalancing on, the group itself terminates a node when zones differ by more
    // than one. Every node terminated must be one Pacer chose (marked sim.pacer.dev/delete-node).
    let held = false;
    const notPacers = new Set<string>();
    const watcher = setInterval(() => {
      const g = c.sim.store.get(REF.nodegroups, undefined, 'zoned');
      if (
        g?.metadata.annotations?.['pacer.dev/rebalance-held-by'] === 'zoned' &&
        (g.spec as { rebalance?: boolean }).rebalance === false
      )
        held = true;
      for (const n of members()) {
        const a = n.metadata.annotations ?? {};
        if (a['sim.pacer.dev/terminated-at'] !== undefined && a['sim.pacer.dev/delete-node'] === undefined)
          notPacers.add(n.metadata.name ?? '');
      }
    }, 5);
    try {
      await c.client.create(NODEROLLS, undefined, {
        apiVersion: 'pacer.dev/v1alpha1',
        kind: 'NodeRoll',
        metadata: { name: 'zoned' },
        spec: {
          nodeSelector: { matchLabels: { 'sim.pacer.dev/node-group': 'zoned' } },
          nodeGroup: 'zoned',
          desiredNodes: 3,
        },
      });
      await eventually(
        'the roll to complete',
        async () =>
          (await c.client.get<{ status?: { phase?: string } }>(NODEROLLS, undefined, 'zoned')).status?.phase ===
          'Complete',
        90_000,
      );
    } finally {
      clearInterval(watcher);
    }
    expect([...notPacers], "no node terminated by the group's own rebalancing").to.deep.equal([]);
    expect(held, "the group's rebalancing was held off by the roll").to.equal(true);
    const zones = members()
      .map((n) => n.metadata.labels?.['topology.kubernetes.io/zone'])
      .sort();
    expect(zones).to.deep.equal(['a', 'b', 'c']);
    const status = (
      await c.client.get<{ status: { message: string; zoneMoves: { planned: number; moved: string[] } } }>(
        NODEROLLS,
        undefined,
        'zoned',
      )
    ).status;
    expect(status.zoneMoves.planned).to.equal(1);
    expect(status.zoneMoves.moved).to.have.length(1);
    expect(status.message).to.equal(
      'every original node has been replaced; zones a 1, b 1, c 1 (balanced); 1 zone move(s) made',
    );
    const g = c.sim.store.get(REF.nodegroups, undefined, 'zoned')!;
    expect(
      [(g.spec as { rebalance?: boolean }).rebalance, g.metadata.annotations?.['pacer.dev/rebalance-held-by']],
      'rebalancing back on',
    ).to.deep.equal([true, undefined]);
  });

  it("a NodeRoll deleted half-way gives the group's rebalancing back (its finalizer), then goes", async () => {
    const group = () => c.sim.store.get(REF.nodegroups, undefined, 'zoned')!;
    expect((group().spec as { rebalance?: boolean }).rebalance, 'on after the previous roll').to.equal(true);
    await c.client.create(NODEROLLS, undefined, {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'NodeRoll',
      metadata: { name: 'halfway' },
      spec: {
        nodeSelector: { matchLabels: { 'sim.pacer.dev/node-group': 'zoned' } },
        nodeGroup: 'zoned',
        desiredNodes: 3,
      },
    });
    await eventually(
      "the roll holding the group's rebalancing",
      () => group().metadata.annotations?.['pacer.dev/rebalance-held-by'] === 'halfway',
      30_000,
    );
    const stored = c.sim.store.get(NODEROLLS_REF, undefined, 'halfway')!;
    expect(stored.metadata.finalizers, 'the finalizer on before the hold').to.deep.equal(['pacer.dev/noderoll']);
    expect((stored.status as { phase?: string } | undefined)?.phase ?? 'Rolling', 'not ended').to.not.equal('Complete');
    await c.client.delete(NODEROLLS, undefined, 'halfway');
    await eventually(
      'the NodeRoll gone',
      () => c.sim.store.get(NODEROLLS_REF, undefined, 'halfway') === undefined,
      30_000,
    );
    const g = group();
    expect(
      [(g.spec as { rebalance?: boolean }).rebalance, g.metadata.annotations?.['pacer.dev/rebalance-held-by']],
      'rebalancing back on',
    ).to.deep.equal([true, undefined]);
  });
});

describe('node roll: the controller SIGKILLed again and again during a roll (its own process, simulated cluster)', function () {
  this.timeout(180_000);

  it('resumes from status every time: the group is never scaled beyond originals + desired, no Deployment drops below its minimum, and the roll finishes', async () => {
    const { sim, client } = await startSimWithCrds({
      nodes: 0,
      zones: ['a', 'b', 'c'],
      podStartMs: 20,
      podReadyMs: 30,
    });
    const dir = mkdtempSync(join(tmpdir(), 'pacer-noderoll-kill-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, sim.kubeconfig);
    let child: ChildProcess | undefined;
    const start = () => {
      child = spawnController(kubeconfig, ['--leader-elect=false']).child;
    };
    let highest = 0;
    let lowest = Infinity;
    const sampler = setInterval(() => {
      const g = sim.store.get(REF.nodegroups, undefined, 'workers');
      highest = Math.max(highest, (g?.spec as { replicas?: number } | undefined)?.replicas ?? 0);
      for (const d of sim.store.list({ group: 'pacer.dev', version: 'v1alpha1', resource: 'deployments' }, 'default')
        .items as unknown as Deployment[]) {
        if (d.status?.observedGeneration) lowest = Math.min(lowest, d.status.availableReplicas ?? 0);
      }
    }, 5);
    try {
      sim.store.create(REF.nodegroups, undefined, {
        apiVersion: 'sim.pacer.dev/v1',
        kind: 'NodeGroup',
        metadata: { name: 'workers' },
        spec: { replicas: 6, zones: ['a', 'b', 'c'], launchDelayMs: 300, deregistrationDelayMs: 300 },
      } as KubeObject);
      start();
      for (const name of ['web', 'api', 'db']) {
        await client.create(
          DEPLOYMENTS,
          'default',
          deploymentManifest('default', name, {
            replicas: 4,
            strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } },
          }),
        );
      }
      for (const name of ['web', 'api', 'db']) await waitComplete(client, 'default', name, '1', 60_000);
      lowest = Infinity;
      await client.create(NODEROLLS, undefined, {
        apiVersion: 'pacer.dev/v1alpha1',
        kind: 'NodeRoll',
        metadata: { name: 'upgrade' },
        spec: {
          nodeSelector: { matchLabels: { 'sim.pacer.dev/node-group': 'workers' } },
          nodeGroup: 'workers',
          desiredNodes: 6,
        },
      });
      // Kill at seeded pseudo-random moments (200–1,200 ms apart), restarting each time, until it is done.
      let seed = 7;
      const next = () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return 200 + (seed % 1000);
      };
      let kills = 0;
      const phase = async () =>
        (await client.get<{ status?: { phase?: string } }>(NODEROLLS, undefined, 'upgrade')).status?.phase;
      for (let i = 0; i < 200 && (await phase()) !== 'Complete'; i++) {
        await new Promise((r) => setTimeout(r, next()));
        if (kills < 8) {
          child!.kill('SIGKILL');
          await new Promise((r) => child!.once('exit', r));
          kills++;
          start();
        }
      }
      await eventually('the roll to complete', async () => (await phase()) === 'Complete', 90_000);
      expect(kills, 'killed several times mid-roll').to.be.at.least(3);
      expect(highest, 'never scaled beyond originals + desired').to.equal(12);
      expect(lowest, 'no Deployment below replicas − maxUnavailable').to.be.at.least(3);
      const nodes = sim.store.list(REF.nodes, undefined).items;
      expect(
        nodes
          .map((n) => n.metadata.name)
          .filter((n) => ['workers-1', 'workers-2', 'workers-3', 'workers-4', 'workers-5', 'workers-6'].includes(n!)),
        'the old nodes are gone',
      ).to.deep.equal([]);
      expect(nodes).to.have.length(6);
      expect((sim.store.get(REF.nodegroups, undefined, 'workers')!.spec as { replicas: number }).replicas).to.equal(6);
    } finally {
      clearInterval(sampler);
      child?.kill('SIGKILL');
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
