import { expect } from 'chai';
import {
  findActiveOrLatest,
  findNewReplicaSet,
  findOldReplicaSets,
  isSaturated,
  sortByCreation,
  specReplicaSum,
  statusReplicaSum,
  availableReplicaSum,
} from '../../../../src/engine/kubernetes/replicasets.ts';
import { deployment, replicaSet } from '../fixtures.ts';

const names = (rss: Array<{ metadata: { name?: string } } | undefined>) => rss.map((r) => r?.metadata.name);

describe('engine/replicasets', () => {
  it('sorts by creationTimestamp, then by name', () => {
    const rss = [
      replicaSet('web-c', { replicas: 1, age: 5 }),
      replicaSet('web-b', { replicas: 1, age: 10 }),
      replicaSet('web-a', { replicas: 1, age: 5 }),
    ];
    expect(names(sortByCreation(rss))).to.deep.equal(['web-b', 'web-a', 'web-c']);
    expect(names(rss)).to.deep.equal(['web-c', 'web-b', 'web-a']); // input untouched
  });

  it('the new ReplicaSet is the oldest one with the Deployment template', () => {
    const d = deployment({ image: 'v2' });
    const rss = [
      replicaSet('web-x', { replicas: 1, image: 'v2', age: 1 }),
      replicaSet('web-old', { replicas: 1, image: 'v1', age: 9 }),
      replicaSet('web-y', { replicas: 1, image: 'v2', age: 3 }),
    ];
    const n = findNewReplicaSet(d, rss);
    expect(n?.metadata.name).to.equal('web-y');
    expect(names(findOldReplicaSets(rss, n))).to.deep.equal(['web-x', 'web-old']);
    expect(findNewReplicaSet(deployment({ image: 'v3' }), rss)).to.equal(undefined);
  });

  describe('FindActiveOrLatest', () => {
    const newRS = (n: number) => replicaSet('web-new', { replicas: n, age: 1 });
    const old = (name: string, n: number, age: number) => replicaSet(name, { replicas: n, age });
    const rows: Array<[string, ReturnType<typeof newRS> | undefined, ReturnType<typeof newRS>[], string | undefined]> =
      [
        ['nothing at all', undefined, [], undefined],
        ['no active: the new one', newRS(0), [old('web-o1', 0, 9)], 'web-new'],
        ['no active, no new: the newest old one', undefined, [old('web-o1', 0, 9), old('web-o2', 0, 5)], 'web-o2'],
        ['exactly one active', newRS(0), [old('web-o1', 3, 9)], 'web-o1'],
        ['two active: none', newRS(1), [old('web-o1', 3, 9)], undefined],
      ];
    for (const [name, n, olds, want] of rows) {
      it(`${name} → ${String(want)}`, () => expect(findActiveOrLatest(n, olds)?.metadata.name).to.equal(want));
    }
  });

  describe('IsSaturated', () => {
    const rows: Array<[string, number, number, string | undefined, boolean]> = [
      ['spec, desired and available all match', 3, 3, '3', true],
      ['not all available', 3, 2, '3', false],
      ['desired annotation from another size', 3, 3, '2', false],
      ['no desired annotation', 3, 3, undefined, false],
      ['unparseable desired annotation', 3, 3, 'x', false],
    ];
    for (const [name, spec, available, desired, want] of rows) {
      it(`${name} → ${want}`, () => {
        const rs = replicaSet('web-new', {
          replicas: spec,
          available,
          ...(desired !== undefined && desired !== 'x' ? { desired: Number(desired) } : {}),
        });
        if (desired === 'x') rs.metadata.annotations!['pacer.dev/desired-replicas'] = 'x';
        expect(isSaturated(deployment({ replicas: 3 }), rs)).to.equal(want);
      });
    }
    it('no new ReplicaSet is not saturated', () => expect(isSaturated(deployment(), undefined)).to.equal(false));
  });

  it('sums spec, status and available replicas, skipping missing ones', () => {
    const rss = [
      replicaSet('web-a', { replicas: 3, current: 2, available: 1 }),
      undefined,
      replicaSet('web-b', { replicas: 4, current: 4, available: 4 }),
    ];
    expect(specReplicaSum(rss)).to.equal(7);
    expect(statusReplicaSum(rss)).to.equal(6);
    expect(availableReplicaSum(rss)).to.equal(5);
  });
});
