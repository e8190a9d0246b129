// A node roll as a plan: phases scale-up, roll (a step per original node) and rebalance (a step per
// zone move), each status from the roll's checkpoint alone, rendered as `kubectl pacer plan show`
// renders every plan.

import { expect } from 'chai';
import { rollPlan } from '../../../../src/engine/noderoll/plan.ts';
import { planTree } from '../../../../src/engine/dcos/render.ts';
import { viewPlan } from '../../../../src/engine/dcos/tree.ts';
import type { NodeRollSpec, NodeRollStatus } from '../../../../src/api/noderoll.ts';

const T = '2026-01-01T00:00:00Z';
const SPEC: NodeRollSpec = { nodeGroup: 'workers', desiredNodes: 3, nodeSelector: { matchLabels: { g: 'w' } } };
const nodes = (...steps: string[]) => steps.map((step, i) => ({ name: `old-${i}`, step: step as 'Pending', since: T }));
const started = (over: Partial<NodeRollStatus>): NodeRollStatus => ({
  originalNodes: ['old-0', 'old-1', 'old-2'],
  scaledUpTo: 6,
  scaledUpAt: T,
  ...over,
});
const tree = (spec: NodeRollSpec, st: NodeRollStatus | undefined) => planTree(viewPlan(rollPlan(spec, st))).join('\n');

describe('node roll: the roll as a plan', () => {
  const rows: Array<[string, NodeRollSpec, NodeRollStatus | undefined, string]> = [
    [
      'not started yet: everything PENDING',
      SPEC,
      undefined,
      [
        'node-roll (serial strategy) (PENDING)',
        '├─ scale-up (serial strategy) (PENDING)',
        '│  └─ scale-workers (PENDING)',
        '├─ roll (serial strategy) (PENDING)',
        '│  └─ nodes (PENDING)',
        '└─ rebalance (serial strategy) (PENDING)',
        '   └─ zones (PENDING)',
      ].join('\n'),
    ],
    [
      'scaled up, waiting for the new nodes: the scale-up step STARTING',
      SPEC,
      started({ nodes: nodes('Pending', 'Pending', 'Pending') }),
      [
        'node-roll (serial strategy) (STARTING)',
        '├─ scale-up (serial strategy) (STARTING)',
        '│  └─ scale-workers (STARTING)',
        '├─ roll (serial strategy) (PENDING)',
        '│  ├─ old-0 (PENDING)',
        '│  ├─ old-1 (PENDING)',
        '│  └─ old-2 (PENDING)',
        '└─ rebalance (serial strategy) (PENDING)',
        '   └─ zones (PENDING)',
      ].join('\n'),
    ],
    [
      'old-0 done, old-1 draining',
      SPEC,
      started({ nodes: nodes('Done', 'Draining', 'Pending') }),
      [
        'node-roll (serial strategy) (IN_PROGRESS)',
        '├─ scale-up (serial strategy) (COMPLETE)',
        '│  └─ scale-workers (COMPLETE)',
        '├─ roll (serial strategy) (IN_PROGRESS)',
        '│  ├─ old-0 (COMPLETE)',
        '│  ├─ old-1 (STARTING)',
        '│  └─ old-2 (PENDING)',
        '└─ rebalance (serial strategy) (PENDING)',
        '   └─ zones (PENDING)',
      ].join('\n'),
    ],
    [
      "paused on old-1's drain: its step ERROR",
      SPEC,
      started({
        nodes: nodes('Done', 'Draining', 'Pending'),
        paused: { node: 'old-1', wait: 'drain', message: 'node old-1: 1 pod(s) not evicted after 600 s' },
      }),
      [
        'node-roll (serial strategy) (ERROR)',
        '├─ scale-up (serial strategy) (COMPLETE)',
        '│  └─ scale-workers (COMPLETE)',
        '├─ roll (serial strategy) (ERROR)',
        '│  ├─ old-0 (COMPLETE)',
        '│  ├─ old-1 (ERROR)',
        '│  └─ old-2 (PENDING)',
        '└─ rebalance (serial strategy) (PENDING)',
        '   └─ zones (PENDING)',
      ].join('\n'),
    ],
    [
      'a skipped node comes last',
      SPEC,
      started({ nodes: nodes('Pending', 'Done', 'Draining'), skipped: ['old-0'] }),
      [
        'node-roll (serial strategy) (IN_PROGRESS)',
        '├─ scale-up (serial strategy) (COMPLETE)',
        '│  └─ scale-workers (COMPLETE)',
        '├─ roll (serial strategy) (IN_PROGRESS)',
        '│  ├─ old-1 (COMPLETE)',
        '│  ├─ old-2 (STARTING)',
        '│  └─ old-0 (PENDING)',
        '└─ rebalance (serial strategy) (PENDING)',
        '   └─ zones (PENDING)',
      ].join('\n'),
    ],
    [
      'one zone move under way (its node launched)',
      SPEC,
      started({
        nodes: nodes('Done', 'Done', 'Done'),
        zones: ['a', 'b', 'c'],
        zoneMoves: { planned: 1, moved: [], launch: { nodesBefore: ['n1'], at: T, from: 'a' } },
      }),
      [
        'node-roll (serial strategy) (IN_PROGRESS)',
        '├─ scale-up (serial strategy) (COMPLETE)',
        '│  └─ scale-workers (COMPLETE)',
        '├─ roll (serial strategy) (COMPLETE)',
        '│  ├─ old-0 (COMPLETE)',
        '│  ├─ old-1 (COMPLETE)',
        '│  └─ old-2 (COMPLETE)',
        '└─ rebalance (serial strategy) (STARTING)',
        '   └─ move-1 (STARTING)',
      ].join('\n'),
    ],
    [
      'done, zones balanced without a move',
      SPEC,
      started({ nodes: nodes('Done', 'Done', 'Done'), zoneMoves: { planned: 0, moved: [] }, done: true }),
      [
        'node-roll (serial strategy) (COMPLETE)',
        '├─ scale-up (serial strategy) (COMPLETE)',
        '│  └─ scale-workers (COMPLETE)',
        '├─ roll (serial strategy) (COMPLETE)',
        '│  ├─ old-0 (COMPLETE)',
        '│  ├─ old-1 (COMPLETE)',
        '│  └─ old-2 (COMPLETE)',
        '└─ rebalance (serial strategy) (COMPLETE)',
        '   └─ zones (COMPLETE)',
      ].join('\n'),
    ],
    [
      'Drain, two at a time: one parallel phase, no scale-up or rebalance',
      { ...SPEC, mode: 'Drain', nodesAtATime: 2 },
      { originalNodes: ['old-0', 'old-1', 'old-2'], nodes: nodes('Draining', 'Draining', 'Pending') },
      [
        'node-roll (serial strategy) (PENDING)',
        '└─ roll (parallel strategy) (PENDING)',
        '   ├─ old-0 (STARTING)',
        '   ├─ old-1 (STARTING)',
        '   └─ old-2 (PENDING)',
      ].join('\n'),
    ],
    [
      'paused by the operator: the plan interrupted (the plan WAITING, its phases as they are)',
      { ...SPEC, paused: true },
      started({ nodes: nodes('Done', 'Pending', 'Pending') }),
      [
        'node-roll (serial strategy) (WAITING)',
        '├─ scale-up (serial strategy) (COMPLETE)',
        '│  └─ scale-workers (COMPLETE)',
        '├─ roll (serial strategy) (IN_PROGRESS)',
        '│  ├─ old-0 (COMPLETE)',
        '│  ├─ old-1 (PENDING)',
        '│  └─ old-2 (PENDING)',
        '└─ rebalance (serial strategy) (PENDING)',
        '   └─ zones (PENDING)',
      ].join('\n'),
    ],
  ];
  for (const [what, spec, st, want] of rows) it(what, () => expect(tree(spec, st)).to.equal(want));
});
