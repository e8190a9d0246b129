import { expect } from 'chai';
import type { DeploymentCondition, DeploymentStatus } from '../../../../src/api/types.ts';
import { conditionChangeEvents } from '../../../../src/engine/kubernetes/conditions.ts';
import { decide, onCreateError } from '../../../../src/engine/decide.ts';
import type { ReplicaSet } from '../../../../src/api/types.ts';
import type { Action, Decision, EventRecord, Snapshot } from '../../../../src/engine/types.ts';
import { deployment, next, snapshot, template } from '../fixtures.ts';

function cond(
  type: string,
  status: 'True' | 'False' | 'Unknown',
  reason: string,
  message = `${reason} message`,
): DeploymentCondition {
  return {
    type,
    status,
    reason,
    message,
    lastUpdateTime: '2026-01-01T00:00:00Z',
    lastTransitionTime: '2026-01-01T00:00:00Z',
  };
}
const st = (...conditions: DeploymentCondition[]): DeploymentStatus => ({ conditions });

function statusEvents(d: Decision): EventRecord[] {
  const a = d.actions.find((x): x is Extract<Action, { verb: 'updateStatus' }> => x.verb === 'updateStatus');
  return a?.events ?? [];
}

describe('engine: condition events tell what the scaling events do not', () => {
  const steady = cond('Progressing', 'True', 'NewReplicaSetAvailable');
  const moving = cond('Progressing', 'True', 'ReplicaSetUpdated');
  const up = cond('Available', 'True', 'MinimumReplicasAvailable');
  const down = cond('Available', 'False', 'MinimumReplicasUnavailable');
  const rows: Array<{
    name: string;
    before?: DeploymentStatus;
    after: DeploymentStatus;
    want: Array<[string, string]>;
  }> = [
    {
      name: 'a new Progressing condition True NewReplicaSetCreated → none (the scale-up event of the create tells it)',
      after: st(cond('Progressing', 'True', 'NewReplicaSetCreated')),
      want: [],
    },
    {
      name: 'a new Progressing condition True NewReplicaSetAvailable (adopted pods) → none',
      after: st(steady),
      want: [],
    },
    {
      name: 'a rollout starts (NewReplicaSetAvailable → NewReplicaSetCreated) → none',
      before: st(steady),
      after: st(cond('Progressing', 'True', 'NewReplicaSetCreated')),
      want: [],
    },
    {
      name: 'a rollout moves (NewReplicaSetCreated → ReplicaSetUpdated) → none',
      before: st(cond('Progressing', 'True', 'NewReplicaSetCreated')),
      after: st(moving),
      want: [],
    },
    {
      name: 'an older template comes back (NewReplicaSetAvailable → FoundNewReplicaSet) → none',
      before: st(steady),
      after: st(cond('Progressing', 'True', 'FoundNewReplicaSet')),
      want: [],
    },
    {
      name: 'a rollout ends (ReplicaSetUpdated → NewReplicaSetAvailable) → none, as upstream',
      before: st(moving),
      after: st(steady),
      want: [],
    },
    {
      name: 'the progress deadline → Warning ProgressDeadlineExceeded',
      before: st(moving),
      after: st(cond('Progressing', 'False', 'ProgressDeadlineExceeded')),
      want: [['Warning', 'ProgressDeadlineExceeded']],
    },
    {
      name: 'moving again after the deadline (False ProgressDeadlineExceeded → True ReplicaSetUpdated) → Normal',
      before: st(cond('Progressing', 'False', 'ProgressDeadlineExceeded')),
      after: st(moving),
      want: [['Normal', 'ReplicaSetUpdated']],
    },
    {
      name: 'paused → Normal DeploymentPaused (status Unknown)',
      before: st(steady),
      after: st(cond('Progressing', 'Unknown', 'DeploymentPaused')),
      want: [['Normal', 'DeploymentPaused']],
    },
    {
      name: 'created paused (Progressing appears Unknown DeploymentPaused) → Normal',
      after: st(cond('Progressing', 'Unknown', 'DeploymentPaused')),
      want: [['Normal', 'DeploymentPaused']],
    },
    {
      name: 'moving again after a resume (Unknown DeploymentResumed → True ReplicaSetUpdated) → Normal',
      before: st(cond('Progressing', 'Unknown', 'DeploymentResumed')),
      after: st(moving),
      want: [['Normal', 'ReplicaSetUpdated']],
    },
    {
      name: 'a steady Deployment loses pods (Available True → False, no rollout) → Warning MinimumReplicasUnavailable',
      before: st(up, steady),
      after: st(down, steady),
      want: [['Warning', 'MinimumReplicasUnavailable']],
    },
    {
      name: '… and gets them back (the recovery moves Progressing to ReplicaSetUpdated) → Normal MinimumReplicasAvailable',
      before: st(down, steady),
      after: st(up, moving),
      want: [['Normal', 'MinimumReplicasAvailable']],
    },
    {
      name: "availability lost during a rollout (Recreate's gap, pods lost mid-way) → none: the deadline speaks",
      before: st(up, steady),
      after: st(down, moving),
      want: [],
    },
    {
      name: 'Recreate: the old pods all gone by the write that loses it (Progressing still NewReplicaSetAvailable, as upstream) → none',
      before: { replicas: 10, updatedReplicas: 0, conditions: [up, steady] },
      after: { replicas: 0, updatedReplicas: 0, conditions: [down, steady] },
      want: [],
    },
    { name: '… and regained during it → none', before: st(down, moving), after: st(up, moving), want: [] },
    {
      name: 'a new Deployment: Available appears False → none (no pods yet)',
      after: st(down, cond('Progressing', 'True', 'NewReplicaSetCreated')),
      want: [],
    },
    {
      name: 'a new paused Deployment: Available appears False → none, DeploymentPaused → Normal',
      after: st(down, cond('Progressing', 'Unknown', 'DeploymentPaused')),
      want: [['Normal', 'DeploymentPaused']],
    },
    {
      name: "ReplicaFailure=True from the ReplicaSet → Warning with the ReplicaSet's reason",
      after: st(cond('ReplicaFailure', 'True', 'FailedCreate')),
      want: [['Warning', 'FailedCreate']],
    },
    {
      name: 'InvalidSpec → Warning',
      after: st(cond('InvalidSpec', 'True', 'InvalidSpec')),
      want: [['Warning', 'InvalidSpec']],
    },
    {
      name: 'only the message changed → no event',
      before: st(cond('InvalidSpec', 'True', 'InvalidSpec', 'a')),
      after: st(cond('InvalidSpec', 'True', 'InvalidSpec', 'b')),
      want: [],
    },
    {
      name: 'only the times changed → no event',
      before: st(moving),
      after: st({ ...moving, lastUpdateTime: '2026-01-01T00:05:00Z' }),
      want: [],
    },
    {
      name: 'a condition removed → no event',
      before: st(cond('ReplicaFailure', 'True', 'FailedCreate')),
      after: st(),
      want: [],
    },
    {
      name: 'a condition type Pacer does not announce → no event',
      after: st(cond('Custom', 'True', 'Whatever')),
      want: [],
    },
    {
      name: "two changes → two events in the conditions' order",
      before: st(down, steady, cond('ReplicaFailure', 'True', 'FailedCreate')),
      after: st(up, moving, cond('ReplicaFailure', 'False', 'ReplicaSetCreated')),
      want: [
        ['Normal', 'MinimumReplicasAvailable'],
        ['Normal', 'ReplicaSetCreated'],
      ],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const events = conditionChangeEvents(row.before, row.after);
      expect(events.map((e) => [e.type, e.reason])).to.deep.equal(row.want);
      for (const e of events) {
        const c = row.after.conditions!.find((x) => x.reason === e.reason)!;
        expect(e.message, "the condition's own message").to.equal(c.message);
      }
    });
  }

  /** Every condition event and every scaling event of the passes until nothing is left to do. */
  function run(
    s: Snapshot,
    world?: (rss: readonly ReplicaSet[]) => ReplicaSet[],
  ): { conditions: string[]; scalings: number; progressing: string[]; last: Snapshot } {
    const conditions: string[] = [];
    const progressing: string[] = [];
    let scalings = 0;
    for (let i = 0; i < 30; i++) {
      const d = decide(s);
      if (d.actions.length === 0) break;
      conditions.push(...statusEvents(d).map((e) => `${e.type} ${e.reason}`));
      scalings += d.actions.filter((a) => a.event?.reason === 'ScalingReplicaSet').length;
      const p = d.status.conditions?.find((c) => c.type === 'Progressing')?.reason;
      if (p !== undefined && progressing.at(-1) !== p) progressing.push(p);
      s = next(d, s.now + 1000, world);
    }
    return { conditions, scalings, progressing, last: s };
  }
  const newImage = (s: Snapshot): Snapshot => ({
    ...s,
    deployment: {
      ...s.deployment,
      metadata: { ...s.deployment.metadata, generation: 2 },
      spec: { ...s.deployment.spec, template: template('nginx:2') },
    },
  });

  it('decide(): a new Deployment records its scaling only, though Available goes False → True and Progressing ends NewReplicaSetAvailable', () => {
    const r = run(snapshot(deployment({ replicas: 2 }), []));
    expect(r.conditions).to.deep.equal([]);
    expect(r.scalings).to.equal(1);
    expect(r.progressing.at(-1)).to.equal('NewReplicaSetAvailable');
    expect(decide(r.last).actions).to.deep.equal([]);
  });

  it('decide(): a RollingUpdate rollout records its steps as ScalingReplicaSet events, no condition event', () => {
    const r = run(newImage(run(snapshot(deployment({ replicas: 4 }), [])).last));
    // The status went through every reason; none is an event.
    expect(r.progressing).to.deep.equal(['NewReplicaSetCreated', 'ReplicaSetUpdated', 'NewReplicaSetAvailable']);
    expect(r.conditions).to.deep.equal([]);
    expect(r.scalings, 'every step of the rollout is a ScalingReplicaSet event').to.be.greaterThan(1);
  });

  it("decide(): Recreate's planned gap in availability is no Warning", () => {
    const r = run(newImage(run(snapshot(deployment({ replicas: 3, type: 'Recreate' }), [])).last));
    expect(r.scalings).to.equal(2);
    expect(r.conditions).to.deep.equal([]);
  });

  it('decide(): a steady Deployment that loses pods records the loss and the recovery', () => {
    const steady = run(snapshot(deployment({ replicas: 4 }), [])).last;
    const lose = (rss: readonly ReplicaSet[]): ReplicaSet[] =>
      rss.map((rs) => ({ ...rs, status: { ...rs.status!, readyReplicas: 1, availableReplicas: 1 } }));
    const lost = decide({ ...steady, replicaSets: lose(steady.replicaSets) });
    expect(statusEvents(lost).map((e) => `${e.type} ${e.reason}`)).to.deep.equal([
      'Warning MinimumReplicasUnavailable',
    ]);
    const back = decide(next(lost, steady.now + 1000));
    expect(statusEvents(back).map((e) => `${e.type} ${e.reason}`)).to.deep.equal(['Normal MinimumReplicasAvailable']);
  });

  it('onCreateError: the ReplicaSetCreateError event is recorded once, not again for the condition', () => {
    const d = onCreateError(snapshot(deployment({ replicas: 3 }), []), 'web-x', 'quota exceeded');
    expect(d.events.map((e) => e.reason)).to.deep.equal(['ReplicaSetCreateError']);
    expect(statusEvents(d).map((e) => e.reason)).to.not.include('ReplicaSetCreateError');
  });

  it('an invalid spec: Warning InvalidSpec with the field errors, once', () => {
    const invalid = () => [
      { field: 'spec.replicas', type: 'Invalid' as const, value: -1, detail: 'must be greater than or equal to 0' },
    ];
    const d = decide(snapshot(deployment(), []), { validate: invalid });
    const events = statusEvents(d);
    expect(events).to.have.length(1);
    expect(events[0]).to.deep.include({ type: 'Warning', reason: 'InvalidSpec' });
    expect(events[0].message).to.contain('spec.replicas');
    expect(statusEvents(decide(snapshot(d.objects.deployment, []), { validate: invalid }))).to.deep.equal([]);
  });
});
