// The web provider's JSONPath, row by row: the spellings kubectl and JSONPath use, and where a path
// that cannot be read, or finds nothing, stops.

import { expect } from 'chai';
import { parseJsonPath, walk } from '../../../../../src/controllers/analysis/providers/jsonpath.ts';

describe('analysis providers: jsonPath', () => {
  const rows: Array<[string, Array<{ field: string } | { index: number }>]> = [
    ['{.data.ok}', [{ field: 'data' }, { field: 'ok' }]],
    ['{$.data.ok}', [{ field: 'data' }, { field: 'ok' }]],
    ['$.data.ok', [{ field: 'data' }, { field: 'ok' }]],
    ['.data.ok', [{ field: 'data' }, { field: 'ok' }]],
    ['data.ok', [{ field: 'data' }, { field: 'ok' }]],
    ['{ .items[0].v }', [{ field: 'items' }, { index: 0 }, { field: 'v' }]],
    ['$.items[-1]', [{ field: 'items' }, { index: -1 }]],
    ["{['a.b/c']}", [{ field: 'a.b/c' }]],
    ['$["a b"][2]', [{ field: 'a b' }, { index: 2 }]],
    ["$['it\\'s']", [{ field: "it's" }]],
    ['$', []],
    ['{}', []],
    ['{.metadata.labels.app-name}', [{ field: 'metadata' }, { field: 'labels' }, { field: 'app-name' }]],
  ];
  for (const [path, steps] of rows)
    it(`${path} reads as ${JSON.stringify(steps)}`, () => expect(parseJsonPath(path)).to.deep.equal(steps));

  for (const bad of ['{.items[*]}', '{.items[?(@.ok)]}', '$..x', '{.a[0}', '.a.', '{.a}{.b}', '$.a[0]b'])
    it(`${bad} cannot be read`, () => {
      const got = parseJsonPath(bad);
      expect(got).to.be.instanceOf(Error);
      expect((got as Error).message).to.match(/^cannot read .* at /);
    });

  const doc = { a: { b: [10, { c: 'x' }], n: null, 'd.e': 1 } };
  const walks: Array<[string, { value: unknown } | { missing: string }]> = [
    ['$.a.b[0]', { value: 10 }],
    ['$.a.b[1].c', { value: 'x' }],
    ['$.a.b[-2]', { value: 10 }],
    ['$.a.n', { value: null }],
    ["$.a['d.e']", { value: 1 }],
    ['$', { value: doc }],
    ['$.a.x', { missing: '$.a.x' }],
    ['$.a.b[2]', { missing: '$.a.b[2]' }],
    ['$.a.b[-3]', { missing: '$.a.b[-3]' }],
    ['$.a.b.c', { missing: '$.a.b.c' }],
    ['$.a[0]', { missing: '$.a[0]' }],
    ['$.a.n.x', { missing: '$.a.n.x' }],
    ["$.a['x y']", { missing: '$.a["x y"]' }],
    ['$.a.toString', { missing: '$.a.toString' }],
  ];
  for (const [path, want] of walks)
    it(`${path} in ${JSON.stringify(doc)}: ${JSON.stringify(want)}`, () => {
      const steps = parseJsonPath(path);
      expect(steps).to.not.be.instanceOf(Error);
      expect(walk(doc, steps as Exclude<typeof steps, Error>)).to.deep.equal(want);
    });
});
