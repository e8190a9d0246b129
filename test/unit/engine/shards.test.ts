// The shard of a namespace (src/engine/shards.ts, docs/sharding.md): jump consistent hash over
// FNV-1a, checked against the published vectors of both, then namespace → shard for 1, 2 and 3
// shards, and what jump hash promises when the number of shards changes.

import { expect } from 'chai';
import { fairShare, fnv1a64, jumpHash, namespaceOfKey, shardOf } from '../../../src/engine/shards.ts';

describe('engine/shards: a namespace to its shard', () => {
  describe('the hashes, against their reference values', () => {
    // FNV-1a 64: the offset basis for the empty text, and the reference table's "a" and "foobar".
    const fnv: Array<[string, string]> = [
      ['', 'cbf29ce484222325'],
      ['a', 'af63dc4c8601ec8c'],
      ['foobar', '85944171f73967e8'],
    ];
    for (const [text, hex] of fnv)
      it(`FNV-1a 64 of ${JSON.stringify(text)} is ${hex}`, () => expect(fnv1a64(text).toString(16)).to.equal(hex));
    // Jump hash: (key, buckets) → bucket, as the paper's C++ function answers.
    const jump: Array<[bigint, number, number]> = [
      [1n, 1, 0],
      [42n, 57, 43],
      [0xdead10ccn, 1, 0],
      [0xdead10ccn, 666, 361],
      [256n, 1024, 520],
    ];
    for (const [key, buckets, bucket] of jump)
      it(`jump hash of ${key} into ${buckets} buckets is ${bucket}`, () =>
        expect(jumpHash(key, buckets)).to.equal(bucket));
  });

  describe('namespace → shard', () => {
    // [namespace, its shard with 1, 2, 3 shards]
    const rows: Array<[string | undefined, number, number, number]> = [
      [undefined, 0, 0, 0], // cluster-scoped: NodeRolls, the freeze switch
      ['', 0, 0, 0],
      ['default', 0, 0, 2],
      ['kube-system', 0, 1, 1],
      ['pacer-system', 0, 0, 0],
      ['team-a', 0, 0, 2],
      ['team-b', 0, 0, 0],
      ['shop-1', 0, 1, 1],
      ['shop-3', 0, 0, 2],
      ['shop-4', 0, 1, 2],
    ];
    for (const [ns, one, two, three] of rows)
      it(`${ns === undefined ? '(cluster-scoped)' : JSON.stringify(ns)}: shard ${one} of 1, ${two} of 2, ${three} of 3`, () => {
        expect([1, 2, 3].map((n) => shardOf(ns, n))).to.deep.equal([one, two, three]);
      });
  });

  describe('when the number of shards changes', () => {
    const namespaces = Array.from({ length: 3000 }, (_, i) => `ns-${i}`);
    for (const n of [1, 2, 3, 5]) {
      it(`${n} → ${n + 1}: a namespace stays or moves to the new shard ${n}, and about 1/${n + 1} move`, () => {
        let moved = 0;
        for (const ns of namespaces) {
          const before = shardOf(ns, n);
          const after = shardOf(ns, n + 1);
          if (after !== before) {
            expect(after, `${ns} moved from ${before}`).to.equal(n);
            moved++;
          }
        }
        const share = moved / namespaces.length;
        expect(share).to.be.within(1 / (n + 1) - 0.04, 1 / (n + 1) + 0.04);
      });
    }
    it('3 shards spread 3,000 namespaces within 10% of a third each', () => {
      const counts = [0, 0, 0];
      for (const ns of namespaces) counts[shardOf(ns, 3)]!++;
      for (const c of counts) expect(c).to.be.within(900, 1100);
    });
  });

  describe('keys and shares', () => {
    const keys: Array<[string, string | undefined]> = [
      ['shop/web', 'shop'],
      ['roll-1', undefined], // a NodeRoll's key
    ];
    for (const [key, ns] of keys)
      it(`the key ${key} is in namespace ${ns}`, () => expect(namespaceOfKey(key)).to.equal(ns));
    const shares: Array<[number, number, number]> = [
      [3, 1, 3],
      [3, 2, 2],
      [3, 3, 1],
      [3, 4, 1],
      [10, 3, 4],
      [5, 0, 5], // no member seen yet: all of them
    ];
    for (const [shards, members, share] of shares)
      it(`${shards} shards over ${members} replicas: at most ${share} each`, () =>
        expect(fairShare(shards, members)).to.equal(share));
  });

  describe('bad input', () => {
    for (const n of [0, -1, 1.5, 1001])
      it(`shards ${n} is refused, naming the value`, () =>
        expect(() => shardOf('a', n)).to.throw(`shards must be an integer from 1 to 1000, got ${n}`));
  });
});
