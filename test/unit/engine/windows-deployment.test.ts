// A Deployment that opts in to maintenance windows (spec.windows, docs/semantics/windows.md#deployments):
// a rollout waits for its window (Progressing Unknown OutsideWindow, the next opening in the message,
// the pass looking again then), its progress deadline not running meanwhile; scaling is not held;
// once the window opens the rollout goes on (WindowOpened) with its deadline from then. The clock is
// the snapshot's. A Deployment without windows is what every other engine test checks, unchanged.

import { expect } from 'chai';
import type { Deployment } from '../../../src/api/types.ts';
import type { WindowsSpec } from '../../../src/api/windows.ts';
import { decide } from '../../../src/engine/decide.ts';
import type { Decision, Snapshot } from '../../../src/engine/types.ts';
import { NOW, deployment, next, replicaSet, summary } from './fixtures.ts';

/** Every day from 10:01 UTC, for an hour: NOW (10:00 UTC) is one minute before it opens. */
const AT_10_01: WindowsSpec = { windows: [{ start: '10:01', duration: '1h' }] };
const OPENS = NOW + 60_000;
const MESSAGE =
  'Deployment waits for a maintenance window: outside its maintenance windows: the next window opens at 2025-03-01T10:01:00Z';

const progressing = (p: Decision) => p.status.conditions?.find((c) => c.type === 'Progressing');
const sizes = (p: Decision) => summary(p).filter((x) => x.startsWith('scale') || x.startsWith('create'));
const conditionEvents = (p: Decision) =>
  p.actions.flatMap((a) => (a.verb === 'updateStatus' ? (a.events ?? []).map((e) => e.reason) : []));

function withWindows(d: Deployment, w: WindowsSpec = AT_10_01): Deployment {
  return { ...d, spec: { ...d.spec, ...w } };
}

/** A steady Deployment of 4 on nginx:1, given a new template (nginx:2), with `windows`. */
function newTemplate(w: WindowsSpec = AT_10_01, type: 'RollingUpdate' | 'Recreate' = 'RollingUpdate'): Snapshot {
  const d = deployment({
    replicas: 4,
    type,
    image: 'nginx:2',
    generation: 2,
    status: {
      observedGeneration: 1,
      replicas: 4,
      updatedReplicas: 4,
      availableReplicas: 4,
      conditions: [
        {
          type: 'Progressing',
          status: 'True',
          reason: 'NewReplicaSetAvailable',
          message: 'ReplicaSet "web-old" has successfully progressed.',
          lastUpdateTime: new Date(NOW - 3_600_000).toISOString(),
          lastTransitionTime: new Date(NOW - 3_600_000).toISOString(),
        },
      ],
    },
  });
  const old = replicaSet('web-old', { replicas: 4, image: 'nginx:1', revision: 1, desired: 4, max: 5 });
  return { deployment: withWindows(d, w), replicaSets: [old], pods: [], now: NOW };
}

describe('engine/windows: a Deployment with spec.windows', () => {
  it('a new template outside its window: no ReplicaSet created or scaled; Progressing Unknown OutsideWindow; looks again at the opening', () => {
    const p = decide(newTemplate());
    expect(sizes(p)).to.deep.equal([]);
    expect(progressing(p)).to.deep.include({ status: 'Unknown', reason: 'OutsideWindow', message: MESSAGE });
    expect(p.requeueAfterSeconds).to.equal(60);
    expect(conditionEvents(p)).to.include('OutsideWindow');
  });

  it('the same Deployment without windows starts its rollout at once (the row above is the window at work)', () => {
    const s = newTemplate({});
    const p = decide(s);
    expect(sizes(p).some((x) => x.startsWith('create'))).to.equal(true);
  });

  it('held for hours past its progress deadline: not timed out; once the window opens the rollout goes on, its deadline from then, and completes', () => {
    let p = decide(newTemplate());
    // Two passes later, still outside, long after the 600 s deadline would have passed.
    const outside = decide({ ...next(p, NOW + 30_000), now: NOW + 30_000 });
    expect(progressing(outside)?.reason).to.equal('OutsideWindow');
    const yesterday = newTemplate();
    const held = decide({ ...yesterday, now: OPENS - 3_600_000 * 20 });
    expect(progressing(held)?.reason).to.equal('OutsideWindow');
    p = decide({ ...next(held, OPENS), now: OPENS });
    expect(sizes(p).some((x) => x.startsWith('create'))).to.equal(true);
    // The new ReplicaSet's creation is progress (upstream's NewReplicaSetCreated): the deadline runs from the opening.
    expect(progressing(p)).to.deep.include({
      status: 'True',
      reason: 'NewReplicaSetCreated',
      lastUpdateTime: new Date(OPENS).toISOString(),
    });
    let now = OPENS;
    for (let i = 0; i < 20 && progressing(p)?.reason !== 'NewReplicaSetAvailable'; i++)
      p = decide(next(p, (now += 5_000)));
    expect(progressing(p)?.reason).to.equal('NewReplicaSetAvailable');
  });

  it('the window closes mid-rollout: no further step; the pods already asked for are left as they are', () => {
    const d = deployment({ replicas: 4, maxSurge: 1, maxUnavailable: 1, image: 'nginx:2', generation: 2 });
    const old = replicaSet('web-old', { replicas: 3, image: 'nginx:1', revision: 1, desired: 4, max: 5 });
    const fresh = replicaSet('web-new', { replicas: 2, image: 'nginx:2', revision: 2, desired: 4, max: 5 });
    const s: Snapshot = { deployment: d, replicaSets: [old, fresh], pods: [], now: NOW };
    expect(sizes(decide(s)).length, 'inside (no windows): a step').to.be.greaterThan(0);
    const p = decide({ ...s, deployment: withWindows(d) });
    expect(sizes(p)).to.deep.equal([]);
    expect(progressing(p)?.reason).to.equal('OutsideWindow');
    // Opened: the next step, and Progressing says so (WindowOpened), the deadline counted from now.
    const opened = decide({ ...s, deployment: p.objects.deployment, now: OPENS });
    expect(sizes(opened).length).to.be.greaterThan(0);
    expect(progressing(opened)).to.deep.include({
      status: 'Unknown',
      reason: 'WindowOpened',
      message: 'A maintenance window is open: the rollout goes on',
      lastUpdateTime: new Date(OPENS).toISOString(),
    });
  });

  it('Recreate outside its window: the old ReplicaSet is not scaled down', () => {
    const p = decide(newTemplate(AT_10_01, 'Recreate'));
    expect(sizes(p)).to.deep.equal([]);
    expect(progressing(p)?.reason).to.equal('OutsideWindow');
  });

  it('scaling is not held: a larger and a smaller spec.replicas are carried out outside the window', () => {
    const steady = replicaSet('web-old', { replicas: 4, image: 'nginx:1', revision: 1, desired: 4, max: 5 });
    for (const replicas of [6, 2]) {
      const d = withWindows(deployment({ replicas, image: 'nginx:1', generation: 2 }));
      const p = decide({ deployment: d, replicaSets: [steady], pods: [], now: NOW });
      expect(sizes(p)).to.deep.equal([`scale web-old 4->${replicas}`]);
      expect(progressing(p)?.reason, 'no rollout is held: no OutsideWindow').to.not.equal('OutsideWindow');
    }
  });

  it('a complete Deployment outside its window: nothing is held, nothing said, no requeue for the window', () => {
    const d = withWindows(
      deployment({
        replicas: 4,
        image: 'nginx:1',
        status: {
          observedGeneration: 1,
          replicas: 4,
          updatedReplicas: 4,
          availableReplicas: 4,
          readyReplicas: 4,
          conditions: [
            {
              type: 'Progressing',
              status: 'True',
              reason: 'NewReplicaSetAvailable',
              message: 'ReplicaSet "web-old" has successfully progressed.',
              lastUpdateTime: new Date(NOW - 60_000).toISOString(),
              lastTransitionTime: new Date(NOW - 60_000).toISOString(),
            },
          ],
        },
      }),
    );
    const rs = replicaSet('web-old', { replicas: 4, image: 'nginx:1', revision: 1, desired: 4, max: 5 });
    const p = decide({ deployment: d, replicaSets: [rs], pods: [], now: NOW });
    expect(progressing(p)?.reason).to.equal('NewReplicaSetAvailable');
    expect(p.requeueAfterSeconds ?? null).to.equal(null);
  });

  it('a blackout holds a Deployment without windows, and is named', () => {
    const p = decide(
      newTemplate({ blackouts: [{ start: '2025-03-01', end: '2025-03-02', reason: 'release freeze' }] }),
    );
    expect(sizes(p)).to.deep.equal([]);
    expect(progressing(p)?.message).to.equal(
      'Deployment waits for a maintenance window: blackout 2025-03-01 to 2025-03-02 (release freeze): the next window opens at 2025-03-03T00:00:00Z',
    );
    expect(p.requeueAfterSeconds).to.equal(2 * 86_400 - 10 * 3600);
  });

  it('paused outside its window: the pause speaks (DeploymentPaused), not the window', () => {
    const s = newTemplate();
    const p = decide({ ...s, deployment: { ...s.deployment, spec: { ...s.deployment.spec, paused: true } } });
    expect(progressing(p)?.reason).to.equal('DeploymentPaused');
  });

  it('an invalid window: InvalidSpec with the field path, nothing done', () => {
    const s = newTemplate({ windows: [{ start: '10:00', duration: '1h', timeZone: 'Mars/Olympus' }] });
    const p = decide(s);
    expect(sizes(p)).to.deep.equal([]);
    expect(p.status.conditions?.find((c) => c.type === 'InvalidSpec')?.message).to.equal(
      'spec.windows[0].timeZone: Invalid value: "Mars/Olympus": unknown time zone: must be a name of the IANA time zone database, such as "Europe/Berlin" or "UTC"',
    );
  });
});
