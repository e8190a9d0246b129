// Random MinimumHealth rollouts driven through decide(), pass after pass, from a fully available old
// ReplicaSet: pods appear at once and turn available in random order, and the template may change
// again mid-rollout. With m = ceil(n × minimumHealthCapacity), after every pass:
//
// * available replicas (once the pass's scale-downs took effect) never drop below m;
// * Σ spec.replicas, after each write of the pass in the order issued, never exceeds
//     trunc(n × (1 + maximumOverCapacity)), plus one when that equals m and n > 0, when
//     maximumOverCapacity is set;
//     max(2m, n) when it is not (2m side by side, or n when m < n/2, the old ones shrinking to m
//     before new ones start);
// * a pass that grows the new ReplicaSet shrinks no other;
// and once every pod turns available the rollout converges: one ReplicaSet at n, Progressing=True
// NewReplicaSetAvailable, and a final pass with no actions.

import { expect } from 'chai';
import fc from 'fast-check';
import type { ReplicaSet } from '../../../../src/api/types.ts';
import {
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  REVISION_ANNOTATION,
} from '../../../../src/engine/kubernetes/annotations.ts';
import { maximumCapacity, minimumHealthy } from '../../../../src/engine/marathon/minimumhealth.ts';
import { findNewReplicaSet, sameReplicaSet, specReplicaSum } from '../../../../src/engine/kubernetes/replicasets.ts';
import { decide } from '../../../../src/engine/decide.ts';
import type { Decision } from '../../../../src/engine/types.ts';
import { type World, apply, peakDuring, ripen } from '../world.ts';
import { NOW, deployment, replicaSet, template } from '../fixtures.ts';

interface Setup {
  replicas: number;
  capacity: number;
  over: number | undefined;
}

type Step = { kind: 'pass'; ready: number[] } | { kind: 'image'; image: number };

// Shares that hit Marathon's floating-point edges (100 × 0.07, 3 × 1.3) beside arbitrary ones.
const share = fc.oneof(
  fc.constantFrom(0, 0.07, 0.3, 0.5, 0.6, 0.7, 0.8, 1),
  fc.double({ min: 0, max: 1, noNaN: true, noDefaultInfinity: true }),
);

const setup: fc.Arbitrary<Setup> = fc.record({
  replicas: fc.integer({ min: 0, max: 12 }),
  capacity: share,
  over: fc.option(share, { nil: undefined }),
});

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('pass' as const),
      ready: fc.array(fc.nat(5), { minLength: 1, maxLength: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('image' as const), image: fc.integer({ min: 2, max: 4 }) }) },
);

/** The documented bound on Σ spec.replicas (see the header). */
function totalBound(s: Setup): number {
  const n = s.replicas;
  const m = minimumHealthy(n, s.capacity);
  if (s.over === undefined) return Math.max(2 * m, n);
  const cap = maximumCapacity(n, s.over);
  return n > 0 && cap === m ? cap + 1 : cap;
}

function start(s: Setup): World {
  const d = deployment({ replicas: s.replicas, image: 'nginx:2' });
  d.spec.strategy = {
    type: 'MinimumHealth',
    minimumHealth: {
      minimumHealthCapacity: s.capacity,
      ...(s.over !== undefined ? { maximumOverCapacity: s.over } : {}),
    },
  };
  const old = replicaSet('web-old', {
    replicas: s.replicas,
    image: 'nginx:1',
    revision: 1,
    desired: s.replicas,
    max: totalBound(s),
    age: 60,
  });
  expect(old.metadata.annotations).to.include.keys(
    REVISION_ANNOTATION,
    DESIRED_REPLICAS_ANNOTATION,
    MAX_REPLICAS_ANNOTATION,
  );
  return { d, rss: [old], now: NOW };
}

function availableAfterScaleDowns(before: readonly ReplicaSet[], after: readonly ReplicaSet[]): number {
  let n = 0;
  for (const rs of before) {
    const now = after.find((x) => sameReplicaSet(x, rs));
    n += Math.min(rs.status?.availableReplicas ?? 0, now ? (now.spec.replicas ?? 1) : 0);
  }
  return n;
}

function checkPass(s: Setup, w: World, decision: Decision): void {
  const m = minimumHealthy(s.replicas, s.capacity);
  const context = () =>
    JSON.stringify({
      setup: s,
      before: w.rss.map((r) => [r.metadata.name, r.spec.replicas, r.status?.availableReplicas]),
      actions: decision.actions.map((a) => [
        a.verb,
        a.name,
        'from' in a ? a.from : undefined,
        'replicas' in a ? a.replicas : undefined,
      ]),
    });
  expect(peakDuring(w.rss, decision), `total over ${totalBound(s)}: ${context()}`).to.be.at.most(totalBound(s));
  expect(
    availableAfterScaleDowns(w.rss, decision.objects.replicaSets),
    `available below ${m}: ${context()}`,
  ).to.be.at.least(m);
  const newRS = findNewReplicaSet(decision.objects.deployment, decision.objects.replicaSets);
  const grew = decision.actions.some(
    (a) => a.verb === 'scale' && a.replicas > a.from && a.name === newRS?.metadata.name,
  );
  if (grew)
    expect(
      decision.actions.some((a) => a.verb === 'scale' && a.replicas < a.from),
      `grew and shrank: ${context()}`,
    ).to.equal(false);
}

function run(s: Setup, steps: Step[]): void {
  let w = start(s);
  const pass = (mask: number[], all: boolean): Decision => {
    const decision = decide({ deployment: w.d, replicaSets: w.rss, pods: [], now: w.now });
    checkPass(s, w, decision);
    w = ripen(apply(decision, w.now + 1000), mask, all);
    return decision;
  };
  for (const st of steps) {
    if (st.kind === 'pass') pass(st.ready, false);
    else {
      const d = w.d;
      w = {
        ...w,
        d: {
          ...d,
          metadata: { ...d.metadata, generation: (d.metadata.generation ?? 1) + 1 },
          spec: { ...d.spec, template: template(`nginx:${st.image}`) },
        },
      };
    }
  }
  // Everything turns available from now on: the rollout must finish.
  w = ripen(w, [0], true);
  let last: Decision | undefined;
  for (let i = 0; i < 80; i++) {
    last = pass([0], true);
    if (last.actions.length === 0) break;
  }
  expect(last!.actions, 'a final pass without actions').to.deep.equal([]);
  const active = w.rss.filter((r) => (r.spec.replicas ?? 1) > 0);
  if (s.replicas > 0) {
    expect(active.map((r) => r.spec.replicas)).to.deep.equal([s.replicas]);
    expect(findNewReplicaSet(w.d, w.rss)?.metadata.name).to.equal(active[0].metadata.name);
  } else {
    expect(active).to.deep.equal([]);
  }
  expect(specReplicaSum(w.rss)).to.equal(s.replicas);
  const progressing = last!.status.conditions?.find((c) => c.type === 'Progressing');
  expect([progressing?.status, progressing?.reason]).to.deep.equal(['True', 'NewReplicaSetAvailable']);
}

describe('engine property: random MinimumHealth rollouts', () => {
  it('keep available ≥ m and the total within the bound on every pass, and converge', () => {
    fc.assert(
      fc.property(setup, fc.array(step, { maxLength: 40 }), (s, steps) => run(s, steps)),
      { numRuns: 200 },
    );
  });

  it("the bound is Marathon's numbers (docs/semantics/marathon.md)", () => {
    expect(totalBound({ replicas: 10, capacity: 0.6, over: undefined })).to.equal(12);
    expect(totalBound({ replicas: 20, capacity: 0.8, over: undefined })).to.equal(32);
    expect(totalBound({ replicas: 10, capacity: 0.3, over: undefined })).to.equal(10);
    expect(totalBound({ replicas: 10, capacity: 0.6, over: 0.2 })).to.equal(12);
    expect(totalBound({ replicas: 3, capacity: 0.7, over: 0.3 })).to.equal(4);
  });
});
