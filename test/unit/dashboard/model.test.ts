// The dashboard's state of a Deployment (src/dashboard/model.ts): one row per case, read as the
// controller leaves a Deployment, and the views of ReplicaSets and pods.

import { expect } from 'chai';
import type { DeploymentCondition, DeploymentStatus } from '../../../src/api/types.ts';
import type { DashboardState } from '../../../src/dashboard/api.ts';
import { dashboardState, deploymentView, podView, replicaSetView } from '../../../src/dashboard/model.ts';
import { deployment, pod, replicaSet } from '../plugin/fixtures.ts';

const progressing = (status: DeploymentCondition['status'], reason: string, message = 'm'): DeploymentCondition => ({
  type: 'Progressing',
  status,
  reason,
  message,
});
const done: DeploymentStatus = { observedGeneration: 1, replicas: 3, updatedReplicas: 3, availableReplicas: 3 };

describe('dashboard/model: the state of a Deployment', () => {
  const rows: Array<[string, { paused?: boolean; status: DeploymentStatus }, DashboardState, string]> = [
    [
      'every replica updated and available: complete',
      { status: { ...done, conditions: [progressing('True', 'NewReplicaSetAvailable')] } },
      'complete',
      '',
    ],
    [
      'two of three updated: progressing, with rollout status line',
      { status: { ...done, updatedReplicas: 2 } },
      'progressing',
      'Waiting for deployment "web" rollout to finish: 2 out of 3 new replicas have been updated...',
    ],
    [
      'spec not yet observed: progressing',
      { status: { ...done, observedGeneration: 0 } },
      'progressing',
      'Waiting for deployment spec update to be observed...',
    ],
    ['spec.paused: paused', { paused: true, status: done }, 'paused', 'DeploymentPaused: Deployment is paused'],
    [
      'a plan waiting for `plan continue`: waiting for an operator',
      { status: { ...done, updatedReplicas: 0, conditions: [progressing('Unknown', 'PlanWaiting', 'canary step')] } },
      'waiting',
      'PlanWaiting: canary step',
    ],
    [
      'frozen: waiting for an operator (freeze off)',
      { status: { ...done, updatedReplicas: 1, conditions: [progressing('Unknown', 'Frozen', 'frozen')] } },
      'waiting',
      'Frozen: frozen',
    ],
    [
      'held by a custom plan until earlier steps complete: progressing, no operator needed',
      { status: { ...done, updatedReplicas: 0, conditions: [progressing('Unknown', 'PlanPending')] } },
      'progressing',
      'Waiting for deployment "web" rollout to finish: 0 out of 3 new replicas have been updated...',
    ],
    [
      'ProgressDeadlineExceeded: deadline exceeded',
      {
        status: { ...done, availableReplicas: 0, conditions: [progressing('False', 'ProgressDeadlineExceeded', 'x')] },
      },
      'deadline-exceeded',
      'ProgressDeadlineExceeded: x',
    ],
    [
      'a missed deadline outranks paused',
      { paused: true, status: { ...done, conditions: [progressing('False', 'ProgressDeadlineExceeded', 'x')] } },
      'deadline-exceeded',
      'ProgressDeadlineExceeded: x',
    ],
    [
      'AnalysisFailed (aborted to the stable revision): analysis failing',
      { status: { ...done, conditions: [progressing('False', 'AnalysisFailed', 'Metric "errors" failed')] } },
      'analysis-failing',
      'AnalysisFailed: Metric "errors" failed',
    ],
    [
      'AnalysisInconclusive (held for a person): analysis failing, not just paused',
      { paused: true, status: { ...done, conditions: [progressing('Unknown', 'AnalysisInconclusive', 'i')] } },
      'analysis-failing',
      'AnalysisInconclusive: i',
    ],
    [
      'InvalidSpec=True outranks everything',
      {
        status: {
          ...done,
          conditions: [
            { type: 'InvalidSpec', status: 'True', reason: 'InvalidSpec', message: 'bad selector' },
            progressing('False', 'ProgressDeadlineExceeded'),
          ],
        },
      },
      'invalid',
      'InvalidSpec: bad selector',
    ],
  ];
  for (const [what, o, state, message] of rows)
    it(what, () => {
      const d = deployment('web', { status: o.status, ...(o.paused !== undefined ? { paused: o.paused } : {}) });
      expect(dashboardState(d)).to.deep.equal({ state, message });
    });
});

describe('dashboard/model: views', () => {
  const d = deployment('web', { annotations: { 'pacer.dev/revision': '2' }, status: done });
  const rs = replicaSet(d, 'abc', { revision: 2, replicas: 3, ready: 2, available: 1, changeCause: '<b>x</b>' });

  it("a Deployment's row: counts, revision, state, images", () => {
    const v = deploymentView(d);
    expect([v.name, v.namespace, v.strategy, v.desired, v.updated, v.available, v.revision, v.state]).to.deep.equal([
      'web',
      'default',
      'RollingUpdate',
      3,
      3,
      3,
      2,
      'complete',
    ]);
    expect(v.images).to.deep.equal(['nginx:1.27']);
  });

  it('no revision annotation yet: revision null, not 0', () => {
    expect(deploymentView(deployment('new')).revision).to.equal(null);
  });

  it('a ReplicaSet of a pacer.dev Deployment: its owner, revision, counts and change cause as they are', () => {
    expect(replicaSetView(rs)).to.include({
      deploymentUid: 'uid-web',
      revision: 2,
      desired: 3,
      ready: 2,
      available: 1,
      changeCause: '<b>x</b>',
    });
  });

  it('a ReplicaSet of an apps/v1 Deployment, or of none, is not shown', () => {
    const apps = replicaSet(d, 'def');
    apps.metadata.ownerReferences = [
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u', controller: true },
    ];
    expect(replicaSetView(apps)).to.equal(undefined);
    const orphan = replicaSet(d, 'ghi');
    orphan.metadata.ownerReferences = [];
    expect(replicaSetView(orphan)).to.equal(undefined);
  });

  it("a pod: its ReplicaSet, kubelet's word, readiness and restarts", () => {
    expect(podView(pod(rs, 'a', { restarts: 2, node: 'node-1' }))).to.include({
      replicaSet: 'web-abc',
      status: 'Running',
      healthy: true,
      readyContainers: 1,
      containers: 1,
      restarts: 2,
      node: 'node-1',
    });
    expect(podView(pod(rs, 'b', { phase: 'Pending', ready: false, waiting: 'CrashLoopBackOff' }))).to.include({
      status: 'CrashLoopBackOff',
      healthy: false,
    });
    expect(podView(pod(rs, 'c', { ready: false }))).to.include({ status: 'Running', healthy: false });
  });
});
