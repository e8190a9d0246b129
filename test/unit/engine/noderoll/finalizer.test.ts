// The NodeRoll's finalizer (engine/noderoll/pass.ts): on from the roll's start, before it holds the
// group's rebalancing, off at its end, after it gives it back; a roll deleted half-way gives the
// rebalancing back first (docs/semantics/node-roll.md#node-groups). A node with no pods is cordoned
// and terminated in the same pass (Drain, one node at a time).

import { expect } from 'chai';
import type { NodeRoll } from '../../../../src/api/noderoll.ts';
import { NODEROLL_FINALIZER, rollPass } from '../../../../src/engine/noderoll/pass.ts';
import type { RollAction } from '../../../../src/engine/noderoll/types.ts';
import { deepFreeze } from '../fixtures.ts';

const NOW = Date.parse('2026-11-24T10:00:00Z');
const AT = new Date(NOW - 60_000).toISOString();
const nodes = ['n1', 'n2', 'n3'].map((name, i) => ({
  metadata: { name, labels: { group: 'w', 'topology.kubernetes.io/zone': 'abc'[i] } },
  status: { conditions: [{ type: 'Ready', status: 'True' }], allocatable: { pods: '10' } },
}));
const started = {
  phase: 'Rolling',
  originalNodes: ['n1', 'n2', 'n3'],
  zones: ['a', 'b', 'c'],
  nodes: ['n1', 'n2', 'n3'].map((name) => ({ name, step: 'Pending', since: AT })),
};
const lastNodeLeft = {
  ...started,
  nodes: ['n1', 'n2', 'n3'].map((name) => ({ name, step: name === 'n3' ? 'Deregistered' : 'Done', since: AT })),
};
const complete = {
  ...started,
  phase: 'Complete',
  done: true,
  nodes: ['n1', 'n2', 'n3'].map((name) => ({ name, step: 'Done', since: AT })),
};

function roll(
  status: Record<string, unknown> | undefined,
  o: { finalizer?: boolean; deleted?: boolean } = {},
): NodeRoll {
  return deepFreeze({
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'NodeRoll',
    metadata: {
      name: 'r',
      generation: 1,
      finalizers: o.finalizer ? ['example.com/other', NODEROLL_FINALIZER] : ['example.com/other'],
      ...(o.deleted ? { deletionTimestamp: AT } : {}),
    },
    spec: { mode: 'Drain', nodeGroup: 'workers', nodeSelector: { matchLabels: { group: 'w' } } },
    ...(status ? { status } : {}),
  } as unknown as NodeRoll);
}

const verbs = (as: readonly RollAction[]) =>
  as.map((a) => (a.verb === 'holdRebalance' || a.verb === 'releaseRebalance' ? `${a.verb} ${a.group}` : a.verb));

describe("engine/noderoll: the roll's finalizer", () => {
  const rows: Array<[string, NodeRoll, string | undefined, string[]]> = [
    [
      'a roll that starts: the finalizer on before the rebalancing is held',
      roll(undefined),
      undefined,
      ['addFinalizer', 'holdRebalance workers', 'cordon', 'terminate'],
    ],
    [
      'a started roll with its finalizer: nothing about it',
      roll(started, { finalizer: true }),
      undefined,
      ['cordon', 'terminate'],
    ],
    [
      'a started roll whose finalizer was taken off by hand: on again',
      roll(started),
      undefined,
      ['addFinalizer', 'cordon', 'terminate'],
    ],
    [
      'the last node gone: the rebalancing given back, then the finalizer off',
      roll(lastNodeLeft, { finalizer: true }),
      undefined,
      ['releaseRebalance workers', 'removeFinalizer'],
    ],
    [
      'Complete with the finalizer still on (a crash between the two): off',
      roll(complete, { finalizer: true }),
      undefined,
      ['removeFinalizer'],
    ],
    ['Complete without it: nothing', roll(complete), undefined, []],
    [
      'deleted half-way: the rebalancing given back, then the finalizer off',
      roll(started, { finalizer: true, deleted: true }),
      undefined,
      ['releaseRebalance workers', 'removeFinalizer'],
    ],
    [
      'deleted half-way while frozen: nothing until the freeze is lifted',
      roll(started, { finalizer: true, deleted: true }),
      'the freeze switch is on',
      [],
    ],
    [
      'deleted once Complete: the finalizer off only',
      roll(complete, { finalizer: true, deleted: true }),
      undefined,
      ['removeFinalizer'],
    ],
    ['deleted before it started (no finalizer of its own): nothing', roll(undefined, { deleted: true }), undefined, []],
    [
      'deleted with its finalizer but no start in its status (deleted between the hold and the status write): given back all the same',
      roll(undefined, { finalizer: true, deleted: true }),
      undefined,
      ['releaseRebalance workers', 'removeFinalizer'],
    ],
  ];
  for (const [name, r, frozen, want] of rows) {
    it(`${name} → ${want.join(', ') || 'no action'}`, () => {
      const pass = rollPass({
        roll: r,
        nodes,
        pods: [],
        deployments: [],
        replicaSets: [],
        ...(frozen ? { frozen } : {}),
        now: NOW,
      });
      expect(verbs(pass.actions)).to.deep.equal(want);
    });
  }
  it("a deleted roll's status is left as stored (nothing to write on an object going away)", () => {
    const r = roll(started, { finalizer: true, deleted: true });
    expect(rollPass({ roll: r, nodes, pods: [], deployments: [], replicaSets: [], now: NOW }).status).to.deep.equal(
      r.status,
    );
  });
});
