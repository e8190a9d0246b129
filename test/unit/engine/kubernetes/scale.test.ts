import { expect } from 'chai';
import type { ReplicaSet } from '../../../../src/api/types.ts';
import { startPass } from '../../../../src/engine/kubernetes/pass.ts';
import {
  isScalingEvent,
  proportionalSizes,
  roundHalfAwayFromZero,
  scale,
} from '../../../../src/engine/kubernetes/scale.ts';
import { NOW, deployment, replicaSet } from '../fixtures.ts';
import { limitsOf } from '../../../../src/engine/fenceposts.ts';

interface Row {
  name: string;
  /** the Deployment before and after: replicas and maxSurge */
  from: [number, number];
  to: [number, number];
  /** sizes, newest first; the first is the new ReplicaSet unless noNew */
  sizes: number[];
  want: number[];
  noNew?: boolean;
}

// TestScale: the old ReplicaSets carry desired = previous replicas, max = previous replicas + surge.
const rows: Row[] = [
  { name: '5→10 with new 2 / old 3', from: [5, 0], to: [10, 0], sizes: [2, 3], want: [4, 6] },
  { name: '7→10 with v3 2, v2 3, v1 2', from: [7, 0], to: [10, 0], sizes: [2, 3, 2], want: [3, 4, 3] },
  { name: '13→8 with 2 / 8 / 3', from: [13, 0], to: [8, 0], sizes: [2, 8, 3], want: [1, 5, 2] },
  { name: '3→4 with 1/1/1: the newest gets the leftover', from: [3, 0], to: [4, 0], sizes: [1, 1, 1], want: [2, 1, 1] },
  { name: '3→2 with 1/1/1: the oldest loses one', from: [3, 0], to: [2, 0], sizes: [1, 1, 1], want: [1, 1, 0] },
  // Upstream's leftover clamp (sync.go scale): each fraction rounds 1×2/4 = 0.5 up to 1, so the whole
  // −2 is left to the oldest, which has 1; it stops at 0 and 3 stay, above 2 + maxSurge 0 until the
  // rollout's next pass scales old ReplicaSets down (the chaos run's d15: plan/gate.test.ts).
  {
    name: '4→2 with 1/1/1/1: the leftover clamped at 0 leaves 3 > 2, as upstream',
    from: [4, 0],
    to: [2, 0],
    sizes: [1, 1, 1, 1],
    want: [1, 1, 1, 0],
  },
  { name: 'surge-2 deployment 10→20 with 6/6', from: [10, 2], to: [20, 2], sizes: [6, 6], want: [11, 11] },
  { name: '10 (surge 3) → 50 (surge 6) with 5/8', from: [10, 3], to: [50, 6], sizes: [5, 8], want: [22, 34] },
  { name: 'no new RS, 4→5 with 2/2', from: [4, 0], to: [5, 0], sizes: [2, 2], want: [3, 2], noNew: true },
];

function setup(row: Row) {
  const [replicas, surge] = row.to;
  const [prevReplicas, prevSurge] = row.from;
  const d = deployment({
    replicas,
    maxSurge: surge,
    maxUnavailable: surge === 0 ? 1 : 0,
    image: row.noNew ? 'v9' : 'v0',
  });
  const rss: ReplicaSet[] = row.sizes.map((n, i) =>
    replicaSet(`web-v${row.sizes.length - i}`, {
      replicas: n,
      image: `v${i}`,
      age: 10 + i, // the first is the newest
      desired: prevReplicas,
      max: prevReplicas + prevSurge,
    }),
  );
  return { d, rss };
}

describe('engine/scale', () => {
  describe('proportional scaling (TestScale)', () => {
    for (const row of rows) {
      it(`${row.name} → ${row.want.join(' / ')}`, () => {
        const { d, rss } = setup(row);
        const pass = startPass(d, [...rss], rss, [], NOW, limitsOf(d));
        const newRS = row.noNew ? undefined : rss[0];
        scale(pass, newRS, row.noNew ? rss : rss.slice(1));
        const sizes = rss.map((rs) => pass.rss.find((x) => x.metadata.name === rs.metadata.name)!.spec.replicas);
        expect(sizes).to.deep.equal(row.want);
        // every active ReplicaSet now records the new size
        for (const rs of pass.rss) {
          expect(rs.metadata.annotations!['pacer.dev/desired-replicas']).to.equal(String(row.to[0]));
          expect(rs.metadata.annotations!['pacer.dev/max-replicas']).to.equal(String(row.to[0] + row.to[1]));
        }
      });
    }
  });

  it('falls back to status.replicas when max-replicas is missing', () => {
    const d = deployment({ replicas: 10, maxSurge: 0, maxUnavailable: 1, status: { replicas: 5 } });
    const a = replicaSet('web-a', { replicas: 2, age: 1, image: 'x' });
    const b = replicaSet('web-b', { replicas: 3, age: 2, image: 'y' });
    expect(
      proportionalSizes(d, [a, b], limitsOf(d).maxSurge).map((s) => [s.rs.metadata.name, s.replicas]),
    ).to.deep.equal([
      ['web-b', 6],
      ['web-a', 4],
    ]);
  });

  it('rounds half away from zero', () => {
    expect([2.5, 3.5, -2.5, 2.4, -2.6].map(roundHalfAwayFromZero)).to.deep.equal([3, 4, -3, 2, -3]);
  });

  describe('isScalingEvent', () => {
    const rows: Array<[string, number, number | undefined, number, boolean]> = [
      ['an active RS sized for another replica count', 3, 3, 5, true],
      ['sized for this replica count', 5, 5, 5, false],
      ['no annotation', 3, undefined, 5, false],
      ['inactive RS does not count', 0, 5, 3, false],
    ];
    for (const [name, spec, desired, replicas, want] of rows) {
      it(`${name} → ${want}`, () => {
        const rs = replicaSet('web-a', { replicas: spec, ...(desired !== undefined ? { desired } : {}) });
        expect(isScalingEvent(deployment({ replicas }), [rs, undefined])).to.equal(want);
      });
    }
  });

  describe('the single active ReplicaSet already at the new size (Pacer departure)', () => {
    it('refreshes the desired/max annotations so the next pass is no scaling event', () => {
      const d = deployment({ replicas: 3, maxSurge: 1, maxUnavailable: 0 });
      const rs = replicaSet('web-a', { replicas: 3, desired: 5, max: 6 });
      const pass = startPass(d, [rs], [rs], [], NOW, limitsOf(d));
      expect(isScalingEvent(d, [rs])).to.equal(true);
      scale(pass, rs, []);
      expect(pass.actions.map((a) => a.verb)).to.deep.equal(['update']);
      expect(isScalingEvent(d, pass.rss)).to.equal(false);
      expect(pass.rss[0].metadata.annotations!['pacer.dev/max-replicas']).to.equal('4');
    });
    it('Recreate with two active ReplicaSets refreshes both without resizing', () => {
      const d = deployment({ replicas: 4, type: 'Recreate', image: 'v2' });
      const a = replicaSet('web-a', { replicas: 2, desired: 2, image: 'v1', age: 9 });
      const b = replicaSet('web-b', { replicas: 2, desired: 2, image: 'v2', age: 1 });
      const pass = startPass(d, [a, b], [a, b], [], NOW, limitsOf(d));
      scale(pass, b, [a]);
      expect(pass.actions.map((x) => x.verb)).to.deep.equal(['update', 'update']);
      expect(pass.rss.map((x) => x.spec.replicas)).to.deep.equal([2, 2]);
      expect(isScalingEvent(d, pass.rss)).to.equal(false);
    });
  });

  it('a saturated new ReplicaSet takes the old ones to 0', () => {
    const d = deployment({ replicas: 3, image: 'v2' });
    const old = replicaSet('web-old', { replicas: 1, desired: 3, image: 'v1', age: 9 });
    const n = replicaSet('web-new', { replicas: 3, desired: 3, image: 'v2', age: 1 });
    const pass = startPass(d, [old, n], [old, n], [], NOW, limitsOf(d));
    scale(pass, n, [old]);
    expect(pass.actions.map((a) => (a.verb === 'scale' ? `${a.name} ${a.from}->${a.replicas}` : a.verb))).to.deep.equal(
      ['web-old 1->0'],
    );
  });
});
