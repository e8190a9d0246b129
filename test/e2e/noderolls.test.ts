// A node roll through the real kubectl, on the simulated cluster (a Replace roll needs a node group
// provider: its NodeGroups here; on the real control plane Cluster API's, capi-noderoll.test.ts, and
// Drain rolls in place, noderoll-drain.test.ts and noderoll-windows.test.ts): a group of 6 nodes over 3 zones running 10 Pacer Deployments, some with
// PodDisruptionBudgets, is rolled to 6 new nodes with `kubectl apply -f` of a NodeRoll. Sampled
// throughout: no Deployment ever below replicas − maxUnavailable; at the end each pod has moved at
// most once (every old node cordoned first), the zones are balanced, the old nodes are gone, and
// `kubectl pacer node-roll status` and `kubectl get noderolls` say Complete. Half the pods take
// 1 s to stop once evicted (within a 5 s grace period): no node is terminated while a pod it held
// is still stopping. Then: the freeze switch
// holds a rollout until it is lifted; bad rolls are refused (by kubectl apply, or reported Invalid).

import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Deployment } from '../../src/api/types.ts';
import { REF } from '../../src/sim/resources.ts';
import { ANN_TERMINATED_AT } from '../../src/sim/control/nodegroups.ts';
import { eventually } from '../integration/fixtures/cluster.ts';
import { ROOT, kubectlEnv } from './fixtures.ts';

describe('e2e (sim): a node roll with kubectl', function () {
  this.timeout(180_000);
  const k = kubectlEnv({
    bed: 'sim',
    tmpPrefix: 'pacer-noderoll-',
    plugin: true,
    sim: { nodes: 0, zones: ['a', 'b', 'c'], podStartMs: 100, podReadyMs: 100 },
  });
  const { kubectl, ok } = k;
  before(function () {
    return k.start(this);
  });
  after(() => k.stop());

  it('rolls 6 nodes under 10 Deployments: never below a minimum, each pod moving once, zones balanced, old nodes gone, none before its pods had stopped', async () => {
    await ok(kubectl('apply', '-f', join(ROOT, 'crds')));
    await eventually(
      'the CRDs to be served',
      async () => (await kubectl('get', 'noderolls')).code === 0 && (await kubectl('get', 'pdeploy')).code === 0,
    );
    await k.startController();
    const docs: string[] = [
      'apiVersion: sim.pacer.dev/v1\nkind: NodeGroup\nmetadata: {name: workers}\nspec: {replicas: 6, zones: [a, b, c], launchDelayMs: 300, deregistrationDelayMs: 300}\n',
    ];
    for (let i = 0; i < 10; i++) {
      docs.push(
        [
          'apiVersion: pacer.dev/v1alpha1',
          'kind: Deployment',
          `metadata: {name: app-${i}}`,
          'spec:',
          '  replicas: 3',
          '  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}',
          `  selector: {matchLabels: {app: app-${i}}}`,
          '  template:',
          `    metadata: {labels: {app: app-${i}}${i % 2 === 0 ? ', annotations: {sim.pacer.dev/stop-after-ms: "1000"}' : ''}}`,
          `    spec: {${i % 2 === 0 ? 'terminationGracePeriodSeconds: 5, ' : ''}containers: [{name: app, image: "app:1"}]}`,
          '',
        ].join('\n'),
      );
      if (i % 3 === 0)
        docs.push(
          `apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: app-${i}}\nspec: {minAvailable: 2, selector: {matchLabels: {app: app-${i}}}}\n`,
        );
    }
    const file = join(k.dir, 'fleet.yaml');
    await writeFile(file, docs.join('---\n'));
    await ok(kubectl('apply', '-f', file));
    const store = k.sim.store;
    const deployments = () =>
      store.list({ group: 'pacer.dev', version: 'v1alpha1', resource: 'deployments' }, 'default')
        .items as unknown as Deployment[];
    await eventually(
      '10 Deployments complete',
      () =>
        deployments().filter(
          (d) => d.status?.availableReplicas === 3 && d.status.updatedReplicas === 3 && d.status.replicas === 3,
        ).length === 10,
      60_000,
    );
    const before = new Set(store.list(REF.pods, 'default').items.map((p) => p.metadata.name));
    const oldNodes = store.list(REF.nodes, undefined).items.map((n) => n.metadata.name);
    expect(oldNodes).to.have.length(6);

    let lowest = Infinity;
    const created = new Set<string>();
    /** A node the group terminated while a pod bound to it was still stopping: "node: pod". */
    const cutShort = new Set<string>();
    const sampler = setInterval(() => {
      for (const d of deployments()) lowest = Math.min(lowest, d.status?.availableReplicas ?? 0);
      const terminated = new Set(
        store
          .list(REF.nodes, undefined)
          .items.filter((n) => n.metadata.annotations?.[ANN_TERMINATED_AT] !== undefined)
          .map((n) => n.metadata.name),
      );
      for (const p of store.list(REF.pods, 'default').items) {
        created.add(p.metadata.name ?? '');
        const on = (p.spec as { nodeName?: string }).nodeName;
        if (p.metadata.deletionTimestamp && terminated.has(on)) cutShort.add(`${on}: ${p.metadata.name}`);
      }
    }, 5);
    try {
      const roll = join(k.dir, 'roll.yaml');
      await writeFile(
        roll,
        [
          'apiVersion: pacer.dev/v1alpha1',
          'kind: NodeRoll',
          'metadata: {name: upgrade}',
          'spec:',
          '  nodeSelector: {matchLabels: {sim.pacer.dev/node-group: workers}}',
          '  nodeGroup: workers',
          '  desiredNodes: 6',
          '',
        ].join('\n'),
      );
      expect(await ok(kubectl('apply', '-f', roll))).to.equal('noderoll.pacer.dev/upgrade created\n');
      await eventually(
        'the roll to complete',
        async () => (await ok(kubectl('get', 'noderoll', 'upgrade', '-o', 'jsonpath={.status.phase}'))) === 'Complete',
        150_000,
      );
    } finally {
      clearInterval(sampler);
    }
    expect(lowest, 'no Deployment below replicas − maxUnavailable (2)').to.be.at.least(2);
    expect([...cutShort], 'no node terminated while a pod it held was stopping').to.deep.equal([]);
    const fresh = [...created].filter((n) => !before.has(n));
    expect(fresh.length, 'each of the 30 pods moved at most once').to.be.at.most(30);
    const nodes = store.list(REF.nodes, undefined).items;
    expect(
      nodes.some((n) => oldNodes.includes(n.metadata.name)),
      'the old nodes are gone',
    ).to.equal(false);
    const zones: Record<string, number> = {};
    for (const n of nodes)
      zones[n.metadata.labels!['topology.kubernetes.io/zone']] =
        (zones[n.metadata.labels!['topology.kubernetes.io/zone']] ?? 0) + 1;
    expect(zones, 'balanced').to.deep.equal({ a: 2, b: 2, c: 2 });
    const status = await ok(kubectl('pacer', 'node-roll', 'status', 'upgrade'));
    expect(status.split('\n').slice(0, 3)).to.deep.equal([
      'NodeRoll upgrade: Complete',
      '  every original node has been replaced; zones a 2, b 2, c 2 (balanced)',
      'Mode: Replace, 1 node(s) at a time, group workers to 6 new node(s)',
    ]);
    expect(await ok(kubectl('get', 'noderolls'))).to.match(
      /^NAME\s+MODE\s+PHASE\s+AGE\nupgrade\s+Replace\s+Complete\s+\S+\n$/,
    );
  });

  it('a NodeRoll that is no roll is refused by kubectl apply, naming the field; nothing is disrupted', async () => {
    const bad = join(k.dir, 'bad.yaml');
    await writeFile(
      bad,
      'apiVersion: pacer.dev/v1alpha1\nkind: NodeRoll\nmetadata: {name: bad}\nspec: {nodeSelector: {}, nodeGroup: workers, desiredNodes: 6, nodesAtATime: 0}\n',
    );
    const r = await kubectl('apply', '-f', bad);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.include(
      'spec.nodesAtATime: Invalid value: 0: spec.nodesAtATime in body should be greater than or equal to 1',
    );
    expect(r.stderr).to.include('a non-empty selector is required (an empty one would select every node)');
    expect((await kubectl('get', 'noderoll', 'bad')).code).to.equal(1);
    await writeFile(
      bad,
      'apiVersion: pacer.dev/v1alpha1\nkind: NodeRoll\nmetadata: {name: bad}\nspec: {nodeSelector: {matchLabels: {a: b}}, nodeGroup: workers, desiredNodes: 6, mode: Surge}\n',
    );
    const mode = await kubectl('apply', '-f', bad);
    expect([mode.code, mode.stderr]).to.satisfy(
      ([code, err]: [number, string]) =>
        code === 1 && err.includes('spec.mode: Unsupported value: "Surge": supported values: "Replace", "Drain"'),
    );
  });

  it('kubectl pacer freeze holds a rollout (no new ReplicaSet, Progressing Frozen) until kubectl pacer freeze off', async () => {
    const ns = join(k.dir, 'ns.yaml');
    await writeFile(ns, 'apiVersion: v1\nkind: Namespace\nmetadata: {name: pacer-system}\n');
    await ok(kubectl('apply', '-f', ns));
    expect(await ok(kubectl('pacer', 'freeze', 'on', '--reason', 'e2e'))).to.equal(
      'pacer frozen (e2e): no new rollout step, eviction or node termination until "kubectl pacer freeze off"\n',
    );
    expect(
      await ok(kubectl('get', 'configmap', 'pacer-freeze', '-n', 'pacer-system', '-o', 'jsonpath={.data.reason}')),
    ).to.equal('e2e');
    await ok(kubectl('pacer', 'set', 'image', 'app-0', 'app=app:2'));
    const progressing = () =>
      ok(kubectl('get', 'pdeploy', 'app-0', '-o', 'jsonpath={.status.conditions[?(@.type=="Progressing")].reason}'));
    await eventually('app-0 held by the freeze', async () => (await progressing()) === 'Frozen');
    const replicaSets = async () =>
      (await ok(kubectl('get', 'rs', '-l', 'app=app-0', '-o', 'name'))).trim().split('\n').length;
    expect(await replicaSets(), 'no new ReplicaSet while frozen').to.equal(1);
    expect(await ok(kubectl('pacer', 'freeze', 'status'))).to.match(/^pacer is frozen \(e2e\) for \d+s\n$/);
    expect(await ok(kubectl('pacer', 'freeze', 'off'))).to.equal('pacer thawed: rollouts and node rolls go on\n');
    await ok(kubectl('pacer', 'rollout', 'status', 'app-0', '--timeout=60s'));
    expect(await replicaSets(), 'the rollout went on: a new ReplicaSet').to.equal(2);
  });

  it('a roll that could not end healthy is reported Invalid with the field at fault, before anything is disrupted', async () => {
    // 6 pods of 1.5 cpu on 4-cpu nodes: 9 cpu need 3 new nodes, not 2.
    const big = join(k.dir, 'big.yaml');
    await writeFile(
      big,
      [
        'apiVersion: pacer.dev/v1alpha1',
        'kind: Deployment',
        'metadata: {name: big}',
        'spec:',
        '  replicas: 6',
        '  selector: {matchLabels: {app: big}}',
        '  template:',
        '    metadata: {labels: {app: big}}',
        '    spec: {containers: [{name: app, image: "app:1", resources: {requests: {cpu: 1500m}}}]}',
        '',
      ].join('\n'),
    );
    await ok(kubectl('apply', '-f', big));
    await eventually(
      'big to be available',
      async () => (await ok(kubectl('get', 'pdeploy', 'big', '-o', 'jsonpath={.status.availableReplicas}'))) === '6',
      60_000,
    );
    const store = k.sim.store;
    const groupSize = () => (store.get(REF.nodegroups, undefined, 'workers')!.spec as { replicas: number }).replicas;
    const sizeBefore = groupSize();
    const rolls = join(k.dir, 'rolls.yaml');
    await writeFile(
      rolls,
      [
        'apiVersion: pacer.dev/v1alpha1\nkind: NodeRoll\nmetadata: {name: small}\nspec: {nodeSelector: {matchLabels: {sim.pacer.dev/node-group: workers}}, nodeGroup: workers, desiredNodes: 2}\n',
        'apiVersion: pacer.dev/v1alpha1\nkind: NodeRoll\nmetadata: {name: nowhere}\nspec: {nodeSelector: {matchLabels: {pool: none}}, nodeGroup: workers, desiredNodes: 2}\n',
      ].join('---\n'),
    );
    await ok(kubectl('apply', '-f', rolls));
    const phase = async (name: string) =>
      ok(kubectl('get', 'noderoll', name, '-o', 'jsonpath={.status.phase}: {.status.message}'));
    await eventually(
      'both reported Invalid',
      async () => (await phase('small')).startsWith('Invalid') && (await phase('nowhere')).startsWith('Invalid'),
    );
    expect(await phase('small')).to.match(
      /^Invalid: spec\.desiredNodes: Invalid value: 2: too few new nodes: the group's nodes run \d+ pod\(s\) needing 9 cpu; a node like theirs holds 4 cpu, so at least 3 are needed$/,
    );
    expect(await phase('nowhere')).to.equal(
      'Invalid: spec.nodeSelector: Invalid value: {"matchLabels":{"pool":"none"}}: matches no node',
    );
    expect(groupSize(), 'the group not scaled').to.equal(sizeBefore);
    expect(
      store
        .list(REF.nodes, undefined)
        .items.filter((n) => (n.spec as { unschedulable?: boolean } | undefined)?.unschedulable),
      'no node cordoned',
    ).to.deep.equal([]);
    await ok(kubectl('delete', 'noderoll', 'small', 'nowhere'));
  });
});
