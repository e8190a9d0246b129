import { expect } from 'chai';
import { calculateStatus, statusEqual } from '../../../../src/engine/kubernetes/status.ts';
import { NOW, deployment, replicaSet } from '../fixtures.ts';
import { maxUnavailable } from '../../../../src/engine/fenceposts.ts';

describe('engine/status', () => {
  it('calculateStatus sums the ReplicaSets (replicas from status, unavailable from spec)', () => {
    const d = deployment({
      replicas: 10,
      maxSurge: 2,
      maxUnavailable: 2,
      image: 'v2',
      generation: 4,
      status: { collisionCount: 1 },
    });
    const old = replicaSet('web-old', { replicas: 6, current: 7, ready: 6, available: 5, image: 'v1' });
    const n = replicaSet('web-new', { replicas: 6, current: 4, ready: 3, available: 2, image: 'v2' });
    const s = calculateStatus(d, [old, undefined, n], n, d.status!, NOW, maxUnavailable(d));
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
    expect(s.conditions!.map((c) => [c.type, c.status, c.reason])).to.deep.equal([
      ['Available', 'False', 'MinimumReplicasUnavailable'],
    ]);
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
      const c = calculateStatus(d, [rs], rs, {}, NOW, maxUnavailable(d)).conditions!.find(
        (x) => x.type === 'Available',
      )!;
      expect([c.status, c.reason]).to.deep.equal([status, reason]);
    });
  }

  it('unavailableReplicas never goes below 0 (more available than specified while scaling down)', () => {
    const d = deployment({ replicas: 2 });
    const rs = replicaSet('web-a', { replicas: 2, current: 4, available: 4 });
    expect(calculateStatus(d, [rs], rs, {}, NOW, maxUnavailable(d)).unavailableReplicas).to.equal(0);
  });

  describe("terminatingReplicas: the ReplicaSets' sum, absent when a synced one does not report it (GetTerminatingReplicaCountForReplicaSets)", () => {
    const rs = (name: string, observedGeneration: number, terminating?: number) => {
      const r = replicaSet(name, { replicas: 1 });
      r.status = {
        ...r.status!,
        observedGeneration,
        ...(terminating !== undefined ? { terminatingReplicas: terminating } : {}),
      };
      if (terminating === undefined) delete r.status.terminatingReplicas;
      return r;
    };
    const rows: Array<[string, ReturnType<typeof rs>[], number | undefined]> = [
      ['every ReplicaSet reports it: the sum', [rs('a', 1, 2), rs('b', 3, 1)], 3],
      ['all report 0: 0, not absent', [rs('a', 1, 0), rs('b', 1, 0)], 0],
      ['one not yet synced (observedGeneration 0) that reports nothing counts 0', [rs('a', 1, 2), rs('b', 0)], 2],
      ['one synced that does not report it (an older controller): absent', [rs('a', 1, 2), rs('b', 2)], undefined],
      ['no ReplicaSet: 0', [], 0],
    ];
    for (const [name, rss, want] of rows) {
      it(`${name} → ${want}`, () => {
        const s = calculateStatus(deployment(), rss, rss[0], {}, NOW, maxUnavailable(deployment()));
        expect(s.terminatingReplicas).to.equal(want);
        expect('terminatingReplicas' in s, 'absent, not undefined-valued').to.equal(want !== undefined);
      });
    }
    it('statusEqual: a change of it is a change; missing differs from 0 (a pointer upstream)', () => {
      expect(statusEqual({ terminatingReplicas: 2 }, { terminatingReplicas: 0 })).to.equal(false);
      expect(statusEqual({}, { terminatingReplicas: 0 })).to.equal(false);
      expect(statusEqual({ terminatingReplicas: 1 }, { terminatingReplicas: 1 })).to.equal(true);
    });
  });

  it('drops an InvalidSpec condition and keeps the others', () => {
    const base = {
      conditions: [
        { type: 'InvalidSpec', status: 'True' as const, reason: 'InvalidSpec' },
        { type: 'Progressing', status: 'True' as const, reason: 'X' },
      ],
    };
    const s = calculateStatus(deployment(), [], undefined, base, NOW, maxUnavailable(deployment()));
    expect(s.conditions!.map((c) => c.type)).to.deep.equal(['Progressing', 'Available']);
  });

  it('statusEqual: missing counts equal 0, collisionCount missing differs from 0, times compare as instants', () => {
    expect(statusEqual({}, { replicas: 0, updatedReplicas: 0 })).to.equal(true);
    expect(statusEqual({}, { collisionCount: 0 })).to.equal(false);
    expect(statusEqual({ replicas: 1 }, { replicas: 2 })).to.equal(false);
    const c = { type: 'A', status: 'True' as const, lastUpdateTime: '2025-03-01T10:00:00Z' };
    expect(
      statusEqual({ conditions: [c] }, { conditions: [{ ...c, lastUpdateTime: '2025-03-01T10:00:00.000Z' }] }),
    ).to.equal(true);
    expect(statusEqual({ conditions: [c] }, { conditions: [{ ...c, status: 'False' }] })).to.equal(false);
  });
});
