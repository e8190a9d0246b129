// The plan gate on a rollout, pass by pass through decide(): the new and old ReplicaSets' sizes
// after each pass (every pod available by the next one). The cases: a serial-canary rollout
// of 4 waits with 0 new pods until continue, runs one, waits, and after the second continue
// finishes one pod at a time; parallel-canary releases the rest at once; serial replaces one pod at
// a time; a held rollout keeps its old pods.

import { expect } from 'chai';
import type { Deployment, DeploymentPlanSpec, ReplicaSet } from '../../../../src/api/types.ts';
import { decide } from '../../../../src/engine/decide.ts';
import {
  PLAN_INTERRUPTED_ANNOTATION,
  PLAN_STATE_ANNOTATION,
  parsePlanState,
} from '../../../../src/engine/dcos/gate.ts';
import type { Snapshot } from '../../../../src/engine/types.ts';
import { deployment, next, replicaSet, settle, snapshot, summary, template } from '../fixtures.ts';

function settled(
  plan: DeploymentPlanSpec | undefined,
  o: { type?: 'RollingUpdate' | 'Recreate'; maxSurge?: number; maxUnavailable?: number } = {},
): Snapshot {
  let s = snapshot(
    deployment({ replicas: 4, type: o.type, maxSurge: o.maxSurge ?? 1, maxUnavailable: o.maxUnavailable ?? 1 }),
    [],
  );
  for (let i = 0; i < 10 && decide(s).actions.length > 0; i++) s = next(decide(s), s.now + 1000);
  const d = s.deployment;
  return {
    ...s,
    deployment: {
      ...d,
      metadata: { ...d.metadata, generation: 2 },
      spec: { ...d.spec, template: template('nginx:2'), ...(plan ? { plan } : {}) },
    },
  };
}

/** "new/old": the newest ReplicaSet's size and the others' sum. */
function sizes(s: Snapshot): string {
  const rss = s.replicaSets;
  if (rss.length === 0) return '0/0';
  const rev = (r: (typeof rss)[number]) => Number(r.metadata.annotations?.['pacer.dev/revision'] ?? '0');
  const newest = rss.reduce((a, b) => (rev(a) >= rev(b) ? a : b));
  const old = rss.filter((r) => r !== newest).reduce((n, r) => n + (r.spec.replicas ?? 0), 0);
  return `${newest.spec.replicas}/${old}`;
}

/** Every pod available by the next pass, but those of revision 2 never (a pod that will never be ready). */
const neverReady = (rss: readonly ReplicaSet[]): ReplicaSet[] =>
  settle(rss).map((r) =>
    r.metadata.annotations?.['pacer.dev/revision'] === '2'
      ? { ...r, status: { ...r.status!, readyReplicas: 0, availableReplicas: 0 } }
      : r,
  );

/** Passes until nothing is left to do (or `max`); the sizes each time they change. */
function run(
  s: Snapshot,
  max = 20,
  world?: (rss: readonly ReplicaSet[]) => ReplicaSet[],
): { trace: string[]; last: Snapshot } {
  const trace: string[] = [];
  let before = sizes(s);
  for (let i = 0; i < max; i++) {
    const d = decide(s);
    if (d.actions.length === 0) break;
    s = next(d, s.now + 1000, world);
    const line = sizes(s);
    if (line !== before) trace.push(line);
    before = line;
  }
  return { trace, last: s };
}

/** The operator's continue (or interrupt) as the plugin writes it: the state annotation. */
function withState(
  s: Snapshot,
  state: { proceeds?: number; interrupted?: boolean; planInterrupted?: boolean; forced?: number[] },
): Snapshot {
  const d: Deployment = s.deployment;
  const { planInterrupted, ...phase } = state;
  const value = JSON.stringify({ revision: 2, proceeds: 0, interrupted: false, ...phase });
  const annotations: Record<string, string> = { ...d.metadata.annotations, [PLAN_STATE_ANNOTATION]: value };
  if (planInterrupted) annotations[PLAN_INTERRUPTED_ANNOTATION] = 'true';
  else delete annotations[PLAN_INTERRUPTED_ANNOTATION];
  return { ...s, deployment: { ...d, metadata: { ...d.metadata, annotations } } };
}

describe('plans: the gate on a rollout (spec.plan)', () => {
  it('no spec.plan: RollingUpdate as always (new/old per pass)', () => {});

  it('serial: one new pod at a time, each replacing one old pod', () => {});

  it('serial with maxSurge 2: the surge is not used past one step in flight', () => {});

  it('serial-canary of 4: 0 new pods and every old one until continue; one; a wait; then one at a time', () => {
    const start = settled({ strategy: 'serial-canary' });
    const held = run(start);
    expect(held.trace).to.deep.equal(['0/4']);
    const one = run(withState(held.last, { proceeds: 1 }));
    expect(one.trace).to.deep.equal(['1/4', '1/3']);
    expect(run(one.last).trace, 'waits again').to.deep.equal([]);
    expect(run(withState(one.last, { proceeds: 2 })).trace).to.deep.equal(['2/3', '2/1', '3/1', '4/1', '4/0']);
  });

  it('parallel-canary of 4: after the second continue the rest at once (within the rollout budget)', () => {
    const one = run(
      withState(run(settled({ strategy: 'parallel-canary' }, { maxSurge: 4, maxUnavailable: 0 })).last, {
        proceeds: 1,
      }),
    );
    expect(one.trace).to.deep.equal(['1/4', '1/3']);
    expect(run(withState(one.last, { proceeds: 2 })).trace).to.deep.equal(['4/3', '4/0']);
  });

  it('requiredProceeds 1: one continue releases the canary', () => {
    const held = run(settled({ strategy: 'serial-canary', requiredProceeds: 1 }));
    expect(held.trace).to.deep.equal(['0/4']);
    expect(run(withState(held.last, { proceeds: 1 })).trace).to.deep.equal(['1/4', '1/2', '2/2', '3/2', '3/0', '4/0']);
  });

  it('an interrupted phase starts no new pod; in-flight ones carry on; continue resumes', () => {
    const s = run(settled({ strategy: 'serial' }), 1).last; // 1/3 on the way
    const held = run(withState(s, { interrupted: true }));
    expect(held.trace).to.deep.equal([]);
    expect(run(withState(held.last, { interrupted: false })).trace).to.deep.equal(['2/3', '2/1', '3/1', '4/1', '4/0']);
  });

  it('an interrupted plan holds a parallel phase too, until continued; a new rollout stays held (stop)', () => {
    const stopped = withState(settled({ strategy: 'parallel' }), { planInterrupted: true });
    expect(run(stopped).trace, 'a rollout started while the plan is interrupted: no new pod').to.deep.equal(['0/4']);
    const s = run(settled({ strategy: 'parallel' }), 1).last;
    const held = run(withState(s, { planInterrupted: true }));
    expect(held.trace).to.deep.equal([]);
    expect(run(withState(held.last, { planInterrupted: false })).trace).to.deep.equal(['2/3', '2/1', '4/1', '4/0']);
  });

  it("state given to another revision is not this rollout's", () => {
    const s = withState(settled({ strategy: 'serial-canary' }), { proceeds: 2 });
    const stale = {
      ...s,
      deployment: {
        ...s.deployment,
        metadata: {
          ...s.deployment.metadata,
          annotations: {
            ...s.deployment.metadata.annotations,
            [PLAN_STATE_ANNOTATION]: JSON.stringify({ revision: 1, proceeds: 2 }),
          },
        },
      },
    };
    expect(run(stale).trace).to.deep.equal(['0/4']);
  });

  it('Recreate with serial: old pods go, then the new ones start one at a time', () => {
    expect(run(settled({ strategy: 'serial' }, { type: 'Recreate' })).trace).to.deep.equal([
      '0/0',
      '1/0',
      '2/0',
      '3/0',
      '4/0',
    ]);
  });

  it('waiting for an operator is not a stuck rollout: Progressing Unknown PlanWaiting, no deadline; continue restarts the clock', () => {
    const progressing = (x: Snapshot) => x.deployment.status?.conditions?.find((c) => c.type === 'Progressing');
    let s = run(settled({ strategy: 'serial-canary' })).last;
    expect(progressing(s)).to.include({
      status: 'Unknown',
      reason: 'PlanWaiting',
      message: 'Deployment waits for an operator: canary step 1 of 2 waits for kubectl pacer plan continue',
    });
    // An hour later (the deadline is 600 s): still waiting, nothing to requeue for.
    s = { ...s, now: s.now + 3600_000 };
    const d = decide(s);
    expect(d.requeueAfterSeconds).to.equal(null);
    expect(progressing(next(d, s.now))?.reason).to.equal('PlanWaiting');
    s = withState(next(d, s.now), { proceeds: 1 });
    const continued = decide(s);
    const after = progressing(next(continued, s.now));
    expect([after?.status, after?.reason]).to.deep.equal(['Unknown', 'PlanContinued']);
    expect(Date.parse(after!.lastUpdateTime!)).to.equal(s.now);
    const moved = run(next(continued, s.now + 1000)).last;
    expect(progressing(moved)).to.include({
      status: 'Unknown',
      reason: 'PlanWaiting',
      message: 'Deployment waits for an operator: canary step 2 of 2 waits for kubectl pacer plan continue',
    });
  });

  it('force-complete: a serial rollout stuck on a pod that is never ready moves on, one forced slot at a time', () => {
    const stuck = run(settled({ strategy: 'serial' }, { maxSurge: 1, maxUnavailable: 0 }), 20, neverReady);
    expect(stuck.trace).to.deep.equal(['1/4']);
    const one = run(withState(stuck.last, { forced: [0] }), 20, neverReady);
    expect(one.trace, 'slot 0 counts as done: an old pod goes, the next new one starts').to.deep.equal(['1/3', '2/3']);
    const all = run(withState(one.last, { forced: [0, 1, 2, 3] }), 20, neverReady);
    expect(all.trace.at(-1), "every slot forced: the rollout finishes on the operator's word").to.equal('4/0');
  });

  it('without force, the stuck rollout stays where it is (the budget holds)', () => {
    expect(
      run(run(settled({ strategy: 'serial' }, { maxSurge: 1, maxUnavailable: 0 }), 20, neverReady).last, 20, neverReady)
        .trace,
    ).to.deep.equal([]);
  });

  // The chaos run's d15 (200 Deployments, seed 20261124): serial, maxSurge 0, maxUnavailable 1, four
  // ReplicaSets of 1 left by interrupted rollouts, the new one (revision 7) a return to an old
  // template and so the oldest, then spec.replicas 4 → 2. Upstream's proportional scaling (sync.go
  // scale) leaves 3 > 2: each fraction rounds 1×2/4 up to 1, the leftover −2 goes to the oldest,
  // clamped at 0. The gate plays no part: the next pass is the rollout's and scales old ones down.
  it("a scale-down over four ReplicaSets of 1: 3 > 2 for one pass (upstream's leftover clamp), then the rollout scales old ones down", () => {
    for (const plan of [{ strategy: 'serial' as const }, undefined]) {
      const d = deployment({
        replicas: 2,
        maxSurge: 0,
        maxUnavailable: 1,
        image: 'app:7',
        generation: 11,
        annotations: { 'pacer.dev/revision': '7' },
        status: { observedGeneration: 10, replicas: 4, availableReplicas: 4 },
      });
      const rs = (rev: number, age: number) =>
        replicaSet(`web-rev${rev}`, { replicas: 1, revision: rev, desired: 4, max: 4, image: `app:${rev}`, age });
      const start = snapshot(plan ? { ...d, spec: { ...d.spec, plan } } : d, [
        rs(7, 100),
        rs(3, 50),
        rs(4, 40),
        rs(6, 20),
      ]);
      const scaled = decide(start);
      expect(summary(scaled)).to.deep.equal([
        'scale web-rev7 1->0',
        'update ReplicaSet web-rev3',
        'update ReplicaSet web-rev4',
        'update ReplicaSet web-rev6',
        'updateStatus Deployment web',
      ]);
      const s = next(scaled, start.now + 1000);
      expect(
        s.replicaSets.map((r) => [
          r.metadata.name,
          r.spec.replicas,
          r.metadata.annotations?.['pacer.dev/desired-replicas'],
        ]),
      ).to.deep.equal([
        ['web-rev7', 0, '2'],
        ['web-rev3', 1, '2'],
        ['web-rev4', 1, '2'],
        ['web-rev6', 1, '2'],
      ]);
      expect(s.deployment.status?.observedGeneration, 'observed: the chaos observer counts it').to.equal(11);
      expect(summary(decide(s)), `${plan ? 'serial' : 'no gate'}: the rollout step`).to.deep.equal([
        'scale web-rev3 1->0',
        'scale web-rev4 1->0',
        'updateStatus Deployment web',
      ]);
      expect(run(s).trace).to.deep.equal(['0/1', '1/1', '1/0', '2/0']);
    }
  });

  it('an unreadable state holds the phase as an interrupt would, the Progressing condition says why, and continue (a fresh state) resumes', () => {
    const s = run(settled({ strategy: 'serial' }), 1).last; // 1/3 on the way
    const edited = {
      ...s,
      deployment: {
        ...s.deployment,
        metadata: {
          ...s.deployment.metadata,
          annotations: {
            ...s.deployment.metadata.annotations,
            [PLAN_STATE_ANNOTATION]: '{"revision": 2, "proceeds": "one"}',
          },
        },
      },
    };
    const held = run(edited);
    expect(held.trace, 'no new pod').to.deep.equal([]);
    const progressing = decide(held.last).status.conditions?.find((c) => c.type === 'Progressing');
    expect(progressing).to.deep.include({ status: 'Unknown', reason: 'PlanWaiting' });
    expect(progressing?.message).to.contain(`annotation ${PLAN_STATE_ANNOTATION}: expected {"revision": N`);
    expect(progressing?.message).to.contain('held until kubectl pacer plan continue writes a fresh one');
    expect(run(withState(held.last, { interrupted: false })).trace).to.deep.equal(['2/3', '2/1', '3/1', '4/1', '4/0']);
  });

  it('an unreadable state annotation is reported, not guessed at', () => {
    const bad = (v: string) =>
      parsePlanState({
        ...deployment(),
        metadata: { ...deployment().metadata, annotations: { [PLAN_STATE_ANNOTATION]: v } },
      }).error;
    expect(bad('{')).to.equal(`annotation ${PLAN_STATE_ANNOTATION}: not JSON`);
    expect(bad('{"revision": -1}')).to.match(/expected \{"revision": N/);
    expect(bad('{"revision": 2, "proceeds": 1}')).to.equal(undefined);
  });
});
