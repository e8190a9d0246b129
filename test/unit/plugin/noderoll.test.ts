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

  it("with a health gate analysis: the templates, and each node's run (its attempt, or skipped)", () => {
    const roll: NodeRoll = {
      metadata: { name: 'upgrade' },
      spec: {
        nodeSelector: { matchLabels: { group: 'workers' } },
        nodeGroup: 'workers',
        desiredNodes: 3,
        healthGate: {
          analysis: {
            namespace: 'ops',
            templates: [{ templateName: 'node-errors' }, { templateName: 'alerts', clusterScope: true }],
          },
        },
      },
      status: {
        phase: 'Paused',
        message: 'paused: node w-2: analysis run ops/upgrade-w-2-2 failed',
        nodes: [
          { name: 'w-1', step: 'Done', since: '2026-11-24T10:00:00Z', analysis: { attempt: 1, skipped: true } },
          { name: 'w-2', step: 'Deregistered', since: '2026-11-24T10:05:00Z', analysis: { attempt: 2 } },
          { name: 'w-3', step: 'Pending', since: '2026-11-24T10:00:00Z' },
        ],
        paused: {
          node: 'w-2',
          wait: 'analysis',
          message: 'node w-2: analysis run ops/upgrade-w-2-2 failed',
          run: 'upgrade-w-2-2',
          reason: 'AnalysisFailed',
        },
      },
    };
    expect(describeRoll(roll, Date.parse('2026-11-24T10:15:00Z'))).to.equal(
      [
        'NodeRoll upgrade: Paused',
        '  paused: node w-2: analysis run ops/upgrade-w-2-2 failed',
        'Mode: Replace, 1 node(s) at a time, group workers to 3 new node(s)',
        'Paused: node w-2, analysis: node w-2: analysis run ops/upgrade-w-2-2 failed',
        'Analysis: node-errors, cluster:alerts after each node, runs in namespace ops',
        'NODE  STEP          SINCE  RUN',
        'w-1   Done          15m    (analysis skipped)',
        'w-2   Deregistered  10m    upgrade-w-2-2',
        'w-3   Pending       -      -',
        '',
      ].join('\n'),
    );
  });
});
