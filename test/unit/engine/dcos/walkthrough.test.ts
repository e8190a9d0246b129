// The DC/OS SDK's "Plans and Deployment" walk-through (docs/semantics/plans.md):
// hello (1 pod, task server) then world (2 pods, tasks server and sidecar), deploy plan serial over
// serial phases. Each row moves one step and expects the tree the document draws.

import { expect } from 'chai';
import { buildPhase } from '../../../../src/engine/dcos/strategy.ts';
import { buildPlan, planCandidates, viewPlan } from '../../../../src/engine/dcos/tree.ts';
import { planTree } from '../../../../src/engine/dcos/render.ts';
import type { Plan, Step, StepStatus } from '../../../../src/engine/dcos/types.ts';

const step = (pod: string, index: number, tasks: string[]): Step => ({
  name: `${pod}-${index}:[${tasks.join(', ')}]`,
  status: 'PENDING',
  requirement: { pod, index, tasks },
});

function set(plan: Plan, name: string, status: StepStatus): Plan {
  return {
    ...plan,
    phases: plan.phases.map((p) => ({ ...p, steps: p.steps.map((s) => (s.name === name ? { ...s, status } : s)) })),
  };
}

describe('plans: the SDK walk-through (initial deployment of hello-world)', () => {
  const initial = buildPlan('deploy', 'serial', [
    buildPhase('hello', 'serial', [step('hello', 0, ['server'])]),
    buildPhase('world', 'serial', [step('world', 0, ['server', 'sidecar']), step('world', 1, ['server', 'sidecar'])]),
  ]);
  const rows: Array<{ name: string; move?: [string, StepStatus]; tree: string; candidates: string[] }> = [
    {
      name: 'initialized: everything PENDING; the candidate is hello-0',
      tree: `
deploy (serial strategy) (PENDING)
├─ hello (serial strategy) (PENDING)
│  └─ hello-0:[server] (PENDING)
└─ world (serial strategy) (PENDING)
   ├─ world-0:[server, sidecar] (PENDING)
   └─ world-1:[server, sidecar] (PENDING)`,
      candidates: ['hello-0:[server]'],
    },
    {
      name: 'offers evaluated for hello-0: PREPARED, its parents IN_PROGRESS',
      move: ['hello-0:[server]', 'PREPARED'],
      tree: `
deploy (serial strategy) (IN_PROGRESS)
├─ hello (serial strategy) (IN_PROGRESS)
│  └─ hello-0:[server] (PREPARED)
└─ world (serial strategy) (PENDING)
   ├─ world-0:[server, sidecar] (PENDING)
   └─ world-1:[server, sidecar] (PENDING)`,
      candidates: ['hello-0:[server]'],
    },
    {
      name: 'launched: STARTING all the way up',
      move: ['hello-0:[server]', 'STARTING'],
      tree: `
deploy (serial strategy) (STARTING)
├─ hello (serial strategy) (STARTING)
│  └─ hello-0:[server] (STARTING)
└─ world (serial strategy) (PENDING)
   ├─ world-0:[server, sidecar] (PENDING)
   └─ world-1:[server, sidecar] (PENDING)`,
      candidates: ['hello-0:[server]'],
    },
    {
      name: 'running, readiness check not passed yet: STARTED all the way up',
      move: ['hello-0:[server]', 'STARTED'],
      tree: `
deploy (serial strategy) (STARTED)
├─ hello (serial strategy) (STARTED)
│  └─ hello-0:[server] (STARTED)
└─ world (serial strategy) (PENDING)
   ├─ world-0:[server, sidecar] (PENDING)
   └─ world-1:[server, sidecar] (PENDING)`,
      candidates: ['hello-0:[server]'],
    },
    {
      name: 'ready: hello COMPLETE, deploy IN_PROGRESS, world-0 next',
      move: ['hello-0:[server]', 'COMPLETE'],
      tree: `
deploy (serial strategy) (IN_PROGRESS)
├─ hello (serial strategy) (COMPLETE)
│  └─ hello-0:[server] (COMPLETE)
└─ world (serial strategy) (PENDING)
   ├─ world-0:[server, sidecar] (PENDING)
   └─ world-1:[server, sidecar] (PENDING)`,
      candidates: ['world-0:[server, sidecar]'],
    },
    {
      name: 'world-0 done: world-1 next',
      move: ['world-0:[server, sidecar]', 'COMPLETE'],
      tree: `
deploy (serial strategy) (IN_PROGRESS)
├─ hello (serial strategy) (COMPLETE)
│  └─ hello-0:[server] (COMPLETE)
└─ world (serial strategy) (IN_PROGRESS)
   ├─ world-0:[server, sidecar] (COMPLETE)
   └─ world-1:[server, sidecar] (PENDING)`,
      candidates: ['world-1:[server, sidecar]'],
    },
    {
      name: 'world-1 done: the service is deployed',
      move: ['world-1:[server, sidecar]', 'COMPLETE'],
      tree: `
deploy (serial strategy) (COMPLETE)
├─ hello (serial strategy) (COMPLETE)
│  └─ hello-0:[server] (COMPLETE)
└─ world (serial strategy) (COMPLETE)
   ├─ world-0:[server, sidecar] (COMPLETE)
   └─ world-1:[server, sidecar] (COMPLETE)`,
      candidates: [],
    },
  ];
  let plan = initial;
  for (const row of rows) {
    it(row.name, () => {
      if (row.move) plan = set(plan, ...row.move);
      expect(planTree(viewPlan(plan)).join('\n')).to.equal(row.tree.trim());
      expect(planCandidates(plan).map((s) => s.name)).to.deep.equal(row.candidates);
    });
  }

  it("a configuration change: hello-1 added, world to be relaunched (the document's second tree)", () => {
    const changed = buildPlan('deploy', 'serial', [
      buildPhase('hello', 'serial', [
        { ...step('hello', 0, ['server']), status: 'COMPLETE' },
        step('hello', 1, ['server']),
      ]),
      buildPhase('world', 'serial', [step('world', 0, ['server', 'sidecar']), step('world', 1, ['server', 'sidecar'])]),
    ]);
    expect(planTree(viewPlan(changed)).join('\n')).to.equal(
      `
deploy (serial strategy) (IN_PROGRESS)
├─ hello (serial strategy) (IN_PROGRESS)
│  ├─ hello-0:[server] (COMPLETE)
│  └─ hello-1:[server] (PENDING)
└─ world (serial strategy) (PENDING)
   ├─ world-0:[server, sidecar] (PENDING)
   └─ world-1:[server, sidecar] (PENDING)`.trim(),
    );
    expect(planCandidates(changed).map((s) => s.name)).to.deep.equal(['hello-1:[server]']);
  });

  it("the document's mixed example: foo serial over bar (serial, done) and baz (parallel): quuz and corge are the candidates", () => {
    const plan = buildPlan('foo', 'serial', [
      buildPhase('bar', 'serial', [
        { name: 'Step qux', status: 'COMPLETE' },
        { name: 'Step quux', status: 'COMPLETE' },
      ]),
      buildPhase('baz', 'parallel', [
        { name: 'Step quuz', status: 'STARTING' },
        { name: 'Step corge', status: 'PENDING' },
        { name: 'Step grault', status: 'COMPLETE' },
      ]),
    ]);
    expect(planTree(viewPlan(plan)).join('\n')).to.equal(
      `
foo (serial strategy) (IN_PROGRESS)
├─ bar (serial strategy) (COMPLETE)
│  ├─ Step qux (COMPLETE)
│  └─ Step quux (COMPLETE)
└─ baz (parallel strategy) (IN_PROGRESS)
   ├─ Step quuz (STARTING)
   ├─ Step corge (PENDING)
   └─ Step grault (COMPLETE)`.trim(),
    );
    expect(planCandidates(plan).map((s) => s.name)).to.deep.equal(['Step quuz', 'Step corge']);
  });
});
