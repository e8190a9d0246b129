// Random rollouts driven through decide(), pass after pass, in a tiny world where ReplicaSets get
// their pods at once and pods turn available in random order. After every pass the invariants
// upstream guarantees must hold; at the end, with everything turning available, the rollout must
// converge on one ReplicaSet and a pass with nothing to do.

import { expect } from 'chai';
import fc from 'fast-check';
import type { Deployment, IntOrString, ReplicaSet } from '../../../src/api/types.ts';
import { maxSurge, maxUnavailable } from '../../../src/engine/fenceposts.ts';
import { findNewReplicaSet, specReplicaSum, sameReplicaSet } from '../../../src/engine/kubernetes/replicasets.ts';
import { isScalingEvent } from '../../../src/engine/kubernetes/scale.ts';
import { decide, defaulted } from '../../../src/engine/decide.ts';
import type { Decision } from '../../../src/engine/types.ts';
import { type World, apply, ripen } from './world.ts';
import { NOW, deepFreeze, deployment, template } from './fixtures.ts';

type Step = { kind: 'pass'; ready: number[] } | { kind: 'image'; image: number } | { kind: 'scale'; replicas: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('pass' as const),
      ready: fc.array(fc.nat(5), { minLength: 1, maxLength: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('image' as const), image: fc.nat(3) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('scale' as const), replicas: fc.integer({ min: 1, max: 10 }) }),
  },
);

const surgeArb: fc.Arbitrary<IntOrString> = fc.constantFrom<IntOrString>(0, 1, 2, '0%', '25%', '50%');
const unavailableArb: fc.Arbitrary<IntOrString> = fc.constantFrom<IntOrString>(0, 1, 2, '0%', '25%', '50%');

/** maxSurge and maxUnavailable both literally zero is invalid (validation rejects it). */
const isLiteralZero = (v: IntOrString) => v === 0 || v === '0%';

const setup = fc
  .record({
    replicas: fc.integer({ min: 1, max: 10 }),
    surge: surgeArb,
    unavailable: unavailableArb,
    recreate: fc.boolean(),
    plan: fc.constantFrom<'serial' | 'parallel' | undefined>(undefined, undefined, 'serial', 'parallel'),
  })
  .filter((s) => !(isLiteralZero(s.surge) && isLiteralZero(s.unavailable)));

const availableSum = (rss: readonly ReplicaSet[]) => rss.reduce((n, r) => n + (r.status?.availableReplicas ?? 0), 0);

/** Available pods once the pass's scale-downs took effect (unavailable pods go first). */
function availableAfterScaleDowns(before: readonly ReplicaSet[], after: readonly ReplicaSet[]): number {
  let n = 0;
  for (const rs of before) {
    const now = after.find((x) => sameReplicaSet(x, rs));
    const spec = now ? (now.spec.replicas ?? 1) : 0;
    n += Math.min(rs.status?.availableReplicas ?? 0, spec);
  }
  return n;
}

function checkPass(w: World, decision: Decision): void {
  const d = defaulted(w.d);
  const replicas = d.spec.replicas ?? 1;
  const recreate = d.spec.strategy?.type === 'Recreate';
  const before = w.rss;
  const after = decision.objects.replicaSets;
  const context = () =>
    JSON.stringify({
      replicas,
      strategy: d.spec.strategy,
      before: before.map((r) => [r.metadata.name, r.spec.replicas, r.status?.availableReplicas]),
      actions: decision.actions.map((a) => [
        a.verb,
        a.name,
        'from' in a ? a.from : undefined,
        'replicas' in a ? a.replicas : undefined,
      ]),
    });

  // 1. Never more than replicas + maxSurge; above a lowered bound, only ever down.
  const bound = replicas + maxSurge(d);
  const totalBefore = specReplicaSum(before);
  const totalAfter = specReplicaSum(after);
  expect(
    totalAfter <= bound || totalAfter <= totalBefore,
    `total ${totalBefore} → ${totalAfter} over bound ${bound}: ${context()}`,
  ).to.equal(true);

  // 2. Availability holds (except on scaling events and for Recreate).
  const scaling = isScalingEvent(d, before);
  if (!recreate && !scaling) {
    const min = Math.min(replicas - maxUnavailable(d), availableSum(before));
    expect(availableAfterScaleDowns(before, after), `availability below ${min}: ${context()}`).to.be.at.least(min);
  }

  // 3. A pass that grows the new ReplicaSet shrinks no other.
  const newRS = findNewReplicaSet(d, after);
  const grew = decision.actions.some(
    (a) => a.verb === 'scale' && a.replicas > a.from && newRS && a.name === newRS.metadata.name,
  );
  if (grew && !scaling) {
    expect(
      decision.actions.some((a) => a.verb === 'scale' && a.replicas < a.from),
      `grew and shrank: ${context()}`,
    ).to.equal(false);
  }

  // 4. The serial plan gate: the new ReplicaSet grows to at most one pod more than it has available.
  if (d.spec.plan?.strategy === 'serial' && grew && !scaling && newRS) {
    const was = before.find((r) => sameReplicaSet(r, newRS));
    const target = decision.actions.find((a) => a.verb === 'scale' && a.name === newRS.metadata.name);
    expect(
      target && 'replicas' in target ? target.replicas : 0,
      `serial: more than one step in flight: ${context()}`,
    ).to.be.at.most((was?.status?.availableReplicas ?? 0) + 1);
  }
}

function run(
  s: {
    replicas: number;
    surge: IntOrString;
    unavailable: IntOrString;
    recreate: boolean;
    plan?: 'serial' | 'parallel';
  },
  steps: Step[],
): void {
  const d0 = deployment({
    replicas: s.replicas,
    maxSurge: s.surge,
    maxUnavailable: s.unavailable,
    ...(s.recreate ? { type: 'Recreate' as const } : {}),
  });
  let w: World = {
    d: s.plan ? { ...d0, spec: { ...d0.spec, plan: { strategy: s.plan } } } : d0,
    rss: [],
    now: NOW,
  };
  const pass = (mask: number[], all: boolean) => {
    // Frozen: the controller hands decide() its cached objects, which it must never change.
    const decision = decide(deepFreeze({ deployment: w.d, replicaSets: w.rss, pods: [], now: w.now }));
    checkPass(w, decision);
    w = ripen(apply(decision, w.now + 1000), mask, all);
    return decision;
  };
  const edit = (spec: Partial<Deployment['spec']>) => {
    w = {
      ...w,
      d: {
        ...w.d,
        metadata: { ...w.d.metadata, generation: (w.d.metadata.generation ?? 1) + 1 },
        spec: { ...w.d.spec, ...spec },
      },
    };
  };
  for (const st of steps) {
    if (st.kind === 'pass') pass(st.ready, false);
    else if (st.kind === 'image') edit({ template: template(`nginx:${st.image}`) });
    else edit({ replicas: st.replicas });
  }
  // Everything turns available from now on: the rollout must finish.
  w = ripen(w, [0], true);
  let last: Decision | undefined;
  for (let i = 0; i < 80; i++) {
    last = pass([0], true);
    if (last.actions.length === 0) break;
  }
  expect(last!.actions, 'no pass without actions').to.deep.equal([]);
  const d = defaulted(w.d);
  const active = w.rss.filter((r) => (r.spec.replicas ?? 1) > 0);
  expect(active).to.have.length(1);
  expect(active[0].spec.replicas).to.equal(d.spec.replicas);
  expect(findNewReplicaSet(d, w.rss)?.metadata.name).to.equal(active[0].metadata.name);
  const progressing = last!.status.conditions?.find((c) => c.type === 'Progressing');
  expect([progressing?.status, progressing?.reason]).to.deep.equal(['True', 'NewReplicaSetAvailable']);
}

describe('engine property: random rollouts', () => {
  it('keep upstream invariants on every pass and converge', () => {
    fc.assert(
      fc.property(setup, fc.array(step, { maxLength: 40 }), (s, steps) => run(s, steps)),
      { numRuns: 150 },
    );
  });
});
