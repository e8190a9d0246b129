// The controller's dependency index: whom a Deployment's change concerns, and the snapshot parts
// it gives the engine's buildSnapshot.

import { expect } from 'chai';
import type { Deployment } from '../../../../src/api/types.ts';
import { DependencyIndex } from '../../../../src/controllers/deployment/dependencyindex.ts';
import { cacheSource } from '../../../../src/controllers/deployment/reconciler.ts';
import { buildSnapshot } from '../../../../src/engine/index.ts';

/** The dependency part of the engine's snapshot, built from a Deployment cache and the index. */
function dependencySnapshot(
  d0: Deployment,
  get: (key: string) => Deployment | undefined,
  dependencyIndex: DependencyIndex | undefined,
) {
  const none = { get: () => undefined, list: () => [] };
  const s = buildSnapshot(
    d0,
    cacheSource({ replicaSets: none, pods: none, deployments: { get, list: () => [] }, dependencyIndex }),
    0,
  );
  return { dependencies: s.dependencies, dependents: s.dependents, dependencyCycle: s.dependencyCycle };
}

function d(name: string, deps: string[] = [], namespace = 'default'): Deployment {
  return { metadata: { name, namespace }, spec: deps.length ? { dependencies: deps } : {} };
}

describe('controllers/deployment/dependencyindex: the index', () => {
  it('reads like the events that feed it: each step enqueues whom it concerns', () => {
    const ix = new DependencyIndex();
    const rows: Array<[string, string, Deployment | undefined, string[]]> = [
      ['app appears, depending on db: db gains a dependent', 'default/app', d('app', ['db']), ['default/db']],
      ['db appears: app is woken', 'default/db', d('db'), ['default/app']],
      ['db changes (status): app is woken', 'default/db', d('db'), ['default/app']],
      ['app changes without touching its list: nobody else', 'default/app', d('app', ['db']), []],
      [
        'app switches to cache: db loses it, cache gains it',
        'default/app',
        d('app', ['cache']),
        ['default/db', 'default/cache'],
      ],
      ['db changes: nobody depends on it now', 'default/db', d('db'), []],
      ['app is deleted: cache loses a dependent', 'default/app', undefined, ['default/cache']],
    ];
    for (const [what, key, obj, want] of rows) expect(ix.update(key, obj), what).to.have.members(want);
    expect(ix.dependentsOf('default/cache')).to.deep.equal([]);
  });

  it('the snapshot: dependencies as found, dependents, the cycle', () => {
    const ix = new DependencyIndex();
    const all = new Map<string, Deployment>([
      ['default/web', d('web', ['api', 'ghost'])],
      ['default/api', d('api', ['web'])],
    ]);
    for (const [k, x] of all) ix.update(k, x);
    const s = dependencySnapshot(all.get('default/web')!, (k) => all.get(k), ix);
    expect(s.dependencies).to.deep.equal([
      { ref: 'default/api', deployment: all.get('default/api') },
      { ref: 'default/ghost' },
    ]);
    expect(s.dependents).to.deep.equal([all.get('default/api')]);
    expect(s.dependencyCycle).to.deep.equal(['default/web', 'default/api', 'default/web']);
    const noIndex = dependencySnapshot(all.get('default/api')!, (k) => all.get(k), undefined);
    expect(noIndex.dependents, 'without the index, dependents are unknown').to.equal(undefined);
  });
});
