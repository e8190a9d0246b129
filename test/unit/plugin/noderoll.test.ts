// kubectl pacer node-roll status: the roll as text from its checkpoint.

import { expect } from 'chai';
import { describeRoll } from '../../../src/plugin/noderoll.ts';
import type { NodeRoll } from '../../../src/api/noderoll.ts';

describe('plugin: node-roll status', () => {
  it("phase and message, the spec in a line, each original node's step and age, the pause", () => {
    const roll: NodeRoll = {
      metadata: { name: 'upgrade' },
      spec: { nodeSelector: { matchLabels: { group: 'workers' } }, nodeGroup: 'workers', desiredNodes: 3 },
      status: {
        phase: 'Paused',
        message: 'paused: node w-2: 1 pod(s) not evicted after 600 s',
        nodes: [
          { name: 'w-1', step: 'Done', since: '2026-11-24T10:00:00Z' },
          { name: 'w-2', step: 'Draining', since: '2026-11-24T10:05:00Z' },
          { name: 'w-3', step: 'Pending', since: '2026-11-24T10:00:00Z' },
        ],
        skipped: ['w-3'],
        paused: { node: 'w-2', wait: 'drain', message: 'node w-2: 1 pod(s) not evicted after 600 s' },
      },
    };
    expect(describeRoll(roll, Date.parse('2026-11-24T10:15:00Z'))).to.equal(
      [
        'NodeRoll upgrade: Paused',
        '  paused: node w-2: 1 pod(s) not evicted after 600 s',
        'Mode: Replace, 1 node(s) at a time, group workers to 3 new node(s)',
        'Paused: node w-2, drain: node w-2: 1 pod(s) not evicted after 600 s',
        'NODE  STEP               SINCE',
        'w-1   Done               15m',
        'w-2   Draining           10m',
        'w-3   Pending (skipped)  -',
        '',
      ].join('\n'),
    );
  });
});
