// Analysis at the canary steps of the deploy plan (src/engine/analysis/canary.ts), through
// decide(): rows in the words of docs/semantics/analysis.md#canary-steps. A serial-canary
// Deployment of 4 replicas with 2 canary steps; "old" is the stable revision, "new" the one being
// rolled out (image nginx:2); the test plays the run controller (it sets a run's phase).

import { expect } from 'chai';
import type { AnalysisRun, AnalysisTemplate, DeploymentAnalysis } from '../../../../src/api/analysis.ts';
import type { Deployment, ReplicaSet } from '../../../../src/api/types.ts';
import { validateDeployment } from '../../../../src/api/validation.ts';
import { formatFieldError } from '../../../../src/api/validation.ts';
import { decide } from '../../../../src/engine/decide.ts';
import type { Decision, Snapshot } from '../../../../src/engine/types.ts';
import { NOW, deployment, replicaSet, settle, summary } from '../fixtures.ts';

const STEP_TEMPLATE: AnalysisTemplate = {
  apiVersion: 'pacer.dev/v1alpha1',
  kind: 'AnalysisTemplate',
  metadata: { name: 'canary-errors', namespace: 'default' },
  spec: {
    args: [{ name: 'hash' }],
    metrics: [
      {
        name: 'errors',
        interval: '5s',
        count: 3,
        successCondition: 'result < 0.05',
        provider: { prometheus: { address: 'http://prometheus:9090', query: 'errors{hash="{{args.hash}}"}' } },
      },
    ],
  },
};

const ANALYSIS: DeploymentAnalysis = {
  templates: [],
  canarySteps: { templates: [{ templateName: 'canary-errors' }] },
  args: [{ name: 'hash', valueFrom: { podTemplateHashValue: 'Latest' } }],
};

/** The cluster as the test keeps it between passes. */
interface World {
  d: Deployment;
  rss: ReplicaSet[];
  runs: AnalysisRun[];
  templates: AnalysisTemplate[];
  now: number;
}

function world(o: { stable?: string; newRS?: [number, number]; annotations?: Record<string, string> } = {}): World {
  const d = deployment({
    replicas: 4,
    image: 'nginx:2',
    maxSurge: 1,
    maxUnavailable: 1,
    ...(o.annotations ? { annotations: o.annotations } : {}),
    status: { observedGeneration: 1, ...(o.stable !== undefined ? { stableRS: o.stable } : {}) },
  });
  d.spec.plan = { strategy: 'serial-canary', requiredProceeds: 2 };
  d.spec.analysis = ANALYSIS;
  const rss = [replicaSet('web-old', { replicas: 4, available: 4, revision: 1, age: 60 })];
  const [n, avail] = o.newRS ?? [0, 0];
  rss.push(replicaSet('web-new', { replicas: n, available: avail, image: 'nginx:2', revision: 2, age: 5 }));
  if (o.stable === undefined) rss[0].spec.replicas = 0;
  return { d, rss, runs: [], templates: [STEP_TEMPLATE], now: NOW };
}

function snap(w: World): Snapshot {
  const a = w.d.spec.analysis!;
  const found = (ref: { templateName: string }) => {
    const template = w.templates.find((t) => t.metadata.name === ref.templateName);
    return template ? { ref, template } : { ref };
  };
  return {
    deployment: w.d,
    replicaSets: w.rss,
    pods: [],
    now: w.now,
    analysis: {
      runs: w.runs,
      templates: a.templates.map(found),
      ...(a.canarySteps ? { stepTemplates: a.canarySteps.templates.map(found) } : {}),
    },
  };
}

/** One pass; its writes applied (runs created, run stops recorded), the ReplicaSets caught up. */
function pass(w: World): Decision {
  const dec = decide(snap(w));
  for (const a of dec.actions) {
    if (a.verb === 'createAnalysisRun') w.runs.push({ ...a.object, status: { phase: 'Pending' } });
    if (a.verb === 'terminateAnalysisRun') {
      const r = w.runs.find((x) => x.metadata.name === a.name)!;
      r.spec = { ...r.spec, terminate: true };
    }
  }
  w.d = dec.objects.deployment;
  w.rss = settle(dec.objects.replicaSets);
  w.now += 1000;
  return dec;
}

const newSize = (w: World) => w.rss.find((rs) => rs.metadata.name === 'web-new')?.spec.replicas;
const progressing = (dec: Decision) => dec.status.conditions?.find((c) => c.type === 'Progressing');
const planState = (w: World) => JSON.parse(w.d.metadata.annotations?.['pacer.dev/plan-state'] ?? '{}');
const setPhase = (w: World, name: string, phase: NonNullable<AnalysisRun['status']>['phase'], message?: string) => {
  const r = w.runs.find((x) => x.metadata.name === name)!;
  r.status = { phase, ...(message ? { message } : {}) };
};

describe('engine/analysis/canary: analysis at the canary steps of the deploy plan', () => {
  it('the first canary step is released from the start: there is no new pod to judge yet', () => {
    const w = world({ stable: 'old' });
    const dec = pass(w);
    expect(newSize(w)).to.equal(1);
    expect(planState(w)).to.deep.equal({});
    expect(progressing(dec)?.reason).to.not.equal('PlanWaiting');
    expect(w.runs).to.deep.equal([]);
  });

  it('without canarySteps the same Deployment waits for an operator at step 1 (the gate as before)', () => {
    const w = world({ stable: 'old' });
    w.d.spec.analysis = { templates: [], podFailures: {} };
    const dec = pass(w);
    expect(newSize(w)).to.equal(0);
    expect(progressing(dec)?.reason).to.equal('PlanWaiting');
  });

  it('once the canary pod is available, a run judges it; the next step waits for it (AnalysisRunning, no deadline)', () => {
    const w = world({
      stable: 'old',
      newRS: [1, 1],
      annotations: { 'pacer.dev/plan-state': '{"revision":2,"proceeds":1}' },
    });
    const dec = pass(w);
    expect(w.runs.map((r) => r.metadata.name)).to.deep.equal(['web-new-step2-1']);
    expect(w.runs[0].metadata.labels).to.include({
      'pacer.dev/canary-step': '2',
      'pacer.dev/pod-template-hash': 'new',
    });
    expect(w.runs[0].spec.args).to.deep.equal([{ name: 'hash', value: 'new' }]);
    expect(newSize(w)).to.equal(1);
    expect(progressing(dec)).to.include({
      status: 'Unknown',
      reason: 'AnalysisRunning',
      message: 'canary step 2 of 2 waits for analysis run web-new-step2-1',
    });
    setPhase(w, 'web-new-step2-1', 'Running');
    pass(w);
    expect(newSize(w)).to.equal(1);
    expect(w.runs).to.have.length(1);
  });

  it('good metrics: every step continues by itself and the rollout completes with no operator command', () => {
    const w = world({ stable: 'old' });
    const seen: string[] = [];
    for (let i = 0; i < 30; i++) {
      const dec = pass(w);
      for (const a of dec.actions) if (a.event?.reason === 'PlanContinue') seen.push(a.event.message);
      for (const r of w.runs) if (r.status?.phase === 'Pending') setPhase(w, r.metadata.name!, 'Successful');
    }
    expect(seen).to.deep.equal(['canary step 2 of 2 continues: analysis run web-new-step2-1 was successful']);
    expect(Object.fromEntries(w.rss.map((rs) => [rs.metadata.name, rs.spec.replicas]))).to.deep.equal({
      'web-old': 0,
      'web-new': 4,
    });
    expect(w.d.status?.stableRS).to.equal('new');
  });

  it('a bad metric at the second canary step stops the rollout there and goes back (onFailure Abort)', () => {
    const w = world({
      stable: 'old',
      newRS: [1, 1],
      annotations: { 'pacer.dev/plan-state': '{"revision":2,"proceeds":1}' },
    });
    pass(w);
    setPhase(w, 'web-new-step2-1', 'Failed', 'metric "errors" assessed Failed due to failed (1) > failureLimit (0)');
    let dec = pass(w);
    expect(progressing(dec)).to.include({ status: 'False', reason: 'AnalysisFailed' });
    expect(progressing(dec)?.message).to.equal(
      'Analysis run web-new-step2-1 of canary step 2 of 2 failed: metric "errors" assessed Failed due to failed (1) > failureLimit (0); the rollout was aborted to revision 1 (ReplicaSet "web-old")',
    );
    for (let i = 0; i < 5; i++) {
      dec = pass(w);
      // Once its pod is gone the step's run still says Failed: the rollout stays aborted.
      expect(progressing(dec)?.reason).to.equal('AnalysisFailed');
      expect(summary(dec)).to.not.include('scale web-new 0->1');
    }
    expect(newSize(w)).to.equal(0);
    expect(planState(w).proceeds).to.equal(1);
  });

  it('onFailure Pause: the failed step holds for a person (AnalysisPaused)', () => {
    const w = world({
      stable: 'old',
      newRS: [1, 1],
      annotations: { 'pacer.dev/plan-state': '{"revision":2,"proceeds":1}' },
    });
    w.d.spec.analysis = { ...ANALYSIS, onFailure: 'Pause' };
    pass(w);
    setPhase(w, 'web-new-step2-1', 'Error', 'metric "errors" assessed Error');
    const dec = pass(w);
    expect(progressing(dec)).to.include({ status: 'Unknown', reason: 'AnalysisPaused' });
    expect(newSize(w)).to.equal(1);
  });

  it('Inconclusive holds for a person; continuing the step by hand releases it and stops nothing already ended', () => {
    const w = world({
      stable: 'old',
      newRS: [1, 1],
      annotations: { 'pacer.dev/plan-state': '{"revision":2,"proceeds":1}' },
    });
    pass(w);
    setPhase(w, 'web-new-step2-1', 'Inconclusive', 'metric "errors" assessed Inconclusive');
    const held = pass(w);
    expect(progressing(held)).to.include({ status: 'Unknown', reason: 'AnalysisInconclusive' });
    expect(progressing(held)?.message).to.match(/kubectl pacer rollout retry starts a new run/);
    expect(newSize(w)).to.equal(1);
    w.d = {
      ...w.d,
      metadata: { ...w.d.metadata, annotations: { 'pacer.dev/plan-state': '{"revision":2,"proceeds":2}' } },
    };
    const dec = pass(w);
    expect(newSize(w)).to.equal(2);
    expect(dec.actions.map((a) => a.verb)).to.not.include('terminateAnalysisRun');
  });

  it('a step continued by hand while its run is running: the run is stopped', () => {
    const w = world({
      stable: 'old',
      newRS: [1, 1],
      annotations: { 'pacer.dev/plan-state': '{"revision":2,"proceeds":1}' },
    });
    pass(w);
    setPhase(w, 'web-new-step2-1', 'Running');
    w.d = {
      ...w.d,
      metadata: { ...w.d.metadata, annotations: { 'pacer.dev/plan-state': '{"revision":2,"proceeds":2}' } },
    };
    const dec = pass(w);
    expect(summary(dec)).to.include('terminateAnalysisRun AnalysisRun web-new-step2-1');
  });

  it('kubectl pacer rollout retry on a step run starts attempt 2 of that step', () => {
    const w = world({
      stable: 'old',
      newRS: [1, 1],
      annotations: { 'pacer.dev/plan-state': '{"revision":2,"proceeds":1}' },
    });
    pass(w);
    setPhase(w, 'web-new-step2-1', 'Inconclusive');
    pass(w);
    w.d = {
      ...w.d,
      metadata: {
        ...w.d.metadata,
        annotations: { ...w.d.metadata.annotations, 'pacer.dev/analysis-retry': 'web-new-step2-1' },
      },
    };
    pass(w);
    expect(w.runs.map((r) => r.metadata.name)).to.deep.equal(['web-new-step2-1', 'web-new-step2-2']);
  });

  it('an interrupted deploy plan starts no run and continues no step: a person holds it', () => {
    const w = world({ stable: 'old', annotations: { 'pacer.dev/plan-interrupted': 'true' } });
    pass(w);
    expect(newSize(w)).to.equal(0);
    expect(planState(w)).to.deep.equal({});
  });

  it('a metric without a count holds the step (its run would never end), naming the field', () => {
    const w = world({
      stable: 'old',
      newRS: [1, 1],
      annotations: { 'pacer.dev/plan-state': '{"revision":2,"proceeds":1}' },
    });
    const { count: _, ...endless } = STEP_TEMPLATE.spec.metrics[0];
    w.templates = [{ ...STEP_TEMPLATE, spec: { ...STEP_TEMPLATE.spec, metrics: [endless] } }];
    const dec = pass(w);
    expect(progressing(dec)).to.include({ status: 'Unknown', reason: 'AnalysisInvalid' });
    expect(progressing(dec)?.message).to.equal(
      'The analysis of canary step 2 of 2 cannot start: spec.analysis.canarySteps.templates[0].templateName: Invalid value: metric "errors" of analysistemplates.pacer.dev "canary-errors" has no count: a run that gates a step must end by itself',
    );
    expect(w.runs).to.deep.equal([]);
  });

  it('the first rollout is judged at its canary steps; a failure there has nothing to go back to and pauses', () => {
    const w = world({ newRS: [1, 1], annotations: { 'pacer.dev/plan-state': '{"revision":2,"proceeds":1}' } });
    pass(w);
    expect(w.runs.map((r) => r.metadata.name)).to.deep.equal(['web-new-step2-1']);
    setPhase(w, 'web-new-step2-1', 'Failed', 'bad');
    const dec = pass(w);
    expect(progressing(dec)).to.include({ status: 'Unknown', reason: 'AnalysisPaused' });
    expect(progressing(dec)?.message).to.equal(
      'Analysis run web-new-step2-1 of canary step 2 of 2 failed: bad; no revision has completed yet, so there is none to go back to and the rollout is paused',
    );
  });

  it('validation: canarySteps only with a canary phase strategy, with at least one template', () => {
    const d = world().d;
    d.spec.plan = { strategy: 'serial' };
    d.spec.analysis = { templates: [], canarySteps: { templates: [] } };
    expect(validateDeployment(d).map(formatFieldError)).to.deep.equal([
      'spec.analysis.canarySteps.templates: Required value: at least one AnalysisTemplate',
      'spec.analysis.canarySteps: Forbidden: only with a canary phase strategy (spec.plan.strategy serial-canary or parallel-canary), not "serial"',
    ]);
    d.spec.plan = { strategy: 'parallel-canary' };
    d.spec.analysis = ANALYSIS;
    expect(validateDeployment(d).map(formatFieldError)).to.deep.equal([]);
  });
});
