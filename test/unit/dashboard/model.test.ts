// The dashboard's state of a Deployment (src/dashboard/model.ts): one row per case, read as the
// controller leaves a Deployment, and the views of ReplicaSets and pods.

import { expect } from 'chai';
import type { DeploymentCondition, DeploymentStatus, DeploymentStrategy } from '../../../src/api/types.ts';
import type { BudgetView, DashboardState, EventView } from '../../../src/dashboard/api.ts';
import {
  budgetView,
  dashboardState,
  deploymentView,
  eventView,
  podView,
  replicaSetView,
} from '../../../src/dashboard/model.ts';
import type { EventObject } from '../../../src/dashboard/model.ts';
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

describe("dashboard/model: the strategy's budget in pods, as the controller resolves it", () => {
  // The examples of Kubernetes' Deployment docs and Marathon's upgradeStrategy, on the replicas given.
  const rows: Array<[string, number, DeploymentStrategy, Omit<BudgetView, 'gradual'> & { gradual?: boolean }]> = [
    [
      'RollingUpdate, the defaults 25%/25% of 4: maxSurge rounds up, maxUnavailable down',
      4,
      { type: 'RollingUpdate' },
      { settings: 'MaxSurge 25%, MaxUnavailable 25%', maxSurge: 1, maxUnavailable: 1, maxPods: 5, minAvailable: 3 },
    ],
    [
      '25%/25% of 10: 3 surge (2.5 up), 2 unavailable (2.5 down)',
      10,
      { type: 'RollingUpdate' },
      { settings: 'MaxSurge 25%, MaxUnavailable 25%', maxSurge: 3, maxUnavailable: 2, maxPods: 13, minAvailable: 8 },
    ],
    [
      'maxSurge 1, maxUnavailable 0 of 3',
      3,
      { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      { settings: 'MaxSurge 1, MaxUnavailable 0', maxSurge: 1, maxUnavailable: 0, maxPods: 4, minAvailable: 3 },
    ],
    [
      'both 0% of 3 (resolved as 0 and 1, as upstream does)',
      3,
      { type: 'RollingUpdate', rollingUpdate: { maxSurge: '0%', maxUnavailable: '0%' } },
      { settings: 'MaxSurge 0%, MaxUnavailable 0%', maxSurge: 0, maxUnavailable: 1, maxPods: 3, minAvailable: 2 },
    ],
    [
      'maxUnavailable over replicas: capped at replicas',
      2,
      { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 5 } },
      { settings: 'MaxSurge 0, MaxUnavailable 5', maxSurge: 0, maxUnavailable: 2, maxPods: 2, minAvailable: 0 },
    ],
    [
      'Recreate: no budget',
      3,
      { type: 'Recreate' },
      { gradual: false, settings: '', maxSurge: 0, maxUnavailable: 0, maxPods: 3, minAvailable: 3 },
    ],
    [
      "MinimumHealth 0.5 with maximumOverCapacity 0.2 of 10: 5 stay healthy, at most 12 (Marathon's example)",
      10,
      { type: 'MinimumHealth', minimumHealth: { minimumHealthCapacity: 0.5, maximumOverCapacity: 0.2 } },
      {
        settings: 'MinimumHealthCapacity 0.5, MaximumOverCapacity 0.2',
        maxSurge: 2,
        maxUnavailable: 5,
        maxPods: 12,
        minAvailable: 5,
      },
    ],
    [
      'MinimumHealth 1 (the default) without maximumOverCapacity of 3: side by side, all 3 stay healthy',
      3,
      { type: 'MinimumHealth' },
      {
        settings: 'MinimumHealthCapacity 1, MaximumOverCapacity <none>',
        maxSurge: 3,
        maxUnavailable: 0,
        maxPods: 6,
        minAvailable: 3,
      },
    ],
  ];
  for (const [name, replicas, strategy, want] of rows)
    it(name, () => {
      const d = deployment('web', { replicas });
      d.spec.strategy = strategy;
      expect(budgetView(d)).to.deep.equal({ gradual: true, ...want });
    });
});

describe('dashboard/model: an Event', () => {
  const base: EventObject = {
    metadata: { name: 'web.1', namespace: 'default', creationTimestamp: '2026-03-01T10:00:00Z' },
    involvedObject: { kind: 'ReplicaSet', name: 'web-abc' },
    type: 'Normal',
    reason: 'SuccessfulCreate',
    message: 'Created pod: web-abc-x',
    source: { component: 'replicaset-controller' },
  };
  const rows: Array<[string, Partial<EventObject>, Partial<EventView> | undefined]> = [
    [
      'core/v1 count and lastTimestamp',
      { count: 3, lastTimestamp: '2026-03-01T10:05:00Z' },
      { count: 3, lastSeen: '2026-03-01T10:05:00Z', source: 'replicaset-controller', objectKind: 'ReplicaSet' },
    ],
    [
      "events.k8s.io's series: its count and last observation",
      { eventTime: '2026-03-01T10:01:00Z', series: { count: 7, lastObservedTime: '2026-03-01T10:09:00Z' } },
      { count: 7, lastSeen: '2026-03-01T10:09:00Z' },
    ],
    [
      'only eventTime: seen then, once',
      { eventTime: '2026-03-01T10:01:00Z' },
      { count: 1, lastSeen: '2026-03-01T10:01:00Z' },
    ],
    ['no time at all: its creation', {}, { count: 1, lastSeen: '2026-03-01T10:00:00Z' }],
    ['about a Node: not kept', { involvedObject: { kind: 'Node', name: 'n1' } }, undefined],
    [
      'the reporting component when there is no source',
      { source: {}, reportingComponent: 'pacer.dev/deployment-controller' },
      { source: 'pacer.dev/deployment-controller' },
    ],
  ];
  for (const [name, over, want] of rows)
    it(name, () => {
      const v = eventView({ ...base, ...over });
      if (want === undefined) expect(v).to.equal(undefined);
      else expect(v).to.include(want);
    });
});
