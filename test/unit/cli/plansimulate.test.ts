// `pacer plans simulate`: the examples print what docs/plans-simulate.md says they print, and bad
// input is refused with every field path named and exit 2.

import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { runSimulate } from '../../../src/cli/plansimulate.ts';
import type { SimulateFrame } from '../../../src/cli/plansimulate.ts';

const example = (name: string) => readFileSync(new URL(`../../../examples/plans/${name}`, import.meta.url), 'utf8');
const frames = (input: string): SimulateFrame[] => {
  const r = runSimulate(input, 'test.yaml', 'json');
  expect(r.stderr).to.equal('');
  expect(r.code).to.equal(0);
  return JSON.parse(r.stdout) as SimulateFrame[];
};

describe('pacer plans simulate', () => {
  it('the serial-canary example: nothing until the first continue, one step, a wait, then one by one', () => {
    const f = frames(example('canary.yaml'));
    const trace = f.map((x) => `${x.event} | ${x.plans[0].status} | ${x.plans[0].candidates.join(',')}`);
    expect(trace).to.deep.equal([
      'initial | WAITING | ',
      'advance 4 | WAITING | ',
      'continue deploy web | PENDING | web/web-0:[app]',
      'advance 4 | WAITING | ',
      'continue deploy web | IN_PROGRESS | web/web-1:[app]',
      'advance 4 | IN_PROGRESS | web/web-2:[app]',
      'advance 8 | COMPLETE | ',
    ]);
    expect(f[2].answer).to.deep.equal({ code: 200, message: 'Received cmd: continue' });
  });

  it("the walk-through example: the SDK's statuses, plan and phase following the step", () => {
    const f = frames(example('hello-world.yaml'));
    expect(
      f.map((x) => [x.plans[0].status, x.plans[0].phases[0].status, x.plans[0].phases[0].steps[0].status].join(' ')),
    ).to.deep.equal([
      'PENDING PENDING PENDING',
      'IN_PROGRESS IN_PROGRESS PREPARED',
      'STARTING STARTING STARTING',
      'STARTED STARTED STARTED',
      'IN_PROGRESS COMPLETE COMPLETE',
      'COMPLETE COMPLETE COMPLETE',
    ]);
  });

  it("text output draws the SDK's tree and the candidates", () => {
    const r = runSimulate(example('hello-world.yaml'), 'x', 'text');
    expect(r.stdout.split('\n').slice(0, 8)).to.deep.equal([
      '== initial',
      'deploy (serial strategy) (PENDING)',
      '├─ hello (serial strategy) (PENDING)',
      '│  └─ hello-0:[server] (PENDING)',
      '└─ world (serial strategy) (PENDING)',
      '   ├─ world-0:[server, sidecar] (PENDING)',
      '   └─ world-1:[server, sidecar] (PENDING)',
      'candidates: hello/hello-0:[server]',
    ]);
  });

  it("the plans API's answers: 404 for an unknown phase, 400 for a step without its phase, nothing changed", () => {
    const f = frames(`
plan: {name: deploy, phases: [{name: a, steps: [{name: "a-0:[x]", status: STARTED}]}]}
operations:
- interrupt: {phase: b}
- forceComplete: {step: "a-0:[x]"}
- start: {parameters: {"9X": "1"}}
- forceComplete: {phase: a, step: "a-0:[x]"}
`);
    expect(f.slice(1).map((x) => `${x.answer!.code} ${x.answer!.message}`)).to.deep.equal([
      '404 Phase b not found',
      '400 Missing phase',
      "400 Couldn't parse parameters: 9X is not a valid environment variable name",
      '200 Received cmd: forceComplete for Plan: deploy, Phase: a, Step: a-0:[x]',
    ]);
    expect(f[3].plans[0].phases[0].steps[0].status).to.equal('STARTED');
    expect(f[4].plans[0].phases[0].steps[0]).to.include({ status: 'COMPLETE', forced: true });
  });

  it('two plans share a pod: deploy claims it first, recovery waits for it', () => {
    const f = frames(`
plans:
- {name: recovery, strategy: parallel, phases: [{name: web-1, steps: [{name: "web-1:[app]"}]}]}
- {name: deploy, phases: [{name: web, strategy: parallel, steps: [{name: "web-0:[app]"}, {name: "web-1:[app]"}]}]}
operations:
- advance: 1
`);
    expect(f.map((x) => x.plans.map((p) => `${p.name}: ${p.candidates.join(',')}`).join(' | '))).to.deep.equal([
      'recovery:  | deploy: web/web-0:[app],web/web-1:[app]',
      'recovery:  | deploy: web/web-0:[app],web/web-1:[app]',
    ]);
  });

  it('bad input: every error with its field path, exit 2', () => {
    const r = runSimulate(
      `
plan:
  name: deploy
  strategy: serial-canary
  phases:
  - {name: a, strategy: serial, requiredProceeds: 3, steps: [{name: x, status: DONE}, {status: PENDING}]}
  - {strategy: parallel-canary, requiredProceeds: 0, colour: red}
operations:
- continue: {plan: nope}
- frobnicate: {}
- {advance: 1, continue: {}}
- advance: -1
`,
      'bad.yaml',
      'text',
    );
    expect(r.code).to.equal(2);
    expect(r.stdout).to.equal('');
    expect(r.stderr.trim().split('\n')).to.deep.equal([
      'error: bad.yaml: plan.strategy: Unsupported value: "serial-canary": supported values: "serial", "parallel"',
      'error: bad.yaml: plan.phases[0].requiredProceeds: Forbidden: only for a canary strategy (serial-canary or parallel-canary), not serial',
      'error: bad.yaml: plan.phases[0].steps[0].status: Unsupported value: "DONE": supported values: "ERROR", "PENDING", "PREPARED", "STARTING", "STARTED", "COMPLETE", "DELAYED"',
      'error: bad.yaml: plan.phases[0].steps[1].name: Required value',
      'error: bad.yaml: plan.phases[1].colour: unknown field "colour"',
      'error: bad.yaml: plan.phases[1].name: Required value',
      'error: bad.yaml: plan.phases[1].requiredProceeds: Invalid value: 0: must be greater than or equal to 1',
      'error: bad.yaml: operations[0].continue.plan: Plan nope not found',
      'error: bad.yaml: operations[1].frobnicate: Unsupported value: "frobnicate": supported values: "start", "stop", "interrupt", "continue", "forceComplete", "restart", "step", "advance"',
      'error: bad.yaml: operations[2]: expected exactly one of "start", "stop", "interrupt", "continue", "forceComplete", "restart", "step", "advance", got "advance", "continue"',
      'error: bad.yaml: operations[3].advance: Invalid value: -1: must be greater than or equal to 1',
    ]);
  });

  it('malformed YAML and a missing file: one line naming the source, exit 2', () => {
    expect(runSimulate('plan: [1', 'x.yaml', 'text')).to.include({ code: 2, stdout: '' });
    expect(runSimulate('plan: [1', 'x.yaml', 'text').stderr).to.match(/^error: x\.yaml: Flow sequence/);
    expect(runSimulate('- 1', 'x.yaml', 'text').stderr).to.equal(
      'error: x.yaml: <root>: Invalid value: "array": <root> in body must be of type object\n',
    );
    const r = spawnSync(process.execPath, ['bin/pacer.js', 'plans', 'simulate', '-f', '/nonexistent/plan.yaml'], {
      encoding: 'utf8',
    });
    expect([r.status, r.stderr]).to.deep.equal([
      2,
      "error: /nonexistent/plan.yaml: ENOENT: no such file or directory, open '/nonexistent/plan.yaml'\n",
    ]);
  });

  it('the pacer binary: -o yaml', () => {
    const out = execFileSync(
      process.execPath,
      ['bin/pacer.js', 'plans', 'simulate', '-f', 'examples/plans/canary.yaml', '-o', 'yaml'],
      { encoding: 'utf8' },
    );
    expect(out).to.match(/^- event: initial\n/);
    expect(out).to.contain('status: WAITING');
  });
});
