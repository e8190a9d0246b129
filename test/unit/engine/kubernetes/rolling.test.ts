import { expect } from 'chai';
import { startPass } from '../../../../src/engine/kubernetes/pass.ts';
import {
  newReplicaSetTarget,
  reconcileNewReplicaSet,
  reconcileOldReplicaSets,
} from '../../../../src/engine/kubernetes/rolling.ts';
import { NOW, deployment, replicaSet } from '../fixtures.ts';
import { limitsOf } from '../../../../src/engine/fenceposts.ts';

function scales(pass: ReturnType<typeof startPass>): string[] {
  return pass.actions.map((a) => (a.verb === 'scale' ? `${a.name} ${a.from}->${a.replicas}` : a.verb));
}

describe('engine/rolling', () => {
  describe('NewRSNewReplicas / reconcileNewReplicaSet: 10 replicas, maxSurge 2', () => {
    const rows: Array<[number, number, number]> = [
      // old, new → new size
      [10, 0, 2],
      [5, 0, 7],
      [10, 2, 2],
      [2, 11, 10],
    ];
    for (const [oldN, newN, want] of rows) {
      it(`old ${oldN} / new ${newN} → new ${want}`, () => {
        const d = deployment({ replicas: 10, maxSurge: 2, maxUnavailable: 0, image: 'v2' });
        const old = replicaSet('web-old', { replicas: oldN, image: 'v1', age: 20 });
        const n = replicaSet('web-new', { replicas: newN, image: 'v2', age: 1 });
        expect(newReplicaSetTarget(d, [old, n], n, limitsOf(d))).to.equal(want);
        const pass = startPass(d, [old, n], [old, n], [], NOW, limitsOf(d));
        expect(reconcileNewReplicaSet(pass, [old, n], n)).to.equal(want !== newN);
        expect(scales(pass)).to.deep.equal(want !== newN ? [`web-new ${newN}->${want}`] : []);
      });
    }
    it('a scale-up event reads "Scaled up replica set <rs> from <a> to <b>"', () => {
      const d = deployment({ replicas: 10, maxSurge: 2, maxUnavailable: 0, image: 'v2' });
      const old = replicaSet('web-old', { replicas: 10, image: 'v1', age: 20 });
      const n = replicaSet('web-new', { replicas: 0, image: 'v2', age: 1 });
      const pass = startPass(d, [old, n], [old, n], [], NOW, limitsOf(d));
      reconcileNewReplicaSet(pass, [old, n], n);
      expect(pass.actions[0].event).to.deep.equal({
        type: 'Normal',
        reason: 'ScalingReplicaSet',
        message: 'Scaled up replica set web-new from 0 to 2',
      });
    });
  });

  describe('reconcileOldReplicaSets: 10 replicas, maxSurge 0', () => {
    const rows: Array<[string, number, number, number, number, number, string[]]> = [
      // name, maxUnavailable, old spec, old available, new spec, new available, writes
      ['maxUnavailable 0 (resolves to 1), old 10 all available: old to 9', 0, 10, 10, 0, 0, ['web-old 10->9']],
      ['maxUnavailable 2, old 10 all available: old to 8', 2, 10, 10, 0, 0, ['web-old 10->8']],
      ['maxUnavailable 2, old 10 with 8 available: cleanup removes 2, nothing more', 2, 10, 8, 0, 0, ['web-old 10->8']],
      [
        'maxUnavailable 2, old 10 with 9 available: cleanup 1, then scale-down 1',
        2,
        10,
        9,
        0,
        0,
        ['web-old 10->9', 'web-old 9->8'],
      ],
      ['maxUnavailable 2, old 8 available 8, new 2 with 0 available: no scaling', 2, 8, 8, 2, 0, []],
    ];
    for (const [name, mu, oldSpec, oldAvail, newSpec, newAvail, want] of rows) {
      it(name, () => {
        const d = deployment({ replicas: 10, maxSurge: 0, maxUnavailable: mu, image: 'v2' });
        const old = replicaSet('web-old', { replicas: oldSpec, available: oldAvail, image: 'v1', age: 20 });
        const n = replicaSet('web-new', { replicas: newSpec, available: newAvail, image: 'v2', age: 1 });
        const pass = startPass(d, [old, n], [old, n], [], NOW, limitsOf(d));
        expect(reconcileOldReplicaSets(pass, [old, n], [old], n)).to.equal(want.length > 0);
        expect(scales(pass)).to.deep.equal(want);
      });
    }
    it('scales the oldest old ReplicaSet first', () => {
      const d = deployment({ replicas: 10, maxSurge: 0, maxUnavailable: 3, image: 'v3' });
      const older = replicaSet('web-v1', { replicas: 2, image: 'v1', age: 30 });
      const old = replicaSet('web-v2', { replicas: 8, image: 'v2', age: 20 });
      const n = replicaSet('web-v3', { replicas: 0, image: 'v3', age: 1 });
      const pass = startPass(d, [old, older, n], [old, older, n], [], NOW, limitsOf(d));
      reconcileOldReplicaSets(pass, [old, older, n], [old, older], n);
      expect(scales(pass)).to.deep.equal(['web-v1 2->0', 'web-v2 8->7']);
    });
    it('status lagging a scale-down (more available than spec) is an error upstream swallows: no scaling', () => {
      const d = deployment({ replicas: 10, maxSurge: 0, maxUnavailable: 2, image: 'v2' });
      const old = replicaSet('web-old', { replicas: 8, available: 9, current: 9, image: 'v1', age: 20 });
      const n = replicaSet('web-new', { replicas: 4, available: 4, image: 'v2', age: 1 });
      const pass = startPass(d, [old, n], [old, n], [], NOW, limitsOf(d));
      expect(reconcileOldReplicaSets(pass, [old, n], [old], n)).to.equal(false);
    });
  });
});
