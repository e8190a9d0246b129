import { expect } from 'chai';
import type { DeploymentStatus } from '../../../../src/api/types.ts';
import {
  getCondition,
  newCondition,
  removeCondition,
  replicaSetToDeploymentCondition,
  setCondition,
} from '../../../../src/engine/kubernetes/conditions.ts';
import { NOW, iso } from '../fixtures.ts';

const T0 = NOW - 60_000;

function status(): DeploymentStatus {
  return {
    conditions: [
      newCondition('Progressing', 'True', 'ReplicaSetUpdated', 'ReplicaSet "web-a" is progressing.', T0),
      newCondition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', T0),
    ],
  };
}

describe('engine/conditions', () => {
  it('a new condition has both times set to now (RFC 3339 with milliseconds)', () => {
    const c = newCondition('Available', 'True', 'R', 'm', NOW);
    expect(c.lastUpdateTime).to.equal('2025-03-01T10:00:00.000Z');
    expect(c.lastTransitionTime).to.equal(c.lastUpdateTime);
  });

  const rows: Array<[string, ReturnType<typeof newCondition>, boolean, string, string]> = [
    // name, new condition, changed, expected lastTransitionTime, expected message of Progressing
    [
      'same status and reason: no-op even with a new message',
      newCondition('Progressing', 'True', 'ReplicaSetUpdated', 'other', NOW),
      false,
      iso(T0),
      'ReplicaSet "web-a" is progressing.',
    ],
    [
      'same status, new reason: transition time kept',
      newCondition('Progressing', 'True', 'NewReplicaSetAvailable', 'done', NOW),
      true,
      iso(T0),
      'done',
    ],
    [
      'new status: transition time moves',
      newCondition('Progressing', 'False', 'ProgressDeadlineExceeded', 'late', NOW),
      true,
      iso(NOW),
      'late',
    ],
  ];
  for (const [name, cond, changed, transition, message] of rows) {
    it(name, () => {
      const s = status();
      const before = s.conditions;
      expect(setCondition(s, cond)).to.equal(changed);
      const c = getCondition(s, 'Progressing')!;
      expect(c.lastTransitionTime).to.equal(transition);
      expect(c.message).to.equal(message);
      if (changed) {
        expect(s.conditions!.map((x) => x.type)).to.deep.equal(['Available', 'Progressing']); // moved to the end
        expect(before).to.not.equal(s.conditions); // replaced, not mutated
        expect(before![0].reason).to.equal('ReplicaSetUpdated');
      }
    });
  }

  it('removes a condition by type', () => {
    const s = status();
    expect(removeCondition(s, 'Progressing')).to.equal(true);
    expect(removeCondition(s, 'Progressing')).to.equal(false);
    expect(s.conditions!.map((x) => x.type)).to.deep.equal(['Available']);
  });

  it('a ReplicaSet condition uses its lastTransitionTime for both times', () => {
    const c = replicaSetToDeploymentCondition({
      type: 'ReplicaFailure',
      status: 'True',
      reason: 'FailedCreate',
      message: 'quota',
      lastTransitionTime: iso(T0),
    });
    expect(c).to.deep.equal({
      type: 'ReplicaFailure',
      status: 'True',
      lastUpdateTime: iso(T0),
      lastTransitionTime: iso(T0),
      reason: 'FailedCreate',
      message: 'quota',
    });
  });
});
