import { expect } from 'chai';
import type { Deployment, ReplicaSet } from '../../../../src/api/types.ts';
import {
  rolloutStartEstimate,
  rolloutStep,
  rolloutView,
} from '../../../../src/controllers/deployment/rolloutmetrics.ts';
import type { InProgress, RolloutView } from '../../../../src/controllers/deployment/rolloutmetrics.ts';

const T = 1_800_000_000_000;

/** A stored state: revision, Progressing status/reason, and old pods still running. */
function v(revision: string, progressing?: string, oldReplicas = 0, lastUpdateTime = 't1'): RolloutView {
  if (!progressing) return { revision, oldReplicas };
  const [status, reason] = progressing.split('/');
  return { revision, progressing: { status, reason, lastUpdateTime }, oldReplicas };
}

describe('controllers/deployment/rolloutmetrics: when a rollout starts and how it ends', () => {
  const rows: Array<{
    name: string;
    current?: InProgress;
    before?: RolloutView;
    after: RolloutView;
    inProgress?: InProgress;
    ended?: Array<[string, string, number | undefined]>;
  }> = [
    { name: 'a new Deployment: no revision yet → nothing', after: v(''), inProgress: undefined, ended: [] },
    {
      name: 'the controller writes revision 1 → rollout 1 starts now',
      before: v(''),
      after: v('1'),
      inProgress: { revision: '1', startedAt: T },
    },
    {
      name: 'a new template: revision 1 → 2 while complete → rollout 2 starts (Progressing unchanged is no end)',
      current: undefined,
      before: v('1', 'True/NewReplicaSetAvailable'),
      after: v('2', 'True/NewReplicaSetAvailable'),
      inProgress: { revision: '2', startedAt: T },
    },
    {
      name: 'the status write after it: NewReplicaSetCreated → still rolling',
      current: { revision: '2', startedAt: T - 1000 },
      before: v('2', 'True/NewReplicaSetAvailable'),
      after: v('2', 'True/NewReplicaSetCreated', 3, 't2'),
      inProgress: { revision: '2', startedAt: T - 1000 },
    },
    {
      name: 'Progressing turns NewReplicaSetAvailable → complete',
      current: { revision: '2', startedAt: T - 60_000 },
      before: v('2', 'True/ReplicaSetUpdated', 1),
      after: v('2', 'True/NewReplicaSetAvailable', 0, 't3'),
      ended: [['complete', '2', T - 60_000]],
    },
    {
      name: 'Progressing turns False/ProgressDeadlineExceeded → deadline_exceeded',
      current: { revision: '2', startedAt: T - 600_000 },
      before: v('2', 'True/ReplicaSetUpdated', 2),
      after: v('2', 'False/ProgressDeadlineExceeded', 2, 't3'),
      ended: [['deadline_exceeded', '2', T - 600_000]],
    },
    {
      name: 'a newer revision before the end → the old one superseded, the new one starts',
      current: { revision: '2', startedAt: T - 5000 },
      before: v('2', 'True/ReplicaSetUpdated', 2),
      after: v('3', 'True/ReplicaSetUpdated', 2),
      inProgress: { revision: '3', startedAt: T },
      ended: [['superseded', '2', T - 5000]],
    },
    {
      name: 'a newer revision after a missed deadline → only the new start (one outcome per rollout)',
      current: undefined,
      before: v('2', 'False/ProgressDeadlineExceeded', 2),
      after: v('3', 'False/ProgressDeadlineExceeded', 2),
      inProgress: { revision: '3', startedAt: T },
    },
    {
      name: 'recovering after a missed deadline is not counted again',
      current: undefined,
      before: v('2', 'False/ProgressDeadlineExceeded', 1),
      after: v('2', 'True/NewReplicaSetAvailable', 0, 't4'),
    },
    {
      name: 'a scale-up of a finished Deployment (ReplicaSetUpdated → NewReplicaSetAvailable) is no rollout',
      current: undefined,
      before: v('2', 'True/ReplicaSetUpdated'),
      after: v('2', 'True/NewReplicaSetAvailable', 0, 't5'),
    },
    {
      name: 'paused mid-rollout → still in progress',
      current: { revision: '2', startedAt: T - 1 },
      before: v('2', 'True/ReplicaSetUpdated', 2),
      after: v('2', 'Unknown/DeploymentPaused', 2),
      inProgress: { revision: '2', startedAt: T - 1 },
    },
    {
      name: 'a complete rollout written again (same condition) → no second end',
      current: undefined,
      before: v('2', 'True/NewReplicaSetAvailable'),
      after: v('2', 'True/NewReplicaSetAvailable'),
    },
    {
      name: 'first seen after a restart with old pods running → in progress, start unknown',
      after: v('4', 'True/ReplicaSetUpdated', 2),
      inProgress: { revision: '4' },
    },
    {
      name: 'first seen after a restart with the new ReplicaSet just created → in progress, start unknown',
      after: v('4', 'True/NewReplicaSetCreated', 0),
      inProgress: { revision: '4' },
    },
    { name: 'first seen after a restart, finished → nothing', after: v('4', 'True/NewReplicaSetAvailable') },
    {
      name: 'first seen after a restart, paused with no old pods → nothing',
      after: v('4', 'Unknown/DeploymentPaused'),
    },
    {
      name: 'after a restart the end is still counted, with the start unknown',
      current: { revision: '4' },
      before: v('4', 'True/ReplicaSetUpdated', 1),
      after: v('4', 'True/NewReplicaSetAvailable', 0, 't9'),
      ended: [['complete', '4', undefined]],
    },
    {
      name: 'revision and terminal status in one change (a relist gap) → starts and completes at once',
      current: { revision: '2', startedAt: T - 10 },
      before: v('2', 'True/ReplicaSetUpdated', 1),
      after: v('3', 'True/NewReplicaSetAvailable', 0, 't8'),
      ended: [
        ['superseded', '2', T - 10],
        ['complete', '3', T],
      ],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const step = rolloutStep(row.current, row.before, row.after, T);
      expect(step.inProgress).to.deep.equal(row.inProgress);
      expect(step.ended.map((e) => [e.result, e.revision, e.startedAt])).to.deep.equal(row.ended ?? []);
    });
  }

  it('rolloutView reads the revision annotation, Progressing and the old pods', () => {
    const d: Deployment = {
      metadata: { name: 'web', annotations: { 'pacer.dev/revision': '7' } },
      spec: { selector: {}, template: {} },
      status: {
        replicas: 5,
        updatedReplicas: 3,
        conditions: [{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', lastUpdateTime: 'x' }],
      },
    } as Deployment;
    expect(rolloutView(d)).to.deep.equal({
      revision: '7',
      progressing: { status: 'True', reason: 'ReplicaSetUpdated', lastUpdateTime: 'x' },
      oldReplicas: 2,
    });
  });

  describe('the start of a rollout the controller did not see (after a restart)', () => {
    const dep = (p?: { status: 'True' | 'False'; lastTransitionTime: string }): Deployment =>
      ({
        metadata: { name: 'web' },
        spec: { selector: {}, template: {} },
        status: p ? { conditions: [{ type: 'Progressing', reason: 'ReplicaSetUpdated', ...p }] } : {},
      }) as Deployment;
    const rs = (created: string): ReplicaSet =>
      ({ metadata: { name: 'web-x', creationTimestamp: created }, spec: { selector: {} } }) as ReplicaSet;
    const rows: Array<[string, Deployment, ReplicaSet | undefined, string | undefined]> = [
      [
        "a new template: the new ReplicaSet's creation (Progressing went True long before)",
        dep({ status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }),
        rs('2026-05-01T10:00:00Z'),
        '2026-05-01T10:00:00.000Z',
      ],
      [
        "a rollback to a kept ReplicaSet after a missed deadline: Progressing's transition to True",
        dep({ status: 'True', lastTransitionTime: '2026-05-01T11:00:00Z' }),
        rs('2026-02-01T00:00:00Z'),
        '2026-05-01T11:00:00.000Z',
      ],
      [
        'Progressing False: only the ReplicaSet counts',
        dep({ status: 'False', lastTransitionTime: '2026-05-01T11:00:00Z' }),
        rs('2026-05-01T10:00:00Z'),
        '2026-05-01T10:00:00.000Z',
      ],
      ['nothing known → no estimate (counted without a duration)', dep(), undefined, undefined],
    ];
    for (const [name, d, r, want] of rows) {
      it(name, () => {
        const got = rolloutStartEstimate(d, r);
        expect(got === undefined ? undefined : new Date(got).toISOString()).to.equal(want);
      });
    }
  });
});
