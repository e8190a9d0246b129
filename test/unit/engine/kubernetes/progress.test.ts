import { expect } from 'chai';
import type { DeploymentStatus } from '../../../../src/api/types.ts';
import { newCondition } from '../../../../src/engine/kubernetes/conditions.ts';
import {
  checkPausedConditions,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  replicaFailureCondition,
  requeueStuckDeployment,
  rolloutStatus,
} from '../../../../src/engine/kubernetes/progress.ts';
import { NOW, deployment, iso, replicaSet } from '../fixtures.ts';
import { limitsOf } from '../../../../src/engine/fenceposts.ts';

const at = (hms: string) => Date.parse(`2025-03-01T${hms}Z`);

function progressing(
  reason: string,
  lastUpdate: number,
  status: 'True' | 'False' | 'Unknown' = 'True',
): DeploymentStatus {
  return { conditions: [newCondition('Progressing', status, reason, 'm', lastUpdate)] };
}

describe('engine/progress', () => {
  describe('requeueStuckDeployment: 60 s deadline, last update 18:49:00', () => {
    const rows: Array<[string, number, number | null]> = [
      ['18:49:30 → 30 s', at('18:49:30'), 30],
      ['18:49:59 → 1 s', at('18:49:59'), 1],
      ['18:49:59.001 → 0 (less than a second left)', at('18:49:59.001'), 0],
      ['18:51:00 → 0 (past the deadline)', at('18:51:00'), 0],
    ];
    for (const [name, now, want] of rows) {
      it(name, () => {
        const d = deployment({ progressDeadlineSeconds: 60, replicas: 3 });
        expect(requeueStuckDeployment(d, progressing('ReplicaSetUpdated', at('18:49:00')), now)).to.equal(want);
      });
    }
    const none: Array<[string, Parameters<typeof deployment>[0], DeploymentStatus]> = [
      ['no deadline', { progressDeadlineSeconds: 2147483647 }, progressing('ReplicaSetUpdated', at('18:49:00'))],
      ['no Progressing condition', { progressDeadlineSeconds: 60 }, {}],
      [
        'already timed out',
        { progressDeadlineSeconds: 60 },
        progressing('ProgressDeadlineExceeded', at('18:49:00'), 'False'),
      ],
      [
        'complete',
        { progressDeadlineSeconds: 60, replicas: 0 },
        { observedGeneration: 1, ...progressing('ReplicaSetUpdated', at('18:49:00')) },
      ],
    ];
    for (const [name, opts, status] of none) {
      it(`${name} → null`, () =>
        expect(requeueStuckDeployment(deployment(opts), status, at('18:49:30'))).to.equal(null));
    }
  });

  describe('DeploymentTimedOut (strictly after lastUpdateTime + deadline)', () => {
    const rows: Array<[string, string, number, boolean]> = [
      ['exactly at the deadline', 'ReplicaSetUpdated', at('18:50:00'), false],
      ['a millisecond later', 'ReplicaSetUpdated', at('18:50:00.001'), true],
      ['complete never times out', 'NewReplicaSetAvailable', at('19:50:00'), false],
      ['a timeout stays a timeout', 'ProgressDeadlineExceeded', at('18:49:01'), true],
    ];
    for (const [name, reason, now, want] of rows) {
      it(`${name} → ${want}`, () =>
        expect(
          deploymentTimedOut(deployment({ progressDeadlineSeconds: 60 }), progressing(reason, at('18:49:00')), now),
        ).to.equal(want));
    }
  });

  describe('DeploymentComplete / DeploymentProgressing', () => {
    it('complete needs updated = replicas = available = spec and the generation observed', () => {
      const d = deployment({ replicas: 3, generation: 2 });
      expect(
        deploymentComplete(d, { updatedReplicas: 3, replicas: 3, availableReplicas: 3, observedGeneration: 2 }),
      ).to.equal(true);
      expect(
        deploymentComplete(d, { updatedReplicas: 3, replicas: 3, availableReplicas: 3, observedGeneration: 1 }),
      ).to.equal(false);
      expect(
        deploymentComplete(d, { updatedReplicas: 3, replicas: 4, availableReplicas: 3, observedGeneration: 2 }),
      ).to.equal(false);
    });
    const rows: Array<[string, DeploymentStatus, DeploymentStatus, boolean]> = [
      ['more updated', { replicas: 4, updatedReplicas: 1 }, { replicas: 4, updatedReplicas: 2 }, true],
      ['fewer old', { replicas: 4, updatedReplicas: 2 }, { replicas: 3, updatedReplicas: 2 }, true],
      ['more ready', { readyReplicas: 1 }, { readyReplicas: 2 }, true],
      ['more available', { availableReplicas: 1 }, { availableReplicas: 2 }, true],
      [
        'nothing moved',
        { replicas: 4, updatedReplicas: 2, readyReplicas: 3, availableReplicas: 3 },
        { replicas: 4, updatedReplicas: 2, readyReplicas: 3, availableReplicas: 3 },
        false,
      ],
    ];
    for (const [name, old, next, want] of rows)
      it(`progressing: ${name} → ${want}`, () => expect(deploymentProgressing(old, next)).to.equal(want));
  });

  describe('rolloutStatus (syncRolloutStatus)', () => {
    const d = deployment({ replicas: 2, image: 'v2', progressDeadlineSeconds: 60 });
    it('progress refreshes lastUpdateTime and keeps lastTransitionTime', () => {
      const current: DeploymentStatus = {
        replicas: 2,
        updatedReplicas: 0,
        ...progressing('ReplicaSetUpdated', NOW - 30_000),
      };
      const n = replicaSet('web-new', { replicas: 1, current: 1, available: 0, image: 'v2' });
      const old = replicaSet('web-old', { replicas: 2, image: 'v1' });
      const s = rolloutStatus(d, [old, n], n, current, NOW, limitsOf(d));
      const c = s.conditions!.find((x) => x.type === 'Progressing')!;
      expect([c.reason, c.message, c.lastUpdateTime, c.lastTransitionTime]).to.deep.equal([
        'ReplicaSetUpdated',
        'ReplicaSet "web-new" is progressing.',
        iso(NOW),
        iso(NOW - 30_000),
      ]);
    });
    it('complete: NewReplicaSetAvailable "ReplicaSet ... has successfully progressed."', () => {
      const n = replicaSet('web-new', { replicas: 2, image: 'v2' });
      const s = rolloutStatus(d, [n], n, progressing('ReplicaSetUpdated', NOW - 30_000), NOW, limitsOf(d));
      const c = s.conditions!.find((x) => x.type === 'Progressing')!;
      expect([c.status, c.reason, c.message]).to.deep.equal([
        'True',
        'NewReplicaSetAvailable',
        'ReplicaSet "web-new" has successfully progressed.',
      ]);
    });
    it('no progress past the deadline: ProgressDeadlineExceeded', () => {
      const n = replicaSet('web-new', { replicas: 1, available: 0, image: 'v2' });
      const old = replicaSet('web-old', { replicas: 2, image: 'v1' });
      const current = {
        ...rolloutStatus(d, [old, n], n, {}, NOW, limitsOf(d)),
        ...progressing('ReplicaSetUpdated', NOW - 61_000),
      };
      const s = rolloutStatus(d, [old, n], n, current, NOW, limitsOf(d));
      const c = s.conditions!.find((x) => x.type === 'Progressing')!;
      expect([c.status, c.reason, c.message]).to.deep.equal([
        'False',
        'ProgressDeadlineExceeded',
        'ReplicaSet "web-new" has timed out progressing.',
      ]);
    });
    it('without a deadline there is no Progressing condition', () => {
      const n = replicaSet('web-new', { replicas: 2, image: 'v2' });
      const d2 = deployment({ replicas: 2, image: 'v2', progressDeadlineSeconds: 2147483647 });
      const s = rolloutStatus(d2, [n], n, progressing('ReplicaSetUpdated', NOW), NOW, limitsOf(d2));
      expect(s.conditions!.map((x) => x.type)).to.deep.equal(['Available']);
    });
  });

  describe('ReplicaFailure', () => {
    const failing = (name: string, message: string) => {
      const rs = replicaSet(name, { replicas: 1 });
      rs.status!.conditions = [
        { type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message, lastTransitionTime: iso(NOW) },
      ];
      return rs;
    };
    it("the new ReplicaSet's failure wins over an old one's", () => {
      expect(
        replicaFailureCondition([failing('web-old', 'old'), failing('web-new', 'new')], failing('web-new', 'new'))
          ?.message,
      ).to.equal('new');
    });
    it('otherwise the first found on any ReplicaSet', () => {
      expect(
        replicaFailureCondition(
          [replicaSet('web-x', { replicas: 1 }), failing('web-old', 'old')],
          replicaSet('web-new', { replicas: 1 }),
        )?.message,
      ).to.equal('old');
    });
    it('none: undefined (the condition is removed)', () =>
      expect(replicaFailureCondition([replicaSet('web-x', { replicas: 1 })], undefined)).to.equal(undefined));
  });

  describe('checkPausedConditions', () => {
    const rows: Array<[string, boolean, DeploymentStatus, string | undefined]> = [
      ['paused without a paused condition', true, {}, 'DeploymentPaused'],
      [
        'resumed while the condition says paused',
        false,
        progressing('DeploymentPaused', NOW - 1000, 'Unknown'),
        'DeploymentResumed',
      ],
      [
        'a timeout is not overwritten',
        true,
        progressing('ProgressDeadlineExceeded', NOW - 1000, 'False'),
        'ProgressDeadlineExceeded',
      ],
      ['not paused and never was', false, progressing('ReplicaSetUpdated', NOW - 1000), 'ReplicaSetUpdated'],
    ];
    for (const [name, paused, status, want] of rows) {
      it(`${name} → ${String(want)}`, () => {
        const s = structuredClone(status);
        checkPausedConditions(deployment({ paused }), s, NOW);
        expect(s.conditions?.find((c) => c.type === 'Progressing')?.reason).to.equal(want);
      });
    }
    it('the resumed condition restarts the deadline clock', () => {
      const s = progressing('DeploymentPaused', NOW - 3600_000, 'Unknown');
      checkPausedConditions(deployment(), s, NOW);
      expect(s.conditions![0].lastUpdateTime).to.equal(iso(NOW));
      expect(s.conditions![0].message).to.equal('Deployment is resumed');
    });
  });
});
