// Plan operations and their answers, as the DC/OS SDK's plans API gives them (PlansResource and
// PlansResourceTest, https://github.com/mesosphere/dcos-commons/blob/master/sdk/scheduler/src/main/java/com/mesosphere/sdk/http/endpoints/PlansResource.java):
// 200 with "Received cmd: …", 208 "already reported or completed", 400 for bad parameters or a step
// without its phase, 404 "<Kind> <name> not found". Nothing changes unless the answer is 200.

import { expect } from 'chai';
import { ALREADY_REPORTED, applyOperation } from '../../../../src/engine/dcos/operations.ts';
import type { Operation } from '../../../../src/engine/dcos/operations.ts';
import { buildPhase } from '../../../../src/engine/dcos/strategy.ts';
import { buildPlan, planCandidates, viewPlan } from '../../../../src/engine/dcos/tree.ts';
import type { Plan, StepStatus } from '../../../../src/engine/dcos/types.ts';

function plan(a: StepStatus[], b: StepStatus[], o: { interrupted?: boolean } = {}): Plan {
  return buildPlan(
    'deploy',
    'serial',
    [
      buildPhase(
        'hello',
        'serial',
        a.map((status, i) => ({ name: `hello-${i}:[server]`, status })),
      ),
      buildPhase(
        'world',
        'serial',
        b.map((status, i) => ({ name: `world-${i}:[server]`, status })),
      ),
    ],
    o,
  );
}
const statuses = (p: Plan) => {
  const v = viewPlan(p);
  return [v.status, ...v.phases.flatMap((ph) => [ph.status, ...ph.steps.map((s) => s.status)])].join(' ');
};

describe('plans: operations and their answers', () => {
  const rows: Array<{ name: string; plan: Plan; op: Operation; code: number; message: string; after?: string }> = [
    {
      name: 'start with parameters: 200, echoed as the SDK prints a map',
      plan: plan(['PENDING'], ['PENDING']),
      op: { op: 'start', parameters: { MODE: 'fast', N_1: '2' } },
      code: 200,
      message: 'Received cmd: start deploy with parameters: {MODE=fast, N_1=2}',
    },
    {
      name: 'start with a bad parameter name: 400, nothing changed',
      plan: plan(['PENDING'], ['PENDING']),
      op: { op: 'start', parameters: { '1BAD': 'x' } },
      code: 400,
      message: "Couldn't parse parameters: 1BAD is not a valid environment variable name",
    },
    {
      name: 'start on a COMPLETE plan restarts it',
      plan: plan(['COMPLETE'], ['COMPLETE']),
      op: { op: 'start' },
      code: 200,
      message: 'Received cmd: start deploy with parameters: {}',
      after: 'PENDING PENDING PENDING PENDING PENDING',
    },
    {
      name: 'stop: interrupted and every step PENDING; never 208',
      plan: plan(['COMPLETE'], ['STARTING']),
      op: { op: 'stop' },
      code: 200,
      message: 'Received cmd: stop',
      after: 'WAITING PENDING PENDING PENDING PENDING',
    },
    {
      name: 'interrupt the plan: 200, WAITING',
      plan: plan(['COMPLETE'], ['PENDING']),
      op: { op: 'interrupt' },
      code: 200,
      message: 'Received cmd: interrupt',
      after: 'WAITING COMPLETE COMPLETE PENDING PENDING',
    },
    {
      name: 'interrupt an interrupted plan: 208',
      plan: plan(['PENDING'], ['PENDING'], { interrupted: true }),
      op: { op: 'interrupt' },
      code: 208,
      message: ALREADY_REPORTED,
    },
    {
      name: 'interrupt a COMPLETE plan: 208',
      plan: plan(['COMPLETE'], ['COMPLETE']),
      op: { op: 'interrupt' },
      code: 208,
      message: ALREADY_REPORTED,
    },
    {
      name: 'interrupt a COMPLETE phase: 208',
      plan: plan(['COMPLETE'], ['PENDING']),
      op: { op: 'interrupt', phase: 'hello' },
      code: 208,
      message: ALREADY_REPORTED,
    },
    {
      name: 'interrupt an unknown phase: 404',
      plan: plan(['PENDING'], ['PENDING']),
      op: { op: 'interrupt', phase: 'nope' },
      code: 404,
      message: 'Phase nope not found',
    },
    {
      name: 'continue an interrupted plan: 200',
      plan: plan(['PENDING'], ['PENDING'], { interrupted: true }),
      op: { op: 'continue' },
      code: 200,
      message: 'Received cmd: continue',
      after: 'PENDING PENDING PENDING PENDING PENDING',
    },
    {
      name: 'continue a running plan: 208',
      plan: plan(['STARTING'], ['PENDING']),
      op: { op: 'continue' },
      code: 208,
      message: ALREADY_REPORTED,
    },
    {
      name: 'continue a COMPLETE phase: 208',
      plan: plan(['COMPLETE'], ['PENDING']),
      op: { op: 'continue', phase: 'hello' },
      code: 208,
      message: ALREADY_REPORTED,
    },
    {
      name: "forceComplete a step: 200, the SDK's message with its names",
      plan: plan(['STARTED'], ['PENDING']),
      op: { op: 'forceComplete', phase: 'hello', step: 'hello-0:[server]' },
      code: 200,
      message: 'Received cmd: forceComplete for Plan: deploy, Phase: hello, Step: hello-0:[server]',
      after: 'IN_PROGRESS COMPLETE COMPLETE PENDING PENDING',
    },
    {
      name: 'forceComplete a phase: every step COMPLETE; missing names print as null',
      plan: plan(['STARTED'], ['PENDING']),
      op: { op: 'forceComplete', phase: 'world' },
      code: 200,
      message: 'Received cmd: forceComplete for Plan: deploy, Phase: world, Step: null',
      after: 'IN_PROGRESS STARTED STARTED COMPLETE COMPLETE',
    },
    {
      name: 'forceComplete the plan',
      plan: plan(['STARTED'], ['PENDING']),
      op: { op: 'forceComplete' },
      code: 200,
      message: 'Received cmd: forceComplete for Plan: deploy, Phase: null, Step: null',
      after: 'COMPLETE COMPLETE COMPLETE COMPLETE COMPLETE',
    },
    {
      name: 'forceComplete a COMPLETE step: 208',
      plan: plan(['COMPLETE'], ['PENDING']),
      op: { op: 'forceComplete', phase: 'hello', step: 'hello-0:[server]' },
      code: 208,
      message: ALREADY_REPORTED,
    },
    {
      name: 'forceComplete a step without its phase: 400',
      plan: plan(['PENDING'], ['PENDING']),
      op: { op: 'forceComplete', step: 'hello-0:[server]' },
      code: 400,
      message: 'Missing phase',
    },
    {
      name: 'forceComplete an unknown step: 404',
      plan: plan(['PENDING'], ['PENDING']),
      op: { op: 'forceComplete', phase: 'hello', step: 'hello-9:[server]' },
      code: 404,
      message: 'Step hello-9:[server] not found',
    },
    {
      name: 'restart a step: back to PENDING',
      plan: plan(['STARTED'], ['PENDING']),
      op: { op: 'restart', phase: 'hello', step: 'hello-0:[server]' },
      code: 200,
      message: 'Received cmd: restart for Plan: deploy, Phase: hello, Step: hello-0:[server]',
      after: 'PENDING PENDING PENDING PENDING PENDING',
    },
    {
      name: 'restart a phase: each step PENDING',
      plan: plan(['COMPLETE'], ['COMPLETE']),
      op: { op: 'restart', phase: 'hello' },
      code: 200,
      message: 'Received cmd: restart for Plan: deploy, Phase: hello, Step: null',
      after: 'IN_PROGRESS PENDING PENDING COMPLETE COMPLETE',
    },
    {
      name: 'restart a PENDING step: 208',
      plan: plan(['PENDING'], ['PENDING']),
      op: { op: 'restart', phase: 'hello', step: 'hello-0:[server]' },
      code: 208,
      message: ALREADY_REPORTED,
    },
    {
      name: 'restart without a phase but with a step: 400',
      plan: plan(['PENDING'], ['PENDING']),
      op: { op: 'restart', step: 'x' },
      code: 400,
      message: 'Missing phase',
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const before = JSON.stringify(row.plan);
      const out = applyOperation(row.plan, row.op);
      expect([out.code, out.message]).to.deep.equal([row.code, row.message]);
      if (out.code !== 200) expect(JSON.stringify(out.plan)).to.equal(before);
      if (row.after) expect(statuses(out.plan)).to.equal(row.after);
      expect(JSON.stringify(row.plan), 'the input is never changed').to.equal(before);
    });
  }

  it('a forced step is marked, and restart clears the mark', () => {
    const forced = applyOperation(plan(['STARTED'], []), {
      op: 'forceComplete',
      phase: 'hello',
      step: 'hello-0:[server]',
    }).plan;
    expect(viewPlan(forced).phases[0].steps[0].forced).to.equal(true);
    const again = applyOperation(forced, { op: 'restart', phase: 'hello', step: 'hello-0:[server]' }).plan;
    expect(viewPlan(again).phases[0].steps[0]).to.include({ forced: false, status: 'PENDING' });
  });

  it('restart on a WAITING canary step releases it (only exactly PENDING is 208)', () => {
    const p = buildPlan('deploy', 'serial', [
      buildPhase('web', 'serial-canary', [
        { name: 'a', status: 'PENDING' },
        { name: 'b', status: 'PENDING' },
      ]),
    ]);
    const out = applyOperation(p, { op: 'restart', phase: 'web', step: 'b' });
    expect(out.code).to.equal(200);
    expect(viewPlan(out.plan).phases[0].steps.map((s) => s.status)).to.deep.equal(['WAITING', 'PENDING']);
    expect(planCandidates(out.plan).map((s) => s.name)).to.deep.equal(['b']);
  });
});
