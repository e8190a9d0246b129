import { expect } from 'chai';
import { dependentAction, type OwnerState } from '../../../../src/sim/control/gc.ts';
import type { GcNode } from '../../../../src/sim/control/cache.ts';
import { REF } from '../../../../src/sim/resources.ts';
import { isReady, podsOf, replicaSet, startCluster, statusOf, waitFor, type Cluster } from './helpers.ts';

describe('sim/control gc: what happens to a dependent', () => {
  const dep = (owners: string[], o: { deleting?: boolean; finalizers?: string[] } = {}): GcNode => ({
    uid: 'd',
    ref: REF.pods,
    namespace: 'default',
    name: 'd',
    owners: owners.map((uid) => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: uid,
      uid,
      controller: true,
      blockOwnerDeletion: true,
    })),
    deleting: o.deleting ?? false,
    finalizers: o.finalizers ?? [],
  });
  const rows: Array<{
    name: string;
    node: GcNode;
    owners: Record<string, OwnerState>;
    hasDependents?: boolean;
    want: ReturnType<typeof dependentAction>;
  }> = [
    { name: 'owner alive: keep', node: dep(['a']), owners: { a: 'solid' }, want: { kind: 'none' } },
    {
      name: 'owner gone: delete in the background',
      node: dep(['a']),
      owners: { a: 'dangling' },
      want: { kind: 'delete', policy: 'Background' },
    },
    {
      name: 'one of two owners gone: drop its reference',
      node: dep(['a', 'b']),
      owners: { a: 'solid', b: 'dangling' },
      want: { kind: 'removeOwners', uids: ['b'] },
    },
    {
      name: 'owner deleting in the foreground, other owner alive: detach',
      node: dep(['a', 'b']),
      owners: { a: 'waiting', b: 'solid' },
      want: { kind: 'removeOwners', uids: ['a'] },
    },
    {
      name: 'owner deleting in the foreground: delete',
      node: dep(['a']),
      owners: { a: 'waiting' },
      want: { kind: 'delete', policy: 'Background' },
    },
    {
      name: 'owner deleting in the foreground, dependent owns others: delete in the foreground',
      node: dep(['a']),
      owners: { a: 'waiting' },
      hasDependents: true,
      want: { kind: 'delete', policy: 'Foreground' },
    },
    {
      name: 'already being deleted: leave it',
      node: dep(['a'], { deleting: true }),
      owners: { a: 'dangling' },
      want: { kind: 'none' },
    },
    { name: 'no owners: nothing to do', node: dep([]), owners: {}, want: { kind: 'none' } },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(dependentAction(row.node, new Map(Object.entries(row.owners)), row.hasDependents ?? false)).to.deep.equal(
        row.want,
      );
    });
  }
});

describe('sim/control gc: behaviour', () => {
  let c: Cluster;
  afterEach(() => c?.stop());

  async function readyRs(replicas = 2) {
    c = startCluster();
    c.store.create(REF.replicasets, 'default', replicaSet('web', replicas));
    await waitFor('ready', () => podsOf(c.store, 'app=web').filter(isReady).length === replicas);
  }

  it('background: deleting a ReplicaSet deletes its pods', async () => {
    await readyRs();
    c.store.delete(REF.replicasets, 'default', 'web', { propagationPolicy: 'Background' });
    expect(c.store.get(REF.replicasets, 'default', 'web')).to.equal(undefined);
    await waitFor('pods gone', () => podsOf(c.store, 'app=web').length === 0);
  });

  it('foreground: the ReplicaSet waits for its pods, then goes', async () => {
    await readyRs();
    const gone: string[] = [];
    const unsubscribe = c.store.subscribe((e) => {
      if (e.type === 'DELETED') gone.push(`${e.ref.resource}/${e.object.metadata.name}`);
    });
    const pods = podsOf(c.store, 'app=web').map((p) => `pods/${p.metadata.name}`);
    const pending = c.store.delete(REF.replicasets, 'default', 'web', { propagationPolicy: 'Foreground' });
    expect(pending.metadata.finalizers).to.include('foregroundDeletion');
    await waitFor('rs gone', () => !c.store.get(REF.replicasets, 'default', 'web'));
    unsubscribe();
    // Every pod went before the ReplicaSet, and none was created in the meantime.
    expect(gone.slice(0, 2).sort()).to.deep.equal(pods.sort());
    expect(gone[2]).to.equal('replicasets/web');
    expect(podsOf(c.store, 'app=web')).to.have.length(0);
  });

  it('orphan: the pods stay, without the owner reference', async () => {
    await readyRs();
    const names = podsOf(c.store, 'app=web')
      .map((p) => p.metadata.name)
      .sort();
    c.store.delete(REF.replicasets, 'default', 'web', { propagationPolicy: 'Orphan' });
    await waitFor('rs gone', () => !c.store.get(REF.replicasets, 'default', 'web'));
    const pods = podsOf(c.store, 'app=web');
    expect(pods.map((p) => p.metadata.name).sort()).to.deep.equal(names);
    expect(pods.every((p) => (p.metadata.ownerReferences ?? []).length === 0)).to.equal(true);
    // A new ReplicaSet with the same selector adopts them instead of creating pods.
    c.store.create(REF.replicasets, 'default', replicaSet('web', 2));
    await waitFor('adopted', () => statusOf(c.store.get(REF.replicasets, 'default', 'web')).replicas === 2);
    expect(
      podsOf(c.store, 'app=web')
        .map((p) => p.metadata.name)
        .sort(),
    ).to.deep.equal(names);
  });

  it('an object created with an owner that does not exist is collected', async () => {
    c = startCluster();
    c.store.create(REF.pods, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'stray',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'ghost', uid: 'no-such-uid', controller: true },
        ],
      },
      spec: { containers: [{ name: 'app', image: 'nginx' }] },
    });
    await waitFor('collected', () => !c.store.get(REF.pods, 'default', 'stray'));
  });
});
