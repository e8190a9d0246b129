// What the dashboard shows of a NodeRoll and of the freeze switch (src/dashboard/noderolls.ts):
// the health gate's state read from the checkpoint (and the roller's message), each node's step,
// zone and skip, the zones of the original nodes and of the nodes the selector matches now, and the
// switch's reason.

import { expect } from 'chai';
import type { NodeRoll, NodeRollStatus } from '../../../src/api/noderoll.ts';
import { freezeView, healthGate, nodeRollView } from '../../../src/dashboard/noderolls.ts';

const T = '2026-03-01T10:00:00Z';
const roll = (status: NodeRollStatus, spec: NodeRoll['spec'] = {}): NodeRoll => ({
  metadata: { name: 'upgrade', uid: 'u1', creationTimestamp: T },
  spec: { nodeSelector: { matchLabels: { group: 'workers' } }, nodeGroup: 'workers', desiredNodes: 3, ...spec },
  status,
});
const node = (name: string, step: 'Pending' | 'Draining' | 'Terminating' | 'Deregistered' | 'Done') => ({
  name,
  step,
  since: T,
});

describe('dashboard/noderolls: the health gate', () => {
  const rows: Array<[string, NodeRoll, { state: string; detail: string }]> = [
    [
      'no node at the gate, nothing awaited',
      roll({ phase: 'Rolling', nodes: [node('n1', 'Draining')] }),
      { state: 'open', detail: '' },
    ],
    [
      'a node past its removal waits for the workloads',
      roll({
        phase: 'Rolling',
        message: 'after n1, waiting for: deployment default/web: 2 of 3 available',
        nodes: [node('n1', 'Deregistered'), node('n2', 'Pending')],
      }),
      { state: 'waiting', detail: 'after n1, waiting for: deployment default/web: 2 of 3 available' },
    ],
    [
      'no node taken yet, the roller waits for unhealthy workloads',
      roll({
        phase: 'Rolling',
        message: 'waiting for: deployment default/db: 0 of 1 available',
        nodes: [node('n1', 'Pending')],
      }),
      { state: 'waiting', detail: 'waiting for: deployment default/db: 0 of 1 available' },
    ],
    [
      'paused on the health wait',
      roll({
        phase: 'Paused',
        paused: { node: 'n1', wait: 'healthy', message: 'after n1: deployment default/web: 2 of 3 available for 10m' },
        nodes: [node('n1', 'Deregistered')],
      }),
      { state: 'paused', detail: 'after n1: deployment default/web: 2 of 3 available for 10m' },
    ],
    [
      'paused on a drain timeout: not the gate',
      roll({
        phase: 'Paused',
        paused: { node: 'n1', wait: 'drain', message: 'drain of n1 over 10m' },
        nodes: [node('n1', 'Draining')],
      }),
      { state: 'open', detail: '' },
    ],
    ['done', roll({ phase: 'Complete', done: true, nodes: [node('n1', 'Done')] }), { state: 'done', detail: '' }],
  ];
  for (const [what, r, want] of rows)
    it(what, () => {
      expect(healthGate(r)).to.deep.include(want);
    });

  it('its scope: every workload, or the selector; the analysis templates', () => {
    expect(healthGate(roll({}))).to.deep.include({ scope: 'every Pacer Deployment and ReplicaSet', analysis: [] });
    expect(
      healthGate(
        roll(
          {},
          {
            healthGate: {
              selector: { matchLabels: { tier: 'front' } },
              analysis: { templates: [{ templateName: 'errors' }, { templateName: 'latency', clusterScope: true }] },
            },
          },
        ),
      ),
    ).to.deep.include({ scope: 'workloads matching tier=front', analysis: ['errors', 'cluster:latency'] });
  });
});

describe('dashboard/noderolls: a roll', () => {
  it("each node's step, since when (none while Pending), zone and skip; the zones before and now", () => {
    const seen = new Map([
      ['old-a', 'a'],
      ['old-b', 'b'],
      ['new-a', 'a'],
      ['new-c', 'c'],
    ]);
    const nodes = [
      { name: 'old-b', labels: { group: 'workers', 'topology.kubernetes.io/zone': 'b' } },
      { name: 'new-a', labels: { group: 'workers', 'topology.kubernetes.io/zone': 'a' } },
      { name: 'new-c', labels: { group: 'workers', 'topology.kubernetes.io/zone': 'c' } },
      { name: 'other', labels: { group: 'infra', 'topology.kubernetes.io/zone': 'a' } },
    ];
    const v = nodeRollView(
      roll({
        phase: 'Rolling',
        originalNodes: ['old-a', 'old-b', 'old-gone'],
        nodes: [node('old-a', 'Done'), node('old-b', 'Pending'), node('old-gone', 'Draining')],
        skipped: ['old-b'],
        zoneMoves: { planned: 1, moved: [] },
      }),
      seen,
      nodes,
    );
    expect(v.nodes).to.deep.equal([
      { name: 'old-a', step: 'Done', since: T, skipped: false, zone: 'a' },
      { name: 'old-b', step: 'Pending', since: '', skipped: true, zone: 'b' },
      { name: 'old-gone', step: 'Draining', since: T, skipped: false, zone: '' },
    ]);
    // A node removed before the dashboard saw it counts as '?'.
    expect(v.zonesBefore).to.deep.equal({ a: 1, b: 1, '?': 1 });
    expect(v.zonesNow).to.deep.equal({ a: 1, b: 1, c: 1 });
    expect(v.zoneMoves).to.deep.equal({ planned: 1, moved: [] });
    expect([v.mode, v.desiredNodes, v.nodesAtATime, v.specPaused, v.pause]).to.deep.equal([
      'Replace',
      3,
      1,
      false,
      null,
    ]);
  });

  it('a Drain roll has no desired size; the pause and the conditions as the status has them', () => {
    const v = nodeRollView(
      roll(
        {
          phase: 'Paused',
          paused: { node: 'n1', wait: 'drain', message: 'drain of n1 over 10m' },
          conditions: [
            {
              type: 'Paused',
              status: 'True',
              reason: 'DrainTimeout',
              message: 'drain of n1 over 10m',
              lastTransitionTime: T,
            },
          ],
        },
        { mode: 'Drain', desiredNodes: undefined, paused: true },
      ),
      new Map(),
      [],
    );
    expect([v.phase, v.mode, v.desiredNodes, v.specPaused]).to.deep.equal(['Paused', 'Drain', null, true]);
    expect(v.pause).to.deep.equal({ node: 'n1', wait: 'drain', message: 'drain of n1 over 10m' });
    expect(v.conditions).to.deep.equal([
      { type: 'Paused', status: 'True', reason: 'DrainTimeout', message: 'drain of n1 over 10m', lastUpdateTime: T },
    ]);
  });
});

describe('dashboard/noderolls: the freeze switch', () => {
  it('pacer-freeze with its reason and since; no reason given; any other ConfigMap is not the switch', () => {
    expect(
      freezeView({
        metadata: { name: 'pacer-freeze', namespace: 'pacer-system', creationTimestamp: T },
        data: { reason: 'incident 42', since: '2026-03-01T10:05:00Z' },
      }),
    ).to.deep.equal({
      namespace: 'pacer-system',
      name: 'pacer-freeze',
      reason: 'incident 42',
      since: '2026-03-01T10:05:00Z',
    });
    expect(
      freezeView({ metadata: { name: 'pacer-freeze', namespace: 'pacer-system', creationTimestamp: T } }),
    ).to.deep.equal({
      namespace: 'pacer-system',
      name: 'pacer-freeze',
      reason: 'no reason given',
      since: T,
    });
    expect(freezeView({ metadata: { name: 'other', namespace: 'pacer-system' }, data: { reason: 'x' } })).to.equal(
      undefined,
    );
  });
});
