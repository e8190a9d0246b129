import { expect } from 'chai';
import { rolloutStatus, parseRevisionFlag } from '../../../src/plugin/status.ts';
import type { DeploymentStatus } from '../../../src/api/types.ts';
import { deployment } from './fixtures.ts';

const progressing = (reason: string) => ({
  type: 'Progressing',
  status: reason === 'ProgressDeadlineExceeded' ? ('False' as const) : ('True' as const),
  reason,
});

describe('plugin/status: kubectl rollout status messages', () => {
  // [case, generation, status, --revision, annotations, message, done, error]
  const rows: Array<
    [string, number, DeploymentStatus, number, Record<string, string> | undefined, string, boolean, string | undefined]
  > = [
    [
      'a spec change not yet observed',
      2,
      { observedGeneration: 1, replicas: 3, updatedReplicas: 3, availableReplicas: 3 },
      0,
      undefined,
      'Waiting for deployment spec update to be observed...\n',
      false,
      undefined,
    ],
    [
      '2 of 3 updated',
      1,
      { observedGeneration: 1, replicas: 3, updatedReplicas: 2, availableReplicas: 2 },
      0,
      undefined,
      'Waiting for deployment "web" rollout to finish: 2 out of 3 new replicas have been updated...\n',
      false,
      undefined,
    ],
    [
      'old replicas pending termination',
      1,
      { observedGeneration: 1, replicas: 4, updatedReplicas: 3, availableReplicas: 3 },
      0,
      undefined,
      'Waiting for deployment "web" rollout to finish: 1 old replicas are pending termination...\n',
      false,
      undefined,
    ],
    [
      'updated replicas not yet available',
      1,
      { observedGeneration: 1, replicas: 3, updatedReplicas: 3, availableReplicas: 2 },
      0,
      undefined,
      'Waiting for deployment "web" rollout to finish: 2 of 3 updated replicas are available...\n',
      false,
      undefined,
    ],
    [
      'done',
      1,
      {
        observedGeneration: 1,
        replicas: 3,
        updatedReplicas: 3,
        availableReplicas: 3,
        conditions: [progressing('NewReplicaSetAvailable')],
      },
      0,
      undefined,
      'deployment "web" successfully rolled out\n',
      true,
      undefined,
    ],
    [
      'progress deadline exceeded: an error, before the counts',
      1,
      {
        observedGeneration: 1,
        replicas: 3,
        updatedReplicas: 1,
        availableReplicas: 0,
        conditions: [progressing('ProgressDeadlineExceeded')],
      },
      0,
      undefined,
      '',
      false,
      'deployment "web" exceeded its progress deadline',
    ],
    [
      'the unobserved generation wins over the deadline',
      2,
      { observedGeneration: 1, conditions: [progressing('ProgressDeadlineExceeded')] },
      0,
      undefined,
      'Waiting for deployment spec update to be observed...\n',
      false,
      undefined,
    ],
    [
      '--revision matches',
      1,
      { observedGeneration: 1, replicas: 3, updatedReplicas: 3, availableReplicas: 3 },
      2,
      { 'pacer.dev/revision': '2' },
      'deployment "web" successfully rolled out\n',
      true,
      undefined,
    ],
    [
      '--revision differs: an error first',
      2,
      { observedGeneration: 1 },
      3,
      { 'pacer.dev/revision': '2' },
      '',
      false,
      'desired revision (3) is different from the running revision (2)',
    ],
  ];
  for (const [name, generation, status, revision, annotations, message, done, error] of rows) {
    it(name, () => {
      const d = deployment('web', { generation, status, ...(annotations ? { annotations } : {}) });
      const got = rolloutStatus(d, revision);
      expect(got.message).to.equal(message);
      expect(got.done).to.equal(done);
      expect(got.error).to.equal(error);
    });
  }

  it('spec.replicas defaults to 1 when absent', () => {
    const d = deployment('web', {
      status: { observedGeneration: 1, replicas: 0, updatedReplicas: 0, availableReplicas: 0 },
    });
    delete d.spec.replicas;
    expect(rolloutStatus(d).message).to.equal(
      'Waiting for deployment "web" rollout to finish: 0 out of 1 new replicas have been updated...\n',
    );
  });

  it('--revision: a negative value is refused, a non-number is a flag error', () => {
    expect(parseRevisionFlag('4')).to.equal(4);
    expect(parseRevisionFlag(undefined)).to.equal(0);
    expect(() => parseRevisionFlag('-1')).to.throw('revision must be a positive integer: -1');
    expect(() => parseRevisionFlag('x')).to.throw('invalid argument "x" for "--revision" flag');
  });
});
