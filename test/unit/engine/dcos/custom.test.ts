// Custom plans (Plan resources): a step's status from its Deployment, the run an operator's
// overrides belong to, the tree (the SDK's rules: a custom plan is created interrupted and does
// nothing until started; serial phases in order; canary steps wait for continue), and the hold a
// plan puts on a Deployment's rollout, through decide() pass by pass.

import { expect } from 'chai';
import type { Deployment, PlanResource } from '../../../../src/api/types.ts';
import { decide } from '../../../../src/engine/decide.ts';
import {
  CUSTOM_PLAN_STATE_ANNOTATION,
  customPlan,
  customPlanHold,
  customPlanStateFor,
  deploymentStepStatus,
  parseCustomPlanState,
  planResourceErrors,
  planStatusUpdate,
  planTargets,
} from '../../../../src/engine/dcos/custom.ts';
import { viewPlan } from '../../../../src/engine/dcos/tree.ts';
import { planTree } from '../../../../src/engine/dcos/render.ts';
import type { Snapshot } from '../../../../src/engine/types.ts';
import { deployment, next, snapshot, template } from '../fixtures.ts';

/** A Deployment `name` as its status tells: "complete" at its template, "rolling", "changed" (a new template not yet seen). */
function dep(
  name: string,
  how: 'complete' | 'rolling' | 'changed' | 'timedOut' | 'invalid',
  image = 'nginx:1',
): Deployment {
  const d = deployment({ replicas: 3 });
  const generation = how === 'changed' ? 2 : 1;
  const updated = how === 'complete' ? 3 : how === 'rolling' || how === 'timedOut' ? 1 : 0;
  const conditions =
    how === 'timedOut'
      ? [
          {
            type: 'Progressing',
            status: 'False' as const,
            reason: 'ProgressDeadlineExceeded',
            message: `ReplicaSet "${name}-abc" has timed out progressing.`,
          },
        ]
      : how === 'invalid'
        ? [
            {
              type: 'InvalidSpec',
              status: 'True' as const,
              reason: 'InvalidSpec',
              message: 'spec.replicas: Invalid value: -1',
            },
          ]
        : [];
  return {
    ...d,
    metadata: { ...d.metadata, name, uid: `uid-${name}`, generation },
    spec: { ...d.spec, template: template(image) },
    status: {
      observedGeneration: 1,
      replicas: 3,
      updatedReplicas: updated,
      availableReplicas: how === 'complete' ? 3 : 2,
      conditions,
    },
  };
}

function plan(
  phases: PlanResource['spec']['phases'],
  o: { name?: string; strategy?: 'serial' | 'parallel'; state?: unknown } = {},
): PlanResource {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Plan',
    metadata: {
      name: o.name ?? 'regions',
      namespace: 'default',
      ...(o.state !== undefined ? { annotations: { [CUSTOM_PLAN_STATE_ANNOTATION]: JSON.stringify(o.state) } } : {}),
    },
    spec: { ...(o.strategy ? { strategy: o.strategy } : {}), phases },
  };
}

const lookupOf = (ds: Deployment[]) => (name: string) => ds.find((d) => d.metadata.name === name);

/** The plan as the plugin prints it. */
function tree(p: PlanResource, ds: Deployment[]): string[] {
  return planTree(viewPlan(customPlan(p, lookupOf(ds))));
}

/** The state `start` writes for the run the Deployments carry now (plus any overrides). */
function started(p: PlanResource, ds: Deployment[], extra: Record<string, unknown> = {}): PlanResource {
  const state = { targets: planTargets(p, lookupOf(ds)), interrupted: false, phases: {}, forced: [], ...extra };
  return { ...p, metadata: { ...p.metadata, annotations: { [CUSTOM_PLAN_STATE_ANNOTATION]: JSON.stringify(state) } } };
}

describe('plans: custom plans (Plan resources)', () => {
  describe('a step is one Deployment rolled to its current spec', () => {
    const rows: Array<[string, Deployment | undefined, string, string[]?]> = [
      ['every replica updated and available', dep('eu', 'complete'), 'COMPLETE'],
      ['a rollout under way (pods of the new template, not all available)', dep('eu', 'rolling'), 'STARTED'],
      ['a change the controller has not seen yet (observedGeneration behind)', dep('eu', 'changed'), 'PENDING'],
      [
        'no pod of the new template yet',
        { ...dep('eu', 'rolling'), status: { ...dep('eu', 'rolling').status!, updatedReplicas: 0 } },
        'PENDING',
      ],
      [
        'past its progress deadline',
        dep('eu', 'timedOut'),
        'ERROR',
        ['deployment eu: ReplicaSet "eu-abc" has timed out progressing.'],
      ],
      ['an invalid spec', dep('eu', 'invalid'), 'ERROR', ['deployment eu: spec.replicas: Invalid value: -1']],
      ['no such Deployment', undefined, 'ERROR', ['deployments.pacer.dev "eu" not found']],
    ];
    for (const [what, d, status, errors] of rows) {
      it(`${what}: ${status}`, () => {
        const out = deploymentStepStatus('eu', d);
        expect(out.status).to.equal(status);
        expect(out.errors).to.deep.equal(errors);
      });
    }
  });

  describe('the tree', () => {
    const three = plan([
      { name: 'canary', strategy: 'serial', steps: ['eu'] },
      { name: 'rest', strategy: 'parallel', steps: ['us', 'ap'] },
    ]);

    it('nothing to roll: COMPLETE, interrupted or not (an empty change is done)', () => {
      expect(tree(three, [dep('eu', 'complete'), dep('us', 'complete'), dep('ap', 'complete')])).to.deep.equal([
        'regions (serial strategy) (COMPLETE)',
        '├─ canary (serial strategy) (COMPLETE)',
        '│  └─ eu (COMPLETE)',
        '└─ rest (parallel strategy) (COMPLETE)',
        '   ├─ us (COMPLETE)',
        '   └─ ap (COMPLETE)',
      ]);
    });

    it('created interrupted: changed Deployments wait, the plan shows WAITING until started', () => {
      const ds = [dep('eu', 'changed', 'nginx:2'), dep('us', 'changed', 'nginx:2'), dep('ap', 'complete')];
      expect(tree(three, ds)).to.deep.equal([
        'regions (serial strategy) (WAITING)',
        '├─ canary (serial strategy) (PENDING)',
        '│  └─ eu (PENDING)',
        '└─ rest (parallel strategy) (IN_PROGRESS)',
        '   ├─ us (PENDING)',
        '   └─ ap (COMPLETE)',
      ]);
      expect(tree(started(three, ds), ds)[0]).to.equal('regions (serial strategy) (PENDING)');
    });

    it('started: serial phases in order; the first phase rolling, the next PENDING', () => {
      const ds = [dep('eu', 'rolling', 'nginx:2'), dep('us', 'changed', 'nginx:2'), dep('ap', 'changed', 'nginx:2')];
      expect(tree(started(three, ds), ds)).to.deep.equal([
        'regions (serial strategy) (STARTED)',
        '├─ canary (serial strategy) (STARTED)',
        '│  └─ eu (STARTED)',
        '└─ rest (parallel strategy) (PENDING)',
        '   ├─ us (PENDING)',
        '   └─ ap (PENDING)',
      ]);
    });

    it('a change after the last command starts a new run, interrupted (the SDK rebuilds custom plans on a configuration change)', () => {
      const ds = [dep('eu', 'complete'), dep('us', 'complete'), dep('ap', 'complete')];
      const p = started(three, ds);
      expect(customPlanStateFor(p, planTargets(p, lookupOf(ds)))).to.include({ interrupted: false, current: true });
      const changed = [dep('eu', 'changed', 'nginx:3'), ds[1], ds[2]];
      expect(customPlanStateFor(p, planTargets(p, lookupOf(changed)))).to.include({
        interrupted: true,
        current: false,
      });
      expect(tree(p, changed)[0]).to.equal('regions (serial strategy) (WAITING)');
    });

    it('a forced step counts as COMPLETE and says so; the next phase goes on', () => {
      const ds = [dep('eu', 'timedOut', 'nginx:2'), dep('us', 'changed', 'nginx:2'), dep('ap', 'changed', 'nginx:2')];
      expect(tree(started(three, ds), ds)[0]).to.equal('regions (serial strategy) (ERROR)');
      expect(tree(started(three, ds, { forced: ['canary/eu'] }), ds)).to.deep.equal([
        'regions (serial strategy) (IN_PROGRESS)',
        '├─ canary (serial strategy) (COMPLETE)',
        '│  └─ eu (COMPLETE) (forced)',
        '└─ rest (parallel strategy) (PENDING)',
        '   ├─ us (PENDING)',
        '   └─ ap (PENDING)',
      ]);
    });

    it('a serial-canary phase: the first requiredProceeds PENDING steps wait for continue, kept once an operator has acted', () => {
      const canary = plan([{ name: 'all', strategy: 'serial-canary', requiredProceeds: 1, steps: ['eu', 'us', 'ap'] }]);
      const ds = [dep('eu', 'changed', 'nginx:2'), dep('us', 'changed', 'nginx:2'), dep('ap', 'changed', 'nginx:2')];
      expect(tree(started(canary, ds), ds)).to.deep.equal([
        'regions (serial strategy) (WAITING)',
        '└─ all (serial-canary strategy) (WAITING)',
        '   ├─ eu (WAITING)',
        '   ├─ us (PENDING)',
        '   └─ ap (PENDING)',
      ]);
      // After one continue eu completes: the canary stays eu (kept), so us is next by the serial strategy.
      const after = [dep('eu', 'complete', 'nginx:2'), ds[1], ds[2]];
      const continued = started(canary, after, { phases: { all: { proceeds: 1, canary: ['eu'] } } });
      const v = viewPlan(customPlan(continued, lookupOf(after)));
      expect(v.phases[0].steps.map((s) => `${s.name}:${s.status}:${s.candidate}`)).to.deep.equal([
        'eu:COMPLETE:false',
        'us:PENDING:true',
        'ap:PENDING:false',
      ]);
    });

    it('what is wrong with the Plan itself is an error of the plan', () => {
      const bad = plan(
        [
          { name: 'a', steps: ['eu'] },
          { name: 'b', steps: ['eu'] },
        ],
        { name: 'deploy' },
      );
      expect(planResourceErrors(bad)).to.deep.equal([
        "plan name deploy is reserved for the service's own plans",
        'deployment eu is a step of phase a and of phase b',
      ]);
      expect(viewPlan(customPlan(bad, lookupOf([dep('eu', 'complete')]))).status).to.equal('ERROR');
    });

    it("the status to write: every element's status; nothing when the stored one says the same in another key order", () => {
      const ds = [dep('eu', 'complete'), dep('us', 'changed', 'nginx:2'), dep('ap', 'complete')];
      const status = planStatusUpdate(three, lookupOf(ds))!;
      expect(status).to.deep.equal({
        status: 'WAITING',
        phases: [
          { name: 'canary', status: 'COMPLETE', steps: [{ name: 'eu', status: 'COMPLETE' }] },
          {
            name: 'rest',
            status: 'IN_PROGRESS',
            steps: [
              { name: 'us', status: 'PENDING' },
              { name: 'ap', status: 'COMPLETE' },
            ],
          },
        ],
      });
      const reordered = {
        phases: status.phases!.map((ph) => ({ steps: ph.steps, status: ph.status, name: ph.name })),
        status: status.status,
      };
      expect(planStatusUpdate({ ...three, status: reordered }, lookupOf(ds))).to.equal(undefined);
    });

    it('an unreadable state annotation is reported and ignored (the run is as created)', () => {
      const p = {
        ...three,
        metadata: { ...three.metadata, annotations: { [CUSTOM_PLAN_STATE_ANNOTATION]: '{"targets": 3}' } },
      };
      expect(parseCustomPlanState(p).error).to.match(/^annotation pacer.dev\/plan-state: expected/);
      expect(customPlanStateFor(p, {})).to.include({ interrupted: true, current: false });
    });
  });

  describe("the hold on a Deployment's rollout", () => {
    const p = plan([
      { name: 'first', steps: ['eu'] },
      { name: 'then', strategy: 'parallel', steps: ['us', 'ap'] },
    ]);
    const changed = [dep('eu', 'changed', 'nginx:2'), dep('us', 'changed', 'nginx:2'), dep('ap', 'changed', 'nginx:2')];
    const failing = dep('eu', 'timedOut', 'nginx:2');
    const rows: Array<[string, PlanResource, Deployment[], string, string | undefined]> = [
      [
        'not started',
        p,
        changed,
        'eu',
        'Deployment waits for plan regions to be started: kubectl pacer plan start eu regions',
      ],
      ['started, its turn', started(p, changed), changed, 'eu', undefined],
      [
        'started, a later phase',
        started(p, changed),
        changed,
        'us',
        'Deployment waits for its turn in plan regions (phase then)',
      ],
      [
        'the earlier phase complete',
        started(p, [dep('eu', 'complete', 'nginx:2'), changed[1], changed[2]]),
        [dep('eu', 'complete', 'nginx:2'), changed[1], changed[2]],
        'us',
        undefined,
      ],
      [
        'interrupted after start',
        started(p, changed, { interrupted: true }),
        changed,
        'eu',
        'Deployment waits for plan regions, which is interrupted: kubectl pacer plan continue eu regions',
      ],
      [
        'its phase interrupted',
        started(p, changed, { phases: { first: { interrupted: true } } }),
        changed,
        'eu',
        'Deployment waits for plan regions: phase first is interrupted (kubectl pacer plan continue eu regions first)',
      ],
      [
        'a launched step is never held back (interrupting does not stop launched work)',
        started(p, changed, { interrupted: true }),
        [dep('eu', 'rolling', 'nginx:2'), changed[1], changed[2]],
        'eu',
        undefined,
      ],
      [
        'an earlier step failing',
        started(p, [failing, changed[1], changed[2]]),
        [failing, changed[1], changed[2]],
        'us',
        'Deployment waits for plan regions, which has errors: deployment eu: ReplicaSet "eu-abc" has timed out progressing.',
      ],
      [
        'a canary step',
        started(plan([{ name: 'all', strategy: 'serial-canary', steps: ['eu', 'us'] }]), changed),
        changed,
        'eu',
        'Deployment waits for plan regions: canary step eu waits for kubectl pacer plan continue eu regions all',
      ],
      ['a Deployment the plan does not name', p, [dep('other', 'changed', 'nginx:2')], 'other', undefined],
    ];
    for (const [what, pl, ds, name, want] of rows) {
      it(`${what}: ${want ?? 'not held'}`, () => {
        const lookup = lookupOf(ds);
        const hold = customPlanHold(lookup(name)!, [pl], lookup);
        expect(hold?.message).to.equal(want);
        // Only a turn needs no operator: PlanPending; everything else pages (PlanWaiting).
        if (want)
          expect(hold?.reason).to.equal(
            want.startsWith('Deployment waits for its turn') ? 'PlanPending' : 'PlanWaiting',
          );
      });
    }
  });

  describe('through decide(): a held rollout waits at full size, then rolls once released', () => {
    /** A settled Deployment of 4 given a new template, in a plan as the second step after `eu`. */
    function held(euHow: 'changed' | 'complete'): { s: Snapshot; p: PlanResource; eu: Deployment } {
      let s = snapshot(deployment({ replicas: 4, maxSurge: 1, maxUnavailable: 1 }), []);
      for (let i = 0; i < 10 && decide(s).actions.length > 0; i++) s = next(decide(s), s.now + 1000);
      const d = s.deployment;
      const web: Deployment = {
        ...d,
        metadata: { ...d.metadata, name: 'web', generation: 2 },
        spec: { ...d.spec, template: template('nginx:2') },
      };
      const eu = dep('eu', euHow, 'nginx:2');
      const p = started(
        plan([
          { name: 'first', steps: ['eu'] },
          { name: 'then', steps: ['web'] },
        ]),
        [eu, web],
      );
      return { s: { ...s, deployment: web, plans: { plans: [p], deployments: [eu, web] } }, p, eu };
    }
    const image = (r: Snapshot['replicaSets'][number]) =>
      (r.spec.template?.spec as { containers?: Array<{ image?: string }> } | undefined)?.containers?.[0]?.image;
    const sizes = (s: Snapshot) =>
      s.replicaSets
        .map((r) => `${image(r)}=${r.spec.replicas}`)
        .sort()
        .join(' ');

    it('its turn has not come: the new ReplicaSet is created with 0 pods, every old pod stays; Progressing Unknown PlanPending', () => {
      let { s } = held('changed');
      for (let i = 0; i < 5 && decide(s).actions.length > 0; i++)
        s = { ...next(decide(s), s.now + 1000), plans: s.plans };
      expect(sizes(s)).to.equal('nginx:1=4 nginx:2=0');
      const progressing = s.deployment.status?.conditions?.find((c) => c.type === 'Progressing');
      expect(progressing).to.include({
        status: 'Unknown',
        reason: 'PlanPending',
        message: 'Deployment waits for its turn in plan regions (phase then)',
      });
    });

    it('what it waits for changes (started, now a canary step): the message follows, the transition time stays', () => {
      let { s } = held('changed');
      const web = s.deployment;
      const canary = plan([{ name: 'only', strategy: 'serial-canary', requiredProceeds: 1, steps: ['web'] }]);
      s = { ...s, plans: { plans: [canary], deployments: [web] } };
      for (let i = 0; i < 5 && decide(s).actions.length > 0; i++)
        s = { ...next(decide(s), s.now + 1000), plans: s.plans };
      const before = s.deployment.status!.conditions!.find((c) => c.type === 'Progressing')!;
      expect(before).to.include({
        reason: 'PlanWaiting',
        message: 'Deployment waits for plan regions to be started: kubectl pacer plan start web regions',
      });
      s = {
        ...s,
        now: s.now + 60_000,
        plans: { plans: [started(canary, [s.deployment])], deployments: [s.deployment] },
      };
      s = { ...next(decide(s), s.now), plans: s.plans };
      const after = s.deployment.status!.conditions!.find((c) => c.type === 'Progressing')!;
      expect(after).to.include({
        reason: 'PlanWaiting',
        message:
          'Deployment waits for plan regions: canary step web waits for kubectl pacer plan continue web regions only',
        lastTransitionTime: before.lastTransitionTime,
      });
    });

    it('once the step before it is COMPLETE: it rolls', () => {
      let { s } = held('complete');
      for (let i = 0; i < 20 && decide(s).actions.length > 0; i++)
        s = { ...next(decide(s), s.now + 1000), plans: s.plans };
      expect(sizes(s)).to.equal('nginx:1=0 nginx:2=4');
    });
  });
});
