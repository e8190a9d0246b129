// Native mode (docs/native.md) on the simulated cluster, which serves apps/v1 Deployments and runs
// no Deployment controller of its own: Pacer's start-up check passes (nobody else writes the probe's
// status), an apps/v1 Deployment rolls out with upstream's exact status and ReplicaSets owned as
// apps/v1, a template change rolls to a second ReplicaSet, and the real kubectl's
// `rollout status` and `rollout undo` work on it; its pacer.dev/analysis annotation judges it as
// spec.analysis does.

import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Deployment, ReplicaSet } from '../../src/api/types.ts';
import { APPS_DEPLOYMENTS, REPLICASETS } from '../../src/kube/client.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import type { RunningController } from '../../src/cli/controller.ts';
import type { SimCluster } from '../../src/sim/index.ts';
import { KUBECTL_HOW, requireTool } from '../fixtures/tools.ts';
import { createNamespace, eventually, startSimWithCrds, startTestController } from './fixtures/cluster.ts';

/** Upstream's revision annotation, which an apps/v1 Deployment and its ReplicaSets carry in native mode. */
const UPSTREAM_REVISION = 'deployment.kubernetes.io/revision';

/** The first container's image of a Deployment's or ReplicaSet's pod template. */
const imageOf = (o: Deployment | ReplicaSet): string | undefined =>
  (o.spec?.template?.spec as { containers?: Array<{ image?: string }> } | undefined)?.containers?.[0]?.image;

const WEB: Deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'app', image: 'nginx:1' }] },
    },
  },
};

describe('native mode on the simulated cluster: Pacer as the apps/v1 Deployment controller', function () {
  this.timeout(120_000);
  let sim: SimCluster;
  let client: KubeClient;
  let ctl: RunningController | undefined;
  let dir: string;

  const kubectl = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        'kubectl',
        ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args],
        { timeout: 90_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      );
    });
  const get = () => client.get<Deployment>(APPS_DEPLOYMENTS, 'default', 'web');
  const replicaSets = async () =>
    (await client.list<ReplicaSet>(REPLICASETS, 'default', { labelSelector: 'app=web' })).items.sort(
      (a, b) =>
        Number(a.metadata.annotations?.[UPSTREAM_REVISION]) - Number(b.metadata.annotations?.[UPSTREAM_REVISION]),
    );
  /** Complete as upstream reports it: the generation observed, every replica updated, ready and available. */
  const complete = async (image: string) => {
    const d = await get();
    const s = d.status ?? {};
    const progressing = s.conditions?.find((c) => c.type === 'Progressing');
    return (
      s.observedGeneration === d.metadata.generation &&
      imageOf(d) === image &&
      s.replicas === 3 &&
      s.updatedReplicas === 3 &&
      s.availableReplicas === 3 &&
      progressing?.reason === 'NewReplicaSetAvailable' &&
      d
    );
  };

  before(async function () {
    requireTool(this, 'kubectl', KUBECTL_HOW);
    dir = await mkdtemp(join(tmpdir(), 'pacer-native-sim-'));
    ({ sim, client } = await startSimWithCrds({ podStartMs: 20, podReadyMs: 30 }));
    await writeFile(join(dir, 'kubeconfig'), sim.kubeconfig);
    // The start-up check's probe goes in the leader-election namespace, which must exist.
    createNamespace(sim, 'pacer-system');
    ctl = await startTestController(sim.kubeconfig, {
      deployments: ['pacer', 'apps'],
      leaderElectionNamespace: 'pacer-system',
    });
  });

  after(async () => {
    await ctl?.stop();
    await sim?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the start-up check passed: its probe created and deleted in pacer-system, its status written by nobody', () => {
    const probe = sim.audit
      .entries({ resource: 'deployments' })
      .filter((e) => e.apiGroup === 'apps' && e.namespace === 'pacer-system')
      .map((e) => `${e.verb}${e.subresource ? `/${e.subresource}` : ''}`);
    expect(probe.filter((v) => v !== 'get')).to.deep.equal(['create', 'delete']);
    expect(
      sim.store.list({ group: 'apps', version: 'v1', resource: 'deployments' }, 'pacer-system').items,
    ).to.deep.equal([]);
  });

  it('an apps/v1 Deployment rolls out: ReplicaSet owned as apps/v1, status exactly upstream’s', async () => {
    await client.create(APPS_DEPLOYMENTS, 'default', WEB);
    const d = await eventually('web complete', () => complete('nginx:1'), 60_000);
    const [rs] = await replicaSets();
    expect(rs.metadata.ownerReferences).to.deep.equal([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'web',
        uid: d.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    const { conditions, ...counts } = d.status!;
    expect(counts).to.deep.equal({
      observedGeneration: d.metadata.generation,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      terminatingReplicas: 0,
    });
    expect(conditions?.map((c) => [c.type, c.status, c.reason, c.message])).to.deep.equal([
      ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
      [
        'Progressing',
        'True',
        'NewReplicaSetAvailable',
        `ReplicaSet "${rs.metadata.name}" has successfully progressed.`,
      ],
    ]);
    expect(d.metadata.annotations?.[UPSTREAM_REVISION]).to.equal('1');
    const status = await kubectl('rollout', 'status', 'deployment/web', '--timeout=60s');
    expect([status.code, status.stdout]).to.deep.equal([0, 'deployment "web" successfully rolled out\n']);
  });

  it('a template change rolls to a second ReplicaSet; kubectl rollout status waits for it, exit 0', async () => {
    const set = await kubectl('set', 'image', 'deployment/web', 'app=nginx:2');
    expect([set.code, set.stdout]).to.deep.equal([0, 'deployment.apps/web image updated\n']);
    const status = await kubectl('rollout', 'status', 'deployment/web', '--timeout=60s');
    expect(status.code, status.stderr).to.equal(0);
    expect(status.stdout.trimEnd().split('\n').pop()).to.equal('deployment "web" successfully rolled out');
    await eventually('web complete on nginx:2', () => complete('nginx:2'), 60_000);
    const sets = await replicaSets();
    expect(sets.map((r) => [r.metadata.annotations?.[UPSTREAM_REVISION], r.spec?.replicas])).to.deep.equal([
      ['1', 0],
      ['2', 3],
    ]);
    expect(imageOf(sets[1])).to.equal('nginx:2');
  });

  it('kubectl rollout undo goes back to the first template, as revision 3; history lists upstream revisions', async () => {
    const undo = await kubectl('rollout', 'undo', 'deployment/web');
    expect([undo.code, undo.stdout, undo.stderr]).to.deep.equal([0, 'deployment.apps/web rolled back\n', '']);
    const status = await kubectl('rollout', 'status', 'deployment/web', '--timeout=60s');
    expect(status.code, status.stderr).to.equal(0);
    const d = await eventually('web complete on nginx:1 again', () => complete('nginx:1'), 60_000);
    expect(d.metadata.annotations?.['deployment.kubernetes.io/revision']).to.equal('3');
    const sets = await replicaSets();
    expect(
      sets.map((r) => [r.metadata.annotations?.['deployment.kubernetes.io/revision'], r.spec?.replicas]),
    ).to.deep.equal([
      ['2', 0],
      ['3', 3],
    ]);
    const history = await kubectl('rollout', 'history', 'deployment/web');
    expect(
      history.stdout
        .split('\n')
        .filter((l) => /^\d/.test(l))
        .map((l) => l.trim()),
    ).to.deep.equal(['2         <none>', '3         <none>']);
  });

  it('the legacy rollback annotation with no revision to go back to is cleared by an update of the object, and that generation observed', async () => {
    // Kubernetes' own iterative spec sets it twice in a row on a Deployment that never changed its
    // template. The API server holds it as spec.rollbackTo: a /status write cannot clear it.
    const KEY = 'deprecated.deployment.rollback.to';
    await client.create(APPS_DEPLOYMENTS, 'default', { ...WEB, metadata: { name: 'lone', namespace: 'default' } });
    const lone = () => client.get<Deployment>(APPS_DEPLOYMENTS, 'default', 'lone');
    await eventually('lone observed', async () => (await lone()).status?.observedGeneration === 1);
    for (let i = 0; i < 2; i++)
      await client.patch(APPS_DEPLOYMENTS, 'default', 'lone', { metadata: { annotations: { [KEY]: '0' } } }, 'merge');
    const d = await eventually('the annotation cleared and the generation observed', async () => {
      const x = await lone();
      return x.metadata.annotations?.[KEY] === undefined && x.status?.observedGeneration === x.metadata.generation && x;
    });
    // Set (2), cleared by Pacer's update (3); the second set may land before or after the clearing.
    expect(d.metadata.generation).to.be.oneOf([3, 5]);
    const writes = sim.audit
      .entries({ resource: 'deployments' })
      .filter((e) => e.apiGroup === 'apps' && e.name === 'lone' && e.verb === 'patch' && !e.subresource);
    expect(writes.length, 'patches of the object: the two of the test and at least one of Pacer').to.be.at.least(3);
  });

  it('pacer.dev/analysis: a crash-looping new revision is aborted by the pod check, its stable and aborted revisions kept in annotations', async () => {
    const judged: Deployment = {
      ...WEB,
      metadata: {
        name: 'judged',
        namespace: 'default',
        annotations: { 'pacer.dev/analysis': 'podFailures: {window: 2s, restarts: 3}' },
      },
      spec: {
        ...WEB.spec,
        selector: { matchLabels: { app: 'judged' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        // Each new pod takes 2 s to count as available: the rollout lasts long enough to be judged.
        minReadySeconds: 2,
        template: {
          metadata: { labels: { app: 'judged' } },
          spec: { containers: [{ name: 'app', image: 'nginx:1' }] },
        },
      },
    };
    await client.create(APPS_DEPLOYMENTS, 'default', judged);
    const annotation = async (key: string) =>
      (await client.get<Deployment>(APPS_DEPLOYMENTS, 'default', 'judged')).metadata.annotations?.[key];
    // Complete: its revision is the stable one, kept where apps/v1's status has no field for it.
    const stable = await eventually('the stable revision recorded', () => annotation('pacer.dev/stable-rs'), 60_000);
    const first = (await client.list<ReplicaSet>(REPLICASETS, 'default', { labelSelector: 'app=judged' })).items;
    expect(first.map((r) => r.metadata.labels?.['pod-template-hash'])).to.deep.equal([stable]);

    await client.patch(
      APPS_DEPLOYMENTS,
      'default',
      'judged',
      {
        spec: {
          template: {
            metadata: { annotations: { 'sim.pacer.dev/crash-loop': 'true' } },
            spec: { containers: [{ name: 'app', image: 'nginx:broken' }] },
          },
        },
      },
      'merge',
    );
    const d = await eventually(
      'aborted by the pod check',
      async () => {
        const x = await client.get<Deployment>(APPS_DEPLOYMENTS, 'default', 'judged');
        const p = x.status?.conditions?.find((c) => c.type === 'Progressing');
        return p?.reason === 'AnalysisFailed' && x.metadata.annotations?.['pacer.dev/aborted-rs'] !== undefined && x;
      },
      60_000,
    );
    expect(d.status?.conditions?.find((c) => c.type === 'Progressing')?.message).to.match(
      /^The pod check failed: pod default\/judged-\w+-\w+: container app is in CrashLoopBackOff/,
    );
    expect(d.metadata.annotations?.['pacer.dev/stable-rs']).to.equal(stable);
    // apps/v1's status has no such fields: nothing was written there.
    expect(d.status).to.not.have.any.keys('stableRS', 'abortedRS');
    await eventually(
      'back on the stable revision only',
      async () => {
        const sets = (await client.list<ReplicaSet>(REPLICASETS, 'default', { labelSelector: 'app=judged' })).items;
        return sets.every((r) => (r.metadata.labels?.['pod-template-hash'] === stable) === (r.spec?.replicas === 3));
      },
      30_000,
    );
  });
});
