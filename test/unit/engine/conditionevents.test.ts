import { expect } from 'chai';
import type { DeploymentCondition, DeploymentStatus } from '../../../src/api/types.ts';
import { conditionChangeEvents } from '../../../src/engine/conditions.ts';
import { decide, onCreateError } from '../../../src/engine/sync.ts';
import type { Action, Decision, EventRecord, Snapshot } from '../../../src/engine/types.ts';
import { deployment, next, snapshot, template } from './fixtures.ts';

function cond(type: string, status: 'True' | 'False' | 'Unknown', reason: string, message = `${reason} message`): DeploymentCondition {
  return { type, status, reason, message, lastUpdateTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' };
}
const st = (...conditions: DeploymentCondition[]): DeploymentStatus => ({ conditions });

function statusEvents(d: Decision): EventRecord[] {
  const a = d.actions.find((x): x is Extract<Action, { verb: 'updateStatus' }> => x.verb === 'updateStatus');
  return a?.events ?? [];
}

describe('engine: an event for every condition change but the steps of a rollout', () => {
  const rows: Array<{ name: string; before?: DeploymentStatus; after: DeploymentStatus; want: Array<[string, string]> }> = [
    { name: 'a new Progressing condition True NewReplicaSetCreated → none (the scale-up event of the create tells it)',
      after: st(cond('Progressing', 'True', 'NewReplicaSetCreated')), want: [] },
    { name: 'a new Progressing condition True NewReplicaSetAvailable → Normal with its reason',
      after: st(cond('Progressing', 'True', 'NewReplicaSetAvailable')), want: [['Normal', 'NewReplicaSetAvailable']] },
    { name: 'a rollout starts (NewReplicaSetAvailable → NewReplicaSetCreated) → none',
      before: st(cond('Progressing', 'True', 'NewReplicaSetAvailable')),
      after: st(cond('Progressing', 'True', 'NewReplicaSetCreated')), want: [] },
    { name: 'a rollout moves (NewReplicaSetCreated → ReplicaSetUpdated) → none',
      before: st(cond('Progressing', 'True', 'NewReplicaSetCreated')),
      after: st(cond('Progressing', 'True', 'ReplicaSetUpdated')), want: [] },
    { name: 'an older template comes back (NewReplicaSetAvailable → FoundNewReplicaSet) → none',
      before: st(cond('Progressing', 'True', 'NewReplicaSetAvailable')),
      after: st(cond('Progressing', 'True', 'FoundNewReplicaSet')), want: [] },
    { name: 'moving again after the deadline (False ProgressDeadlineExceeded → True ReplicaSetUpdated) → Normal',
      before: st(cond('Progressing', 'False', 'ProgressDeadlineExceeded')),
      after: st(cond('Progressing', 'True', 'ReplicaSetUpdated')), want: [['Normal', 'ReplicaSetUpdated']] },
    { name: 'moving again after a resume (Unknown DeploymentResumed → True ReplicaSetUpdated) → Normal',
      before: st(cond('Progressing', 'Unknown', 'DeploymentResumed')),
      after: st(cond('Progressing', 'True', 'ReplicaSetUpdated')), want: [['Normal', 'ReplicaSetUpdated']] },
    { name: 'Available turns False → Warning MinimumReplicasUnavailable',
      before: st(cond('Available', 'True', 'MinimumReplicasAvailable')),
      after: st(cond('Available', 'False', 'MinimumReplicasUnavailable')), want: [['Warning', 'MinimumReplicasUnavailable']] },
    { name: 'same status, new reason (ReplicaSetUpdated → NewReplicaSetAvailable) → Normal',
      before: st(cond('Progressing', 'True', 'ReplicaSetUpdated')),
      after: st(cond('Progressing', 'True', 'NewReplicaSetAvailable')), want: [['Normal', 'NewReplicaSetAvailable']] },
    { name: 'the progress deadline → Warning ProgressDeadlineExceeded',
      before: st(cond('Progressing', 'True', 'ReplicaSetUpdated')),
      after: st(cond('Progressing', 'False', 'ProgressDeadlineExceeded')), want: [['Warning', 'ProgressDeadlineExceeded']] },
    { name: 'paused → Normal DeploymentPaused (status Unknown)',
      before: st(cond('Progressing', 'True', 'NewReplicaSetAvailable')),
      after: st(cond('Progressing', 'Unknown', 'DeploymentPaused')), want: [['Normal', 'DeploymentPaused']] },
    { name: 'ReplicaFailure=True from the ReplicaSet → Warning with the ReplicaSet\'s reason',
      after: st(cond('ReplicaFailure', 'True', 'FailedCreate')), want: [['Warning', 'FailedCreate']] },
    { name: 'InvalidSpec → Warning', after: st(cond('InvalidSpec', 'True', 'InvalidSpec')), want: [['Warning', 'InvalidSpec']] },
    { name: 'only the message changed → no event',
      before: st(cond('InvalidSpec', 'True', 'InvalidSpec', 'a')), after: st(cond('InvalidSpec', 'True', 'InvalidSpec', 'b')), want: [] },
    { name: 'only the times changed → no event',
      before: st(cond('Progressing', 'True', 'ReplicaSetUpdated')),
      after: st({ ...cond('Progressing', 'True', 'ReplicaSetUpdated'), lastUpdateTime: '2026-01-01T00:05:00Z' }), want: [] },
    { name: 'a condition removed → no event', before: st(cond('ReplicaFailure', 'True', 'FailedCreate')), after: st(), want: [] },
    { name: 'a condition type Pacer does not announce → no event', after: st(cond('Custom', 'True', 'Whatever')), want: [] },
    { name: 'two changes → two events in the conditions\' order',
      before: st(cond('Available', 'False', 'MinimumReplicasUnavailable'), cond('Progressing', 'True', 'ReplicaSetUpdated')),
      after: st(cond('Available', 'True', 'MinimumReplicasAvailable'), cond('Progressing', 'True', 'NewReplicaSetAvailable')),
      want: [['Normal', 'MinimumReplicasAvailable'], ['Normal', 'NewReplicaSetAvailable']] },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const events = conditionChangeEvents(row.before, row.after);
      expect(events.map((e) => [e.type, e.reason])).to.deep.equal(row.want);
      for (const e of events) {
        const c = row.after.conditions!.find((x) => x.reason === e.reason)!;
        expect(e.message, 'the condition\'s own message').to.equal(c.message);
      }
    });
  }

  it('decide(): a new Deployment\'s first status write carries its condition events; the next passes theirs', () => {
    let s: Snapshot = snapshot(deployment({ replicas: 2 }), []);
    const perPass: EventRecord[][] = [];
    for (let i = 0; i < 10; i++) {
      const d = decide(s);
      if (d.actions.length === 0) break;
      perPass.push(statusEvents(d));
      s = next(d, s.now + 1000);
    }
    const rsName = s.replicaSets[0].metadata.name!;
    expect(perPass[0]).to.deep.equal([
      { type: 'Warning', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
    ]);
    expect(perPass.flat().slice(1)).to.deep.equal([
      { type: 'Normal', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
      { type: 'Normal', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rsName}" has successfully progressed.` },
    ]);
    // Only the status write carries them: nothing is recorded unless that write succeeds.
    expect(decide(s).actions).to.deep.equal([]);
  });

  it('decide(): a rollout announces its end (NewReplicaSetAvailable) once, its steps only by their ScalingReplicaSet events', () => {
    let s: Snapshot = snapshot(deployment({ replicas: 4 }), []);
    for (let i = 0; i < 10 && decide(s).actions.length > 0; i++) s = next(decide(s), s.now + 1000);
    s = { ...s, deployment: { ...s.deployment, metadata: { ...s.deployment.metadata, generation: 2 }, spec: { ...s.deployment.spec, template: template('nginx:2') } } };
    const reasons: string[] = [];
    const progressing: string[] = [];
    let scalings = 0;
    for (let i = 0; i < 20; i++) {
      const d = decide(s);
      if (d.actions.length === 0) break;
      reasons.push(...statusEvents(d).map((e) => e.reason));
      scalings += d.actions.filter((a) => a.event?.reason === 'ScalingReplicaSet').length;
      const p = d.status.conditions?.find((c) => c.type === 'Progressing')?.reason;
      if (p !== undefined && progressing.at(-1) !== p) progressing.push(p);
      s = next(d, s.now + 1000);
    }
    // The status went through every reason; only the last one is an event.
    expect(progressing).to.deep.equal(['NewReplicaSetCreated', 'ReplicaSetUpdated', 'NewReplicaSetAvailable']);
    expect(reasons).to.deep.equal(['NewReplicaSetAvailable']);
    expect(scalings, 'every step of the rollout is a ScalingReplicaSet event').to.be.greaterThan(1);
  });

  it('onCreateError: the ReplicaSetCreateError event is recorded once, not again for the condition', () => {
    const d = onCreateError(snapshot(deployment({ replicas: 3 }), []), 'web-x', 'quota exceeded');
    expect(d.events.map((e) => e.reason)).to.deep.equal(['ReplicaSetCreateError']);
    expect(statusEvents(d).map((e) => e.reason)).to.not.include('ReplicaSetCreateError');
  });

  it('an invalid spec: Warning InvalidSpec with the field errors, once', () => {
    const invalid = () => [{ field: 'spec.replicas', type: 'Invalid' as const, value: -1, detail: 'must be greater than or equal to 0' }];
    const d = decide(snapshot(deployment(), []), { validate: invalid });
    const events = statusEvents(d);
    expect(events).to.have.length(1);
    expect(events[0]).to.deep.include({ type: 'Warning', reason: 'InvalidSpec' });
    expect(events[0].message).to.contain('spec.replicas');
    expect(statusEvents(decide(snapshot(d.objects.deployment, []), { validate: invalid }))).to.deep.equal([]);
  });
});
