// Analysis at a node roll's health gate (engine/noderoll/analysis.ts, through the whole pass:
// engine/noderoll/pass.ts; docs/semantics/node-roll.md#analysis-at-the-health-gate). A roll of two
// nodes, w-1 already replaced (Deregistered) and w-2 waiting: after w-1, once the workloads are
// healthy, a run of the gate's templates judges the cluster, and w-2 is taken only once that run is
// Successful. A run that ends Failed, Error or Inconclusive, or one that cannot be made, pauses the
// roll for a person; `node-roll resume` starts attempt 2, `resume --skip-analysis` lets the node by.

import { expect } from 'chai';
import type { AnalysisPhase, AnalysisRun, AnalysisTemplate, Metric } from '../../../../src/api/analysis.ts';
import type { NodeRoll, NodeRollAnalysis, NodeRollStatus } from '../../../../src/api/noderoll.ts';
import { validateNodeRoll } from '../../../../src/api/noderoll.ts';
import { formatFieldError } from '../../../../src/api/validation.ts';
import { nodeRunName } from '../../../../src/engine/noderoll/analysis.ts';
import type { RollPass } from '../../../../src/engine/noderoll/pass.ts';
import { NODEROLL_FINALIZER, rollPass } from '../../../../src/engine/noderoll/pass.ts';
import { RESUME_ANNOTATION, SKIP_ANALYSIS_ANNOTATION, skipNode } from '../../../../src/engine/noderoll/requests.ts';
import { checkpointOf } from '../../../../src/engine/noderoll/checkpoint.ts';
import type { RollAction } from '../../../../src/engine/noderoll/types.ts';
import { deepFreeze } from '../fixtures.ts';

const NOW = Date.parse('2026-11-24T10:00:00Z');
const AT = new Date(NOW - 60_000).toISOString();
const PROM = 'http://prometheus.monitoring:9090';

const ready = (name: string, cordoned = false) => ({
  metadata: { name, labels: { group: 'w' } },
  spec: cordoned ? { unschedulable: true } : {},
  status: { conditions: [{ type: 'Ready', status: 'True' }], allocatable: { pods: '10' } },
});
// w-1 has left the cluster; w-2 (cordoned) and the two new nodes remain.
const NODES = [ready('w-2', true), ready('n-1'), ready('n-2')];

const metric = (o: Partial<Metric> = {}): Metric => ({
  name: 'errors',
  interval: '30s',
  count: 3,
  successCondition: 'result[0] < 0.05',
  provider: { prometheus: { address: PROM, query: 'node_errors{node="{{args.node}}"}' } },
  ...o,
});

const template = (name: string, m: Metric = metric()): AnalysisTemplate => ({
  apiVersion: 'pacer.dev/v1alpha1',
  kind: 'AnalysisTemplate',
  metadata: { name, namespace: 'ops' },
  spec: { args: [{ name: 'node' }], metrics: [m] },
});

const GATE: NodeRollAnalysis = {
  namespace: 'ops',
  templates: [{ templateName: 'node-errors' }],
  args: [{ name: 'node', valueFrom: { nodeName: true } }],
};

/** The checkpoint: w-1 replaced a minute ago (with its analysis at `attempt`), w-2 not started. */
function status(o: { attempt?: number; paused?: NodeRollStatus['paused']; skipped?: boolean } = {}): NodeRollStatus {
  return {
    phase: o.paused ? 'Paused' : 'Rolling',
    originalNodes: ['w-1', 'w-2'],
    scaledUpTo: 4,
    scaledUpAt: AT,
    zones: [],
    nodes: [
      {
        name: 'w-1',
        step: 'Deregistered',
        since: AT,
        ...(o.attempt !== undefined ? { analysis: { attempt: o.attempt } } : {}),
      },
      { name: 'w-2', step: 'Pending', since: AT },
    ],
    ...(o.paused ? { paused: o.paused } : {}),
  };
}

function noderoll(st: NodeRollStatus, o: { gate?: NodeRollAnalysis; annotations?: Record<string, string> } = {}) {
  return deepFreeze({
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'NodeRoll',
    metadata: {
      name: 'upgrade',
      uid: 'roll-uid',
      generation: 1,
      finalizers: [NODEROLL_FINALIZER],
      ...(o.annotations ? { annotations: o.annotations } : {}),
    },
    spec: {
      nodeSelector: { matchLabels: { group: 'w' } },
      nodeGroup: 'workers',
      desiredNodes: 2,
      healthGate: { analysis: o.gate ?? GATE },
    },
    status: st,
  } as NodeRoll);
}

/** A run of this roll after w-1 (attempt `attempt`) that has reached `phase`. */
const run = (phase: AnalysisPhase, attempt = 1, message?: string): AnalysisRun => ({
  apiVersion: 'pacer.dev/v1alpha1',
  kind: 'AnalysisRun',
  metadata: {
    name: `upgrade-w-1-${attempt}`,
    namespace: 'ops',
    labels: { 'pacer.dev/noderoll': 'upgrade', 'pacer.dev/node': 'w-1', 'pacer.dev/attempt': String(attempt) },
    ownerReferences: [{ apiVersion: 'pacer.dev/v1alpha1', kind: 'NodeRoll', name: 'upgrade', uid: 'roll-uid' }],
  },
  spec: { metrics: [metric()] },
  status: { phase, ...(message ? { message } : {}) },
});

const FAILED_MESSAGE =
  'metric "errors" assessed Failed: 1 of 1 measurements failed (failureLimit 0); last value [0.3] against successCondition "result[0] < 0.05"';

interface Row {
  name: string;
  roll: NodeRoll;
  runs?: AnalysisRun[];
  templates?: AnalysisTemplate[];
  unhealthy?: boolean;
  /** `next()`: the following pass, from the status this one stored (the same world, requests cleared). */
  expect: (pass: RollPass, next: () => RollPass) => void;
}

const steps = (p: RollPass) => Object.fromEntries((p.status.nodes ?? []).map((n) => [n.name, n.step]));
const verbs = (actions: readonly RollAction[]) => actions.map((a) => `${a.verb}${'node' in a ? ` ${a.node}` : ''}`);
const paused = (p: RollPass) => p.status.conditions?.find((c) => c.type === 'Paused');

const rows: Row[] = [
  {
    name: 'no run yet and the workloads healthy: the run of attempt 1 is made after w-1, and w-2 waits',
    roll: noderoll(status()),
    expect: (p) => {
      expect(verbs(p.actions)).to.deep.equal(['createAnalysisRun w-1']);
      const made = (p.actions[0] as Extract<RollAction, { verb: 'createAnalysisRun' }>).run;
      expect(made.metadata).to.deep.equal({
        name: 'upgrade-w-1-1',
        namespace: 'ops',
        labels: { 'pacer.dev/noderoll': 'upgrade', 'pacer.dev/node': 'w-1', 'pacer.dev/attempt': '1' },
        annotations: { 'pacer.dev/node': 'w-1' },
        ownerReferences: [
          { apiVersion: 'pacer.dev/v1alpha1', kind: 'NodeRoll', name: 'upgrade', uid: 'roll-uid', controller: true },
        ],
      });
      expect(made.spec.args, 'the node name given to the template').to.deep.equal([{ name: 'node', value: 'w-1' }]);
      expect(made.spec.metrics.map((m) => m.name)).to.deep.equal(['errors']);
      expect(steps(p)).to.deep.equal({ 'w-1': 'Deregistered', 'w-2': 'Pending' });
      expect(p.message).to.equal('after w-1, analysis run upgrade-w-1-1 started');
      expect(p.events).to.deep.include({
        type: 'Normal',
        reason: 'NodeRollAnalysisStarted',
        message: 'analysis run ops/upgrade-w-1-1 judges the cluster after node w-1',
      });
    },
  },
  {
    name: 'the workloads not yet healthy: no run yet, the gate waits for them as before',
    roll: noderoll(status()),
    unhealthy: true,
    expect: (p) => {
      expect(verbs(p.actions)).to.deep.equal([]);
      expect(p.message).to.equal('after w-1, waiting for: replicaset default/web: 1 of 3 available');
    },
  },
  {
    name: 'the run measuring: the next node waits for it (no timeout: its metrics have counts)',
    roll: noderoll(status()),
    runs: [run('Running')],
    expect: (p) => {
      expect(verbs(p.actions)).to.deep.equal([]);
      expect(steps(p)).to.deep.equal({ 'w-1': 'Deregistered', 'w-2': 'Pending' });
      expect(p.message).to.equal('after w-1, waiting for analysis run upgrade-w-1-1 (Running)');
      expect(p.requeueAfterMs, 'woken by the run, not by a timer').to.equal(undefined);
    },
  },
  {
    name: 'the run Successful: w-1 is done and the next node is taken',
    roll: noderoll(status()),
    runs: [run('Successful')],
    expect: (p, next) => {
      expect(steps(p)).to.deep.equal({ 'w-1': 'Done', 'w-2': 'Pending' });
      expect(p.status.phase).to.equal('Rolling');
      expect(steps(next()), 'w-2 taken (it runs nothing: terminated at once)').to.deep.equal({
        'w-1': 'Done',
        'w-2': 'Terminating',
      });
    },
  },
  {
    name: 'the run Failed: the roll pauses, naming the run and its message (AnalysisFailed, a Warning Event)',
    roll: noderoll(status()),
    runs: [run('Failed', 1, FAILED_MESSAGE)],
    expect: (p) => {
      const why = `node w-1: analysis run ops/upgrade-w-1-1 failed: ${FAILED_MESSAGE}`;
      expect(p.status.phase).to.equal('Paused');
      expect(p.status.paused).to.deep.equal({
        node: 'w-1',
        wait: 'analysis',
        message: why,
        run: 'upgrade-w-1-1',
        reason: 'AnalysisFailed',
      });
      expect(paused(p)).to.include({ status: 'True', reason: 'AnalysisFailed', message: why });
      expect(p.events).to.deep.include({ type: 'Warning', reason: 'NodeRollPaused', message: why });
      expect(steps(p)).to.deep.equal({ 'w-1': 'Deregistered', 'w-2': 'Pending' });
      expect(verbs(p.actions)).to.deep.equal([]);
    },
  },
  {
    name: 'the run Error: paused as for a failure (AnalysisFailed), the run "errored"',
    roll: noderoll(status()),
    runs: [run('Error', 1, 'metric "errors" assessed Error: 5 errors in a row')],
    expect: (p) => {
      expect(p.status.paused?.message).to.equal(
        'node w-1: analysis run ops/upgrade-w-1-1 errored: metric "errors" assessed Error: 5 errors in a row',
      );
      expect(paused(p)?.reason).to.equal('AnalysisFailed');
    },
  },
  {
    name: 'the run Inconclusive: paused too (AnalysisInconclusive): no one can tell whether the cluster is well',
    roll: noderoll(status()),
    runs: [run('Inconclusive', 1, 'metric "errors" assessed Inconclusive')],
    expect: (p) => {
      expect(p.status.paused).to.deep.include({
        wait: 'analysis',
        run: 'upgrade-w-1-1',
        reason: 'AnalysisInconclusive',
      });
      expect(p.status.paused?.message).to.equal(
        'node w-1: analysis run ops/upgrade-w-1-1 was inconclusive: metric "errors" assessed Inconclusive',
      );
    },
  },
  {
    name: 'a template that does not exist: paused with the field path (AnalysisInvalid), no run made',
    roll: noderoll(status()),
    templates: [],
    expect: (p) => {
      expect(p.status.paused).to.deep.equal({
        node: 'w-1',
        wait: 'analysis',
        message:
          'node w-1: the analysis cannot start: spec.healthGate.analysis.templates[0].templateName: Not found: analysistemplates.pacer.dev "node-errors"',
        reason: 'AnalysisInvalid',
      });
      expect(verbs(p.actions)).to.deep.equal([]);
    },
  },
  {
    name: 'a metric without a count: paused naming it (its run would never end), no run made',
    roll: noderoll(status()),
    templates: [template('node-errors', metric({ count: undefined }))],
    expect: (p) => {
      expect(p.status.paused?.message).to.equal(
        'node w-1: the analysis cannot start: spec.healthGate.analysis.templates[0].templateName: Invalid value: metric "errors" of analysistemplates.pacer.dev "node-errors" has no count: a run that gates a step must end by itself',
      );
      expect(paused(p)?.reason).to.equal('AnalysisInvalid');
      expect(verbs(p.actions)).to.deep.equal([]);
    },
  },
  {
    name: 'a template of another namespace does not count: the runs are made and templates read in spec.healthGate.analysis.namespace',
    roll: noderoll(status()),
    templates: [{ ...template('node-errors'), metadata: { name: 'node-errors', namespace: 'default' } }],
    expect: (p) => expect(p.status.paused?.reason).to.equal('AnalysisInvalid'),
  },
  {
    name: 'resume after a failed run: attempt 2 is made for w-1 (the failed run stays as it was)',
    roll: noderoll(
      status({
        paused: {
          node: 'w-1',
          wait: 'analysis',
          message: 'node w-1: analysis run ops/upgrade-w-1-1 failed',
          run: 'upgrade-w-1-1',
          reason: 'AnalysisFailed',
        },
      }),
      { annotations: { [RESUME_ANNOTATION]: AT } },
    ),
    runs: [run('Failed', 1, FAILED_MESSAGE)],
    expect: (p) => {
      expect(p.status.paused).to.equal(undefined);
      expect(p.status.nodes?.[0]).to.deep.include({ name: 'w-1', analysis: { attempt: 2 } });
      expect(p.actions.map((a) => (a.verb === 'createAnalysisRun' ? a.run.metadata.name : a.verb))).to.deep.equal([
        'upgrade-w-1-2',
      ]);
      expect(p.handled).to.deep.equal([RESUME_ANNOTATION]);
    },
  },
  {
    name: "attempt 2's run Successful: w-1 done, attempt 1's failure no longer counts",
    roll: noderoll(status({ attempt: 2 })),
    runs: [run('Failed', 1, FAILED_MESSAGE), run('Successful', 2)],
    expect: (p, next) => {
      expect(steps(p)).to.deep.equal({ 'w-1': 'Done', 'w-2': 'Pending' });
      expect(steps(next()), 'w-2 taken (it runs nothing: terminated at once)').to.deep.equal({
        'w-1': 'Done',
        'w-2': 'Terminating',
      });
    },
  },
  {
    name: 'resume --skip-analysis: w-1 passes its gate without a run, recorded as skipped',
    roll: noderoll(
      status({
        paused: {
          node: 'w-1',
          wait: 'analysis',
          message: 'node w-1: analysis run ops/upgrade-w-1-1 failed',
          run: 'upgrade-w-1-1',
          reason: 'AnalysisFailed',
        },
      }),
      { annotations: { [RESUME_ANNOTATION]: AT, [SKIP_ANALYSIS_ANNOTATION]: 'w-1' } },
    ),
    runs: [run('Failed', 1, FAILED_MESSAGE)],
    expect: (p, next) => {
      expect(steps(p)).to.deep.equal({ 'w-1': 'Done', 'w-2': 'Pending' });
      expect(steps(next()), 'w-2 taken (it runs nothing: terminated at once)').to.deep.equal({
        'w-1': 'Done',
        'w-2': 'Terminating',
      });
      expect(p.status.nodes?.[0].analysis).to.deep.equal({ attempt: 1, skipped: true });
      expect(p.actions.some((a) => a.verb === 'createAnalysisRun')).to.equal(false);
      expect(p.handled).to.have.members([RESUME_ANNOTATION, SKIP_ANALYSIS_ANNOTATION]);
    },
  },
  {
    name: 'skip-analysis of a node the roll is not paused on: refused with a Warning Event, nothing skipped',
    roll: noderoll(status(), { annotations: { [SKIP_ANALYSIS_ANNOTATION]: 'w-2' } }),
    runs: [run('Running')],
    expect: (p) => {
      expect(p.events).to.deep.include({
        type: 'Warning',
        reason: 'NodeRollRequestRefused',
        message: 'skip-analysis w-2: the roll is not paused on the analysis of node w-2',
      });
      expect(p.status.nodes?.every((n) => n.analysis === undefined)).to.equal(true);
    },
  },
  {
    name: 'resume after a template was missing (and is now there): the same attempt is made, no attempt lost',
    roll: noderoll(
      status({
        paused: {
          node: 'w-1',
          wait: 'analysis',
          message: 'node w-1: the analysis cannot start: ...',
          reason: 'AnalysisInvalid',
        },
      }),
      { annotations: { [RESUME_ANNOTATION]: AT } },
    ),
    expect: (p) => {
      expect(p.status.nodes?.[0].analysis).to.deep.equal({ attempt: 1 });
      expect(p.actions.map((a) => (a.verb === 'createAnalysisRun' ? a.run.metadata.name : a.verb))).to.deep.equal([
        'upgrade-w-1-1',
      ]);
    },
  },
  {
    name: "a run of a roll of the same name deleted before (another uid) is not this roll's: a new one is asked for",
    roll: noderoll(status()),
    runs: [
      {
        ...run('Failed'),
        metadata: {
          ...run('Failed').metadata,
          ownerReferences: [{ apiVersion: 'pacer.dev/v1alpha1', kind: 'NodeRoll', name: 'upgrade', uid: 'old-uid' }],
        },
      },
    ],
    expect: (p) => expect(verbs(p.actions)).to.deep.equal(['createAnalysisRun w-1']),
  },
];

describe("engine/noderoll/analysis: analysis at a node roll's health gate", () => {
  for (const row of rows)
    it(row.name, () => {
      const pass = (roll: NodeRoll) =>
        rollPass({
          roll,
          nodes: NODES,
          pods: [],
          deployments: [],
          replicaSets: row.unhealthy
            ? [
                {
                  apiVersion: 'apps/v1',
                  kind: 'ReplicaSet',
                  metadata: { name: 'web', namespace: 'default', generation: 1 },
                  spec: { replicas: 3, selector: {}, template: {} },
                  status: { replicas: 3, availableReplicas: 1, observedGeneration: 1 },
                } as never,
              ]
            : [],
          analysis: {
            runs: row.runs ?? [],
            templates: row.templates ?? [template('node-errors')],
            clusterTemplates: [],
          },
          now: NOW,
        });
      const first = pass(row.roll);
      const { annotations: _cleared, ...metadata } = row.roll.metadata;
      row.expect(first, () => pass(deepFreeze({ ...row.roll, metadata, status: first.status })));
    });

  it('without the analysis resources served, a gate that names templates pauses rather than let the node by', () => {
    const pass = rollPass({
      roll: noderoll(status()),
      nodes: NODES,
      pods: [],
      deployments: [],
      replicaSets: [],
      now: NOW,
    });
    expect(pass.status.paused?.message).to.match(
      /^node w-1: the analysis cannot start: spec\.healthGate\.analysis: the analysis resources .* are not served/,
    );
  });

  it('node-roll skip of the node paused on its analysis points at resume (the node is replaced already)', () => {
    const cp = checkpointOf(
      status({
        paused: { node: 'w-1', wait: 'analysis', message: 'x', run: 'upgrade-w-1-1', reason: 'AnalysisFailed' },
      }),
      NOW,
    );
    expect(skipNode(cp, 'w-1', NOW).error).to.equal(
      'node w-1 has been replaced and the roll is paused on its analysis: resume starts a new run, resume --skip-analysis lets it by',
    );
  });

  it('run names: <roll>-<node>-<attempt>; one too long for an object name is cut and kept unique by a hash', () => {
    expect(nodeRunName('upgrade', 'ip-10-0-1-7.ec2.internal', 3)).to.equal('upgrade-ip-10-0-1-7.ec2.internal-3');
    const long = 'n'.repeat(200);
    const a = nodeRunName(long, `${long}-a`, 1);
    const b = nodeRunName(long, `${long}-b`, 1);
    expect(a.length).to.be.at.most(253);
    expect(a).to.not.equal(b);
    expect(a).to.match(/^[n-]+-[0-9a-f]{8}-1$/);
  });

  it('validation: the field path and the value given for each bad input', () => {
    const errors = (gate: unknown) =>
      validateNodeRoll({
        metadata: { name: 'r' },
        spec: {
          nodeSelector: { matchLabels: { group: 'w' } },
          nodeGroup: 'workers',
          desiredNodes: 2,
          healthGate: { analysis: gate as NodeRollAnalysis },
        },
      }).map(formatFieldError);
    expect(errors(GATE)).to.deep.equal([]);
    expect(errors({ templates: [] })).to.deep.equal([
      'spec.healthGate.analysis.templates: Required value: at least one AnalysisTemplate',
    ]);
    expect(
      errors({
        templates: [{ templateName: 'Bad_Name' }, { templateName: 'a' }, { templateName: 'a' }],
        args: [
          { name: 'node', valueFrom: { nodeName: false } },
          { name: 'zone', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'x' },
          { name: 'y', value: '1', valueFrom: { nodeName: true } },
        ],
        namespace: 'Ops',
      }),
    ).to.deep.equal([
      "spec.healthGate.analysis.templates[0].templateName: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      'spec.healthGate.analysis.templates[2].templateName: Duplicate value: "a"',
      'spec.healthGate.analysis.args[0].valueFrom.nodeName: Invalid value: false: must be true: the name of the node just replaced',
      "spec.healthGate.analysis.args[1].valueFrom.fieldRef: Forbidden: a NodeRoll gives nodeName (a Secret's key is the template's to name)",
      'spec.healthGate.analysis.args[1].valueFrom.nodeName: Required value: true: the name of the node just replaced',
      'spec.healthGate.analysis.args[2]: Required value: one of value, valueFrom',
      'spec.healthGate.analysis.args[3].valueFrom: Forbidden: may not be set with value: give one',
      "spec.healthGate.analysis.namespace: Invalid value: \"Ops\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });
});
