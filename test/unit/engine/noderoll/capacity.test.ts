// Whether a roll leaves the group room for what it runs: checked before it starts, refused with the
// field at fault (Replace: desiredNodes; Drain: nodesAtATime).

import { expect } from 'chai';
import { capacityShortfall } from '../../../../src/engine/noderoll/capacity.ts';
import type { CapacityInput, SizedNode, SizedPod } from '../../../../src/engine/noderoll/capacity.ts';

const node = (name: string, pods = '10', cpu = '4', memory = '16Gi'): SizedNode => ({
  metadata: { name },
  status: { allocatable: { pods, cpu, memory } },
});
const pod = (name: string, on: string, cpu = '', memory = '', daemon = false): SizedPod => ({
  metadata: {
    name,
    namespace: 'default',
    ...(daemon ? { ownerReferences: [{ kind: 'DaemonSet', controller: true }] } : {}),
  },
  spec: {
    nodeName: on,
    containers: [{ resources: { requests: { ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) } } }],
  },
  status: { phase: 'Running' },
});
/** `perNode` pods on each of `nodes` nodes, each asking for `cpu`. */
function group(nodes: number, perNode: number, cpu = ''): { nodes: SizedNode[]; pods: SizedPod[] } {
  const ns = Array.from({ length: nodes }, (_, i) => node(`n${i}`));
  return {
    nodes: ns,
    pods: ns.flatMap((n, i) => Array.from({ length: perNode }, (_, j) => pod(`p${i}-${j}`, n.metadata.name!, cpu))),
  };
}
const input = (g: { nodes: SizedNode[]; pods: SizedPod[] }, o: Partial<CapacityInput>): CapacityInput => ({
  mode: 'Replace',
  desiredNodes: 3,
  nodesAtATime: 1,
  ...g,
  ...o,
});

describe('node roll: room for what the group runs', () => {
  const rows: Array<[string, CapacityInput, string | undefined]> = [
    ['Replace 3 nodes of 8 pods (10 per node) by 3: fits', input(group(3, 8), {}), undefined],
    [
      'Replace them by 2 (a consolidation): 24 pods on nodes of 10 need 3',
      input(group(3, 8), { desiredNodes: 2 }),
      "spec.desiredNodes=2: too few new nodes: the group's nodes run 24 pod(s) needing 24 pods; a node like theirs holds 10 pods, so at least 3 are needed",
    ],
    ['Replace by 2 with 6 pods a node: fits (18 ≤ 20)', input(group(3, 6), { desiredNodes: 2 }), undefined],
    [
      'cpu is what runs out: 3 pods of 1.5 cpu a node on 4-cpu nodes, 2 new nodes',
      input(group(3, 3, '1500m'), { desiredNodes: 2 }),
      "spec.desiredNodes=2: too few new nodes: the group's nodes run 9 pod(s) needing 13.5 cpu; a node like theirs holds 4 cpu, so at least 4 are needed",
    ],
    [
      'DaemonSet pods stay where they are and take room on every node',
      input(
        {
          nodes: [node('a'), node('b')],
          pods: [pod('x', 'a'), pod('y', 'a'), pod('ds-a', 'a', '', '', true), pod('ds-b', 'b', '', '', true)],
        },
        { desiredNodes: 1 },
      ),
      undefined,
    ],
    [
      '... and count against the room: 9 pods a node, 1 DaemonSet pod, nodes of 10, 1 new node for 18',
      input(
        {
          nodes: [node('a'), node('b')],
          pods: [...group(2, 9).pods, pod('ds-a', 'n0', '', '', true)].map((p) => ({
            ...p,
            spec: { ...p.spec, nodeName: p.spec!.nodeName === 'n0' ? 'a' : 'b' },
          })),
        },
        { desiredNodes: 1 },
      ),
      "spec.desiredNodes=1: too few new nodes: the group's nodes run 18 pod(s) needing 18 pods; a node like theirs holds 9 pods, so at least 2 are needed",
    ],
    [
      'Drain 4 nodes of 5 pods one at a time: 20 pods on the other 3 (30): fits',
      input(group(4, 5), { mode: 'Drain' }),
      undefined,
    ],
    [
      'Drain them 2 at a time: 20 pods on 2 nodes of 10: fits exactly',
      input(group(4, 5), { mode: 'Drain', nodesAtATime: 2 }),
      undefined,
    ],
    [
      'Drain them 3 at a time: 20 pods on 1 node',
      input(group(4, 5), { mode: 'Drain', nodesAtATime: 3 }),
      "spec.nodesAtATime=3: too many nodes at a time: the group's nodes run 20 pod(s) needing 20 pods; a node like theirs holds 10 pods, so 2 of the 4 must stay up while the others drain",
    ],
    [
      'nodes that report no allocatable: nothing to check',
      input({ nodes: [{ metadata: { name: 'a' } }], pods: [pod('x', 'a')] }, { desiredNodes: 1 }),
      undefined,
    ],
    [
      'finished pods do not move',
      input(
        { nodes: [node('a', '1')], pods: [pod('x', 'a'), { ...pod('done', 'a'), status: { phase: 'Succeeded' } }] },
        { desiredNodes: 1 },
      ),
      undefined,
    ],
  ];
  for (const [what, i, want] of rows) {
    it(what, () => {
      const e = capacityShortfall(i);
      expect(e ? `${e.field}=${e.value}: ${e.detail}` : undefined).to.equal(want);
    });
  }
});
