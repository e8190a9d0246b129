import { expect } from 'chai';
import { jsonEqual } from '../../../src/kube/jsonequal.ts';

// Rows: two documents, and whether a server that stored one would store the other the same.
describe('kube/jsonequal: two JSON documents the same', () => {
  const rows: Array<[string, unknown, unknown, boolean]> = [
    ['the same labels', { app: 'web', tier: 'front' }, { app: 'web', tier: 'front' }, true],
    ['key order does not matter', { app: 'web', tier: 'front' }, { tier: 'front', app: 'web' }, true],
    ['a label changed', { app: 'web' }, { app: 'api' }, false],
    ['a label added', { app: 'web' }, { app: 'web', tier: 'front' }, false],
    ['a label removed', { app: 'web', tier: 'front' }, { app: 'web' }, false],
    ['a member set to undefined is absent', { replicas: 3, paused: undefined }, { replicas: 3 }, true],
    ['... on either side', { replicas: 3 }, { replicas: 3, paused: undefined }, true],
    ['a member set to null is not absent', { replicas: 3, paused: null }, { replicas: 3 }, false],
    ['0 and -0 are one number', { replicas: 0 }, { replicas: -0 }, true],
    ['1 and "1" differ', { replicas: 1 }, { replicas: '1' }, false],
    ['array order matters', { args: ['a', 'b'] }, { args: ['b', 'a'] }, false],
    ['a longer array', [1, 2], [1, 2, 3], false],
    ['an array is not an object with its indexes', [1], { 0: 1 }, false],
    ['... either way', { 0: 1 }, [1], false],
    ['null is not an empty object', null, {}, false],
    ['an empty object is not an empty array', {}, [], false],
    [
      'a template: the same nested parts',
      { spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] } },
      { spec: { containers: [{ image: 'nginx:1.27', name: 'web', ports: [{ containerPort: 80 }] }] } },
      true,
    ],
    [
      'a template: a nested port changed',
      { spec: { containers: [{ name: 'web', ports: [{ containerPort: 80 }] }] } },
      { spec: { containers: [{ name: 'web', ports: [{ containerPort: 8080 }] }] } },
      false,
    ],
    ["a member named as Object.prototype's is still a member", { constructor: 1 }, {}, false],
    ['... on the other side', {}, { toString: 'x' }, false],
  ];
  for (const [name, a, b, same] of rows) {
    it(`${name} → ${same ? 'equal' : 'different'}`, () => {
      expect(jsonEqual(a, b)).to.equal(same);
      expect(jsonEqual(b, a), 'the other way round').to.equal(same);
    });
  }
});
