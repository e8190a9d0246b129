// Dirty assets and the plan coordinator, as the DC/OS SDK's DefaultPlanCoordinatorTest pins them
// (https://github.com/mesosphere/dcos-commons/blob/master/sdk/scheduler/src/test/java/com/mesosphere/sdk/scheduler/plan/DefaultPlanCoordinatorTest.java):
// no pod is worked on by two plans at once, deploy comes before recovery before custom plans.

import { expect } from 'chai';
import { byPriority, coordinate } from '../../../../src/engine/dcos/assets.ts';
import { buildPhase } from '../../../../src/engine/dcos/strategy.ts';
import { buildPlan } from '../../../../src/engine/dcos/tree.ts';
import { conflicts } from '../../../../src/engine/dcos/types.ts';
import type { Plan, PodRequirement, StepStatus } from '../../../../src/engine/dcos/types.ts';

const req = (s: string): PodRequirement => {
  const m = /^(\w+)-(\d+):\[(.*)\]$/.exec(s)!;
  return { pod: m[1], index: Number(m[2]), tasks: m[3].split(',').map((t) => t.trim()) };
};
const plan = (name: string, steps: Array<[string, StepStatus]>, o: { interrupted?: boolean } = {}): Plan =>
  buildPlan(
    name,
    'parallel',
    [
      buildPhase(
        name,
        'parallel',
        steps.map(([n, status]) => ({ name: n, status, requirement: req(n) })),
      ),
    ],
    o,
  );
const picked = (plans: Plan[]) =>
  Object.fromEntries(coordinate(plans).map((x) => [x.plan, x.steps.map((s) => s.name)]));

describe('plans: dirty assets', () => {
  const rows: Array<[string, string, string, boolean]> = [
    ['pod-0:[a,b] and pod-0:[b] share task b', 'pod-0:[a,b]', 'pod-0:[b]', true],
    ['pod-0:[b] and pod-0:[a] share no task', 'pod-0:[b]', 'pod-0:[a]', false],
    ['pod-0:[a] and pod-1:[a] are different pods', 'pod-0:[a]', 'pod-1:[a]', false],
  ];
  for (const [name, a, b, want] of rows)
    it(`conflict: ${name}`, () => expect(conflicts(req(a), req(b))).to.equal(want));

  it('priority: deploy, recovery, decommission, then custom plans in their order', () => {
    const names = byPriority(['zeta', 'recovery', 'alpha', 'deploy', 'decommission'].map((n) => plan(n, []))).map(
      (p) => p.name,
    );
    expect(names).to.deep.equal(['deploy', 'recovery', 'decommission', 'zeta', 'alpha']);
  });

  it('the same pod pending in deploy and recovery: deploy claims it', () => {
    expect(
      picked([plan('recovery', [['web-0:[app]', 'PENDING']]), plan('deploy', [['web-0:[app]', 'PENDING']])]),
    ).to.deep.equal({ deploy: ['web-0:[app]'], recovery: [] });
  });

  it('a pod PREPARED in recovery blocks deploy on later passes (SameAssetsDifferentOrder)', () => {
    expect(
      picked([plan('deploy', [['web-0:[app]', 'PENDING']]), plan('recovery', [['web-0:[app]', 'PREPARED']])]),
    ).to.deep.equal({ deploy: [], recovery: ['web-0:[app]'] });
  });

  it('a plan is not blocked by its own running step', () => {
    expect(
      picked([
        plan('deploy', [
          ['web-0:[app]', 'STARTING'],
          ['web-1:[app]', 'PENDING'],
        ]),
      ]),
    ).to.deep.equal({ deploy: ['web-0:[app]', 'web-1:[app]'] });
  });

  it('an interrupted plan is skipped and dirties nothing', () => {
    expect(
      picked([
        plan('deploy', [['web-0:[app]', 'PREPARED']], { interrupted: true }),
        plan('recovery', [['web-0:[app]', 'PENDING']]),
      ]),
    ).to.deep.equal({ recovery: ['web-0:[app]'] });
  });

  it('different pods in two plans: both go ahead', () => {
    expect(
      picked([plan('deploy', [['web-2:[app]', 'PENDING']]), plan('recovery', [['web-4:[app]', 'PENDING']])]),
    ).to.deep.equal({ deploy: ['web-2:[app]'], recovery: ['web-4:[app]'] });
  });

  it('DELAYED steps are not handed out', () => {
    expect(
      picked([
        plan('recovery', [
          ['web-0:[app]', 'DELAYED'],
          ['web-1:[app]', 'PENDING'],
        ]),
      ]),
    ).to.deep.equal({ recovery: ['web-1:[app]'] });
  });
});
