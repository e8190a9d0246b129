import { expect } from 'chai';
import type { ReplicaSet } from '../../../../src/api/types.ts';
import { replicaSetsToCleanUp } from '../../../../src/engine/kubernetes/history.ts';
import { deployment, iso, NOW, replicaSet } from '../fixtures.ts';

/** An old ReplicaSet at `revision` with `pods` replicas still around. */
function old(revision: number | string | undefined, pods = 0, extra: (rs: ReplicaSet) => void = () => {}): ReplicaSet {
  const rs = replicaSet(`web-r${String(revision)}`, {
    replicas: pods,
    current: pods,
    ...(revision !== undefined ? { revision } : {}),
    age: 100 - (Number(revision) || 0),
  });
  extra(rs);
  return rs;
}

const names = (rss: ReplicaSet[]) => rss.map((r) => r.metadata.name);

describe('engine/history', () => {
  const rows: Array<[string, number | undefined, ReplicaSet[], string[]]> = [
    ['limit 1 with revisions 1 (has pods), 2, 3 deletes only rev 2', 1, [old(3), old(1, 2), old(2)], ['web-r2']],
    ['within the limit: nothing', 3, [old(1), old(2), old(3)], []],
    ['limit 0 deletes every old one without pods', 0, [old(2), old(1)], ['web-r1', 'web-r2']],
    ['a missing revision counts as 0 and goes first', 1, [old(2), old(undefined)], ['web-rundefined']],
    ['no limit (MaxInt32) disables cleanup', 2147483647, [old(1), old(2)], []],
    [
      'a ReplicaSet being deleted is not counted',
      1,
      [
        old(1),
        old(2, 0, (rs) => {
          rs.metadata.deletionTimestamp = iso(NOW);
        }),
      ],
      [],
    ],
    [
      'an unobserved spec is skipped',
      0,
      [
        old(1, 0, (rs) => {
          rs.metadata.generation = 3;
        }),
      ],
      [],
    ],
    [
      'a spec of 0 with status replicas left is skipped',
      0,
      [
        old(1, 0, (rs) => {
          rs.status!.replicas = 1;
        }),
      ],
      [],
    ],
  ];
  for (const [name, limit, rss, want] of rows) {
    it(name, () => {
      const d = deployment({ revisionHistoryLimit: limit });
      expect(names(replicaSetsToCleanUp(d, rss))).to.deep.equal(want);
    });
  }
});
