// Strategies and interrupt/continue, as the DC/OS SDK's SerialStrategyTest, ParallelStrategyTest and
// CanaryStrategyTest pin them (https://github.com/mesosphere/dcos-commons/tree/master/sdk/scheduler/src/test/java/com/mesosphere/sdk/scheduler/plan/strategy)
// and its canary integration tests (test_canary_plan_continue_noop). Each row: a phase or plan, the
// operator's commands and the steps' progress, and the candidates and statuses after each.

import { expect } from 'chai';
import { applyOperation } from '../../../../src/engine/dcos/operations.ts';
import type { Operation } from '../../../../src/engine/dcos/operations.ts';
import { buildPhase } from '../../../../src/engine/dcos/strategy.ts';
import { buildPlan, planCandidates, viewPlan } from '../../../../src/engine/dcos/tree.ts';
import type { PhaseStrategy, Plan, Step, StepStatus } from '../../../../src/engine/dcos/types.ts';

const steps = (n: number, status: StepStatus = 'PENDING'): Step[] =>
  Array.from({ length: n }, (_, i) => ({ name: `s${i}`, status }));
const onePhase = (strategy: PhaseStrategy, list: Step[], requiredProceeds?: number): Plan =>
  buildPlan('deploy', 'serial', [
    buildPhase('p', strategy, list, requiredProceeds === undefined ? {} : { requiredProceeds }),
  ]);

/** A script: "continue" / "continue p" (a phase) / "interrupt p" / "s2=COMPLETE" (a step's progress). */
function play(plan: Plan, script: string[]): Plan {
  for (const line of script) {
    const done = /^(s\d+)=(\w+)$/.exec(line);
    if (done) {
      plan = {
        ...plan,
        phases: plan.phases.map((p) => ({
          ...p,
          steps: p.steps.map((s) => (s.name === done[1] ? { ...s, status: done[2] as StepStatus } : s)),
        })),
      };
      continue;
    }
    const [op, phase] = line.split(' ');
    plan = applyOperation(plan, { op: op as Operation['op'], ...(phase ? { phase } : {}) }).plan;
  }
  return plan;
}
const candidates = (plan: Plan) => planCandidates(plan).map((s) => s.name);
const phaseStatus = (plan: Plan) => viewPlan(plan).phases[0].status;

describe('plans: strategies', () => {
  const rows: Array<{ name: string; plan: () => Plan; script: string[]; candidates: string[]; status?: string }> = [
    {
      name: 'serial: the first incomplete step',
      plan: () => onePhase('serial', steps(3)),
      script: [],
      candidates: ['s0'],
      status: 'PENDING',
    },
    {
      name: 'serial: a step in flight stays the candidate until it completes',
      plan: () => onePhase('serial', steps(3)),
      script: ['s0=STARTING'],
      candidates: ['s0'],
      status: 'STARTING',
    },
    {
      name: 'serial: then the next',
      plan: () => onePhase('serial', steps(3)),
      script: ['s0=COMPLETE'],
      candidates: ['s1'],
      status: 'IN_PROGRESS',
    },
    {
      name: 'serial: s1 completed out of order, s0 still first',
      plan: () => onePhase('serial', steps(3)),
      script: ['s1=COMPLETE'],
      candidates: ['s0'],
    },
    {
      name: 'serial: … and after s0, s2',
      plan: () => onePhase('serial', steps(3)),
      script: ['s1=COMPLETE', 's0=COMPLETE'],
      candidates: ['s2'],
    },
    {
      name: 'serial: an ERROR step blocks every step after it',
      plan: () =>
        onePhase('serial', [{ name: 's0', status: 'ERROR' }, ...steps(2).map((s, i) => ({ ...s, name: `s${i + 1}` }))]),
      script: [],
      candidates: [],
      status: 'ERROR',
    },
    {
      name: 'serial quirk: a step COMPLETE when the strategy was built and restarted runs beside the current one',
      plan: () =>
        onePhase('serial', [
          { name: 's0', status: 'COMPLETE' },
          { name: 's1', status: 'PENDING' },
        ]),
      script: ['restart'],
      candidates: ['s0', 's1'],
    },
    {
      name: 'parallel: every incomplete step',
      plan: () => onePhase('parallel', steps(3)),
      script: ['s1=COMPLETE'],
      candidates: ['s0', 's2'],
    },
    {
      name: 'interrupted phase: no candidates, WAITING; steps in flight carry on',
      plan: () => onePhase('parallel', steps(2)),
      script: ['s0=STARTING', 'interrupt p'],
      candidates: [],
      status: 'WAITING',
    },
    {
      name: 'continue on the phase: candidates again',
      plan: () => onePhase('serial', steps(2)),
      script: ['interrupt p', 'continue p'],
      candidates: ['s0'],
    },
    {
      name: 'interrupted plan: no candidates, the plan WAITING',
      plan: () => onePhase('serial', steps(2)),
      script: ['interrupt'],
      candidates: [],
    },
    // Canary, default two proceeds.
    {
      name: 'serial-canary: built with its first two steps interrupted: WAITING, nothing to do',
      plan: () => onePhase('serial-canary', steps(4)),
      script: [],
      candidates: [],
      status: 'WAITING',
    },
    {
      name: 'serial-canary: the 1st continue runs the first step',
      plan: () => onePhase('serial-canary', steps(4)),
      script: ['continue p'],
      candidates: ['s0'],
      status: 'PENDING',
    },
    {
      name: 'serial-canary: the first step done, it waits again',
      plan: () => onePhase('serial-canary', steps(4)),
      script: ['continue p', 's0=COMPLETE'],
      candidates: [],
      status: 'WAITING',
    },
    {
      name: 'serial-canary: the 2nd continue releases the second step only',
      plan: () => onePhase('serial-canary', steps(4)),
      script: ['continue p', 's0=COMPLETE', 'continue p'],
      candidates: ['s1'],
      status: 'IN_PROGRESS',
    },
    {
      name: 'serial-canary: then one by one, on their own',
      plan: () => onePhase('serial-canary', steps(4)),
      script: ['continue p', 's0=COMPLETE', 'continue p', 's1=COMPLETE'],
      candidates: ['s2'],
    },
    {
      name: 'parallel-canary: the 2nd continue releases every remaining step at once',
      plan: () => onePhase('parallel-canary', steps(4)),
      script: ['continue p', 's0=COMPLETE', 'continue p'],
      candidates: ['s1', 's2', 's3'],
    },
    {
      name: 'canary with 3 proceeds: the 2nd continue runs the second step, the 3rd releases the rest',
      plan: () => onePhase('parallel-canary', steps(5), 3),
      script: ['continue p', 's0=COMPLETE', 'continue p'],
      candidates: ['s1'],
    },
    {
      name: '… the 3rd',
      plan: () => onePhase('parallel-canary', steps(5), 3),
      script: ['continue p', 's0=COMPLETE', 'continue p', 's1=COMPLETE', 'continue p'],
      candidates: ['s2', 's3', 's4'],
    },
    {
      name: 'canary with one pending step (others complete): one continue is enough',
      plan: () => onePhase('serial-canary', [...steps(2, 'COMPLETE'), { name: 's2', status: 'PENDING' }]),
      script: ['continue p'],
      candidates: ['s2'],
    },
    {
      name: 'canary with no pending step: no canary at all',
      plan: () => onePhase('serial-canary', steps(2, 'STARTING')),
      script: [],
      candidates: ['s0'],
    },
    {
      name: 'a plan-level continue releases no canary step',
      plan: () => onePhase('serial-canary', steps(4)),
      script: ['continue'],
      candidates: [],
      status: 'WAITING',
    },
    {
      name: 'an interrupt during the canary period is ignored',
      plan: () => onePhase('serial-canary', steps(4)),
      script: ['continue p', 'interrupt p'],
      candidates: ['s0'],
    },
    {
      name: 'after the canary period an interrupt reaches the wrapped strategy',
      plan: () => onePhase('serial-canary', steps(4)),
      script: ['continue p', 'continue p', 'interrupt p'],
      candidates: [],
      status: 'WAITING',
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const plan = play(row.plan(), row.script);
      expect(candidates(plan)).to.deep.equal(row.candidates);
      if (row.status) expect(phaseStatus(plan)).to.equal(row.status);
    });
  }

  it('serial plan over phases: the second phase waits for the first; a parallel plan runs both', () => {
    const phases = [
      buildPhase('a', 'serial', steps(1)),
      buildPhase('b', 'serial', [{ name: 't0', status: 'PENDING' }]),
    ];
    expect(candidates(buildPlan('deploy', 'serial', phases))).to.deep.equal(['s0']);
    expect(candidates(buildPlan('deploy', 'parallel', phases))).to.deep.equal(['s0', 't0']);
  });

  it('a canary step shows WAITING until released', () => {
    const plan = play(onePhase('serial-canary', steps(3)), ['continue p']);
    expect(viewPlan(plan).phases[0].steps.map((s) => s.status)).to.deep.equal(['PENDING', 'WAITING', 'PENDING']);
  });
});
