import { expect } from 'chai';
import { StepCounter } from '../../../bench/steps.ts';
import type { ReplicaSetView } from '../../../bench/steps.ts';

/** A ReplicaSet of Deployment d-0 ("old" created before "new") with its size and available replicas. */
function rs(which: 'old' | 'new', replicas: number, available: number): ReplicaSetView {
  return {
    metadata: {
      name: `d-0-${which}`,
      creationTimestamp: which === 'old' ? '2026-11-27T10:00:00Z' : '2026-11-27T10:05:00Z',
      ownerReferences: [{ name: 'd-0', controller: true }],
    },
    spec: { replicas },
    status: { availableReplicas: available },
  };
}

type Row = [string, Array<['ADDED' | 'MODIFIED' | 'DELETED', ReplicaSetView]>, StepCounter['tally']];

describe("bench/steps: a fleet's scaling steps from its ReplicaSets' watch", () => {
  const rows: Row[] = [
    [
      // 10 replicas, 25%/25%: minAvailable 8. New at 5 (5 available), old at 8 (8 available): 13
      // available, so the old one may go down by 5, to 3, as both controllers' samples show (5/8 → 5/3).
      'a scale-down by all the availability allowed: a step, none short',
      [
        ['ADDED', rs('old', 8, 8)],
        ['ADDED', rs('new', 5, 5)],
        ['MODIFIED', rs('old', 3, 8)],
      ],
      { scaleUps: 0, scaleDowns: 1, shortScaleDowns: 0, replicasLeft: 0 },
    ],
    [
      // New at 10 with 10 available, old at 3: 13 available, the old one may go to 0; it went to 1
      // (10/3 → 10/1: one replica left that it could have taken), and later to 0.
      'a scale-down by less than the availability allowed: short by the replicas it left',
      [
        ['ADDED', rs('old', 3, 3)],
        ['ADDED', rs('new', 10, 10)],
        ['MODIFIED', rs('old', 1, 3)],
        ['MODIFIED', rs('old', 0, 1)],
      ],
      { scaleUps: 0, scaleDowns: 2, shortScaleDowns: 1, replicasLeft: 1 },
    ],
    [
      'the new ReplicaSet scaled up counts as a step up; its status changes and the create are no step',
      [
        ['ADDED', rs('old', 8, 8)],
        ['ADDED', rs('new', 3, 0)],
        ['MODIFIED', rs('new', 3, 3)],
        ['MODIFIED', rs('new', 5, 3)],
      ],
      { scaleUps: 1, scaleDowns: 0, shortScaleDowns: 0, replicasLeft: 0 },
    ],
    [
      'a deleted ReplicaSet is forgotten: a later one of that name starts afresh',
      [
        ['ADDED', rs('old', 0, 0)],
        ['DELETED', rs('old', 0, 0)],
        ['ADDED', rs('old', 2, 0)],
      ],
      { scaleUps: 0, scaleDowns: 0, shortScaleDowns: 0, replicasLeft: 0 },
    ],
  ];
  for (const [name, events, want] of rows) {
    it(name, () => {
      const counter = new StepCounter(8);
      for (const [type, obj] of events) counter.observe(type, obj);
      expect(counter.tally).to.deep.equal(want);
    });
  }

  it('refuses a minAvailable that is not a whole number of replicas, naming the value', () => {
    expect(() => new StepCounter(7.5)).to.throw('minAvailable must be a whole number of replicas, got 7.5');
  });
});
