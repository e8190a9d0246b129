import { expect } from 'chai';
import type { PodTemplateSpec } from '../../../../src/api/types.ts';
import { equalIgnoreHash, semanticEqual } from '../../../../src/engine/kubernetes/template.ts';

const base = (): PodTemplateSpec => ({
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'c', image: 'nginx:1' }] },
});

describe('engine/template', () => {
  const rows: Array<[string, PodTemplateSpec, PodTemplateSpec, boolean]> = [
    ['identical', base(), base(), true],
    [
      'only the hash label differs',
      { ...base(), metadata: { labels: { app: 'web', 'pod-template-hash': 'abc' } } },
      base(),
      true,
    ],
    [
      'different hash labels',
      { ...base(), metadata: { labels: { app: 'web', 'pod-template-hash': 'abc' } } },
      { ...base(), metadata: { labels: { app: 'web', 'pod-template-hash': 'xyz' } } },
      true,
    ],
    ['a different image', base(), { ...base(), spec: { containers: [{ name: 'c', image: 'nginx:2' }] } }, false],
    ['another label', base(), { ...base(), metadata: { labels: { app: 'web', v: '2' } } }, false],
    ['annotations count', base(), { ...base(), metadata: { labels: { app: 'web' }, annotations: { a: 'b' } } }, false],
    [
      'empty annotations equal missing ones',
      base(),
      { ...base(), metadata: { labels: { app: 'web' }, annotations: {} } },
      true,
    ],
    [
      'null equals missing',
      { ...base(), spec: { containers: [{ name: 'c', image: 'nginx:1' }], volumes: null } },
      base(),
      true,
    ],
    [
      '[] equals missing',
      { ...base(), spec: { containers: [{ name: 'c', image: 'nginx:1' }], volumes: [] } },
      base(),
      true,
    ],
    [
      '{} equals missing',
      { ...base(), spec: { containers: [{ name: 'c', image: 'nginx:1' }], securityContext: {} } },
      base(),
      true,
    ],
    [
      'key order does not matter',
      { spec: { containers: [{ image: 'nginx:1', name: 'c' }] }, metadata: { labels: { app: 'web' } } },
      base(),
      true,
    ],
    [
      'array order does matter',
      { ...base(), spec: { containers: [{ name: 'a' }, { name: 'b' }] } },
      { ...base(), spec: { containers: [{ name: 'b' }, { name: 'a' }] } },
      false,
    ],
    [
      'no labels vs only a hash label',
      { spec: {} },
      { metadata: { labels: { 'pod-template-hash': 'x' } }, spec: {} },
      true,
    ],
    // The API server defaults a ReplicaSet's template, not the custom resource's.
    [
      'as written vs as the API server defaulted it',
      base(),
      {
        ...base(),
        spec: {
          containers: [
            {
              name: 'c',
              image: 'nginx:1',
              imagePullPolicy: 'IfNotPresent',
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              resources: {},
            },
          ],
          restartPolicy: 'Always',
          terminationGracePeriodSeconds: 30,
          dnsPolicy: 'ClusterFirst',
          schedulerName: 'default-scheduler',
          securityContext: {},
        },
      },
      true,
    ],
    [
      'a value that differs from the default',
      base(),
      { ...base(), spec: { containers: [{ name: 'c', image: 'nginx:1', imagePullPolicy: 'Always' }] } },
      false,
    ],
    [
      'a grace period other than 30 s',
      base(),
      { ...base(), spec: { containers: [{ name: 'c', image: 'nginx:1' }], terminationGracePeriodSeconds: 5 } },
      false,
    ],
  ];
  for (const [name, a, b, want] of rows) {
    it(`${name} → ${want ? 'equal' : 'different'}`, () => {
      const before = JSON.stringify([a, b]);
      expect(equalIgnoreHash(a, b)).to.equal(want);
      expect(equalIgnoreHash(b, a)).to.equal(want);
      expect(JSON.stringify([a, b])).to.equal(before);
    });
  }
  it('semanticEqual tells values apart', () => {
    expect(semanticEqual(1, 1)).to.equal(true);
    expect(semanticEqual(1, '1')).to.equal(false);
    expect(semanticEqual({ a: [] }, { a: null })).to.equal(true);
    expect(semanticEqual({ a: [1] }, { a: [] })).to.equal(false);
    expect(semanticEqual(false, undefined)).to.equal(false);
  });
});
