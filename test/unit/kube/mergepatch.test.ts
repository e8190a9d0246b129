import { expect } from 'chai';
import { mergePatchDiff } from '../../../src/kube/mergepatch.ts';

// Rows follow RFC 7386's examples, read backwards: from the target document to the patch.
describe('kube/mergepatch: the RFC 7386 patch between two documents', () => {
  const rows: Array<[string, unknown, unknown, unknown]> = [
    ['equal documents → no patch', { a: 1, b: { c: [1] } }, { a: 1, b: { c: [1] } }, undefined],
    ['changed scalar', { a: 'b' }, { a: 'c' }, { a: 'c' }],
    ['added key', { a: 'b' }, { a: 'b', b: 'c' }, { b: 'c' }],
    ['removed key → null', { a: 'b', b: 'c' }, { a: 'b' }, { b: null }],
    ['nested change keeps siblings out', { a: { b: 'c', d: 'e' } }, { a: { b: 'x', d: 'e' } }, { a: { b: 'x' } }],
    ['nested removal', { a: { b: 'c', d: 'e' } }, { a: { d: 'e' } }, { a: { b: null } }],
    ['arrays are replaced whole', { a: [1, 2] }, { a: [1] }, { a: [1] }],
    ['object becomes scalar', { a: { b: 'c' } }, { a: 'x' }, { a: 'x' }],
    [
      'an annotation added, another removed',
      { metadata: { annotations: { x: '1', y: '2' } } },
      { metadata: { annotations: { x: '1', z: '3' } } },
      { metadata: { annotations: { y: null, z: '3' } } },
    ],
    ['undefined values count as absent', { a: 1, b: undefined }, { a: 1 }, undefined],
  ];
  for (const [name, from, to, patch] of rows) {
    it(name, () => {
      expect(mergePatchDiff(from, to)).to.deep.equal(patch);
    });
  }
});
