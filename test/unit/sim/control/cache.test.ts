import { expect } from 'chai';
import { ClusterCache } from '../../../../src/sim/control/cache.ts';
import { REF } from '../../../../src/sim/resources.ts';
import type { KubeObject, StoreEvent } from '../../../../src/sim/types.ts';

const pod = (name: string, node: string | undefined, phase = 'Running'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', uid: `uid-${name}` },
  spec: { containers: [{ name: 'c', image: 'i' }], ...(node ? { nodeName: node } : {}) },
  status: { phase },
});

let rv = 0;
const ev = (type: StoreEvent['type'], object: KubeObject): StoreEvent => ({
  type,
  ref: REF.pods,
  object,
  resourceVersion: ++rv,
});

describe('sim/control cache: live pods by node', () => {
  // The rows run in order over one cache: each applies one change and names the counts the
  // scheduler then weighs nodes by.
  const rows: Array<{ change: string; event: StoreEvent; want: Record<string, number>; unscheduled: string[] }> = [
    {
      change: 'a pending pod: no node counts it, the scheduler queues it',
      event: ev('ADDED', pod('a', undefined, 'Pending')),
      want: {},
      unscheduled: ['default/a'],
    },
    { change: 'bound to n1', event: ev('MODIFIED', pod('a', 'n1', 'Pending')), want: { n1: 1 }, unscheduled: [] },
    { change: 'a second pod on n1', event: ev('ADDED', pod('b', 'n1')), want: { n1: 2 }, unscheduled: [] },
    {
      change: 'a Succeeded pod frees its slot',
      event: ev('MODIFIED', pod('a', 'n1', 'Succeeded')),
      want: { n1: 1 },
      unscheduled: [],
    },
    {
      change: 'deleting a terminal pod changes nothing more',
      event: ev('DELETED', pod('a', 'n1', 'Succeeded')),
      want: { n1: 1 },
      unscheduled: [],
    },
    { change: 'a running pod on n2', event: ev('ADDED', pod('c', 'n2')), want: { n1: 1, n2: 1 }, unscheduled: [] },
    {
      change: 'deleting a running pod frees its slot',
      event: ev('DELETED', pod('b', 'n1')),
      want: { n2: 1 },
      unscheduled: [],
    },
  ];
  const cache = new ClusterCache();
  for (const row of rows) {
    it(row.change, () => {
      cache.apply(row.event);
      expect(Object.fromEntries(cache.livePodsByNode)).to.deep.equal(row.want);
      expect([...cache.unscheduled]).to.deep.equal(row.unscheduled);
    });
  }
});

describe('sim/control cache: ReplicaSets by controller', () => {
  const rs = (name: string, owner?: string): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      ...(owner
        ? {
            ownerReferences: [
              { apiVersion: 'pacer.dev/v1alpha1', kind: 'Deployment', name: owner, uid: owner, controller: true },
            ],
          }
        : {}),
    },
  });
  const rsEv = (type: StoreEvent['type'], object: KubeObject): StoreEvent => ({
    type,
    ref: REF.replicasets,
    object,
    resourceVersion: ++rv,
  });
  // In order over one cache, as a Deployment's revisions come and go.
  const rows: Array<{ change: string; event: StoreEvent; want: Record<string, string[]> }> = [
    { change: 'a revision of d1', event: rsEv('ADDED', rs('web-1', 'd1')), want: { d1: ['web-1'] } },
    { change: 'its next revision', event: rsEv('ADDED', rs('web-2', 'd1')), want: { d1: ['web-1', 'web-2'] } },
    {
      change: 'a ReplicaSet no one controls is filed nowhere',
      event: rsEv('ADDED', rs('loose')),
      want: { d1: ['web-1', 'web-2'] },
    },
    { change: 'the old revision released (orphaned)', event: rsEv('MODIFIED', rs('web-1')), want: { d1: ['web-2'] } },
    { change: 'adopted by d2', event: rsEv('MODIFIED', rs('loose', 'd2')), want: { d1: ['web-2'], d2: ['loose'] } },
    { change: 'deleted', event: rsEv('DELETED', rs('web-2', 'd1')), want: { d2: ['loose'] } },
  ];
  const cache = new ClusterCache();
  for (const row of rows) {
    it(row.change, () => {
      cache.apply(row.event);
      const got = Object.fromEntries(
        ['d1', 'd2']
          .map((uid) => [uid, cache.replicaSetsOf(uid).map((x) => x.metadata.name)])
          .filter(([, names]) => names.length > 0),
      );
      expect(got).to.deep.equal(row.want);
    });
  }
});

describe('sim/control cache: nodes in natural order', () => {
  const node = (name: string, ready = 'True'): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, uid: `uid-${name}` },
    status: { conditions: [{ type: 'Ready', status: ready }] },
  });
  const nodeEv = (type: StoreEvent['type'], object: KubeObject): StoreEvent => ({
    type,
    ref: REF.nodes,
    object,
    resourceVersion: ++rv,
  });
  it('sorts node-2 before node-10, follows nodes that come and go, and serves their current state', () => {
    const cache = new ClusterCache();
    for (const n of ['node-10', 'node-2', 'node-1']) cache.apply(nodeEv('ADDED', node(n)));
    expect(cache.nodesInOrder().map((n) => n.metadata.name)).to.deep.equal(['node-1', 'node-2', 'node-10']);
    cache.apply(nodeEv('ADDED', node('node-3')));
    cache.apply(nodeEv('DELETED', node('node-1')));
    cache.apply(nodeEv('MODIFIED', node('node-10', 'False')));
    const nodes = cache.nodesInOrder();
    expect(nodes.map((n) => n.metadata.name)).to.deep.equal(['node-2', 'node-3', 'node-10']);
    expect((nodes[2].status as { conditions: Array<{ status: string }> }).conditions[0].status).to.equal('False');
  });
});
