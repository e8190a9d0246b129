// MinimumHealth (Marathon's upgradeStrategy): the capacity formulas with the numbers of Marathon's
// docs and code (docs/semantics/marathon.md#minimum-health), the bounds Pacer derives from them, and whole rollouts
// through decide() with the docs' peaks, pause, the progress deadline, undo, history and scaling.

import { expect } from 'chai';
import type { Deployment, ReplicaSet } from '../../../../src/api/types.ts';
import {
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  REVISION_ANNOTATION,
  ROLLBACK_TO_ANNOTATION,
} from '../../../../src/engine/kubernetes/annotations.ts';
import { maxSurge, maxUnavailable, minAvailable } from '../../../../src/engine/fenceposts.ts';
import {
  marathonLaunch,
  marathonRestart,
  maximumCapacity,
  minimumHealthBudget,
  minimumHealthEnvelope,
  minimumHealthy,
} from '../../../../src/engine/marathon/minimumhealth.ts';
import { findNewReplicaSet } from '../../../../src/engine/kubernetes/replicasets.ts';
import { rolloutBudget } from '../../../../src/engine/fenceposts.ts';
import { decide } from '../../../../src/engine/decide.ts';
import type { Decision, Snapshot } from '../../../../src/engine/types.ts';
import { deployment, replicaSet, settle, snapshot, summary, template } from '../fixtures.ts';
import { peakDuring } from '../world.ts';

/** A MinimumHealth Deployment at image `image`. */
function mh(
  replicas: number,
  capacity: number | undefined,
  over?: number,
  image = 'v2',
  extra: Partial<Deployment['spec']> = {},
): Deployment {
  const d = deployment({ replicas, image });
  const minimumHealth = {
    ...(capacity !== undefined ? { minimumHealthCapacity: capacity } : {}),
    ...(over !== undefined ? { maximumOverCapacity: over } : {}),
  };
  d.spec = { ...d.spec, ...extra, strategy: { type: 'MinimumHealth', minimumHealth } };
  return d;
}

const settings = (replicas: number, minimumHealthCapacity: number, maximumOverCapacity?: number) => ({
  replicas,
  minimumHealthCapacity,
  maximumOverCapacity,
});

describe('engine/minimumhealth: capacity formulas', () => {
  describe('m = ceil(n × minimumHealthCapacity), on the raw double product', () => {
    const rows: Array<[number, number, number, string]> = [
      [100, 0.07, 8, '100 × 0.07 = 7.000000000000001, so 8 as in Marathon'],
      [10, 0.6, 6, "Marathon's db example: 6 old kept"],
      [20, 0.8, 16, "Marathon's app example: 16 old kept"],
      [3, 0.7, 3, 'ceil(2.1) = 3: all instances remain'],
      [10, 0, 0, '0: nothing has to stay'],
      [10, 1, 10, '1: everything stays'],
      [1, 0.01, 1, 'any share of one replica is that replica'],
      [0, 0.5, 0, 'no replicas'],
    ];
    for (const [n, f, want, why] of rows) {
      it(`ceil(${n} × ${f}) = ${want} (${why})`, () => expect(minimumHealthy(n, f)).to.equal(want));
    }
  });

  describe("cap = trunc(n × (1 + maximumOverCapacity)), as Scala's toInt", () => {
    const rows: Array<[number, number, number, string]> = [
      [3, 0.3, 3, '3 × 1.3 = 3.9000000000000004, truncated'],
      [10, 0.2, 12, "the doc's 12 for db"],
      [20, 0.6, 32, "the doc's 32 for app"],
      [10, 1, 20, "Marathon's default 1.0 doubles"],
      [10, 0, 10, 'no extra instances'],
      [7, 0.5, 10, '10.5 truncated'],
    ];
    for (const [n, f, want, why] of rows) {
      it(`trunc(${n} × (1 + ${f})) = ${want} (${why})`, () => expect(maximumCapacity(n, f)).to.equal(want));
    }
  });

  describe("Marathon's restart (A.2), all current instances healthy old ones: the reference's table", () => {
    // case, n, capacity, over → minHealthy, maxCapacity, killed at once, queued at once, peak, [old, new] after the first kills
    const rows: Array<[string, number, number, number, number, number, number, number, number, [number, number]]> = [
      ['db, 10 × 0.6, over 1.0', 10, 0.6, 1.0, 6, 20, 4, 10, 20, [6, 10]],
      ['db, 10 × 0.6, over 0.0', 10, 0.6, 0.0, 6, 10, 4, 0, 10, [6, 4]],
      ['db, 10 × 0.6, over 0.2', 10, 0.6, 0.2, 6, 12, 4, 2, 12, [6, 6]],
      ['app, 20 × 0.8, over 1.0', 20, 0.8, 1.0, 16, 40, 4, 20, 40, [16, 20]],
      ['app, 20 × 0.8, over 0.6', 20, 0.8, 0.6, 16, 32, 4, 12, 32, [16, 16]],
      ['3 × 0.7, over 1.0', 3, 0.7, 1.0, 3, 6, 0, 3, 6, [3, 3]],
      ['capacity 0, over 1.0: every old killed, all new queued', 10, 0, 1.0, 0, 20, 10, 10, 20, [0, 10]],
      ['capacity 1, over 1.0: nothing killed, all new queued', 10, 1, 1.0, 10, 20, 0, 10, 20, [10, 10]],
      ['capacity 1, over 0.0: one extra slot, one new at a time', 10, 1, 0.0, 10, 11, 0, 1, 11, [10, 1]],
    ];
    for (const [name, n, f, over, minHealthy, maxCapacity, kill, queued, peak, after] of rows) {
      it(name, () => {
        const r = marathonRestart(n, f, over, n, n);
        const launched = marathonLaunch(r.maxCapacity, n, n, 0); // kills requested, not yet confirmed
        const oldLeft = n - r.killImmediately;
        const more = marathonLaunch(r.maxCapacity, n, oldLeft, launched);
        expect([
          r.minHealthy,
          r.maxCapacity,
          r.killImmediately,
          launched,
          n + launched,
          [oldLeft, launched + more],
        ]).to.deep.equal([minHealthy, maxCapacity, kill, queued, peak, after]);
      });
    }

    it('the extra slot needs maxCapacity <= H: with an old instance unhealthy Marathon gives none', () => {
      expect(marathonRestart(3, 1, 0, 2, 3)).to.deep.equal({ minHealthy: 3, maxCapacity: 3, killImmediately: 0 });
      expect(marathonRestart(3, 1, 0, 3, 3)).to.deep.equal({ minHealthy: 3, maxCapacity: 4, killImmediately: 0 });
    });

    it('extra instances left by an earlier deployment (n < C) are killed at once', () => {
      // 5 × 0.5 → m 3; 8 current, all healthy: max(8 − 5, 8 − 3) = 5
      expect(marathonRestart(5, 0.5, 0.2, 8, 8)).to.deep.equal({ minHealthy: 3, maxCapacity: 6, killImmediately: 5 });
      // only 3 healthy: max(8 − 5, 0) = 3
      expect(marathonRestart(5, 0.5, 0.2, 3, 8).killImmediately).to.equal(3);
    });
  });
});

describe("engine/minimumhealth: Pacer's bounds", () => {
  describe('the envelope, and the fenceposts derived from it (surge = cap − n, unavailable = n − m)', () => {
    // n, capacity, over → [maxTotal, minAvailable], [maxSurge, maxUnavailable, minAvailable]
    const rows: Array<
      [string, number, number | undefined, number | undefined, [number, number], [number, number, number]]
    > = [
      ['seed db: 10 @ 0.6 side by side peaks at 12', 10, 0.6, undefined, [12, 6], [2, 4, 6]],
      ['seed app: 20 @ 0.8 side by side peaks at 32', 20, 0.8, undefined, [32, 16], [12, 4, 16]],
      ['seed: 3 @ 0.7 keeps all 3 old beside 3 new', 3, 0.7, undefined, [6, 3], [3, 0, 3]],
      ['seed: 0 never runs more than n', 10, 0, undefined, [10, 0], [0, 10, 0]],
      ['seed: 1 runs every new beside every old', 10, 1, undefined, [20, 10], [10, 0, 10]],
      ['side by side below one half: never more than n', 10, 0.3, undefined, [10, 3], [0, 7, 3]],
      ["no capacity given: Marathon's 1.0", 4, undefined, undefined, [8, 4], [4, 0, 4]],
      ['db with maximumOverCapacity 0.2', 10, 0.6, 0.2, [12, 6], [2, 4, 6]],
      ['db with maximumOverCapacity 0', 10, 0.6, 0, [10, 6], [0, 4, 6]],
      ['db with maximumOverCapacity 1.0', 10, 0.6, 1, [20, 6], [10, 4, 6]],
      ['app with maximumOverCapacity 0.6', 20, 0.8, 0.6, [32, 16], [12, 4, 16]],
      ['3 @ 0.7 with maximumOverCapacity 0.3: trunc(3.9) = 3 = m, one extra slot', 3, 0.7, 0.3, [4, 3], [1, 0, 3]],
      ['1.0 with maximumOverCapacity 0: one extra slot', 5, 1, 0, [6, 5], [1, 0, 5]],
      ['0 replicas: no extra slot', 0, 1, 0, [0, 0], [0, 0, 0]],
    ];
    for (const [name, n, f, over, envelope, fence] of rows) {
      it(name, () => {
        const e = minimumHealthEnvelope(settings(n, f ?? 1, over));
        expect([e.maxTotal, e.minAvailable]).to.deep.equal(envelope);
        const d = mh(n, f, over);
        expect([maxSurge(d), maxUnavailable(d), minAvailable(d)]).to.deep.equal(fence);
      });
    }
  });

  describe("the budget of a pass without maximumOverCapacity follows Marathon's two phases", () => {
    // n, capacity, new available → [maxTotal, minAvailable]
    const rows: Array<[string, number, number, number, [number, number]]> = [
      ['10 @ 0.6, no new available: phase 1, old keep 6 of their own', 10, 0.6, 0, [12, 6]],
      ['10 @ 0.6, 4 new available: still phase 1, old still keep 6', 10, 0.6, 4, [12, 10]],
      ['10 @ 0.6, 6 new available: phase 2, old may stop', 10, 0.6, 6, [12, 6]],
      ['10 @ 0.3, no new available: phase 1 within 2m = 6', 10, 0.3, 0, [6, 3]],
      ['10 @ 0.3, 3 new available: phase 2 within n', 10, 0.3, 3, [10, 3]],
      ['10 @ 0: phase 2 at once', 10, 0, 0, [10, 0]],
    ];
    for (const [name, n, f, newAvailable, want] of rows) {
      it(name, () => {
        const newRS = replicaSet('web-new', { replicas: 6, available: newAvailable });
        const b = minimumHealthBudget(settings(n, f), newRS);
        expect([b.maxTotal, b.minAvailable]).to.deep.equal(want);
      });
    }
    it('with maximumOverCapacity the budget is the envelope whatever the new ReplicaSet has', () => {
      for (const a of [0, 3, 6]) {
        const b = minimumHealthBudget(settings(10, 0.6, 0.2), replicaSet('web-new', { replicas: 6, available: a }));
        expect([b.maxTotal, b.minAvailable]).to.deep.equal([12, 6]);
      }
    });
  });
});

describe('engine/rolling rolloutBudget: one machinery, the bounds from the strategy', () => {
  const rows: Array<[string, Deployment, [number, number]]> = [
    [
      'RollingUpdate 10, maxSurge 2, maxUnavailable 0: 12 total, 10 available',
      deployment({ replicas: 10, maxSurge: 2, maxUnavailable: 0 }),
      [12, 10],
    ],
    [
      'RollingUpdate 10, both 0: 10 total, 9 available (the fencepost rule, for availability only)',
      deployment({ replicas: 10, maxSurge: 0, maxUnavailable: 0 }),
      [10, 9],
    ],
    ['RollingUpdate 10 at 25%/25%: 13 total, 8 available', deployment({ replicas: 10 }), [13, 8]],
    ['MinimumHealth 10 @ 0.6 over 0.2: 12 total, 6 available', mh(10, 0.6, 0.2), [12, 6]],
    ['MinimumHealth 10 @ 0.6 side by side, nothing new yet: 12 total, 6 available of the old', mh(10, 0.6), [12, 6]],
  ];
  for (const [name, d, want] of rows) {
    it(name, () => {
      const b = rolloutBudget(d, undefined);
      expect([b.maxTotal, b.minAvailable]).to.deep.equal(want);
    });
  }
  it('Recreate has no budget', () =>
    expect(() => rolloutBudget(deployment({ type: 'Recreate' }), undefined)).to.throw(/isn't supported/));
});

// ---------------------------------------------------------------------------------------------
// Whole rollouts through decide().

interface Sample {
  /** The largest Σ spec.replicas while the pass's writes are applied one by one, in order. */
  peak: number;
  oldSpec: number;
  newSpec: number;
  /** Available before the pass, new ReplicaSet only. */
  newAvailableBefore: number;
  /** Available once the pass's scale-downs took effect (unavailable pods go first). */
  availableAfter: number;
}

interface Run {
  samples: Sample[];
  passes: Decision[];
  last: Snapshot;
}

const OLD_TEMPLATE = 'v1';

/** A steady Deployment at v1 with all `n` replicas available, then changed to v2. */
function started(d: Deployment): Snapshot {
  const n = d.spec.replicas ?? 1;
  const cap = n + maxSurge(d);
  const old = replicaSet('web-old', { replicas: n, image: OLD_TEMPLATE, revision: 1, desired: n, max: cap, age: 60 });
  return snapshot(d, [old]);
}

/**
 * Pass after pass: pods exist at once; per pass at most `ripen` new pods per ReplicaSet turn
 * available (Infinity: all). Stops after a pass without actions.
 */
function roll(s: Snapshot, ripen = 1, max = 80): Run {
  const samples: Sample[] = [];
  const passes: Decision[] = [];
  for (let i = 0; i < max; i++) {
    const decision = decide(s);
    passes.push(decision);
    const d = decision.objects.deployment;
    const newBefore = findNewReplicaSet(d, s.replicaSets);
    let availableAfter = 0;
    for (const rs of s.replicaSets) {
      const now = decision.objects.replicaSets.find((x) => x.metadata.name === rs.metadata.name);
      availableAfter += Math.min(rs.status?.availableReplicas ?? 0, now?.spec.replicas ?? 0);
    }
    const newRS = findNewReplicaSet(d, decision.objects.replicaSets);
    const newSpec = newRS?.spec.replicas ?? 0;
    const oldSpec = decision.objects.replicaSets
      .filter((r) => r !== newRS)
      .reduce((a, r) => a + (r.spec.replicas ?? 0), 0);
    samples.push({
      peak: peakDuring(s.replicaSets, decision),
      oldSpec,
      newSpec,
      newAvailableBefore: newBefore?.status?.availableReplicas ?? 0,
      availableAfter,
    });
    if (decision.actions.length === 0) return { samples, passes, last: s };
    s = { deployment: d, replicaSets: world(decision.objects.replicaSets, ripen), pods: [], now: s.now + 1000 };
  }
  throw new Error(`no convergence in ${max} passes: ${JSON.stringify(passes.slice(-3).map(summary))}`);
}

function world(rss: readonly ReplicaSet[], ripen: number): ReplicaSet[] {
  return rss.map((rs) => {
    const spec = rs.spec.replicas ?? 1;
    const before = Math.min(rs.status?.availableReplicas ?? 0, spec);
    const available = Math.min(spec, before + ripen);
    return {
      ...rs,
      status: {
        replicas: spec,
        readyReplicas: available,
        availableReplicas: available,
        observedGeneration: rs.metadata.generation ?? 1,
      },
    };
  });
}

const peak = (r: Run) => Math.max(...r.samples.map((x) => x.peak));
const lowest = (r: Run) => Math.min(...r.samples.map((x) => x.availableAfter));

function expectDone(r: Run, n: number): void {
  const last = r.passes[r.passes.length - 1];
  expect(last.actions).to.deep.equal([]);
  const active = r.last.replicaSets.filter((x) => (x.spec.replicas ?? 0) > 0);
  expect(active.map((x) => x.spec.replicas)).to.deep.equal(n > 0 ? [n] : []);
  const c = last.status.conditions?.find((x) => x.type === 'Progressing');
  expect([c?.status, c?.reason]).to.deep.equal(['True', 'NewReplicaSetAvailable']);
}

describe("engine/minimumhealth: rollouts through decide(), Marathon's side-by-side rule", () => {
  const rows: Array<[string, number, number, number, [number, number]]> = [
    // name, n, capacity, peak, [old, new] at the peak
    ['10 replicas at 0.6 peak at 12 (6 old + 6 new)', 10, 0.6, 12, [6, 6]],
    ['20 replicas at 0.8 peak at 32 (16 old + 16 new)', 20, 0.8, 32, [16, 16]],
    ['3 replicas at 0.7 keep all 3 old beside 3 new (ceil 2.1 = 3)', 3, 0.7, 6, [3, 3]],
    ['1 starts every new replica beside the old ones', 4, 1, 8, [4, 4]],
  ];
  for (const [name, n, f, want, split] of rows) {
    it(name, () => {
      const r = roll(started(mh(n, f)));
      const m = minimumHealthy(n, f);
      expect(peak(r)).to.equal(want);
      expect(r.samples.some((x) => x.oldSpec === split[0] && x.newSpec === split[1])).to.equal(true);
      expect(lowest(r), 'available never below m').to.be.at.least(m);
      // Phase 1: while fewer than m new are available, the old ones stay at m (or above) and new ≤ m.
      for (const x of r.samples) {
        if (x.newAvailableBefore < m) {
          expect(x.oldSpec, JSON.stringify(x)).to.be.at.least(m);
          expect(x.newSpec, JSON.stringify(x)).to.be.at.most(m);
        }
      }
      expectDone(r, n);
    });
  }

  it('3 at 0.7: no old replica stops before all 3 new are available', () => {
    const r = roll(started(mh(3, 0.7)));
    for (const x of r.samples) if (x.oldSpec < 3) expect(x.newAvailableBefore).to.equal(3);
  });

  it('1: every new replica is started before any old one stops', () => {
    const r = roll(started(mh(5, 1)));
    const firstShrink = r.samples.findIndex((x) => x.oldSpec < 5);
    expect(firstShrink).to.be.greaterThan(0);
    expect(r.samples.slice(0, firstShrink).some((x) => x.newSpec === 5)).to.equal(true);
  });

  it('0 kills all old replicas before new ones start', () => {
    const r = roll(started(mh(6, 0)));
    const firstNew = r.samples.findIndex((x) => x.newSpec > 0);
    expect(r.samples[firstNew].oldSpec).to.equal(0);
    expect(r.samples.slice(0, firstNew).some((x) => x.oldSpec === 0)).to.equal(true);
    expect(peak(r)).to.equal(6);
    expectDone(r, 6);
  });

  it('below one half (10 at 0.3) the old ones shrink to 3 before new ones start, and the total stays within n', () => {
    const r = roll(started(mh(10, 0.3)));
    expect(peak(r)).to.equal(10);
    const firstNew = r.samples.findIndex((x) => x.newSpec > 0);
    expect(r.samples[firstNew].oldSpec).to.equal(3);
    expect(lowest(r)).to.be.at.least(3);
    expectDone(r, 10);
  });

  it('phase 2: once m new are available the old ones stop, then the new one grows to n (total never above 2m)', () => {
    const r = roll(started(mh(10, 0.6)), Infinity);
    expect(r.passes.flatMap(summary).filter((a) => a.startsWith('scale') || a.startsWith('create'))).to.deep.equal([
      `create web-${hashOf(r)} 2`,
      'scale web-old 10->6',
      `scale web-${hashOf(r)} 2->6`,
      'scale web-old 6->0',
      `scale web-${hashOf(r)} 6->10`,
    ]);
  });
});

function hashOf(r: Run): string {
  const created = r.passes.flatMap((p) => p.actions).find((a) => a.verb === 'create')!;
  return created.name.slice('web-'.length);
}

describe("engine/minimumhealth: rollouts through decide(), with maximumOverCapacity (today's Marathon)", () => {
  const rows: Array<[string, number, number, number, number]> = [
    // name, n, capacity, over, peak
    ["db 10 × 0.6 over 0.2: 12 (the doc's figure)", 10, 0.6, 0.2, 12],
    ['db 10 × 0.6 over 0.0: never above 10', 10, 0.6, 0, 10],
    ['db 10 × 0.6 over 1.0: 20', 10, 0.6, 1, 20],
    ["app 20 × 0.8 over 0.6: 32 (the doc's figure)", 20, 0.8, 0.6, 32],
    ['3 × 0.7 over 1.0: 6, all 3 old remain until replaced 1:1', 3, 0.7, 1, 6],
    ['3 × 0.7 over 0.3: trunc(3.9) = 3 = m, one extra pod', 3, 0.7, 0.3, 4],
    ['5 × 1.0 over 0: one new at a time', 5, 1, 0, 6],
  ];
  for (const [name, n, f, over, want] of rows) {
    it(name, () => {
      const r = roll(started(mh(n, f, over)));
      expect(peak(r)).to.equal(want);
      expect(lowest(r), 'available never below m').to.be.at.least(minimumHealthy(n, f));
      expectDone(r, n);
    });
  }

  it('the exchange is 1:1: old replicas go only as new ones turn available', () => {
    const r = roll(started(mh(3, 0.7, 1)));
    // m = 3 = n: each pass one new pod turns available, and the old side shrinks by at most that much.
    for (let i = 1; i < r.samples.length; i++) {
      const shrink = r.samples[i - 1].oldSpec - r.samples[i].oldSpec;
      const gained = r.samples[i].newAvailableBefore - r.samples[i - 1].newAvailableBefore;
      expect(shrink, JSON.stringify(r.samples.slice(i - 1, i + 1))).to.be.at.most(Math.max(0, gained));
    }
  });
});

describe('engine/minimumhealth: the rest of the engine works unchanged', () => {
  function withSpec(d: Deployment, spec: Partial<Deployment['spec']>): Deployment {
    return {
      ...d,
      metadata: { ...d.metadata, generation: (d.metadata.generation ?? 1) + 1 },
      spec: { ...d.spec, ...spec },
    };
  }
  function stepRS(s: Snapshot, ripen: number): Snapshot {
    const d = decide(s);
    return {
      deployment: d.objects.deployment,
      replicaSets: world(d.objects.replicaSets, ripen),
      pods: [],
      now: s.now + 1000,
    };
  }

  it('a new MinimumHealth Deployment starts all replicas at once (nothing old to keep)', () => {
    const d = decide(snapshot(mh(4, 0.5), []));
    expect(d.actions[0]).to.deep.include({ verb: 'create', replicas: 4 });
  });

  it('the max-replicas annotation records the capacity (n + surge)', () => {
    const d = decide(started(mh(10, 0.6, 0.2)));
    const created = d.objects.replicaSets.find((r) => r.metadata.name !== 'web-old')!;
    expect(created.metadata.annotations![MAX_REPLICAS_ANNOTATION]).to.equal('12');
  });

  it('Available=True MinimumReplicasAvailable while m are available, False below', () => {
    const ok = decide(
      snapshot(mh(10, 0.6), [
        replicaSet('web-old', { replicas: 10, available: 6, image: 'v2', revision: 1, desired: 10, max: 12 }),
      ]),
    );
    expect(ok.status.conditions!.find((c) => c.type === 'Available')).to.deep.include({
      status: 'True',
      reason: 'MinimumReplicasAvailable',
    });
    const low = decide(
      snapshot(mh(10, 0.6), [
        replicaSet('web-old', { replicas: 10, available: 5, image: 'v2', revision: 1, desired: 10, max: 12 }),
      ]),
    );
    expect(low.status.conditions!.find((c) => c.type === 'Available')).to.deep.include({
      status: 'False',
      reason: 'MinimumReplicasUnavailable',
    });
  });

  it('pause mid-rollout: nothing moves, Progressing=Unknown DeploymentPaused; resume finishes', () => {
    let s = started(mh(10, 0.6));
    for (let i = 0; i < 3; i++) s = stepRS(s, 0); // 6 old + 6 new, none available
    const paused = { ...s, deployment: withSpec(s.deployment, { paused: true }) };
    const p = decide(paused);
    expect(p.actions.filter((a) => a.verb === 'scale' || a.verb === 'create')).to.deep.equal([]);
    expect(p.status.conditions!.find((c) => c.type === 'Progressing')).to.deep.include({
      status: 'Unknown',
      reason: 'DeploymentPaused',
    });
    const resumed = { ...s, now: s.now + 5000, deployment: withSpec(p.objects.deployment, { paused: false }) };
    const r = roll({ ...resumed, replicaSets: world(resumed.replicaSets, 0) });
    expect(lowest(r)).to.be.at.least(6);
    expectDone(r, 10);
  });

  it('a stuck rollout exceeds its deadline with the old ones kept at m', () => {
    let s = started(mh(10, 0.6, undefined, 'v2', { progressDeadlineSeconds: 60 }));
    for (let i = 0; i < 5; i++) s = stepRS(s, 0); // new pods never turn available
    const old = s.replicaSets.find((r) => r.metadata.name === 'web-old')!;
    expect(old.spec.replicas).to.equal(6);
    const later = decide({ ...s, now: s.now + 61_000 });
    const c = later.status.conditions!.find((x) => x.type === 'Progressing')!;
    expect([c.status, c.reason]).to.deep.equal(['False', 'ProgressDeadlineExceeded']);
    expect(later.actions.filter((a) => a.verb === 'scale')).to.deep.equal([]);
  });

  it('undo mid-rollout (back to v1): the old ReplicaSet becomes the new one and takes over within the bounds', () => {
    let s = started(mh(10, 0.6, 0.2));
    for (let i = 0; i < 4; i++) s = stepRS(s, 1);
    const back = { ...s, deployment: withSpec(s.deployment, { template: template(OLD_TEMPLATE) }) };
    const r = roll(back);
    expect(r.passes.flatMap((p) => p.actions).some((a) => a.verb === 'create')).to.equal(false);
    expect(peak(r)).to.be.at.most(12);
    expect(lowest(r)).to.be.at.least(6);
    expectDone(r, 10);
    const restored = r.last.replicaSets.find((x) => (x.spec.replicas ?? 0) > 0)!;
    expect(restored.metadata.name).to.equal('web-old');
    expect(restored.metadata.annotations![REVISION_ANNOTATION]).to.equal('3');
  });

  it('cleans up old ReplicaSets beyond revisionHistoryLimit once complete', () => {
    let s = started(mh(2, 0.5, undefined, 'v2', { revisionHistoryLimit: 1 }));
    s = roll(s, Infinity).last;
    for (const image of ['v3', 'v4'])
      s = roll({ ...s, deployment: withSpec(s.deployment, { template: template(image) }) }, Infinity).last;
    expect(s.replicaSets.map((r) => r.metadata.annotations![REVISION_ANNOTATION]).sort()).to.deep.equal(['3', '4']);
  });

  it('scaling mid-rollout resizes both ReplicaSets proportionally to the new capacity, then converges', () => {
    let s = started(mh(10, 0.6, 0.2));
    for (let i = 0; i < 3; i++) s = stepRS(s, 0); // 6 old + 6 new
    const sizes = () => s.replicaSets.map((r) => r.spec.replicas).sort();
    expect(sizes()).to.deep.equal([6, 6]);
    s = { ...s, deployment: withSpec(s.deployment, { replicas: 20 }) };
    const d = decide(s);
    // cap 24 (trunc(20 × 1.2)); 12 more spread over two ReplicaSets of 6 sized for 12: 6 each.
    expect(d.objects.replicaSets.map((r) => r.spec.replicas).sort()).to.deep.equal([12, 12]);
    expect(
      d.objects.replicaSets.map((r) => [
        r.metadata.annotations![DESIRED_REPLICAS_ANNOTATION],
        r.metadata.annotations![MAX_REPLICAS_ANNOTATION],
      ]),
    ).to.deep.equal([
      ['20', '24'],
      ['20', '24'],
    ]);
    const r = roll({
      deployment: d.objects.deployment,
      replicaSets: settle(d.objects.replicaSets),
      pods: [],
      now: s.now + 1000,
    });
    expectDone(r, 20);
  });

  it('the legacy rollback annotation rolls a MinimumHealth Deployment back to revision 1', () => {
    let s = roll(started(mh(4, 0.5)), Infinity).last;
    const ann = { ...s.deployment.metadata.annotations, [ROLLBACK_TO_ANNOTATION]: '1' };
    s = { ...s, deployment: { ...s.deployment, metadata: { ...s.deployment.metadata, annotations: ann } } };
    const d = decide(s);
    expect(d.actions.some((a) => a.verb === 'update' && a.kind === 'Deployment')).to.equal(true);
    const r = roll(
      { deployment: d.objects.deployment, replicaSets: d.objects.replicaSets, pods: [], now: s.now + 1000 },
      Infinity,
    );
    expectDone(r, 4);
    expect(r.last.replicaSets.find((x) => (x.spec.replicas ?? 0) > 0)!.metadata.name).to.equal('web-old');
  });
});
