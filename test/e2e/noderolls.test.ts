// A node roll through the real kubectl, on the simulated cluster (its NodeGroups are the one node
// group provider so far; the real control plane has none yet, so this suite runs on the simulated
// bed only): a group of 6 nodes over 3 zones running 10 Pacer Deployments, some with
// PodDisruptionBudgets, is rolled to 6 new nodes with `kubectl apply -f` of a NodeRoll. Sampled
// throughout: no Deployment ever below replicas − maxUnavailable; at the end each pod has moved at
// most once (every old node cordoned first), the zones are balanced, the old nodes are gone, and
// `kubectl pacer node-roll status` and `kubectl get noderolls` say Complete.

import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Deployment } from '../../src/api/types.ts';
import { REF } from '../../src/sim/resources.ts';
import { eventually } from '../integration/fixtures/cluster.ts';
import { ROOT, kubectlEnv } from './fixtures.ts';

describe('e2e (sim): a node roll with kubectl', function () {
  this.timeout(180_000);
  const k = kubectlEnv({ bed: 'sim', tmpPrefix: 'pacer-noderoll-', plugin: true, sim: { nodes: 0, zones: ['a', 'b', 'c'], podStartMs: 100, podReadyMs: 100 } });
  const { kubectl, ok } = k;
  before(function () { return k.start(this); });
  after(() => k.stop());

  it('rolls 6 nodes under 10 Deployments: never below a minimum, each pod moving once, zones balanced, old nodes gone', async () => {
    await ok(kubectl('apply', '-f', join(ROOT, 'crds')));
    await eventually('the CRDs to be served', async () => (await kubectl('get', 'noderolls')).code === 0 && (await kubectl('get', 'pdeploy')).code === 0);
    await k.startController();
    const docs: string[] = [
      'apiVersion: sim.pacer.dev/v1\nkind: NodeGroup\nmetadata: {name: workers}\nspec: {replicas: 6, zones: [a, b, c], launchDelayMs: 300, deregistrationDelayMs: 300}\n',
    ];
    for (let i = 0; i < 10; i++) {
      docs.push([
        'apiVersion: pacer.dev/v1alpha1', 'kind: Deployment', `metadata: {name: app-${i}}`, 'spec:', '  replicas: 3',
        '  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}',
        `  selector: {matchLabels: {app: app-${i}}}`, '  template:', `    metadata: {labels: {app: app-${i}}}`, '    spec: {containers: [{name: app, image: "app:1"}]}', '',
      ].join('\n'));
      if (i % 3 === 0) docs.push(`apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: app-${i}}\nspec: {minAvailable: 2, selector: {matchLabels: {app: app-${i}}}}\n`);
    }
    const file = join(k.dir, 'fleet.yaml');
    await writeFile(file, docs.join('---\n'));
    await ok(kubectl('apply', '-f', file));
    const store = k.sim.store;
    const deployments = () => store.list({ group: 'pacer.dev', version: 'v1alpha1', resource: 'deployments' }, 'default').items as unknown as Deployment[];
    await eventually('10 Deployments complete', () => deployments().filter((d) => d.status?.availableReplicas === 3 && d.status.updatedReplicas === 3 && d.status.replicas === 3).length === 10, 60_000);
    const before = new Set(store.list(REF.pods, 'default').items.map((p) => p.metadata.name));
    const oldNodes = store.list(REF.nodes, undefined).items.map((n) => n.metadata.name);
    expect(oldNodes).to.have.length(6);

    let lowest = Infinity;
    const created = new Set<string>();
    const sampler = setInterval(() => {
      for (const d of deployments()) lowest = Math.min(lowest, d.status?.availableReplicas ?? 0);
      for (const p of store.list(REF.pods, 'default').items) created.add(p.metadata.name ?? '');
    }, 5);
    try {
      const roll = join(k.dir, 'roll.yaml');
      await writeFile(roll, [
        'apiVersion: pacer.dev/v1alpha1', 'kind: NodeRoll', 'metadata: {name: upgrade}', 'spec:',
        '  nodeSelector: {matchLabels: {sim.pacer.dev/node-group: workers}}', '  nodeGroup: workers', '  desiredNodes: 6', '',
      ].join('\n'));
      expect(await ok(kubectl('apply', '-f', roll))).to.equal('noderoll.pacer.dev/upgrade created\n');
      await eventually('the roll to complete', async () => (await ok(kubectl('get', 'noderoll', 'upgrade', '-o', 'jsonpath={.status.phase}'))) === 'Complete', 150_000);
    } finally {
      clearInterval(sampler);
    }
    expect(lowest, 'no Deployment below replicas − maxUnavailable (2)').to.be.at.least(2);
    const fresh = [...created].filter((n) => !before.has(n));
    expect(fresh.length, 'each of the 30 pods moved at most once').to.be.at.most(30);
    const nodes = store.list(REF.nodes, undefined).items;
    expect(nodes.some((n) => oldNodes.includes(n.metadata.name)), 'the old nodes are gone').to.equal(false);
    const zones: Record<string, number> = {};
    for (const n of nodes) zones[n.metadata.labels!['topology.kubernetes.io/zone']] = (zones[n.metadata.labels!['topology.kubernetes.io/zone']] ?? 0) + 1;
    expect(zones, 'balanced').to.deep.equal({ a: 2, b: 2, c: 2 });
    const status = await ok(kubectl('pacer', 'node-roll', 'status', 'upgrade'));
    expect(status.split('\n').slice(0, 3)).to.deep.equal([
      'NodeRoll upgrade: Complete', '  every original node has been replaced; zones a 2, b 2, c 2 (balanced)', 'Mode: Replace, 1 node(s) at a time, group workers to 6 new node(s)',
    ]);
    expect(await ok(kubectl('get', 'noderolls'))).to.match(/^NAME\s+MODE\s+PHASE\s+AGE\nupgrade\s+Replace\s+Complete\s+\S+\n$/);
  });

  it('a NodeRoll that is no roll is refused by kubectl apply, naming the field; nothing is disrupted', async () => {
    const bad = join(k.dir, 'bad.yaml');
    await writeFile(bad, 'apiVersion: pacer.dev/v1alpha1\nkind: NodeRoll\nmetadata: {name: bad}\nspec: {nodeSelector: {}, nodeGroup: workers, desiredNodes: 6, nodesAtATime: 0}\n');
    const r = await kubectl('apply', '-f', bad);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.include('spec.nodesAtATime: Invalid value: 0: spec.nodesAtATime in body should be greater than or equal to 1');
    expect(r.stderr).to.include('a non-empty selector is required (an empty one would select every node)');
    expect((await kubectl('get', 'noderoll', 'bad')).code).to.equal(1);
  });
});
