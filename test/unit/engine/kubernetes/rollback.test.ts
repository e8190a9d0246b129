import { expect } from 'chai';
import {
  findRollbackTarget,
  rollbackAnnotations,
  templateWithoutHash,
  ROLLBACK_MESSAGES,
} from '../../../../src/engine/kubernetes/rollback.ts';
import { replicaSet } from '../fixtures.ts';

describe('engine/rollback', () => {
  const rss = [
    replicaSet('web-a', { replicas: 0, revision: 1 }),
    replicaSet('web-c', { replicas: 3, revision: 3 }),
    replicaSet('web-b', { replicas: 0, revision: 2 }),
    replicaSet('web-x', { replicas: 0, revision: 'x' }),
  ];
  const rows: Array<[string, number, string | RegExp]> = [
    ['default: the second-highest revision', 0, 'web-b'],
    ['--to-revision=1', 1, 'web-a'],
    ['--to-revision=3 (the current one)', 3, 'web-c'],
    ['a revision not in history', 9, /^unable to find specified revision 9 in history$/],
    ['a negative revision', -1, /^unable to find specified revision -1 in history$/],
  ];
  for (const [name, to, want] of rows) {
    it(`${name} → ${String(want)}`, () => {
      if (typeof want === 'string') expect(findRollbackTarget('web', rss, to).metadata.name).to.equal(want);
      else expect(() => findRollbackTarget('web', rss, to)).to.throw(want);
    });
  }
  it('no history: an error naming the deployment', () => {
    expect(() => findRollbackTarget('web', [replicaSet('web-a', { replicas: 1, revision: 1 })])).to.throw(
      'no rollout history found for deployment "web"',
    );
  });
  it("the Deployment keeps its own skip-listed annotations and takes the target's others", () => {
    expect(
      rollbackAnnotations(
        {
          'pacer.dev/revision': '3',
          'kubectl.kubernetes.io/last-applied-configuration': '{}',
          'kubernetes.io/change-cause': 'v3',
          team: 'a',
        },
        { 'pacer.dev/revision': '1', 'pacer.dev/desired-replicas': '3', 'kubernetes.io/change-cause': 'v1' },
      ),
    ).to.deep.equal({
      'pacer.dev/revision': '3',
      'kubectl.kubernetes.io/last-applied-configuration': '{}',
      'kubernetes.io/change-cause': 'v1',
    });
  });
  it('the restored template has no pod-template-hash label', () => {
    const rs = replicaSet('web-a', { replicas: 1 });
    expect(templateWithoutHash(rs.spec.template).metadata!.labels).to.deep.equal({ app: 'web' });
    expect(rs.spec.template!.metadata!.labels!['pod-template-hash']).to.equal('a');
  });
  it("kubectl's messages", () => {
    expect(ROLLBACK_MESSAGES.skipped('web', 0)).to.equal(
      'deployment.apps/web skipped rollback (current template already matches revision 0)',
    );
    expect(ROLLBACK_MESSAGES.rolledBack('web')).to.equal('deployment.apps/web rolled back');
  });
});
