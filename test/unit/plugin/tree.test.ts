import { expect } from 'chai';
import { renderTree } from '../../../src/plugin/get.ts';
import { listTable } from '../../../src/plugin/list.ts';
import { deploymentState, podState, replicaSetState } from '../../../src/plugin/state.ts';
import type { DeploymentPhase } from '../../../src/plugin/state.ts';
import { T0, deployment, pod, replicaSet } from './fixtures.ts';

const healthy = { observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 };
const deadline = {
  type: 'Progressing',
  status: 'False' as const,
  reason: 'ProgressDeadlineExceeded',
  message: 'ReplicaSet "web-b" has timed out progressing.',
};

describe('plugin/state: words and glyphs', () => {
  const rows: Array<[string, Parameters<typeof deployment>[1], DeploymentPhase, string]> = [
    ['all updated and available', { status: healthy }, 'Healthy', ''],
    [
      'rolling',
      { status: { ...healthy, updatedReplicas: 1 } },
      'Progressing',
      'Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...',
    ],
    [
      'deadline exceeded',
      { status: { ...healthy, updatedReplicas: 1, conditions: [deadline] } },
      'Degraded',
      'ProgressDeadlineExceeded: ReplicaSet "web-b" has timed out progressing.',
    ],
    [
      'paused',
      { paused: true, status: { ...healthy, updatedReplicas: 1 } },
      'Paused',
      'DeploymentPaused: Deployment is paused',
    ],
    [
      'invalid spec',
      {
        status: {
          observedGeneration: 1,
          conditions: [
            { type: 'InvalidSpec', status: 'True', reason: 'InvalidSpec', message: 'spec.replicas: must be >= 0' },
          ],
        },
      },
      'InvalidSpec',
      'InvalidSpec: spec.replicas: must be >= 0',
    ],
  ];
  for (const [name, opts, phase, message] of rows) {
    it(`${name} → ${phase}`, () => expect(deploymentState(deployment('web', opts))).to.deep.equal({ phase, message }));
  }

  it('ReplicaSets: scaled down, healthy, progressing, degraded when newest of a Degraded Deployment', () => {
    const d = deployment('web');
    expect(replicaSetState(replicaSet(d, 'a', { replicas: 0 }), false, 'Healthy').word).to.equal('ScaledDown');
    expect(replicaSetState(replicaSet(d, 'a', { replicas: 3 }), true, 'Healthy')).to.deep.equal({
      symbol: '✔',
      word: 'Healthy',
    });
    expect(replicaSetState(replicaSet(d, 'a', { replicas: 3, available: 1 }), true, 'Progressing')).to.deep.equal({
      symbol: '◌',
      word: 'Progressing',
    });
    expect(replicaSetState(replicaSet(d, 'a', { replicas: 3, available: 1 }), true, 'Degraded')).to.deep.equal({
      symbol: '✖',
      word: 'Degraded',
    });
  });

  it('pods: kubelet words', () => {
    const rs = replicaSet(deployment('web'), 'a', { replicas: 1 });
    expect(podState(pod(rs, '1'))).to.deep.equal({ symbol: '✔', word: 'Running' });
    expect(podState(pod(rs, '1', { ready: false }))).to.deep.equal({ symbol: '◌', word: 'Running' });
    expect(podState(pod(rs, '1', { phase: 'Pending', ready: false, waiting: 'ContainerCreating' }))).to.deep.equal({
      symbol: '◌',
      word: 'ContainerCreating',
    });
    expect(podState(pod(rs, '1', { ready: false, waiting: 'CrashLoopBackOff' }))).to.deep.equal({
      symbol: '✖',
      word: 'CrashLoopBackOff',
    });
    expect(podState(pod(rs, '1', { deleting: true }))).to.deep.equal({ symbol: '◌', word: 'Terminating' });
    expect(podState(pod(rs, '1', { phase: 'Failed' }))).to.deep.equal({ symbol: '✖', word: 'Failed' });
  });
});

describe('plugin/get: the tree', () => {
  it('a rollout in progress: header, newest revision first, pods under their ReplicaSet, ages from now', () => {
    const d = deployment('web', {
      image: 'nginx:1.28',
      status: { ...healthy, replicas: 4, updatedReplicas: 1, readyReplicas: 3, availableReplicas: 3 },
    });
    const oldRs = replicaSet(d, 'aaa', { revision: 1, replicas: 3 });
    const newRs = replicaSet(d, 'bbb', {
      revision: 2,
      replicas: 1,
      available: 0,
      ready: 0,
      ageSeconds: 270,
      image: 'nginx:1.28',
    });
    const foreign = replicaSet(deployment('other', { uid: 'someone-else' }), 'zzz', { revision: 9, replicas: 1 });
    const pods = [
      pod(oldRs, 'p2', { node: 'node-2' }),
      pod(oldRs, 'p1', { node: 'node-1', restarts: 2 }),
      pod(oldRs, 'p3', { node: 'node-3' }),
      pod(newRs, 'n1', { ready: false, phase: 'Pending', waiting: 'ContainerCreating' }),
    ];
    const lines = renderTree({ deployment: d, replicaSets: [oldRs, newRs, foreign], pods }, T0 + 300_000);
    expect(lines.slice(0, 17)).to.deep.equal([
      'Name:              web',
      'Namespace:         default',
      'Status:            ◌ Progressing',
      'Message:           Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...',
      'Strategy:          RollingUpdate',
      '  MaxSurge:        1',
      '  MaxUnavailable:  0',
      'Images:            nginx:1.28',
      'Replicas:',
      '  Desired:         3',
      '  Current:         4',
      '  Updated:         1',
      '  Ready:           3',
      '  Available:       3',
      'Plan:              deploy, phase web (parallel strategy) (IN_PROGRESS)',
      '  Steps:           1 PREPARED, 2 PENDING',
      '',
    ]);
    expect(lines.slice(17)).to.deep.equal([
      'NAME                   KIND        STATUS               AGE  INFO',
      '⟳ web                  Deployment  ◌ Progressing        5m',
      '├──# revision:2',
      '│  └──⧉ web-bbb        ReplicaSet  ◌ Progressing        30s  replicas:1/1 ready:0 available:0',
      '│     └──□ web-bbb-n1  Pod         ◌ ContainerCreating  30s  ready:0/1 restarts:0',
      '└──# revision:1',
      '   └──⧉ web-aaa        ReplicaSet  ✔ Healthy            5m   replicas:3/3 ready:3 available:3',
      '      ├──□ web-aaa-p1  Pod         ✔ Running            5m   ready:1/1 restarts:2 node:node-1',
      '      ├──□ web-aaa-p2  Pod         ✔ Running            5m   ready:1/1 restarts:0 node:node-2',
      '      └──□ web-aaa-p3  Pod         ✔ Running            5m   ready:1/1 restarts:0 node:node-3',
    ]);
  });

  it('a Degraded Deployment marks its newest ReplicaSet ✖ and prints the condition', () => {
    const d = deployment('never-ready', {
      replicas: 2,
      status: { observedGeneration: 1, replicas: 2, updatedReplicas: 2, conditions: [deadline] },
    });
    const rs = replicaSet(d, 'a', { revision: 1, replicas: 2, ready: 0, available: 0 });
    const lines = renderTree({ deployment: d, replicaSets: [rs], pods: [pod(rs, 'x', { ready: false })] }, T0 + 60_000);
    expect(lines).to.include('Status:            ✖ Degraded');
    expect(lines).to.include(
      'Message:           ProgressDeadlineExceeded: ReplicaSet "web-b" has timed out progressing.',
    );
    expect(lines.find((l) => / ReplicaSet {2}/.test(l))).to.match(
      /✖ Degraded +60s +replicas:2\/2 ready:0 available:0$/,
    );
    expect(lines.find((l) => / Pod {2}/.test(l))).to.match(/◌ Running/);
  });

  it('a paused Deployment shows ॥ Paused', () => {
    const lines = renderTree(
      { deployment: deployment('web', { paused: true, status: healthy }), replicaSets: [], pods: [] },
      T0,
    );
    expect(lines[2]).to.equal('Status:            ॥ Paused');
    expect(lines.at(-1)).to.match(/^⟳ web +Deployment +॥ Paused +0s$/);
  });
});

describe('plugin/list', () => {
  const items = [
    deployment('web', { status: healthy }),
    {
      ...deployment('worker', {
        replicas: 2,
        status: { observedGeneration: 1, replicas: 2, updatedReplicas: 0, availableReplicas: 2 },
      }),
      metadata: { ...deployment('worker').metadata, namespace: 'jobs' },
    },
    deployment('never-ready', {
      replicas: 2,
      status: { observedGeneration: 1, updatedReplicas: 2, availableReplicas: 0, conditions: [deadline] },
    }),
  ];
  items[1].spec.strategy = { type: 'Recreate' };

  it('one namespace: kubectl get layout, sorted by name', () => {
    expect(
      listTable(
        items.filter((d) => d.metadata.namespace === 'default'),
        false,
      ),
    ).to.equal(
      'NAME          STRATEGY        DESIRED   UPDATED   AVAILABLE   STATUS\n' +
        'never-ready   RollingUpdate   2         2         0           Degraded\n' +
        'web           RollingUpdate   3         3         3           Healthy\n',
    );
  });

  it('-A adds NAMESPACE and sorts by it', () => {
    const lines = listTable(items, true).trimEnd().split('\n');
    expect(lines[0]).to.match(/^NAMESPACE +NAME +STRATEGY +DESIRED +UPDATED +AVAILABLE +STATUS$/);
    expect(lines.slice(1).map((l) => l.split(/ +/).slice(0, 2).join('/'))).to.deep.equal([
      'default/never-ready',
      'default/web',
      'jobs/worker',
    ]);
    expect(lines[3]).to.match(/Recreate +2 +0 +2 +Progressing$/);
  });
});
