// A Marathon-style deployment under analysis (src/engine/analysis/rollout.ts), through decide():
// rows in the words of docs/semantics/analysis.md#apps-that-depend-on-each-other. "web" is the
// dependency (its stable revision "old", its new one "new", rolled out and complete); "app" depends
// on it (spec.dependencies: [web]) and rolls out after it.

import { expect } from 'chai';
import type { AnalysisRun, DeploymentAnalysis } from '../../../../src/api/analysis.ts';
import type { Deployment } from '../../../../src/api/types.ts';
import { decide } from '../../../../src/engine/decide.ts';
import { templateHash } from '../../../../src/engine/kubernetes/newreplicaset.ts';
import type { Decision, Snapshot } from '../../../../src/engine/types.ts';
import { DEPLOYMENT_UID, NOW, deployment, replicaSet, summary } from '../fixtures.ts';

const ANALYSIS: DeploymentAnalysis = { templates: [{ templateName: 'error-rate' }] };

/** web's run for its new revision, ended Successful. */
const RUN: AnalysisRun = {
  metadata: {
    name: 'web-new-1',
    namespace: 'default',
    labels: { 'pacer.dev/deployment': 'web', 'pacer.dev/pod-template-hash': 'new', 'pacer.dev/attempt': '1' },
    ownerReferences: [
      { apiVersion: 'pacer.dev/v1alpha1', kind: 'Deployment', name: 'web', uid: DEPLOYMENT_UID, controller: true },
    ],
  },
  spec: { metrics: [] },
  status: { phase: 'Successful' },
};

type AppState = 'rolling' | 'settled' | 'failed, going back' | 'failed, back';

/** app, depending on web, in one of the states a dependent goes through. */
function app(state: AppState): Deployment {
  const d = deployment({ replicas: 2, image: 'app:2' });
  d.metadata = { ...d.metadata, name: 'app', uid: 'uid-app', generation: 3 };
  d.spec.dependencies = ['web'];
  d.spec.analysis = ANALYSIS;
  const updated = state === 'rolling' ? 1 : state === 'failed, going back' ? 1 : state === 'failed, back' ? 0 : 2;
  d.status = {
    observedGeneration: 3,
    replicas: 2,
    updatedReplicas: updated,
    availableReplicas: 2,
    ...(state === 'settled' ? { stableRS: templateHash(d, undefined) } : { stableRS: 'app-old' }),
    conditions: state.startsWith('failed')
      ? [
          {
            type: 'Progressing',
            status: 'False',
            reason: 'AnalysisFailed',
            message: 'Analysis run app-x-1 failed: ...',
          },
        ]
      : [],
  };
  return d;
}

/** web complete at its new revision (its run Successful), stable still "old" unless `stable` says so. */
function web(dependents: Deployment[], stable = 'old'): Snapshot {
  const d = deployment({
    replicas: 4,
    image: 'nginx:2',
    maxSurge: 1,
    maxUnavailable: 1,
    status: { observedGeneration: 1, stableRS: stable },
  });
  d.spec.analysis = ANALYSIS;
  return {
    deployment: d,
    replicaSets: [
      replicaSet('web-old', { replicas: 0, revision: 1, age: 60 }),
      replicaSet('web-new', { replicas: 4, image: 'nginx:2', revision: 2, age: 5 }),
    ],
    pods: [],
    now: NOW,
    dependents,
    analysis: { runs: [RUN], templates: [{ ref: ANALYSIS.templates[0] }] },
  };
}

const progressing = (dec: Decision) => dec.status.conditions?.find((c) => c.type === 'Progressing');

describe('engine/analysis: apps that depend on each other (a Marathon-style deployment)', () => {
  const stableRows: Array<[string, Deployment[], string]> = [
    ['no dependents: the new revision is the stable one once complete', [], 'new'],
    ['a dependent still rolling out: not yet (its failure would still take web back)', [app('rolling')], 'old'],
    [
      'every dependent settled (complete, its own revision stable): the new revision is the stable one',
      [app('settled')],
      'new',
    ],
  ];
  for (const [name, dependents, want] of stableRows)
    it(`status.stableRS: ${name}`, () => {
      expect(decide(web(dependents)).status.stableRS).to.equal(want);
    });

  it('a dependent aborted by its analysis and still going back: web waits (dependents first)', () => {
    const dec = decide(web([app('failed, going back')]));
    expect(summary(dec).filter((s) => s.startsWith('scale'))).to.deep.equal([]);
    expect(progressing(dec)?.reason).to.not.equal('AnalysisFailed');
  });

  it('once it is back, web goes back to its stable revision too, naming the dependent (a Warning Event)', () => {
    const dec = decide(web([app('failed, back')]));
    expect(summary(dec)).to.include('scale web-old 0->1');
    expect(progressing(dec)).to.include({ status: 'False', reason: 'AnalysisFailed' });
    expect(progressing(dec)?.message).to.equal(
      'Deployment default/app, which depends on web, failed its analysis and went back to its stable revision; the rollout was aborted to revision 1 (ReplicaSet "web-old")',
    );
    const status = dec.actions.find((a) => a.verb === 'updateStatus');
    expect(status?.verb === 'updateStatus' && status.events?.map((e) => `${e.type} ${e.reason}`)).to.deep.equal([
      'Warning AnalysisFailed',
    ]);
  });

  it("a dependent's failure after web's new revision became stable does not take web back", () => {
    const dec = decide(web([app('failed, back')], 'new'));
    expect(summary(dec).filter((s) => s.startsWith('scale'))).to.deep.equal([]);
    expect(progressing(dec)?.reason).to.not.equal('AnalysisFailed');
  });

  it('onFailure Pause on web: web stays where it is (complete at its new revision, not the stable one)', () => {
    const snap = web([app('failed, back')]);
    snap.deployment.spec.analysis = { ...ANALYSIS, onFailure: 'Pause' };
    const dec = decide(snap);
    expect(summary(dec).filter((s) => s.startsWith('scale'))).to.deep.equal([]);
    expect(dec.status.stableRS).to.equal('old');
  });
});
