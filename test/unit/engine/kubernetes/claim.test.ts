import { expect } from 'chai';
import { claimReplicaSets } from '../../../../src/engine/kubernetes/claim.ts';
import { DEPLOYMENT_UID, deployment, iso, NOW, replicaSet } from '../fixtures.ts';

describe('engine/claim', () => {
  const ours = replicaSet('web-a', { replicas: 1 });
  const orphan = replicaSet('web-b', { replicas: 1, owned: false });
  const stray = replicaSet('web-c', { replicas: 1 });
  stray.metadata.labels = { app: 'other' };
  const foreign = replicaSet('web-d', { replicas: 1 });
  foreign.metadata.ownerReferences = [
    { apiVersion: 'apps/v1', kind: 'Deployment', name: 'x', uid: 'other-uid', controller: true },
  ];
  const otherOrphan = replicaSet('web-e', { replicas: 1, owned: false });
  otherOrphan.metadata.labels = { app: 'other' };

  it('keeps its own, adopts matching orphans, releases non-matching children, ignores the rest', () => {
    const c = claimReplicaSets(deployment(), [ours, orphan, stray, foreign, otherOrphan]);
    expect(c.owned.map((r) => r.metadata.name)).to.deep.equal(['web-a', 'web-b']);
    expect(c.writes.map((r) => r.metadata.name)).to.deep.equal(['web-b', 'web-c']);
    expect(c.adopted[0].metadata.ownerReferences).to.deep.equal([
      {
        apiVersion: 'pacer.dev/v1alpha1',
        kind: 'Deployment',
        name: 'web',
        uid: DEPLOYMENT_UID,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(c.released[0].metadata.ownerReferences).to.equal(undefined);
    expect(orphan.metadata.ownerReferences).to.equal(undefined); // input untouched
  });

  it('a Deployment being deleted adopts and releases nothing', () => {
    const d = deployment();
    d.metadata.deletionTimestamp = iso(NOW);
    const c = claimReplicaSets(d, [ours, orphan, stray]);
    expect(c.owned.map((r) => r.metadata.name)).to.deep.equal(['web-a']);
    expect(c.writes).to.deep.equal([]);
  });

  it('an orphan being deleted is not adopted', () => {
    const dying = replicaSet('web-f', { replicas: 1, owned: false });
    dying.metadata.deletionTimestamp = iso(NOW);
    expect(claimReplicaSets(deployment(), [dying]).owned).to.deep.equal([]);
  });
});
