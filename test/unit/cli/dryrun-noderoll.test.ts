// `pacer plan -f` with a NodeRoll: the roller's next step from a file, pass after pass (each run's
// `objects` carry the status into the next), the same pass the controller runs.

import { expect } from 'chai';
import { runPlan } from '../../../src/cli/dryrun.ts';
import type { RollPlanDocument } from '../../../src/cli/dryrun-noderoll.ts';

const NOW = '2026-01-01T10:00:00Z';
const node = (name: string, zone: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { group: 'w', 'topology.kubernetes.io/zone': zone } },
  status: { conditions: [{ type: 'Ready', status: 'True' }], allocatable: { pods: '10', cpu: '4', memory: '16Gi' } },
  ...extra,
});
const ROLL = {
  apiVersion: 'pacer.dev/v1alpha1',
  kind: 'NodeRoll',
  metadata: { name: 'upgrade' },
  spec: { nodeSelector: { matchLabels: { group: 'w' } }, nodeGroup: 'workers', desiredNodes: 2 },
};
const pod = (name: string, on: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { nodeName: on, containers: [{ name: 'c', image: 'x' }] },
  status: { phase: 'Running' },
});
const list = (...items: unknown[]) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });

function run(input: string, output: 'json' | 'text' = 'json') {
  const r = runPlan(input, 'roll.yaml', { now: NOW, output });
  expect(r.stderr).to.equal('');
  expect(r.code).to.equal(0);
  return output === 'json' ? (JSON.parse(r.stdout) as RollPlanDocument) : r.stdout;
}

describe("pacer plan -f: a node roll's next step", () => {
  it("first pass: the group's rebalancing held and the group scaled up to originals + desired; the plan shows the scale-up STARTING", () => {
    const doc = run(list(ROLL, node('a-1', 'a'), node('b-1', 'b'), pod('p', 'a-1'))) as RollPlanDocument;
    expect(doc.noderoll).to.equal('upgrade');
    expect(doc.actions).to.deep.equal([
      { verb: 'addFinalizer' },
      { verb: 'holdRebalance', group: 'workers' },
      { verb: 'scaleGroup', group: 'workers', to: 4 },
    ]);
    expect(doc.objects[0].metadata.finalizers, 'the next run gets the NodeRoll with its finalizer').to.deep.equal([
      'pacer.dev/noderoll',
    ]);
    expect(doc.status).to.deep.include({ phase: 'Rolling', originalNodes: ['a-1', 'b-1'], scaledUpTo: 4 });
    expect(doc.requeueAfterSeconds).to.equal(600);
    expect(doc.plan.phases.map((p) => `${p.name} ${p.status}`)).to.deep.equal([
      'scale-up STARTING',
      'roll PENDING',
      'rebalance PENDING',
    ]);
    // The next pass from its objects, with the new nodes there: every old node cordoned, then the first drained.
    const next = run(
      list(...doc.objects, node('a-1', 'a'), node('b-1', 'b'), node('new-1', 'a'), node('new-2', 'b'), pod('p', 'a-1')),
    ) as RollPlanDocument;
    expect(next.actions, 'the finalizer is not put on twice').to.deep.equal([
      { verb: 'cordon', node: 'a-1' },
      { verb: 'cordon', node: 'b-1' },
      { verb: 'evict', node: 'a-1', namespace: 'default', pod: 'p' },
    ]);
    expect(next.status.nodes?.map((n) => `${n.name} ${n.step}`)).to.deep.equal(['a-1 Draining', 'b-1 Pending']);
  });

  it("with the cluster's default windows' ConfigMap in the file: outside them, the roll does not start and says whose windows", () => {
    const windows = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'pacer-maintenance-windows', namespace: 'pacer-system' },
      data: { windows: '- start: "22:00"\n  duration: 4h' },
    };
    const doc = run(list(ROLL, windows, node('a-1', 'a'), node('b-1', 'b'))) as RollPlanDocument;
    expect([doc.actions, doc.status.window, doc.requeueAfterSeconds]).to.deep.equal([
      [],
      { open: false, opensAt: '2026-01-01T22:00:00Z' },
      12 * 3600,
    ]);
    expect(doc.status.message).to.equal(
      "not started: outside the cluster's default maintenance windows (configmap pacer-system/pacer-maintenance-windows): the next window opens at 2026-01-01T22:00:00Z",
    );
  });

  it('text: the actions, the status and the plan as a tree', () => {
    const out = run(list(ROLL, node('a-1', 'a')), 'text') as string;
    expect(out.split('\n').slice(0, 7)).to.deep.equal([
      'NodeRoll upgrade',
      "  add the finalizer that gives the group's rebalancing back should the roll be deleted",
      "  hold node group workers's own zone rebalancing",
      '  scale node group workers to 3',
      'Status: Rolling: scaling workers up to 3 nodes',
      'Requeue: after 600s',
      'Plan:',
    ]);
    expect(out).to.contain('  node-roll (serial strategy) (STARTING)\n');
  });

  it('a roll that would leave too little room is reported Invalid, with nothing to do', () => {
    const pods = Array.from({ length: 15 }, (_, i) => pod(`p${i}`, i < 8 ? 'a-1' : 'b-1'));
    const doc = run(
      list({ ...ROLL, spec: { ...ROLL.spec, desiredNodes: 1 } }, node('a-1', 'a'), node('b-1', 'b'), ...pods),
    ) as RollPlanDocument;
    expect(doc.actions).to.deep.equal([]);
    expect(doc.status.phase).to.equal('Invalid');
    expect(doc.status.message).to.equal(
      "spec.desiredNodes: Invalid value: 1: too few new nodes: the group's nodes run 15 pod(s) needing 15 pods; a node like theirs holds 10 pods, so at least 2 are needed",
    );
  });

  it('--name picks a NodeRoll; an unknown one, or a file with neither a Deployment nor a NodeRoll, is an input error', () => {
    const two = list(
      ROLL,
      { ...ROLL, metadata: { name: 'other' }, spec: { ...ROLL.spec, paused: true } },
      node('a-1', 'a'),
    );
    const picked = JSON.parse(runPlan(two, 'roll.yaml', { now: NOW, name: 'other' }).stdout) as RollPlanDocument;
    expect([picked.noderoll, picked.actions, picked.status.phase], 'paused from the start: nothing done').to.deep.equal(
      ['other', [], 'Paused'],
    );
    expect(runPlan(two, 'roll.yaml', { now: NOW, name: 'nope' })).to.deep.equal({
      code: 2,
      stdout: '',
      stderr: 'error: roll.yaml: no pacer.dev/v1alpha1 NodeRoll "nope" (found upgrade, other)\n',
    });
    expect(runPlan(list(node('a-1', 'a')), 'roll.yaml', { now: NOW })).to.deep.equal({
      code: 2,
      stdout: '',
      stderr: 'error: roll.yaml: no Deployment (pacer.dev/v1alpha1 or apps/v1) or NodeRoll found\n',
    });
  });

  it('a health gate with analysis: after a node has left, the run the controller would make, from the templates in the file', () => {
    const gated = {
      ...ROLL,
      spec: {
        ...ROLL.spec,
        healthGate: {
          analysis: {
            templates: [{ templateName: 'node-errors' }],
            args: [{ name: 'node', valueFrom: { nodeName: true } }],
          },
        },
      },
      status: {
        phase: 'Rolling',
        originalNodes: ['a-1', 'b-1'],
        scaledUpTo: 4,
        scaledUpAt: NOW,
        zones: ['a', 'b'],
        nodes: [
          { name: 'a-1', step: 'Deregistered', since: NOW },
          { name: 'b-1', step: 'Pending', since: NOW },
        ],
      },
    };
    const template = {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'AnalysisTemplate',
      metadata: { name: 'node-errors', namespace: 'default' },
      spec: {
        args: [{ name: 'node' }],
        metrics: [
          {
            name: 'errors',
            count: 1,
            successCondition: 'result[0] < 0.05',
            provider: { prometheus: { address: 'http://prom:9090', query: 'node_errors{node="{{args.node}}"}' } },
          },
        ],
      },
    };
    const input = list(gated, template, node('b-1', 'b'), node('new-1', 'a'), node('new-2', 'b'));
    const text = run(input, 'text') as string;
    expect(text).to.contain('  create analysis run default/upgrade-a-1-1 to judge the cluster after node a-1\n');
    expect(text).to.contain('Status: Rolling: after a-1, analysis run upgrade-a-1-1 started\n');
    const doc = run(input) as RollPlanDocument;
    const made = doc.actions.find((a) => a.verb === 'createAnalysisRun');
    expect(made && made.verb === 'createAnalysisRun' && made.run.spec.args).to.deep.equal([
      { name: 'node', value: 'a-1' },
    ]);
    // Without the template in the file: paused, naming the field.
    const missing = run(list(gated, node('b-1', 'b'), node('new-1', 'a'), node('new-2', 'b'))) as RollPlanDocument;
    expect(missing.status.paused?.message).to.equal(
      'node a-1: the analysis cannot start: spec.healthGate.analysis.templates[0].templateName: Not found: analysistemplates.pacer.dev "node-errors"',
    );
  });
});
