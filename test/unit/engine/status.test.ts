import { expect } from 'chai';
import { calculateStatus, statusEqual } from '../../../src/engine/status.ts';
import { NOW, deployment, replicaSet } from './fixtures.ts';

describe('engine/status', () => {
  it('calculateStatus sums the ReplicaSets (replicas from status, unavailable from spec)', () => {
    const d = deployment({ replicas: 10, maxSurge: 2, maxUnavailable: 2, image: 'v2', generation: 4, status: { collisionCount: 1 } });
    const old = replicaSet('web-old', { replicas: 6, current: 7, ready: 6, available: 5, image: 'v1' });
    const n = replicaSet('web-new', { replicas: 6, current: 4, ready: 3, available: 2, image: 'v2' });
    const s = calculateStatus(d, [old, undefined, n], n, d.status!, NOW);
    expect(s).to.deep.include({
      observedGeneration: 4,
      replicas: 11,
      updatedReplicas: 4,
      readyReplicas: 9,
      availableReplicas: 7,
      unavailableReplicas: 5,
      collisionCount: 1,
      selector: 'app=web',
      ready: '9/10',
    });
    expect(s.conditions!.map((c) => [c.type, c.status, c.reason])).to.deep.equal([['Available', 'False', 'MinimumReplicasUnavailable']]);
  });

  const rows: Array<[string, number, number, string, string]> = [
    // replicas (maxUnavailable 25%), available, status, reason
    ['10 replicas, 8 available (min 8)', 10, 8, 'True', 'MinimumReplicasAvailable'],
    ['10 replicas, 7 available', 10, 7, 'False', 'MinimumReplicasUnavailable'],
    ['0 replicas, 0 available', 0, 0, 'True', 'MinimumReplicasAvailable'],
  ];
  for (const [name, replicas, available, status, reason] of rows) {
    it(`Available: ${name} → ${status} ${reason}`, () => {
      const d = deployment({ replicas });
      const rs = replicaSet('web-a', { replicas, available });
      const c = calculateStatus(d, [rs], rs, {}, NOW).conditions!.find((x) => x.type === 'Available')!;
      expect([c.status, c.reason]).to.deep.equal([status, reason]);
    });
  }

  it('unavailableReplicas never goes below 0 (more available than specified while scaling down)', () => {
    const d = deployment({ replicas: 2 });
    const rs = replicaSet('web-a', { replicas: 2, current: 4, available: 4 });
    expect(calculateStatus(d, [rs], rs, {}, NOW).unavailableReplicas).to.equal(0);
  });

  it('drops an InvalidSpec condition and keeps the others', () => {
    const base = { conditions: [{ type: 'InvalidSpec', status: 'True' as const, reason: 'InvalidSpec' }, { type: 'Progressing', status: 'True' as const, reason: 'X' }] };
    const s = calculateStatus(deployment(), [], undefined, base, NOW);
    expect(s.conditions!.map((c) => c.type)).to.deep.equal(['Progressing', 'Available']);
  });

  it('statusEqual: missing counts equal 0, collisionCount missing differs from 0, times compare as instants', () => {
    expect(statusEqual({}, { replicas: 0, updatedReplicas: 0 })).to.equal(true);
    expect(statusEqual({}, { collisionCount: 0 })).to.equal(false);
    expect(statusEqual({ replicas: 1 }, { replicas: 2 })).to.equal(false);
    const c = { type: 'A', status: 'True' as const, lastUpdateTime: '2025-03-01T10:00:00Z' };
    expect(statusEqual({ conditions: [c] }, { conditions: [{ ...c, lastUpdateTime: '2025-03-01T10:00:00.000Z' }] })).to.equal(true);
    expect(statusEqual({ conditions: [c] }, { conditions: [{ ...c, status: 'False' }] })).to.equal(false);
  });
});
