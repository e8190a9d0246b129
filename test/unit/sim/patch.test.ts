import { expect } from 'chai';
import { applyPatch, jsonPatch, mergePatch, strategicMergePatch } from '../../../src/sim/patch.ts';
import { apiError } from './api-error.ts';

describe('sim/patch: JSON merge patch (RFC 7386)', () => {
  const rows: Array<[string, unknown, unknown, unknown]> = [
    ['replaces a scalar', { a: 'b' }, { a: 'c' }, { a: 'c' }],
    ['adds a key', { a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    ['null removes a key', { a: 'b' }, { a: null }, {}],
    ['null on an absent key is a no-op', { a: 'b' }, { c: null }, { a: 'b' }],
    ['merges nested maps', { a: { b: 1, c: 2 } }, { a: { c: 3 } }, { a: { b: 1, c: 3 } }],
    ['replaces arrays whole', { a: [1, 2] }, { a: [3] }, { a: [3] }],
    ['a map replaces a scalar', { a: 'x' }, { a: { b: 1 } }, { a: { b: 1 } }],
    [
      'kubectl label',
      { metadata: { name: 'w1' } },
      { metadata: { labels: { a: 'b' } } },
      { metadata: { name: 'w1', labels: { a: 'b' } } },
    ],
    [
      'finalizers: null clears them',
      { metadata: { finalizers: ['x'] } },
      { metadata: { finalizers: null } },
      { metadata: {} },
    ],
  ];
  for (const [name, target, patch, want] of rows) {
    it(name, () => expect(mergePatch(target, patch)).to.deep.equal(want));
  }
  it('does not change its input', () => {
    const t = { a: { b: 1 } };
    mergePatch(t, { a: { b: 2 } });
    expect(t).to.deep.equal({ a: { b: 1 } });
  });
});

describe('sim/patch: JSON patch (RFC 6902)', () => {
  const doc = { spec: { replicas: 2, list: ['a', 'b'] }, metadata: { 'a/b': 'x', 'c~d': 'y' } };
  const rows: Array<[string, unknown[], unknown]> = [
    [
      'replace',
      [{ op: 'replace', path: '/spec/replicas', value: 10 }],
      { ...doc, spec: { ...doc.spec, replicas: 10 } },
    ],
    [
      'add with - appends',
      [{ op: 'add', path: '/spec/list/-', value: 'c' }],
      { ...doc, spec: { ...doc.spec, list: ['a', 'b', 'c'] } },
    ],
    ['remove', [{ op: 'remove', path: '/spec/list/0' }], { ...doc, spec: { ...doc.spec, list: ['b'] } }],
    [
      '~1 and ~0 escapes',
      [
        { op: 'remove', path: '/metadata/a~1b' },
        { op: 'replace', path: '/metadata/c~0d', value: 'z' },
      ],
      { ...doc, metadata: { 'c~d': 'z' } },
    ],
    [
      'test that passes, then move',
      [
        { op: 'test', path: '/spec/replicas', value: 2 },
        { op: 'move', from: '/spec/replicas', path: '/spec/count' },
      ],
      { ...doc, spec: { list: ['a', 'b'], count: 2 } },
    ],
    ['copy', [{ op: 'copy', from: '/spec/replicas', path: '/spec/copy' }], { ...doc, spec: { ...doc.spec, copy: 2 } }],
  ];
  for (const [name, patch, want] of rows) {
    it(name, () => expect(jsonPatch(doc, patch)).to.deep.equal(want));
  }
  // A real API server keeps only the generic message (and no causes) for an operation that does not apply.
  it('a failed test op is 422 Invalid with the generic message and no details', () => {
    const e = apiError(() => jsonPatch(doc, [{ op: 'test', path: '/spec/replicas', value: 3 }]));
    expect(e.toStatus()).to.deep.include({
      code: 422,
      reason: 'Invalid',
      message: 'the server rejected our request due to an error in our request',
      details: {},
    });
  });
  it('replacing a missing path is the same 422', () => {
    const e = apiError(() => jsonPatch(doc, [{ op: 'replace', path: '/spec/nope', value: 1 }]));
    expect([e.code, e.message]).to.deep.equal([422, 'the server rejected our request due to an error in our request']);
  });
  it('a malformed patch is 400', () => {
    expect(apiError(() => jsonPatch(doc, { op: 'add' })).code).to.equal(400);
    expect(apiError(() => jsonPatch(doc, [{ op: 'frob', path: '/a' }])).code).to.equal(400);
  });
  it('does not change its input', () => {
    jsonPatch(doc, [{ op: 'replace', path: '/spec/replicas', value: 10 }]);
    expect(doc.spec.replicas).to.equal(2);
  });
});

describe('sim/patch: strategic merge patch', () => {
  const rs = {
    metadata: { name: 'rs1', finalizers: ['a'], ownerReferences: [{ uid: 'u1', name: 'd1' }] },
    spec: {
      replicas: 2,
      template: {
        spec: {
          containers: [
            { name: 'c', image: 'nginx', env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 80 }] },
            { name: 'side', image: 'busybox' },
          ],
          volumes: [{ name: 'v', emptyDir: {} }],
          tolerations: [{ key: 'a' }],
        },
      },
    },
  };
  it('kubectl apply image change: the container merges by name, the other stays', () => {
    const out = strategicMergePatch(rs, {
      spec: {
        replicas: 4,
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'c' }, { name: 'side' }],
            containers: [{ image: 'nginx:2', name: 'c' }],
          },
        },
      },
    }) as typeof rs;
    expect(out.spec.replicas).to.equal(4);
    expect(out.spec.template.spec.containers).to.deep.equal([
      { name: 'c', image: 'nginx:2', env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 80 }] },
      { name: 'side', image: 'busybox' },
    ]);
    expect(out.spec.template.spec.volumes).to.deep.equal(rs.spec.template.spec.volumes);
  });
  it('$setElementOrder reorders the list', () => {
    const out = strategicMergePatch(rs, {
      spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'side' }, { name: 'c' }] } } },
    }) as typeof rs;
    expect(out.spec.template.spec.containers.map((c) => c.name)).to.deep.equal(['side', 'c']);
  });
  it('a new element with a new merge key is appended', () => {
    const out = strategicMergePatch(rs, {
      spec: { template: { spec: { containers: [{ name: 'new', image: 'x' }] } } },
    }) as typeof rs;
    expect(out.spec.template.spec.containers.map((c) => c.name)).to.deep.equal(['c', 'side', 'new']);
  });
  it('$patch: delete removes the element with that key', () => {
    const out = strategicMergePatch(rs, {
      spec: { template: { spec: { containers: [{ name: 'side', $patch: 'delete' }] } } },
    }) as typeof rs;
    expect(out.spec.template.spec.containers.map((c) => c.name)).to.deep.equal(['c']);
  });
  it('$patch: replace in a list replaces the list', () => {
    const out = strategicMergePatch(rs, {
      spec: { template: { spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'x' }] } } },
    }) as typeof rs;
    expect(out.spec.template.spec.containers).to.deep.equal([{ name: 'only', image: 'x' }]);
  });
  it('$patch: replace on a map replaces the map', () => {
    const out = strategicMergePatch(rs, {
      spec: { template: { spec: { $patch: 'replace', containers: [{ name: 'z', image: 'z' }] } } },
    }) as typeof rs;
    expect(out.spec.template.spec).to.deep.equal({ containers: [{ name: 'z', image: 'z' }] });
  });
  it('$patch: delete on a map removes it', () => {
    const out = strategicMergePatch({ spec: { a: { b: 1 }, c: 1 } }, { spec: { a: { $patch: 'delete' } } });
    expect(out).to.deep.equal({ spec: { c: 1 } });
  });
  it('nested env merges by name and ports by containerPort', () => {
    const out = strategicMergePatch(rs, {
      spec: {
        template: {
          spec: {
            containers: [{ name: 'c', env: [{ name: 'B', value: '2' }], ports: [{ containerPort: 80, name: 'http' }] }],
          },
        },
      },
    }) as typeof rs;
    const c = out.spec.template.spec.containers[0] as { env: unknown[]; ports: unknown[] };
    expect(c.env).to.deep.equal([
      { name: 'A', value: '1' },
      { name: 'B', value: '2' },
    ]);
    expect(c.ports).to.deep.equal([{ containerPort: 80, name: 'http' }]);
  });
  it('lists without a strategy (tolerations) are replaced', () => {
    const out = strategicMergePatch(rs, { spec: { template: { spec: { tolerations: [{ key: 'b' }] } } } }) as typeof rs;
    expect(out.spec.template.spec.tolerations).to.deep.equal([{ key: 'b' }]);
  });
  it('finalizers merge as a set, $deleteFromPrimitiveList removes', () => {
    const added = strategicMergePatch(rs, { metadata: { finalizers: ['b', 'a'] } }) as typeof rs;
    expect(added.metadata.finalizers).to.deep.equal(['a', 'b']);
    const removed = strategicMergePatch(added, {
      metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] },
    }) as typeof rs;
    expect(removed.metadata.finalizers).to.deep.equal(['b']);
  });
  it('ownerReferences merge by uid', () => {
    const out = strategicMergePatch(rs, { metadata: { ownerReferences: [{ uid: 'u2', name: 'd2' }] } }) as typeof rs;
    expect(out.metadata.ownerReferences.map((o) => o.uid)).to.deep.equal(['u1', 'u2']);
  });
  it('$retainKeys drops the other keys of the map', () => {
    const out = strategicMergePatch(
      { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
      { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
    );
    expect(out).to.deep.equal({ spec: { strategy: { type: 'Recreate' } } });
  });
  it('status.conditions merge by type (kubectl-style node status patches)', () => {
    const out = strategicMergePatch(
      {
        status: {
          conditions: [
            { type: 'Ready', status: 'True' },
            { type: 'X', status: 'False' },
          ],
        },
      },
      { status: { conditions: [{ type: 'Ready', status: 'False' }] } },
    );
    expect(out).to.deep.equal({
      status: {
        conditions: [
          { type: 'Ready', status: 'False' },
          { type: 'X', status: 'False' },
        ],
      },
    });
  });
  it('cordon: spec.unschedulable', () => {
    expect(strategicMergePatch({ spec: { podCIDR: 'x' } }, { spec: { unschedulable: true } })).to.deep.equal({
      spec: { podCIDR: 'x', unschedulable: true },
    });
  });
  it('an element without its merge key is 400', () => {
    expect(
      apiError(() => strategicMergePatch(rs, { spec: { template: { spec: { containers: [{ image: 'x' }] } } } })).code,
    ).to.equal(400);
  });
  it('is refused with 415 for custom resources', () => {
    const e = apiError(() => applyPatch('strategic', {}, { spec: {} }, false));
    expect(e.code).to.equal(415);
    expect(e.message).to.equal(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  });
});
