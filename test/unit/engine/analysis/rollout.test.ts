// What a Deployment's spec.analysis does to its rollout (src/engine/analysis/rollout.ts), through
// decide(): rows in the words of docs/semantics/analysis.md#a-rollout-under-analysis. "old" is the
// stable revision (status.stableRS), "new" the one being rolled out (image nginx:2).

import { expect } from 'chai';
import type { AnalysisRun, AnalysisTemplate, DeploymentAnalysis } from '../../../../src/api/analysis.ts';
import type { Deployment, Pod, ReplicaSet } from '../../../../src/api/types.ts';
import { decide } from '../../../../src/engine/decide.ts';
import type { Decision, Snapshot } from '../../../../src/engine/types.ts';
import { DEPLOYMENT_UID, NOW, deployment, iso, replicaSet, settle, summary } from '../fixtures.ts';

const TEMPLATE: AnalysisTemplate = {
  apiVersion: 'pacer.dev/v1alpha1',
  kind: 'AnalysisTemplate',
  metadata: { name: 'error-rate', namespace: 'default' },
  spec: {
    args: [{ name: 'service' }, { name: 'hash' }],
    metrics: [
      {
        name: 'errors',
        interval: '10s',
        failureLimit: 1,
        successCondition: 'result < 0.05',
        provider: { prometheus: { address: 'http://prometheus:9090', query: 'errors{hash="{{args.hash}}"}' } },
      },
    ],
  },
};

const ANALYSIS: DeploymentAnalysis = {
  templates: [{ templateName: 'error-rate' }],
  args: [
    { name: 'service', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    { name: 'hash', valueFrom: { podTemplateHashValue: 'Latest' } },
  ],
};

interface Case {
  replicas?: number;
  analysis?: DeploymentAnalysis | undefined;
  stable?: string;
  /** [spec replicas, available] of the stable ReplicaSet (web-old) and of the new one (web-new; absent: not created). */
  old: [number, number];
  new?: [number, number];
  run?: Partial<AnalysisRun['status']> & { terminate?: boolean };
  templates?: AnalysisTemplate[];
  progressing?: { reason: string; since: number };
}

function withAnalysis(c: Case): Snapshot {
  const replicas = c.replicas ?? 4;
  const d: Deployment = deployment({
    replicas,
    image: 'nginx:2',
    maxSurge: 1,
    maxUnavailable: 1,
    status: {
      observedGeneration: 1,
      ...(c.stable !== undefined ? { stableRS: c.stable } : {}),
      ...(c.progressing
        ? {
            conditions: [
              {
                type: 'Progressing',
                status: 'True',
                reason: c.progressing.reason,
                message: 'ReplicaSet "web-new" has successfully progressed.',
                lastUpdateTime: iso(c.progressing.since),
                lastTransitionTime: iso(c.progressing.since),
              },
            ],
          }
        : {}),
    },
  });
  if (c.analysis !== undefined) d.spec.analysis = c.analysis;
  else if (!('analysis' in c)) d.spec.analysis = ANALYSIS;
  const rss: ReplicaSet[] = [replicaSet('web-old', { replicas: c.old[0], available: c.old[1], revision: 1, age: 60 })];
  if (c.new)
    rss.push(replicaSet('web-new', { replicas: c.new[0], available: c.new[1], image: 'nginx:2', revision: 2, age: 5 }));
  const runs: AnalysisRun[] = c.run
    ? [
        {
          metadata: {
            name: 'web-new-1',
            namespace: 'default',
            resourceVersion: '7',
            labels: { 'pacer.dev/deployment': 'web', 'pacer.dev/pod-template-hash': 'new', 'pacer.dev/attempt': '1' },
            ownerReferences: [
              {
                apiVersion: 'pacer.dev/v1alpha1',
                kind: 'Deployment',
                name: 'web',
                uid: DEPLOYMENT_UID,
                controller: true,
              },
            ],
          },
          spec: { metrics: TEMPLATE.spec.metrics, ...(c.run.terminate ? { terminate: true } : {}) },
          status: { phase: c.run.phase, message: c.run.message },
        },
      ]
    : [];
  const templates = c.templates ?? [TEMPLATE];
  return {
    deployment: d,
    replicaSets: rss,
    pods: [],
    now: NOW,
    ...(d.spec.analysis
      ? {
          analysis: {
            runs,
            templates: d.spec.analysis.templates.map((ref) => {
              const template = templates.find((t) => t.metadata.name === ref.templateName);
              return template ? { ref, template } : { ref };
            }),
          },
        }
      : {}),
  };
}

const progressing = (dec: Decision) => dec.status.conditions?.find((c) => c.type === 'Progressing');

describe('engine/analysis/rollout: a rollout under analysis', () => {
  it('the first rollout has nothing to go back to: no run, and once complete its revision is the stable one', () => {
    const dec = decide(withAnalysis({ old: [0, 0], new: [4, 4] }));
    expect(dec.actions.some((a) => a.verb === 'createAnalysisRun')).to.equal(false);
    expect(dec.status.stableRS).to.equal('new');
  });

  it('before the first new pod is available no run starts, and the rollout goes on', () => {
    const dec = decide(withAnalysis({ stable: 'old', old: [4, 4], new: [1, 0] }));
    expect(dec.actions.some((a) => a.verb === 'createAnalysisRun')).to.equal(false);
    expect(summary(dec)).to.include('scale web-old 4->3');
  });

  it('with the first new pod available the run starts, its arguments resolved from the Deployment', () => {
    const dec = decide(withAnalysis({ stable: 'old', old: [3, 3], new: [2, 1] }));
    const create = dec.actions.find((a) => a.verb === 'createAnalysisRun');
    expect(create?.verb).to.equal('createAnalysisRun');
    if (create?.verb !== 'createAnalysisRun') return;
    expect(create.name).to.equal('web-new-1');
    expect(create.object.spec.args).to.deep.equal([
      { name: 'service', value: 'web' },
      { name: 'hash', value: 'new' },
    ]);
    expect(create.object.metadata.labels).to.deep.equal({
      'pacer.dev/deployment': 'web',
      'pacer.dev/pod-template-hash': 'new',
      'pacer.dev/attempt': '1',
    });
    expect(create.object.metadata.ownerReferences?.[0].uid).to.equal(DEPLOYMENT_UID);
    expect(create.object.spec.metrics.map((m) => m.name)).to.deep.equal(['errors']);
  });

  it('startAfterAvailable "50%" of 4 waits for 2 new available pods', () => {
    const a = { ...ANALYSIS, startAfterAvailable: '50%' };
    expect(
      decide(withAnalysis({ analysis: a, stable: 'old', old: [3, 3], new: [2, 1] })).actions.map((x) => x.verb),
    ).to.not.include('createAnalysisRun');
    expect(
      decide(withAnalysis({ analysis: a, stable: 'old', old: [2, 2], new: [2, 2] })).actions.map((x) => x.verb),
    ).to.include('createAnalysisRun');
  });

  it('a template that does not exist holds the rollout where it is, naming the field', () => {
    const dec = decide(withAnalysis({ stable: 'old', old: [4, 4], new: [0, 0], templates: [] }));
    expect(summary(dec).filter((s) => s.startsWith('scale'))).to.deep.equal([]);
    expect(progressing(dec)).to.include({ status: 'Unknown', reason: 'AnalysisInvalid' });
    expect(progressing(dec)?.message).to.equal(
      'The analysis cannot start: spec.analysis.templates[0].templateName: Not found: analysistemplates.pacer.dev "error-rate"',
    );
  });

  it('a template the webhook did not see (a condition that does not compile) holds the rollout, naming the field', () => {
    const broken: AnalysisTemplate = {
      ...TEMPLATE,
      spec: { ...TEMPLATE.spec, metrics: [{ ...TEMPLATE.spec.metrics[0], successCondition: 'result <' }] },
    };
    const dec = decide(withAnalysis({ stable: 'old', old: [4, 4], new: [0, 0], templates: [broken] }));
    expect(summary(dec).filter((s) => s.startsWith('scale'))).to.deep.equal([]);
    expect(progressing(dec)?.message).to.match(
      /^The analysis cannot start: spec\.analysis\.templates\[0\]\.templateName: Invalid value: analysistemplates\.pacer\.dev "error-rate" is invalid: spec\.metrics\[0\]\.successCondition: Invalid value: "result <": /,
    );
  });

  it('an argument no one gives a value holds the rollout, naming the argument', () => {
    const a = { ...ANALYSIS, args: [ANALYSIS.args![1]] };
    const dec = decide(withAnalysis({ analysis: a, stable: 'old', old: [4, 4], new: [0, 0] }));
    expect(progressing(dec)?.message).to.equal(
      'The analysis cannot start: spec.analysis.args: Required value: argument "service" of the templates has no value',
    );
  });

  it('a Running run lets the rollout go on', () => {
    const dec = decide(withAnalysis({ stable: 'old', old: [3, 3], new: [2, 2], run: { phase: 'Running' } }));
    expect(summary(dec)).to.include('scale web-old 3->1');
  });

  it('Abort: a Failed run grows the stable ReplicaSet back within maxSurge, the spec keeps the new template', () => {
    // 2 + 3 = 5 = replicas + maxSurge: the stable one may not grow yet; the new one shrinks to
    // replicas − maxUnavailable = 3 available.
    const full = decide(
      withAnalysis({
        stable: 'old',
        old: [2, 2],
        new: [3, 3],
        run: { phase: 'Failed', message: 'metric "errors" assessed Failed' },
      }),
    );
    expect(summary(full).filter((s) => s.startsWith('scale'))).to.deep.equal(['scale web-new 3->1']);
    // 1 + 3 = 4: room to grow.
    const dec2 = decide(
      withAnalysis({
        stable: 'old',
        old: [1, 1],
        new: [3, 3],
        run: { phase: 'Failed', message: 'metric "errors" assessed Failed' },
      }),
    );
    expect(summary(dec2)).to.include('scale web-old 1->2');
    expect(dec2.objects.deployment.spec.template?.spec).to.deep.equal(
      withAnalysis({ old: [0, 0] }).deployment.spec.template?.spec,
    );
    expect(progressing(dec2)).to.include({ status: 'False', reason: 'AnalysisFailed' });
    expect(progressing(dec2)?.message).to.equal(
      'Analysis run web-new-1 failed: metric "errors" assessed Failed; the rollout was aborted to revision 1 (ReplicaSet "web-old")',
    );
    const status = dec2.actions.find((a) => a.verb === 'updateStatus');
    expect(status?.verb === 'updateStatus' && status.events?.map((e) => `${e.type} ${e.reason}`)).to.deep.equal([
      'Warning AnalysisFailed',
    ]);
  });

  it('Abort, step by step: ends with the stable ReplicaSet at full size and none new, availability never below replicas − maxUnavailable', () => {
    let snap = withAnalysis({ stable: 'old', old: [0, 0], new: [4, 4], run: { phase: 'Failed', message: 'bad' } });
    const run = snap.analysis!;
    for (let i = 0; i < 20; i++) {
      const dec = decide(snap);
      // Scale-downs take effect at once, growth once settled: what is available right after the writes.
      const during = dec.objects.replicaSets.reduce(
        (n, rs) => n + Math.min(rs.spec.replicas ?? 0, rs.status?.availableReplicas ?? 0),
        0,
      );
      expect(during).to.be.at.least(3);
      const rss = settle(dec.objects.replicaSets);
      snap = { deployment: dec.objects.deployment, replicaSets: rss, pods: [], now: NOW + i * 1000, analysis: run };
    }
    const sizes = Object.fromEntries(snap.replicaSets.map((rs) => [rs.metadata.name, rs.spec.replicas]));
    expect(sizes).to.deep.equal({ 'web-old': 4, 'web-new': 0 });
    expect(snap.deployment.status?.updatedReplicas).to.equal(0);
    expect(snap.deployment.status?.stableRS).to.equal('old');
  });

  it("Rollback: the spec takes the stable revision's template back (DeploymentRollback)", () => {
    const a = { ...ANALYSIS, onFailure: 'Rollback' as const };
    const dec = decide(
      withAnalysis({ analysis: a, stable: 'old', old: [2, 2], new: [3, 3], run: { phase: 'Error', message: 'x' } }),
    );
    const update = dec.actions.find((x) => x.verb === 'update' && x.kind === 'Deployment');
    expect(update?.event?.reason).to.equal('DeploymentRollback');
    expect(update?.verb === 'update' && (update.object as Deployment).spec.template?.spec).to.deep.equal({
      containers: [{ name: 'web', image: 'nginx:1' }],
    });
  });

  // A hold keeps the new ReplicaSet's size; the old ones only give up the surge (as under a plan's hold).
  it('Pause: a Failed run holds the rollout for a person', () => {
    const a = { ...ANALYSIS, onFailure: 'Pause' as const };
    const dec = decide(
      withAnalysis({ analysis: a, stable: 'old', old: [3, 3], new: [2, 2], run: { phase: 'Failed', message: 'x' } }),
    );
    expect(summary(dec).filter((s) => s.startsWith('scale'))).to.deep.equal(['scale web-old 3->2']);
    expect(progressing(dec)).to.include({ status: 'Unknown', reason: 'AnalysisPaused' });
  });

  it('Inconclusive always pauses, whatever onFailure says', () => {
    const dec = decide(
      withAnalysis({ stable: 'old', old: [3, 3], new: [2, 2], run: { phase: 'Inconclusive', message: 'x' } }),
    );
    expect(summary(dec).filter((s) => s.startsWith('scale'))).to.deep.equal(['scale web-old 3->2']);
    expect(progressing(dec)).to.include({ status: 'Unknown', reason: 'AnalysisInconclusive' });
  });

  it('the rollout complete, a run still Running ends (terminate) when there is no postRollout', () => {
    const dec = decide(
      withAnalysis({
        stable: 'old',
        old: [0, 0],
        new: [4, 4],
        run: { phase: 'Running' },
        progressing: { reason: 'NewReplicaSetAvailable', since: NOW - 1000 },
      }),
    );
    expect(summary(dec)).to.include('terminateAnalysisRun AnalysisRun web-new-1');
    expect(dec.status.stableRS).to.equal('old');
  });

  it('postRollout 5m keeps the run measuring for 5 minutes after completion', () => {
    const a = { ...ANALYSIS, postRollout: '5m' };
    const early = decide(
      withAnalysis({
        analysis: a,
        stable: 'old',
        old: [0, 0],
        new: [4, 4],
        run: { phase: 'Running' },
        progressing: { reason: 'NewReplicaSetAvailable', since: NOW - 60_000 },
      }),
    );
    expect(summary(early)).to.not.include('terminateAnalysisRun AnalysisRun web-new-1');
    expect(early.requeueAfterSeconds).to.equal(240);
    const late = decide(
      withAnalysis({
        analysis: a,
        stable: 'old',
        old: [0, 0],
        new: [4, 4],
        run: { phase: 'Running' },
        progressing: { reason: 'NewReplicaSetAvailable', since: NOW - 300_000 },
      }),
    );
    expect(summary(late)).to.include('terminateAnalysisRun AnalysisRun web-new-1');
  });

  it('a run that ended Successful makes the complete revision the stable one', () => {
    const dec = decide(withAnalysis({ stable: 'old', old: [0, 0], new: [4, 4], run: { phase: 'Successful' } }));
    expect(dec.status.stableRS).to.equal('new');
  });

  it('without spec.analysis there is no stableRS', () => {
    const dec = decide(withAnalysis({ analysis: undefined, stable: 'old', old: [0, 0], new: [4, 4] }));
    expect(dec.status.stableRS).to.equal(undefined);
  });

  it('rollout retry (the failed run named): that run no longer counts; the rollout goes on and attempt 2 starts', () => {
    const snap = withAnalysis({ stable: 'old', old: [3, 3], new: [1, 1], run: { phase: 'Failed', message: 'x' } });
    snap.deployment.metadata.annotations = { 'pacer.dev/analysis-retry': 'web-new-1' };
    const dec = decide(snap);
    expect(progressing(dec)?.reason).to.not.equal('AnalysisFailed');
    const create = dec.actions.find((a) => a.verb === 'createAnalysisRun');
    expect(create?.name).to.equal('web-new-2');
    expect(summary(dec)).to.include('scale web-new 1->2');
  });

  it('rollout retry names an older run: the latest attempt still counts', () => {
    const snap = withAnalysis({ stable: 'old', old: [3, 3], new: [1, 1], run: { phase: 'Failed', message: 'x' } });
    snap.deployment.metadata.annotations = { 'pacer.dev/analysis-retry': 'web-other-1' };
    expect(progressing(decide(snap))?.reason).to.equal('AnalysisFailed');
  });

  it("rollout abort (the new revision's hash): back to the stable revision without any run", () => {
    const snap = withAnalysis({ stable: 'old', old: [1, 1], new: [3, 3] });
    snap.deployment.metadata.annotations = { 'pacer.dev/abort': 'new' };
    const dec = decide(snap);
    expect(summary(dec)).to.include('scale web-old 1->2');
    expect(progressing(dec)?.message).to.equal(
      'The rollout was aborted by a person (kubectl pacer rollout abort); the rollout was aborted to revision 1 (ReplicaSet "web-old")',
    );
    snap.deployment.metadata.annotations = { 'pacer.dev/abort': 'some-older-hash' };
    expect(summary(decide(snap))).to.not.include('scale web-old 1->2');
  });

  describe('the built-in pod check (podFailures)', () => {
    const crashing = (name: string, ageSeconds: number, restarts: number, reason = 'CrashLoopBackOff'): Pod => ({
      metadata: {
        name,
        namespace: 'default',
        creationTimestamp: iso(NOW - ageSeconds * 1000),
        labels: { app: 'web', 'pod-template-hash': 'new' },
      },
      status: {
        phase: 'Running',
        containerStatuses: [
          { name: 'web', restartCount: restarts, state: { waiting: { reason, message: 'back-off 10s' } } },
        ],
      },
    });
    const checked = (pods: Pod[], extra: Partial<Case> = {}) => {
      const snap = withAnalysis({
        analysis: { templates: [], podFailures: { window: '30s', restarts: 3 } },
        stable: 'old',
        old: [3, 3],
        new: [2, 0],
        ...extra,
      });
      return decide({ ...snap, pods });
    };

    it('a new pod in CrashLoopBackOff for the window (30 s) aborts the rollout, naming the pod', () => {
      const dec = checked([crashing('web-new-a', 31, 1)]);
      expect(progressing(dec)).to.include({ status: 'False', reason: 'AnalysisFailed' });
      expect(progressing(dec)?.message).to.equal(
        'The pod check failed: pod default/web-new-a: container web is in CrashLoopBackOff: back-off 10s; the rollout was aborted to revision 1 (ReplicaSet "web-old")',
      );
      expect(dec.status.abortedRS).to.equal('new');
    });

    it('younger than the window: not yet; the Deployment looks again when it is 30 s old', () => {
      const dec = checked([crashing('web-new-a', 10, 1, 'ImagePullBackOff')]);
      expect(progressing(dec)?.reason).to.not.equal('AnalysisFailed');
      expect(dec.requeueAfterSeconds).to.be.at.most(20);
    });

    it("more restarts than allowed fails at once, whatever the pod's age", () => {
      const pod = crashing('web-new-b', 5, 4);
      pod.status!.containerStatuses = [{ name: 'web', restartCount: 4, state: { running: {} } }];
      expect(progressing(checked([pod]))?.message).to.match(/container web restarted 4 times \(more than 3\)/);
    });

    it('a failed revision stays failed once its pods are gone (status.abortedRS), until the template changes', () => {
      const first = checked([crashing('web-new-a', 31, 1)]);
      const snap = withAnalysis({
        analysis: { templates: [], podFailures: {} },
        stable: 'old',
        old: [4, 4],
        new: [0, 0],
      });
      snap.deployment.status = { ...first.status, stableRS: 'old' };
      const again = decide(snap);
      expect(summary(again).filter((x) => x.startsWith('scale'))).to.deep.equal([]);
      expect(progressing(again)?.reason).to.equal('AnalysisFailed');
      expect(again.status.abortedRS).to.equal('new');
    });

    it('with the pod check alone the revision becomes the stable one once complete', () => {
      const snap = withAnalysis({
        analysis: { templates: [], podFailures: {} },
        stable: 'old',
        old: [0, 0],
        new: [4, 4],
      });
      expect(decide(snap).status.stableRS).to.equal('new');
    });
  });
});
