import { expect } from 'chai';
import { placePod, unschedulableMessage, type NodeInfo } from '../../../../src/sim/control/scheduler.ts';
import { cordon, setNodeNotReady } from '../../../../src/sim/control/nodes.ts';
import { REF } from '../../../../src/sim/resources.ts';
import type { KubeObject } from '../../../../src/sim/types.ts';
import { pod, podsOf, replicaSet, startCluster, statusOf, waitFor, type Cluster } from './helpers.ts';

function node(
  name: string,
  zone: string,
  o: {
    pods?: number;
    capacity?: number;
    cordoned?: boolean;
    notReady?: boolean;
    labels?: Record<string, string>;
    taints?: object[];
  } = {},
): NodeInfo {
  const n: KubeObject = {
    metadata: { name, labels: { 'topology.kubernetes.io/zone': zone, ...(o.labels ?? {}) } },
    spec: { ...(o.cordoned ? { unschedulable: true } : {}), ...(o.taints ? { taints: o.taints } : {}) },
    status: { conditions: [{ type: 'Ready', status: o.notReady ? 'False' : 'True' }] },
  };
  return { node: n, zone, pods: o.pods ?? 0, capacity: o.capacity ?? 10 };
}

describe('sim/control scheduler: placement', () => {
  const rows: Array<{
    name: string;
    nodes: NodeInfo[];
    siblings?: Record<string, number>;
    pod?: KubeObject;
    want: string;
  }> = [
    { name: 'empty cluster: the first node by name', nodes: [node('n2', 'a'), node('n1', 'a')], want: 'n1' },
    {
      name: "the zone with fewest of the workload's pods wins over a less loaded node elsewhere",
      nodes: [node('a1', 'a', { pods: 0 }), node('b1', 'b', { pods: 5 })],
      siblings: { a1: 2, b1: 0 },
      want: 'b1',
    },
    {
      name: 'equal workload spread: the less loaded zone',
      nodes: [node('a1', 'a', { pods: 4 }), node('b1', 'b', { pods: 1 })],
      want: 'b1',
    },
    {
      name: 'inside the zone, the node with fewest pods',
      nodes: [node('a1', 'a', { pods: 3 }), node('a2', 'a', { pods: 1 }), node('b1', 'b', { pods: 9, capacity: 9 })],
      want: 'a2',
    },
    {
      name: 'a cordoned node is skipped',
      nodes: [node('a1', 'a', { cordoned: true }), node('a2', 'a', { pods: 5 })],
      want: 'a2',
    },
    {
      name: 'a NotReady node is skipped',
      nodes: [node('a1', 'a', { notReady: true }), node('b1', 'b', { pods: 5 })],
      want: 'b1',
    },
    {
      name: 'a full node is skipped',
      nodes: [node('a1', 'a', { pods: 2, capacity: 2 }), node('b1', 'b', { pods: 5 })],
      want: 'b1',
    },
    {
      name: 'nodeSelector must match the node labels',
      nodes: [node('a1', 'a'), node('b1', 'b', { labels: { disk: 'ssd' } })],
      pod: { ...pod('p'), spec: { containers: [], nodeSelector: { disk: 'ssd' } } },
      want: 'b1',
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const sib = row.siblings ?? {};
      const placement = placePod(row.pod ?? pod('p'), row.nodes, (n) => sib[n] ?? 0);
      expect(placement).to.deep.equal({ node: row.want });
    });
  }

  const messages: Array<{ name: string; nodes: NodeInfo[]; want: string }> = [
    {
      name: 'every node full',
      nodes: [
        node('a', 'a', { pods: 1, capacity: 1 }),
        node('b', 'b', { pods: 1, capacity: 1 }),
        node('c', 'c', { pods: 1, capacity: 1 }),
      ],
      want: '0/3 nodes are available: 3 Too many pods. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
    },
    {
      name: 'cordoned and full',
      nodes: [
        node('a', 'a', { cordoned: true }),
        node('b', 'b', { pods: 1, capacity: 1 }),
        node('c', 'c', { pods: 1, capacity: 1 }),
      ],
      want: '0/3 nodes are available: 1 node(s) were unschedulable, 2 Too many pods. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.',
    },
    {
      name: 'NotReady nodes carry the not-ready taint',
      nodes: [node('a', 'a', { notReady: true }), node('b', 'b', { notReady: true })],
      want: '0/2 nodes are available: 2 node(s) had untolerated taint {node.kubernetes.io/not-ready: }. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
    },
    {
      name: 'a NoSchedule taint',
      nodes: [node('a', 'a', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] })],
      want: '0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.',
    },
    { name: 'no nodes at all', nodes: [], want: 'no nodes available to schedule pods' },
  ];
  for (const row of messages) {
    it(`message: ${row.name}`, () => {
      expect(placePod(pod('p'), row.nodes, () => 0)).to.deep.equal({ unschedulable: row.want });
    });
  }

  it('unschedulableMessage sorts the histogram', () => {
    expect(
      unschedulableMessage(2, [
        { reason: 'Too many pods', resolvable: true },
        { reason: 'node(s) were unschedulable', resolvable: false },
      ]),
    ).to.equal(
      '0/2 nodes are available: 1 Too many pods, 1 node(s) were unschedulable. preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.',
    );
  });
});

describe('sim/control scheduler: behaviour', () => {
  let c: Cluster;
  afterEach(() => c?.stop());

  it('spreads a workload over the zones, one pod per node first', async () => {
    c = startCluster({ nodes: 6, zones: ['a', 'b', 'c'] });
    c.store.create(REF.replicasets, 'default', replicaSet('web', 6));
    await waitFor('6 bound', () => podsOf(c.store, 'app=web').filter((p) => (p.spec as any).nodeName).length === 6);
    const nodes = podsOf(c.store, 'app=web').map((p) => (p.spec as any).nodeName as string);
    expect(new Set(nodes).size).to.equal(6);
    const zoneOf = (n: string) => c.store.get(REF.nodes, undefined, n)!.metadata.labels!['topology.kubernetes.io/zone'];
    const perZone = new Map<string, number>();
    for (const n of nodes) perZone.set(zoneOf(n), (perZone.get(zoneOf(n)) ?? 0) + 1);
    expect([...perZone.values()]).to.deep.equal([2, 2, 2]);
  });

  it('a pod that fits nowhere stays Pending, and is bound when a node joins', async () => {
    c = startCluster({ nodes: 3, podsPerNode: 1 });
    c.store.create(REF.replicasets, 'default', replicaSet('web', 4));
    const pending = await waitFor('an unschedulable pod', () =>
      podsOf(c.store, 'app=web').find((p) =>
        (statusOf(p).conditions ?? []).some((x: any) => x.type === 'PodScheduled' && x.status === 'False'),
      ),
    );
    const cond = statusOf(pending).conditions.find((x: any) => x.type === 'PodScheduled');
    expect(cond).to.include({
      status: 'False',
      reason: 'Unschedulable',
      message:
        '0/3 nodes are available: 3 Too many pods. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
    });
    expect(statusOf(pending).phase).to.equal('Pending');
    const failed = c.store.list(REF.events, 'default').items.filter((e) => (e as any).reason === 'FailedScheduling');
    expect(failed.map((e) => [(e as any).type, (e as any).involvedObject.name, (e as any).message])).to.deep.equal([
      ['Warning', pending.metadata.name, cond.message],
    ]);
    // A node created through the API is registered by its (simulated) kubelet and takes the pod.
    c.store.create(REF.nodes, undefined, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-4', labels: { 'topology.kubernetes.io/zone': 'a' } },
    });
    await waitFor(
      'bound to node-4',
      () => (c.store.get(REF.pods, 'default', pending.metadata.name!)?.spec as any)?.nodeName === 'node-4',
    );
    const n4 = c.store.get(REF.nodes, undefined, 'node-4')!;
    expect(statusOf(n4).nodeInfo.kubeletVersion).to.equal('v1.36.4');
  });

  it('cordoned and NotReady nodes get no new pods', async () => {
    c = startCluster({ nodes: 3 });
    cordon(c.store, 'node-1');
    setNodeNotReady(c.store, 'node-2', true);
    c.store.create(REF.replicasets, 'default', replicaSet('web', 3));
    await waitFor('3 bound', () => podsOf(c.store, 'app=web').filter((p) => (p.spec as any).nodeName).length === 3);
    expect(podsOf(c.store, 'app=web').map((p) => (p.spec as any).nodeName)).to.deep.equal([
      'node-3',
      'node-3',
      'node-3',
    ]);
  });
});
