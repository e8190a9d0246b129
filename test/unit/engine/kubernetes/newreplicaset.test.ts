import { expect } from 'chai';
import {
  CHANGE_CAUSE_ANNOTATION,
  LAST_APPLIED_CONFIG_ANNOTATION,
} from '../../../../src/engine/kubernetes/annotations.ts';
import { computeHash } from '../../../../src/engine/kubernetes/hash.ts';
import {
  buildNewReplicaSet,
  generatedUid,
  getAllReplicaSetsAndSyncRevision,
} from '../../../../src/engine/kubernetes/newreplicaset.ts';
import { startPass } from '../../../../src/engine/kubernetes/pass.ts';
import { DEPLOYMENT_UID, NOW, deployment, iso, replicaSet } from '../fixtures.ts';
import { limitsOf } from '../../../../src/engine/fenceposts.ts';

describe('engine/newreplicaset', () => {
  it('builds the new ReplicaSet as upstream does', () => {
    const d = deployment({ minReadySeconds: 5 });
    const hash = computeHash(d.spec.template);
    const rs = buildNewReplicaSet(d, hash, NOW);
    expect(rs.metadata.name).to.equal(`web-${hash}`);
    expect(rs.metadata.namespace).to.equal('default');
    expect(rs.metadata.labels).to.deep.equal({ app: 'web', 'pod-template-hash': hash });
    expect(rs.spec.selector).to.deep.equal({ matchLabels: { app: 'web', 'pod-template-hash': hash } });
    expect(rs.spec.template!.metadata!.labels).to.deep.equal({ app: 'web', 'pod-template-hash': hash });
    expect(rs.spec.template!.spec).to.deep.equal(d.spec.template!.spec);
    expect(rs.spec.minReadySeconds).to.equal(5);
    expect(rs.metadata.ownerReferences).to.deep.equal([
      {
        apiVersion: 'pacer.dev/v1alpha1',
        kind: 'Deployment',
        name: 'web',
        uid: DEPLOYMENT_UID,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(rs.metadata.creationTimestamp).to.equal(iso(NOW));
    expect(rs.metadata.generation).to.equal(1);
    expect(rs.metadata.uid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(d.spec.template!.metadata!.labels).to.deep.equal({ app: 'web' }); // the Deployment is untouched
  });

  it('generated uids are stable and distinct', () => {
    expect(generatedUid('a', 'b')).to.equal(generatedUid('a', 'b'));
    expect(generatedUid('a', 'b')).to.not.equal(generatedUid('a', 'c'));
  });

  it('creates it with revision max+1, desired and max replicas, and copies the change-cause', () => {
    const d = deployment({
      replicas: 4,
      image: 'v2',
      annotations: { [CHANGE_CAUSE_ANNOTATION]: 'to v2', [LAST_APPLIED_CONFIG_ANNOTATION]: '{}' },
    });
    const old = replicaSet('web-old', { replicas: 4, image: 'v1', revision: 3 });
    const pass = startPass(d, [old], [old], [], NOW, limitsOf(d));
    const { newRS } = getAllReplicaSetsAndSyncRevision(pass, true);
    expect(pass.actions.map((a) => a.verb)).to.deep.equal(['create']);
    expect(newRS!.spec.replicas).to.equal(1); // surge 25% of 4
    expect(newRS!.metadata.annotations).to.deep.equal({
      [CHANGE_CAUSE_ANNOTATION]: 'to v2',
      'pacer.dev/revision': '4',
      'pacer.dev/desired-replicas': '4',
      'pacer.dev/max-replicas': '5',
    });
    expect(pass.annotations!['pacer.dev/revision']).to.equal('4');
    expect(pass.status.conditions!.map((c) => [c.reason, c.message])).to.deep.equal([
      ['NewReplicaSetCreated', `Created new replica set "${newRS!.metadata.name}"`],
    ]);
  });

  it('an existing new ReplicaSet with a lower revision is renumbered (rollback) and its minReadySeconds synced', () => {
    const d = deployment({ image: 'v1', minReadySeconds: 7 });
    const a = replicaSet('web-a', { replicas: 0, image: 'v1', revision: 1, age: 20 });
    const b = replicaSet('web-b', { replicas: 3, image: 'v2', revision: 2, age: 10 });
    const pass = startPass(d, [a, b], [a, b], [], NOW, limitsOf(d));
    const { newRS } = getAllReplicaSetsAndSyncRevision(pass, true);
    expect(pass.actions.map((x) => `${x.verb} ${x.name}`)).to.deep.equal(['update web-a']);
    expect(newRS!.metadata.annotations!['pacer.dev/revision']).to.equal('3');
    expect(newRS!.metadata.annotations!['pacer.dev/revision-history']).to.equal('1');
    expect(newRS!.spec.minReadySeconds).to.equal(7);
    // upstream leaves the Deployment's revision for the next pass
    expect(pass.annotations?.['pacer.dev/revision']).to.equal(undefined);
  });

  it('an existing, synced new ReplicaSet: the Deployment takes its revision; FoundNewReplicaSet without a Progressing condition', () => {
    const d = deployment();
    const a = replicaSet('web-a', { replicas: 3, revision: 5 });
    const pass = startPass(d, [a], [a], [], NOW, limitsOf(d));
    getAllReplicaSetsAndSyncRevision(pass, true);
    expect(pass.actions).to.deep.equal([]);
    expect(pass.annotations!['pacer.dev/revision']).to.equal('5');
    expect(pass.status.conditions![0]).to.deep.include({
      reason: 'FoundNewReplicaSet',
      message: 'Found new replica set "web-a"',
    });
  });

  it('a name taken by another ReplicaSet is a hash collision: collisionCount nil → 1, nothing created', () => {
    const d = deployment({ image: 'v2' });
    const squatter = replicaSet(`web-${computeHash(d.spec.template)}`, { replicas: 1, image: 'v1' });
    squatter.metadata.ownerReferences = [];
    squatter.metadata.labels = { app: 'other' };
    const pass = startPass(d, [], [squatter], [], NOW, limitsOf(d));
    const { newRS } = getAllReplicaSetsAndSyncRevision(pass, true);
    expect(newRS).to.equal(undefined);
    expect(pass.status.collisionCount).to.equal(1);
    expect(pass.aborted).to.equal(true);
    expect(computeHash(d.spec.template, 1)).to.not.equal(computeHash(d.spec.template));
  });
});
