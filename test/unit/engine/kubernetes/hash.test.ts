import { expect } from 'chai';
import { computeHash, fnv1a32, replicaSetName, safeEncodeString } from '../../../../src/engine/kubernetes/hash.ts';
import { template } from '../fixtures.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('engine/hash', () => {
  describe('FNV-1a 32-bit (published test vectors)', () => {
    const rows: Array<[string, number]> = [
      ['', 0x811c9dc5],
      ['a', 0xe40c292c],
      ['foobar', 0xbf9cf968],
    ];
    for (const [input, want] of rows)
      it(`"${input}" → 0x${want.toString(16)}`, () => expect(fnv1a32(bytes(input))).to.equal(want));
  });

  it('maps digits through the safe alphabet: 0→4 … 5→9, 6→b, 7→c, 8→d, 9→f', () => {
    expect(safeEncodeString('0123456789')).to.equal('456789bcdf');
  });

  it('is stable under key order', () => {
    const a = { metadata: { labels: { app: 'web', tier: 'fe' } }, spec: { containers: [{ name: 'c', image: 'x' }] } };
    const b = { spec: { containers: [{ image: 'x', name: 'c' }] }, metadata: { labels: { tier: 'fe', app: 'web' } } };
    expect(computeHash(a)).to.equal(computeHash(b));
  });

  it('changes with the template and with the collision count', () => {
    const h = computeHash(template('nginx:1'));
    expect(computeHash(template('nginx:2'))).to.not.equal(h);
    expect(computeHash(template('nginx:1'), 0)).to.not.equal(h);
    expect(computeHash(template('nginx:1'), 1)).to.not.equal(computeHash(template('nginx:1'), 0));
    expect(computeHash(template('nginx:1'), 1)).to.equal(computeHash(template('nginx:1'), 1));
  });

  it('looks like an upstream hash: at most 10 characters of the safe alphabet', () => {
    for (const image of ['a', 'b', 'c', 'nginx:1.27', 'busybox']) {
      expect(computeHash(template(image))).to.match(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    }
  });

  it('names ReplicaSets <deployment>-<hash>', () =>
    expect(replicaSetName('web', '7c5ddbdf54')).to.equal('web-7c5ddbdf54'));
});
