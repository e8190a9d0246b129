import { expect } from 'chai';
import type { Deployment } from '../../../src/api/types.ts';
import { decide } from '../../../src/engine/decide.ts';
import { FREEZE_CONFIGMAP, freezeOf, scalesUpOnly } from '../../../src/engine/freeze.ts';
import type { Freeze } from '../../../src/engine/freeze.ts';
import type { Decision, Snapshot } from '../../../src/engine/types.ts';
import { NOW, deployment, next, replicaSet, summary, template } from './fixtures.ts';

const FROZEN: Freeze = { reason: 'incident 42' };

function withSpec(d: Deployment, spec: Partial<Deployment['spec']>): Deployment {
  return {
    ...d,
    metadata: { ...d.metadata, generation: (d.metadata.generation ?? 1) + 1 },
    spec: { ...d.spec, ...spec },
  };
}
const progressing = (p: Decision) => p.status.conditions?.find((c) => c.type === 'Progressing');

/** A rolling update of 4 (maxSurge 1, maxUnavailable 1) one step in: new 2 (1 available), old 3. */
function midRollout(freeze?: Freeze): Snapshot {
  const d = deployment({
    replicas: 4,
    maxSurge: 1,
    maxUnavailable: 1,
    image: 'nginx:2',
    generation: 2,
    status: {
      observedGeneration: 2,
      replicas: 5,
      updatedReplicas: 2,
      availableReplicas: 4,
      conditions: [
        {
          type: 'Progressing',
          status: 'True',
          reason: 'ReplicaSetUpdated',
          message: 'ReplicaSet "web-new" is progressing.',
          lastUpdateTime: new Date(NOW - 60_000).toISOString(),
          lastTransitionTime: new Date(NOW - 60_000).toISOString(),
        },
      ],
    },
  });
  const old = replicaSet('web-old', { replicas: 3, image: 'nginx:1', revision: 1, desired: 4, max: 5 });
  const fresh = replicaSet('web-new', { replicas: 2, available: 1, image: 'nginx:2', revision: 2, desired: 4, max: 5 });
  return { deployment: d, replicaSets: [old, fresh], pods: [], now: NOW, ...(freeze ? { freeze } : {}) };
}

describe('engine/freeze: the freeze switch holds every new disruption', () => {
  describe('freezeOf: any pacer-freeze ConfigMap freezes', () => {
    const rows: Array<[string, Parameters<typeof freezeOf>[0], Freeze | undefined]> = [
      ['no ConfigMap: not frozen', undefined, undefined],
      [
        'the ConfigMap with a reason',
        { metadata: { name: FREEZE_CONFIGMAP }, data: { reason: 'incident 42', since: '2025-03-01T10:00:00Z' } },
        { reason: 'incident 42', since: '2025-03-01T10:00:00Z' },
      ],
      [
        'the ConfigMap without data: frozen all the same',
        { metadata: { name: FREEZE_CONFIGMAP } },
        { reason: 'no reason given' },
      ],
      [
        'a blank reason',
        { metadata: { name: FREEZE_CONFIGMAP }, data: { reason: '  ' } },
        { reason: 'no reason given' },
      ],
      ['another ConfigMap: not frozen', { metadata: { name: 'other' }, data: { reason: 'x' } }, undefined],
    ];
    for (const [name, cm, want] of rows) it(name, () => expect(freezeOf(cm)).to.deep.equal(want));
  });

  describe('scalesUpOnly: a scaling event the freeze lets through', () => {
    const rows: Array<[string, number, Array<number | undefined>, boolean]> = [
      ['3 → 5 on one ReplicaSet sized for 3', 5, [3], true],
      ['mid-rollout 4 → 6, both sized for 4', 6, [4, 4], true],
      ['5 → 3: a scale-down waits', 3, [5], false],
      ['one sized for 6 (already scaled), one for 4: 6 is not larger than 6', 6, [6, 4], false],
      ['no annotation counts as nothing to take away', 4, [undefined, 3], true],
    ];
    for (const [name, replicas, desired, want] of rows)
      it(name, () => expect(scalesUpOnly(replicas, desired)).to.equal(want));
  });

  describe('a Deployment while frozen', () => {
    it('mid-rollout: no ReplicaSet changes size; Progressing Unknown Frozen with the reason; no deadline requeue', () => {
      const p = decide(midRollout(FROZEN));
      expect(p.actions.filter((a) => a.verb === 'scale' || a.verb === 'create')).to.deep.equal([]);
      expect(progressing(p)).to.deep.include({
        status: 'Unknown',
        reason: 'Frozen',
        message: 'Pacer is frozen (incident 42): nothing new is disrupted until "kubectl pacer freeze off"',
      });
      expect(p.requeueAfterSeconds).to.equal(null);
      const status = p.actions.find((a) => a.verb === 'updateStatus');
      expect(status && status.verb === 'updateStatus' ? status.events?.map((e) => e.reason) : []).to.include('Frozen');
    });

    it('the same rollout unfrozen takes its next step (the row above is the freeze at work)', () => {
      const p = decide(midRollout());
      expect(p.actions.some((a) => a.verb === 'scale')).to.equal(true);
    });

    it('a new template: no new ReplicaSet is created', () => {
      const s = midRollout();
      const steady = {
        ...s,
        replicaSets: [replicaSet('web-old', { replicas: 4, image: 'nginx:1', revision: 1, desired: 4, max: 5 })],
        freeze: FROZEN,
      };
      const p = decide({
        ...steady,
        deployment: withSpec(deployment({ replicas: 4, image: 'nginx:1' }), { template: template('nginx:2') }),
      });
      expect(p.actions.filter((a) => a.verb === 'create' || a.verb === 'scale')).to.deep.equal([]);
      expect(progressing(p)?.reason).to.equal('Frozen');
    });

    it('Recreate: the old ReplicaSet is not scaled down', () => {
      const old = replicaSet('web-old', { replicas: 3, image: 'v1', revision: 1, desired: 3, max: 3 });
      const p = decide({
        deployment: deployment({ replicas: 3, type: 'Recreate', image: 'v2', generation: 2 }),
        replicaSets: [old],
        pods: [],
        now: NOW,
        freeze: FROZEN,
      });
      expect(summary(p).filter((x) => x.startsWith('scale') || x.startsWith('create'))).to.deep.equal([]);
    });

    it('a larger spec.replicas still scales up, proportionally over both ReplicaSets', () => {
      const s = midRollout(FROZEN);
      const p = decide({ ...s, deployment: withSpec(s.deployment, { replicas: 8 }) });
      const ups = p.actions.filter((a) => a.verb === 'scale');
      expect(ups.length).to.be.greaterThan(0);
      for (const a of ups) if (a.verb === 'scale') expect(a.replicas).to.be.greaterThan(a.from);
    });

    it('a smaller spec.replicas waits: nothing is scaled down', () => {
      const s = midRollout(FROZEN);
      const p = decide({ ...s, deployment: withSpec(s.deployment, { replicas: 2 }) });
      expect(p.actions.filter((a) => a.verb === 'scale')).to.deep.equal([]);
    });

    it('a complete Deployment shows nothing of the freeze', () => {
      const rs = replicaSet('web-a', { replicas: 3, revision: 1, desired: 3, max: 4 });
      const d = deployment({
        replicas: 3,
        status: {
          observedGeneration: 1,
          replicas: 3,
          updatedReplicas: 3,
          availableReplicas: 3,
          readyReplicas: 3,
          conditions: [
            {
              type: 'Progressing',
              status: 'True',
              reason: 'NewReplicaSetAvailable',
              message: 'ReplicaSet "web-a" has successfully progressed.',
            },
          ],
        },
      });
      const p = decide({ deployment: d, replicaSets: [rs], pods: [], now: NOW, freeze: FROZEN });
      expect(progressing(p)?.reason).to.equal('NewReplicaSetAvailable');
      expect(p.actions.filter((a) => a.verb === 'scale' || a.verb === 'create')).to.deep.equal([]);
    });

    it('a new reason: the message follows, the transition time stays', () => {
      const first = decide(midRollout(FROZEN));
      const again = decide({ ...next(first, NOW + 5000, (rss) => [...rss]), freeze: { reason: 'change freeze' } });
      expect(progressing(again)?.message).to.contain('(change freeze)');
      expect(progressing(again)?.lastTransitionTime).to.equal(progressing(first)?.lastTransitionTime);
    });

    it('lifted: Progressing Unknown FreezeLifted, and the rollout takes its next step in the same pass', () => {
      const first = decide(midRollout(FROZEN));
      const s = next(first, NOW + 600_000 * 2, (rss) => [...rss]); // frozen for 20 minutes, longer than the deadline
      const p = decide(s);
      expect(p.actions.some((a) => a.verb === 'scale')).to.equal(true);
      const c = progressing(p);
      expect(c?.reason).to.not.equal('ProgressDeadlineExceeded');
      expect(c?.status).to.not.equal('False');
    });
  });
});
