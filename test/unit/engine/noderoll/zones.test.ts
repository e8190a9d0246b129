// Zone balance after a roll: the appendix of "Rolling Out the Mesos Slave Roller". Rows read like
// the appendix: a balanced group, scaled up balanced, its original nodes removed; the counts left are
// x−1, x or x+1 per zone, and the moves needed are the lesser of the highs and the lows.

import { expect } from 'chai';
import { afterMoves, isBalanced, rebalanceMoves, zoneCounts } from '../../../../src/engine/noderoll/zones.ts';

describe("node roll: zone balance (the Mesos Slave Roller's appendix)", () => {
  const rows: Array<[string, Record<string, number>, number]> = [
    ['already balanced: no move', { a: 2, b: 2, c: 2 }, 0],
    ['highs and mids only: balanced, no move', { a: 3, b: 3, c: 2 }, 0],
    ['lows and mids only: balanced, no move', { a: 1, b: 2, c: 2 }, 0],
    ['one high, one low, one mid: one move', { a: 3, b: 2, c: 1 }, 1],
    ['two highs, one low (three zones): one move, the lesser', { a: 3, b: 3, c: 1 }, 1],
    ['one high, two lows: one move', { a: 3, b: 1, c: 1 }, 1],
    ['four zones, two highs and two lows (the worst case, n/2): two moves', { a: 3, b: 3, c: 1, d: 1 }, 2],
    ['five zones, two highs, two lows, one mid: two moves', { a: 4, b: 4, c: 3, d: 2, e: 2 }, 2],
    ['three zones, the worst an odd count allows: one move', { a: 5, b: 4, c: 3 }, 1],
  ];
  for (const [what, counts, moves] of rows) {
    it(`${what}`, () => {
      const out = rebalanceMoves(counts);
      expect(out).to.have.length(moves);
      const highs = Object.values(counts).filter((n) => n === Math.max(...Object.values(counts))).length;
      const lows = Object.values(counts).filter((n) => n === Math.min(...Object.values(counts))).length;
      if (Math.max(...Object.values(counts)) - Math.min(...Object.values(counts)) === 2)
        expect(out).to.have.length(Math.min(highs, lows));
      expect(isBalanced(afterMoves(counts, out)), 'balanced after the moves').to.equal(true);
      for (const m of out) expect(counts[m.from], 'a move leaves a high zone').to.be.greaterThan(counts[m.to]);
    });
  }

  it('a move names its zones, the same ones for the same counts (name order)', () => {
    expect(rebalanceMoves({ c: 1, b: 3, a: 3 })).to.deep.equal([{ from: 'a', to: 'c' }]);
  });

  it('counts unbalanced by more than the appendix allows still end balanced, one node per move', () => {
    const out = rebalanceMoves({ a: 6, b: 0, c: 0 });
    expect(out).to.have.length(4);
    expect(afterMoves({ a: 6, b: 0, c: 0 }, out)).to.deep.equal({ a: 2, b: 2, c: 2 });
  });

  it('no zone or one zone: balanced, nothing to move', () => {
    expect([isBalanced({}), isBalanced({ a: 7 })]).to.deep.equal([true, true]);
    expect(rebalanceMoves({})).to.deep.equal([]);
  });

  it('counts nodes by their zone label, zones without a node at 0', () => {
    const node = (zone?: string) => ({
      metadata: { labels: (zone ? { 'topology.kubernetes.io/zone': zone } : {}) as Record<string, string> },
    });
    expect(zoneCounts([node('a'), node('a'), node('b'), node()], ['a', 'b', 'c'])).to.deep.equal({
      a: 2,
      b: 1,
      c: 0,
      '': 1,
    });
  });
});
