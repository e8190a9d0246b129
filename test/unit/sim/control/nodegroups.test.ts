// The simulated cloud's node groups: launches spread over zones after their delay, a scale-down that
// takes marked nodes first (then the newest of the fullest zone), terminated nodes that turn NotReady
// at once and leave after the deregistration delay (their pods then go), and the rebalance that
// evens zones out by terminating a node (the Mesos Slave Roller's AZRebalance hazard).

import { expect } from 'chai';
import { startControlPlane } from '../../../../src/sim/control/index.ts';
import { ANN_DELETE_NODE, ANN_TERMINATED_AT, NODE_GROUP_LABEL } from '../../../../src/sim/control/nodegroups.ts';
import { Store } from '../../../../src/sim/store.ts';
import { REF } from '../../../../src/sim/resources.ts';
import type { KubeObject } from '../../../../src/sim/types.ts';
import { replicaSet, waitFor } from './helpers.ts';

const OPTS = { nodes: 0, zones: ['a', 'b', 'c'], podsPerNode: 10, podStartMs: 5, podReadyMs: 5 };

function setup(spec: Record<string, unknown>): { store: Store; stop: () => void } {
  const store = new Store();
  store.create(REF.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  store.create(REF.nodegroups, undefined, {
    apiVersion: 'sim.pacer.dev/v1',
    kind: 'NodeGroup',
    metadata: { name: 'workers' },
    spec,
  } as KubeObject);
  const plane = startControlPlane(store, OPTS);
  return { store, stop: () => plane.stop() };
}

const members = (store: Store) =>
  store.list(REF.nodes, undefined).items.filter((n) => n.metadata.labels?.[NODE_GROUP_LABEL] === 'workers');
const zones = (store: Store) => {
  const out: Record<string, number> = {};
  for (const n of members(store))
    if (!n.metadata.annotations?.[ANN_TERMINATED_AT])
      out[n.metadata.labels!['topology.kubernetes.io/zone']] =
        (out[n.metadata.labels!['topology.kubernetes.io/zone']] ?? 0) + 1;
  return out;
};
const ready = (n: KubeObject) =>
  (n.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions?.some(
    (c) => c.type === 'Ready' && c.status === 'True',
  );
const scale = (store: Store, replicas: number) =>
  store.mutate(REF.nodegroups, undefined, 'workers', (g) => ({ ...g, spec: { ...(g.spec as object), replicas } }));

describe('sim/control: node groups', () => {
  let stop: (() => void) | undefined;
  afterEach(() => stop?.());

  it('launches its nodes spread over its zones, registered and Ready, after the launch delay', async () => {
    const s = setup({ replicas: 6, launchDelayMs: 30 });
    stop = s.stop;
    expect(members(s.store), 'nothing before the delay').to.have.length(0);
    await waitFor('6 nodes Ready', () => members(s.store).filter(ready).length === 6);
    expect(zones(s.store)).to.deep.equal({ a: 2, b: 2, c: 2 });
    expect(
      members(s.store)
        .map((n) => n.metadata.name)
        .sort(),
    ).to.deep.equal(['workers-1', 'workers-2', 'workers-3', 'workers-4', 'workers-5', 'workers-6']);
    await waitFor(
      'status',
      () =>
        (s.store.get(REF.nodegroups, undefined, 'workers')!.status as { readyReplicas?: number })?.readyReplicas === 6,
    );
  });

  it('a scale-down terminates the marked node: NotReady at once, gone after the deregistration delay, its pods with it', async () => {
    const s = setup({ replicas: 3, deregistrationDelayMs: 60 });
    stop = s.stop;
    await waitFor('3 nodes Ready', () => members(s.store).filter(ready).length === 3);
    s.store.create(REF.replicasets, 'default', replicaSet('web', 3));
    await waitFor(
      '3 pods running',
      () =>
        s.store.list(REF.pods, 'default').items.filter((p) => (p.spec as { nodeName?: string }).nodeName).length === 3,
    );
    s.store.mutate(REF.nodes, undefined, 'workers-1', (n) => ({
      ...n,
      metadata: { ...n.metadata, annotations: { ...n.metadata.annotations, [ANN_DELETE_NODE]: 'true' } },
    }));
    scale(s.store, 2);
    await waitFor(
      'workers-1 terminated',
      () => s.store.get(REF.nodes, undefined, 'workers-1')?.metadata.annotations?.[ANN_TERMINATED_AT] !== undefined,
    );
    expect(ready(s.store.get(REF.nodes, undefined, 'workers-1')!), 'its kubelet is gone').to.not.equal(true);
    await waitFor('workers-1 deregistered', () => s.store.get(REF.nodes, undefined, 'workers-1') === undefined);
    await waitFor(
      'no pod left on it',
      () =>
        !s.store
          .list(REF.pods, 'default')
          .items.some((p) => (p.spec as { nodeName?: string }).nodeName === 'workers-1'),
    );
    expect(
      members(s.store)
        .map((n) => n.metadata.name)
        .sort(),
    ).to.deep.equal(['workers-2', 'workers-3']);
  });

  it('without a mark, a scale-down takes the newest node of the fullest zone', async () => {
    const s = setup({ replicas: 4 });
    stop = s.stop;
    await waitFor('4 nodes', () => members(s.store).filter(ready).length === 4);
    scale(s.store, 3);
    await waitFor('3 nodes', () => Object.values(zones(s.store)).reduce((a, b) => a + b, 0) === 3);
    expect(zones(s.store)).to.deep.equal({ a: 1, b: 1, c: 1 });
  });

  it('rebalance: zones uneven by more than one get a node terminated and relaunched elsewhere', async () => {
    const s = setup({ replicas: 3, rebalance: true });
    stop = s.stop;
    await waitFor('3 nodes', () => members(s.store).filter(ready).length === 3);
    // Zone b and c lose their nodes by hand (as a roll's terminations would leave them): a: 1 → the group relaunches; then a holds 3.
    for (const name of ['workers-2', 'workers-3']) {
      s.store.mutate(REF.nodes, undefined, name, (n) => ({
        ...n,
        metadata: { ...n.metadata, labels: { ...n.metadata.labels, 'topology.kubernetes.io/zone': 'a' } },
      }));
    }
    await waitFor(
      'balanced again',
      () => JSON.stringify(zones(s.store)) === JSON.stringify({ a: 1, b: 1, c: 1 }),
      5000,
    );
  });

  it('spec.taints: every node of the group registers with them, and pods without the toleration stay off', async () => {
    const taint = { key: 'dedicated', value: 'batch', effect: 'NoSchedule' };
    const g = setup({ replicas: 2, zones: ['a', 'b'], taints: [taint] });
    stop = g.stop;
    await waitFor('2 nodes Ready', () => members(g.store).length === 2 && members(g.store).every(ready));
    for (const n of members(g.store)) expect((n.spec as { taints?: unknown[] }).taints).to.deep.equal([taint]);
    g.store.create(REF.replicasets, 'default', replicaSet('plain', 1));
    const message = await waitFor(
      'the pod to be unschedulable',
      () =>
        g.store
          .list(REF.pods, 'default')
          .items.flatMap(
            (p) => (p.status as { conditions?: Array<{ type: string; message?: string }> })?.conditions ?? [],
          )
          .find((c) => c.type === 'PodScheduled' && c.message)?.message,
    );
    expect(message).to.contain('untolerated taint {dedicated: batch}');
  });
});
