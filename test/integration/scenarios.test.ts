// End-to-end scenarios: the real controller against the simulated cluster (ReplicaSet controller,
// scheduler, kubelet), each checked against upstream's Deployment controller (kubernetes/kubernetes,
// pkg/controller/deployment: the rolling, recreate and sync rules) from the objects and Events it
// leaves behind. A Timeline sees every change the store makes, so the rollout invariants are
// checked on every step, not only at the end. Each scenario has its own namespace.

import { expect } from 'chai';
import type { Deployment, ReplicaSet } from '../../src/api/types.ts';
import { DEPLOYMENTS, REPLICASETS } from '../../src/kube/client.ts';
import { controllerOf } from '../../src/api/owners.ts';
import {
  CONTROLLER_AGENT_PREFIX,
  Timeline,
  condition,
  createNamespace,
  deploymentManifest,
  eventually,
  imageOf,
  isActivePod,
  isReadyPod,
  ownedReplicaSets,
  passLog,
  podTemplate,
  sleep,
  startCluster,
  waitComplete,
} from './fixtures/cluster.ts';
import type { Cluster, Pass } from './fixtures/cluster.ts';

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
const HASH = 'pod-template-hash';

/** The container image change users make: a merge patch replaces the containers list. */
const imagePatch = (image: string, annotations?: Record<string, string>) => ({
  spec: {
    template: { ...(annotations ? { metadata: { annotations } } : {}), spec: { containers: [{ name: 'web', image }] } },
  },
});

function rsByImage(rss: ReplicaSet[], image: string): ReplicaSet {
  const rs = rss.find((r) => imageOf(r) === image);
  if (!rs)
    throw new Error(
      `no ReplicaSet with image ${image} among ${rss.map((r) => `${r.metadata.name}(${imageOf(r)})`).join(', ')}`,
    );
  return rs;
}

const revisionOf = (o: { metadata: { annotations?: Record<string, string> } }) =>
  o.metadata.annotations?.['pacer.dev/revision'];

describe('scenarios: the controller against the simulated cluster, as upstream', function () {
  this.timeout(60_000);
  let c: Cluster;

  /**
   * A Timeline of `ns` from now on, started once the Events of what came before are written: they
   * trail the writes (the recorder takes only spare rate-limit tokens), and an earlier rollout's
   * Event seen by the Timeline would count as this one's.
   */
  async function timelineFrom(ns: string): Promise<Timeline> {
    await c.ctl.controller.recorder.flush();
    return new Timeline(c.sim, ns);
  }
  const log = passLog();

  before(async () => {
    // A 1 s resync makes the steady-state checks meaningful: every Deployment gets a pass each second.
    c = await startCluster({ podStartMs: 20, podReadyMs: 30 }, { resyncMs: 1000, logger: log.logger });
  });
  after(async () => {
    await c?.stop();
  });

  /**
   * Waits until `n` reconcile passes of ns/name that started after this call have finished (resyncs
   * come every second) and returns them: a window that surely holds passes, where a fixed sleep
   * would only hope it does. A pass of one key never overlaps another, so of the passes finished
   * after the call, all but the first (which may have been running already) started after it.
   */
  async function passesFromNow(ns: string, name: string, n: number): Promise<Pass[]> {
    const from = log.passes(ns, name).length;
    return eventually(`${n} reconcile passes of ${ns}/${name}`, () => {
      const after = log.passes(ns, name).slice(from + 1);
      return after.length >= n && after.slice(0, n);
    });
  }

  it('rolling update (4 replicas, maxSurge 1, maxUnavailable 0): at most 5 pods, at least 4 available, one RS step at a time', async () => {
    const ns = 'rolling';
    createNamespace(c.sim, ns);
    await c.client.create(
      DEPLOYMENTS,
      ns,
      deploymentManifest(ns, 'web', {
        replicas: 4,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      }),
    );
    const before = await waitComplete(c.client, ns, 'web', '1');
    const [old] = await ownedReplicaSets(c.client, before);

    const t = await timelineFrom(ns);
    let maxPods = 0;
    let minReady = Infinity;
    t.check('Σ ReplicaSet spec.replicas ≤ replicas + maxSurge = 5', (tl) =>
      tl.specTotal() > 5 ? `total ${tl.specTotal()}` : undefined,
    );
    t.check('pods (not terminating) ≤ 5', (tl) => {
      const n = tl.activePods().length;
      maxPods = Math.max(maxPods, n);
      return n > 5 ? `${n} pods` : undefined;
    });
    t.check('ready pods (not terminating) ≥ replicas − maxUnavailable = 4', (tl) => {
      const n = tl.activePods(isReadyPod).length;
      minReady = Math.min(minReady, n);
      return n < 4 ? `${n} ready` : undefined;
    });
    await c.client.patch(DEPLOYMENTS, ns, 'web', imagePatch('nginx:2'), 'merge');
    const d = await waitComplete(c.client, ns, 'web', '2');
    const rss = await ownedReplicaSets(c.client, d);
    const fresh = rsByImage(rss, 'nginx:2');
    const expectedEvents = [
      `Scaled up replica set ${fresh.metadata.name} from 0 to 1`,
      `Scaled down replica set ${old.metadata.name} from 4 to 3`,
      `Scaled up replica set ${fresh.metadata.name} from 1 to 2`,
      `Scaled down replica set ${old.metadata.name} from 3 to 2`,
      `Scaled up replica set ${fresh.metadata.name} from 2 to 3`,
      `Scaled down replica set ${old.metadata.name} from 2 to 1`,
      `Scaled up replica set ${fresh.metadata.name} from 3 to 4`,
      `Scaled down replica set ${old.metadata.name} from 1 to 0`,
    ];
    await eventually(
      'the eight scaling Events',
      () => t.messagesFor('web', 'ScalingReplicaSet').length >= expectedEvents.length,
    );
    t.stop();

    expect(t.violations, t.violations.join('\n')).to.deep.equal([]);
    // The invariants could have failed: the surge was used and no slack was left.
    expect([maxPods, minReady]).to.deep.equal([5, 4]);
    // One step per pass, alternating, each step of one replica (upstream's sequence for 1/0).
    expect(t.scalings.map((s) => `${s.rs} ${s.from}→${s.to}`)).to.deep.equal([
      `${fresh.metadata.name} 0→1`,
      `${old.metadata.name} 4→3`,
      `${fresh.metadata.name} 1→2`,
      `${old.metadata.name} 3→2`,
      `${fresh.metadata.name} 2→3`,
      `${old.metadata.name} 2→1`,
      `${fresh.metadata.name} 3→4`,
      `${old.metadata.name} 1→0`,
    ]);
    expect(t.messagesFor('web', 'ScalingReplicaSet')).to.deep.equal(expectedEvents);

    expect(rss.filter((r) => (r.spec.replicas ?? 0) > 0).map((r) => r.metadata.name)).to.deep.equal([
      fresh.metadata.name,
    ]);
    const oldNow = rss.find((r) => r.metadata.name === old.metadata.name)!;
    expect([oldNow.spec.replicas, oldNow.status?.replicas, revisionOf(oldNow)]).to.deep.equal([0, 0, '1']);
    expect([fresh.spec.replicas, revisionOf(fresh), revisionOf(d)]).to.deep.equal([4, '2', '2']);
    expect(fresh.metadata.name).to.equal(`web-${fresh.metadata.labels?.[HASH]}`);
    const p = condition(d, 'Progressing')!;
    expect([p.status, p.reason, p.message]).to.deep.equal([
      'True',
      'NewReplicaSetAvailable',
      `ReplicaSet "${fresh.metadata.name}" has successfully progressed.`,
    ]);
    const a = condition(d, 'Available')!;
    expect([a.status, a.reason, a.message]).to.deep.equal([
      'True',
      'MinimumReplicasAvailable',
      'Deployment has minimum availability.',
    ]);
    expect(d.status).to.include({
      replicas: 4,
      updatedReplicas: 4,
      readyReplicas: 4,
      availableReplicas: 4,
      observedGeneration: d.metadata.generation,
    });
  });

  it('Recreate: the old ReplicaSet goes to 0 first; the new one is created only when every old pod is gone', async () => {
    const ns = 'recreate';
    createNamespace(c.sim, ns);
    await c.client.create(
      DEPLOYMENTS,
      ns,
      deploymentManifest(ns, 'web', { replicas: 3, strategy: { type: 'Recreate' } }),
    );
    const before = await waitComplete(c.client, ns, 'web', '1');
    const [old] = await ownedReplicaSets(c.client, before);
    const oldHash = old.metadata.labels?.[HASH];
    expect(oldHash, 'the ReplicaSet carries its pod-template-hash').to.be.a('string');

    const t = await timelineFrom(ns);
    let sawOldPodsGoing = false;
    t.check('no pod of the new template while an old pod exists (terminating ones too)', (tl) => {
      const pods = [...tl.pods.values()];
      const oldPods = pods.filter((p) => p.metadata.labels?.[HASH] === oldHash);
      const newPods = pods.filter((p) => p.metadata.labels?.[HASH] !== oldHash);
      if (oldPods.some((p) => p.metadata.deletionTimestamp)) sawOldPodsGoing = true;
      return newPods.length > 0 && oldPods.length > 0
        ? `${newPods.length} new pods while ${oldPods.length} old pods remain`
        : undefined;
    });
    t.check('the new ReplicaSet is created only after the old one is at 0 with no pods', (tl, step) => {
      if (step.resource !== 'replicasets' || step.type !== 'ADDED') return undefined;
      const oldRs = tl.replicaSets.get(old.metadata.name!);
      const oldPods = [...tl.pods.values()].filter((p) => p.metadata.labels?.[HASH] === oldHash);
      return (oldRs?.spec.replicas ?? 0) !== 0 || oldPods.length > 0
        ? `old spec ${oldRs?.spec.replicas}, ${oldPods.length} old pods`
        : undefined;
    });
    await c.client.patch(DEPLOYMENTS, ns, 'web', imagePatch('nginx:2'), 'merge');
    const d = await waitComplete(c.client, ns, 'web', '2');
    const fresh = rsByImage(await ownedReplicaSets(c.client, d), 'nginx:2');
    await eventually('the two scaling Events', () => t.messagesFor('web', 'ScalingReplicaSet').length >= 2);
    t.stop();

    expect(t.violations, t.violations.join('\n')).to.deep.equal([]);
    expect(sawOldPodsGoing, 'old pods were seen terminating (the check had something to see)').to.equal(true);
    // Recreate creates the new ReplicaSet at full size at once.
    expect(t.scalings.map((s) => `${s.rs} ${s.from}→${s.to}`)).to.deep.equal([
      `${old.metadata.name} 3→0`,
      `${fresh.metadata.name} 0→3`,
    ]);
    expect(t.messagesFor('web', 'ScalingReplicaSet')).to.deep.equal([
      `Scaled down replica set ${old.metadata.name} from 3 to 0`,
      `Scaled up replica set ${fresh.metadata.name} from 0 to 3`,
    ]);
    // Recreate: max-replicas = replicas (no surge).
    expect(fresh.metadata.annotations).to.include({
      'pacer.dev/desired-replicas': '3',
      'pacer.dev/max-replicas': '3',
      'pacer.dev/revision': '2',
    });
  });

  it('scale during a rollout (10 → 15): sizes follow the proportions, the rollout completes, the last pass writes nothing', async () => {
    const ns = 'proportional';
    createNamespace(c.sim, ns);
    await c.client.create(DEPLOYMENTS, ns, deploymentManifest(ns, 'web', { replicas: 10 })); // 25% / 25%
    const before = await waitComplete(c.client, ns, 'web', '1');
    const [old] = await ownedReplicaSets(c.client, before);
    const oldName = old.metadata.name!;

    const t = await timelineFrom(ns);
    t.check('Σ spec.replicas ≤ replicas + maxSurge (25%, rounded up)', (tl) => {
      const n = tl.deployment?.spec.replicas ?? 0;
      const bound = n + Math.ceil((n * 25) / 100);
      return tl.specTotal() > bound ? `total ${tl.specTotal()} > ${bound}` : undefined;
    });
    // New pods take 2 s to become Ready, so the rollout stops at its first plateau long enough to scale.
    await c.client.patch(
      DEPLOYMENTS,
      ns,
      'web',
      imagePatch('nginx:2', { 'sim.pacer.dev/ready-after-ms': '2000' }),
      'merge',
    );
    // 10 replicas, surge 3, unavailable 2: new RS 3, old 10 → 8, new 3 → 5, then wait for readiness.
    const newName = await eventually('the first plateau (old 8, new 5)', () => {
      const fresh = [...t.replicaSets.values()].find((r) => r.metadata.name !== oldName);
      return (
        fresh && t.replicaSets.get(oldName)?.spec.replicas === 8 && fresh.spec.replicas === 5 && fresh.metadata.name
      );
    });
    const ready = [...t.pods.values()].filter(
      (p) => p.metadata.labels?.[HASH] !== old.metadata.labels?.[HASH] && isReadyPod(p),
    );
    expect(ready, 'no new pod is Ready yet: the scale lands mid-rollout').to.have.length(0);
    const mark = t.scalings.length;
    await c.client.patch(DEPLOYMENTS, ns, 'web', { spec: { replicas: 15 } }, 'merge');
    const d = await waitComplete(c.client, ns, 'web', '2');

    // Proportional scaling (docs/semantics/kubernetes-deployments.md#proportional-scaling): allowed = 15 + ceil(15·25%) = 19, toAdd = 19 − 13 = 6;
    // largest first: old round(8·19/13) − 8 = +4 → 12, new round(5·19/13) − 5 = +2 → 7; no leftover.
    expect(t.scalings.slice(mark, mark + 2).map((s) => `${s.rs} ${s.from}→${s.to}`)).to.deep.equal([
      `${oldName} 8→12`,
      `${newName} 5→7`,
    ]);
    const final = await ownedReplicaSets(c.client, d);
    expect(final.map((r) => [r.metadata.name, r.spec.replicas]).sort()).to.deep.equal(
      [
        [newName, 15],
        [oldName, 0],
      ].sort(),
    );
    expect(rsByImage(final, 'nginx:2').metadata.annotations).to.include({
      'pacer.dev/desired-replicas': '15',
      'pacer.dev/max-replicas': '19',
    });

    // The final pass writes nothing: with a pass every second (resync), nothing the controller owns
    // here changes any more once it is complete.
    await eventually('the events to settle', async () => {
      const n = t.steps.length;
      await sleep(300);
      return t.steps.length === n;
    });
    const rv = t.lastWriteRv();
    const quiet = await passesFromNow(ns, 'web', 1);
    expect(
      quiet.map((p) => p.writes),
      'writes of a pass after completion',
    ).to.deep.equal([0]);
    expect(t.lastWriteRv(), 'a Deployment or ReplicaSet changed after completion').to.equal(rv);
    t.stop();
    expect(t.violations, t.violations.join('\n')).to.deep.equal([]);
  });

  it('pause: Progressing=Unknown DeploymentPaused, no rollout while paused, scaling still works, resume rolls out', async () => {
    const ns = 'pause';
    createNamespace(c.sim, ns);
    await c.client.create(DEPLOYMENTS, ns, deploymentManifest(ns, 'web', { replicas: 3 }));
    const before = await waitComplete(c.client, ns, 'web', '1');
    const [old] = await ownedReplicaSets(c.client, before);
    const t = await timelineFrom(ns);
    // Paused mid-rollout, upstream's scale() fills up to replicas + maxSurge; never beyond.
    t.check('Σ spec.replicas ≤ replicas + maxSurge (25%, rounded up)', (tl) => {
      const n = tl.deployment?.spec.replicas ?? 0;
      const bound = n + Math.ceil((n * 25) / 100);
      return tl.specTotal() > bound ? `total ${tl.specTotal()} > ${bound}` : undefined;
    });
    const progressing = async (reason: string) =>
      eventually(`Progressing reason ${reason}`, async () => {
        const x = await c.client.getDeployment(ns, 'web');
        return condition(x, 'Progressing')?.reason === reason && x;
      });

    await c.client.patch(DEPLOYMENTS, ns, 'web', { spec: { paused: true } }, 'merge');
    const p = condition(await progressing('DeploymentPaused'), 'Progressing')!;
    expect([p.status, p.message]).to.deep.equal(['Unknown', 'Deployment is paused']);

    // New pods take 2 s to become Ready: room for a second pause in the middle of the rollout below.
    await c.client.patch(
      DEPLOYMENTS,
      ns,
      'web',
      imagePatch('nginx:2', { 'sim.pacer.dev/ready-after-ms': '2000' }),
      'merge',
    );
    await eventually('the template change to be observed', async () => {
      const x = await c.client.getDeployment(ns, 'web');
      return x.status?.observedGeneration === x.metadata.generation;
    });
    await passesFromNow(ns, 'web', 1); // a whole pass while paused, the template change already seen
    expect(
      t.steps.filter((s) => s.resource === 'replicasets' && s.type === 'ADDED'),
      'no new ReplicaSet while paused',
    ).to.deep.equal([]);

    await c.client.patch(DEPLOYMENTS, ns, 'web', { spec: { replicas: 5 } }, 'merge');
    await eventually('the paused Deployment scaled to 5', async () => {
      const x = await c.client.getDeployment(ns, 'web');
      return x.status?.availableReplicas === 5 && x.status.observedGeneration === x.metadata.generation;
    });
    const scaled = await ownedReplicaSets(c.client, before);
    expect(scaled.map((r) => [r.metadata.name, r.spec.replicas, imageOf(r)])).to.deep.equal([
      [old.metadata.name, 5, 'nginx:1'],
    ]);
    expect(condition(await c.client.getDeployment(ns, 'web'), 'Progressing')?.reason).to.equal('DeploymentPaused');

    await c.client.patch(DEPLOYMENTS, ns, 'web', { spec: { paused: false } }, 'merge');
    await eventually('the resumed rollout: a new ReplicaSet, its status written', async () => {
      const x = await c.client.getDeployment(ns, 'web');
      return (
        t.replicaSets.size === 2 &&
        ['NewReplicaSetCreated', 'ReplicaSetUpdated'].includes(condition(x, 'Progressing')?.reason ?? '')
      );
    });
    // Paused and resumed again in the middle of the rollout, before any new pod is Ready: this
    // resume pass makes no progress, so Progressing stays Unknown/DeploymentResumed.
    await c.client.patch(DEPLOYMENTS, ns, 'web', { spec: { paused: true } }, 'merge');
    await progressing('DeploymentPaused');
    await c.client.patch(DEPLOYMENTS, ns, 'web', { spec: { paused: false } }, 'merge');
    const resumed = condition(await progressing('DeploymentResumed'), 'Progressing')!;
    const freshHash = [...t.replicaSets.values()].find((r) => r.metadata.name !== old.metadata.name)?.metadata.labels?.[
      HASH
    ];
    expect(
      t.activePods((x) => x.metadata.labels?.[HASH] === freshHash && isReadyPod(x)),
      'no new pod Ready yet: the resume landed mid-rollout',
    ).to.have.length(0);
    expect([resumed.status, resumed.message]).to.deep.equal(['Unknown', 'Deployment is resumed']);

    const d = await waitComplete(c.client, ns, 'web', '2');
    await eventually('the Events of the resumed rollout', () =>
      t.messagesFor('web', 'ScalingReplicaSet').includes(`Scaled down replica set ${old.metadata.name} from 1 to 0`),
    );
    t.stop();

    const rss = await ownedReplicaSets(c.client, d);
    expect(rss).to.have.length(2);
    expect(rsByImage(rss, 'nginx:2').spec.replicas).to.equal(5);
    expect(t.messagesFor('web', 'ScalingReplicaSet')[0]).to.equal(
      `Scaled up replica set ${old.metadata.name} from 3 to 5`,
    );
    expect(t.violations, t.violations.join('\n')).to.deep.equal([]);
  });

  it('rollback to an earlier template: no new ReplicaSet; the old one becomes revision 3 with revision-history "1"', async () => {
    const ns = 'rollback';
    createNamespace(c.sim, ns);
    await c.client.create(DEPLOYMENTS, ns, deploymentManifest(ns, 'web', { replicas: 2 }));
    await waitComplete(c.client, ns, 'web', '1');
    await c.client.patch(DEPLOYMENTS, ns, 'web', imagePatch('nginx:2'), 'merge');
    const v2 = await waitComplete(c.client, ns, 'web', '2');
    const before = await ownedReplicaSets(c.client, v2);
    const rs1 = rsByImage(before, 'nginx:1');
    const rs2 = rsByImage(before, 'nginx:2');

    const t = await timelineFrom(ns);
    // Hand-edit the template back to revision 1's (what `kubectl rollout undo` sends, minus the annotations).
    const v1Template = podTemplate('web', 'nginx:1');
    await c.client.patch(
      DEPLOYMENTS,
      ns,
      'web',
      [{ op: 'replace', path: '/spec/template', value: v1Template }],
      'json',
    );
    const d = await waitComplete(c.client, ns, 'web', '3');
    t.stop();

    expect(
      t.steps.filter((s) => s.resource === 'replicasets' && s.type === 'ADDED'),
      'ReplicaSets created by the rollback',
    ).to.deep.equal([]);
    const after = await ownedReplicaSets(c.client, d);
    expect(after.map((r) => r.metadata.name).sort()).to.deep.equal([rs1.metadata.name, rs2.metadata.name].sort());
    const back = after.find((r) => r.metadata.uid === rs1.metadata.uid)!;
    const other = after.find((r) => r.metadata.uid === rs2.metadata.uid)!;
    expect(back.metadata.annotations).to.include({ 'pacer.dev/revision': '3', 'pacer.dev/revision-history': '1' });
    expect([back.spec.replicas, other.spec.replicas, revisionOf(other), revisionOf(d)]).to.deep.equal([2, 0, '2', '3']);
  });

  it('stuck rollout (never-ready pods, progressDeadlineSeconds 3): ProgressDeadlineExceeded, Available stays as upstream says', async () => {
    const ns = 'stuck';
    createNamespace(c.sim, ns);
    // 2 replicas at 25%/25%: surge 1, unavailable 0, so the old pods stay and Available stays True.
    await c.client.create(DEPLOYMENTS, ns, deploymentManifest(ns, 'web', { replicas: 2, progressDeadlineSeconds: 3 }));
    await waitComplete(c.client, ns, 'web', '1');
    const t = await timelineFrom(ns);
    await c.client.patch(
      DEPLOYMENTS,
      ns,
      'web',
      imagePatch('nginx:2', { 'sim.pacer.dev/never-ready': 'true' }),
      'merge',
    );
    const d = await eventually(
      'Progressing=False ProgressDeadlineExceeded',
      async () => {
        const x = await c.client.getDeployment(ns, 'web');
        return condition(x, 'Progressing')?.reason === 'ProgressDeadlineExceeded' && x;
      },
      15_000,
    );
    const rss = await ownedReplicaSets(c.client, d);
    const fresh = rsByImage(rss, 'nginx:2');
    const p = condition(d, 'Progressing')!;
    expect([p.status, p.reason, p.message]).to.deep.equal([
      'False',
      'ProgressDeadlineExceeded',
      `ReplicaSet "${fresh.metadata.name}" has timed out progressing.`,
    ]);
    // The deadline is 3 s from the last progress (the Progressing condition's lastUpdateTime), strictly:
    // checked on the controller's own clock readings in the conditions, not on the test's.
    const history = t.progressing.get('web') ?? [];
    const lastProgress = history.filter((x) => x.status === 'True').at(-1)!;
    expect(lastProgress.reason).to.be.oneOf(['NewReplicaSetCreated', 'ReplicaSetUpdated']);
    expect(Date.parse(p.lastUpdateTime!) - Date.parse(lastProgress.lastUpdateTime!)).to.be.greaterThan(3000);

    const a = condition(d, 'Available')!;
    expect([a.status, a.reason]).to.deep.equal(['True', 'MinimumReplicasAvailable']);
    expect(d.status).to.include({ replicas: 3, updatedReplicas: 1, availableReplicas: 2, unavailableReplicas: 1 });
    expect(rss.map((r) => [imageOf(r), r.spec.replicas]).sort()).to.deep.equal([
      ['nginx:1', 2],
      ['nginx:2', 1],
    ]);

    // It stays timed out, and the stuck rollout makes no further progress (and no writes).
    const rv = t.lastWriteRv();
    const passes = await passesFromNow(ns, 'web', 1);
    expect(
      passes.map((p) => p.writes),
      'writes of a pass after the deadline',
    ).to.deep.equal([0]);
    const later = await c.client.getDeployment(ns, 'web');
    expect(condition(later, 'Progressing')?.reason).to.equal('ProgressDeadlineExceeded');
    expect(t.lastWriteRv()).to.equal(rv);
    t.stop();
  });

  it('revisionHistoryLimit 1 and three image changes: the newest two ReplicaSets remain; old ones go only once complete', async () => {
    const ns = 'history';
    createNamespace(c.sim, ns);
    await c.client.create(DEPLOYMENTS, ns, deploymentManifest(ns, 'web', { replicas: 2, revisionHistoryLimit: 1 }));
    const first = await waitComplete(c.client, ns, 'web', '1');
    const t = await timelineFrom(ns);
    for (const [i, image] of ['nginx:2', 'nginx:3', 'nginx:4'].entries()) {
      await c.client.patch(DEPLOYMENTS, ns, 'web', imagePatch(image), 'merge');
      await waitComplete(c.client, ns, 'web', String(i + 2));
      // revisions so far i + 2; kept: the new one plus `limit` old ones.
      await eventually(
        `${Math.min(i + 2, 2)} ReplicaSets after revision ${i + 2}`,
        async () => (await ownedReplicaSets(c.client, first)).length === Math.min(i + 2, 2),
      );
    }
    t.stop();
    const rss = await ownedReplicaSets(c.client, first);
    expect(rss.map((r) => [imageOf(r), revisionOf(r), r.spec.replicas]).sort()).to.deep.equal([
      ['nginx:3', '3', 0],
      ['nginx:4', '4', 2],
    ]);
    expect(t.deletedReplicaSets.map((x) => imageOf(x.rs))).to.deep.equal(['nginx:1', 'nginx:2']);
    for (const { rs, deployment } of t.deletedReplicaSets) {
      // Upstream cleans up only when DeploymentComplete and deletes only empty, observed ReplicaSets.
      const d = deployment!;
      const s = d.status!;
      expect(
        [s.updatedReplicas, s.replicas, s.availableReplicas, s.observedGeneration],
        `the Deployment when ${rs.metadata.name} was deleted`,
      ).to.deep.equal([2, 2, 2, d.metadata.generation]);
      expect([rs.spec.replicas, rs.status?.replicas], `${rs.metadata.name} when deleted`).to.deep.equal([0, 0]);
    }
  });

  it('a steady Deployment costs no writes: nothing written by pacer-controller over three resync passes after convergence', async () => {
    const ns = 'steady';
    createNamespace(c.sim, ns);
    await c.client.create(DEPLOYMENTS, ns, deploymentManifest(ns, 'web', { replicas: 3 }));
    await waitComplete(c.client, ns, 'web', '1');
    // Status and its Events are written in the background of the last reconcile: wait for the
    // recorder to drain and for half a second without a controller write before the window opens.
    const controllerWrites = (): number =>
      c.sim.audit.entries().filter((e) => e.userAgent.startsWith(CONTROLLER_AGENT_PREFIX) && WRITE_VERBS.has(e.verb))
        .length;
    let last = -1;
    await eventually('the controller stops writing after convergence', async () => {
      await c.ctl.controller.recorder.flush();
      const n = controllerWrites();
      const quiet = n === last;
      last = n;
      if (!quiet) await sleep(500);
      return quiet;
    });
    const from = c.sim.audit.entries().length;
    const passes = await passesFromNow(ns, 'web', 3);
    const writes = c.sim.audit
      .entries()
      .slice(from)
      .filter((e) => e.userAgent.startsWith(CONTROLLER_AGENT_PREFIX) && WRITE_VERBS.has(e.verb));
    expect(
      passes.map((p) => p.writes),
      'writes of the passes in the window (1 s resync)',
    ).to.deep.equal([0, 0, 0]);
    expect(
      writes.map((e) => `${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ''} ${e.namespace}/${e.name}`),
    ).to.deep.equal([]);
  });

  it('adoption: orphan ReplicaSets matching the selector get the controller ownerReference; the matching one is the new RS', async () => {
    const ns = 'adopt';
    createNamespace(c.sim, ns);
    // Two orphans (each with its own extra label, so the ReplicaSet controllers do not fight over pods):
    // one with the Deployment's exact template, one with an older image.
    const orphan = (name: string, tier: string, image: string, replicas: number): ReplicaSet => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name, namespace: ns, labels: { app: 'web', tier } },
      spec: {
        replicas,
        selector: { matchLabels: { app: 'web', tier } },
        template: { metadata: { labels: { app: 'web', tier } }, spec: { containers: [{ name: 'web', image }] } },
      },
    });
    await c.client.create(REPLICASETS, ns, orphan('web-current', 'a', 'nginx:1', 2));
    await c.client.create(REPLICASETS, ns, orphan('web-older', 'b', 'nginx:0', 1));
    await eventually("the orphans' pods Ready", async () => {
      const list = await c.client.list<ReplicaSet>(REPLICASETS, ns);
      return list.items.every((r) => r.status?.availableReplicas === r.spec.replicas);
    });
    const t = await timelineFrom(ns);
    const podsBefore = [...t.pods.values()]
      .filter((p) => isActivePod(p) && p.metadata.labels?.tier === 'a')
      .map((p) => p.metadata.name)
      .sort();

    const manifest: Deployment = deploymentManifest(ns, 'web', { replicas: 2 });
    manifest.spec.template = {
      metadata: { labels: { app: 'web', tier: 'a' } },
      spec: { containers: [{ name: 'web', image: 'nginx:1' }] },
    };
    const created = await c.client.create<Deployment>(DEPLOYMENTS, ns, manifest);
    const d = await waitComplete(c.client, ns, 'web', '1');
    await eventually(
      'the older orphan scaled to 0',
      async () => (await c.client.getReplicaSet(ns, 'web-older')).spec.replicas === 0,
    );
    t.stop();

    for (const name of ['web-current', 'web-older']) {
      const rs = await c.client.getReplicaSet(ns, name);
      expect(rs.metadata.ownerReferences, name).to.deep.equal([
        {
          apiVersion: 'pacer.dev/v1alpha1',
          kind: 'Deployment',
          name: 'web',
          uid: created.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
    expect(
      t.steps.filter((s) => s.resource === 'replicasets' && s.type === 'ADDED'),
      'no ReplicaSet created',
    ).to.deep.equal([]);
    const current = await c.client.getReplicaSet(ns, 'web-current');
    expect([current.spec.replicas, revisionOf(current), revisionOf(d)]).to.deep.equal([2, '1', '1']);
    const podsAfter = [...t.pods.values()]
      .filter((p) => isActivePod(p) && p.metadata.labels?.tier === 'a')
      .map((p) => p.metadata.name)
      .sort();
    expect(podsAfter, 'the adopted ReplicaSet keeps its pods').to.deep.equal(podsBefore);
    expect(controllerOf(current)?.uid).to.equal(d.metadata.uid);
  });

  // Upstream compares the Deployment's template (defaulted by the API server) with the
  // ReplicaSet's (defaulted too). A pacer.dev Deployment's template is not defaulted (a custom
  // resource), the orphan's is: the engine compares them with the pod defaults applied to both.
  it('adoption of an orphan written without the defaulted fields: it is the new ReplicaSet, no second one', async () => {
    const ns = 'adopt-plain';
    createNamespace(c.sim, ns);
    await c.client.create(REPLICASETS, ns, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web-current', namespace: ns, labels: { app: 'web' } },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: podTemplate('web', 'nginx:1') },
    });
    const t = await timelineFrom(ns);
    await c.client.create(DEPLOYMENTS, ns, deploymentManifest(ns, 'web', { replicas: 2 }));
    await waitComplete(c.client, ns, 'web', '1');
    t.stop();
    expect(
      t.steps.filter((s) => s.resource === 'replicasets' && s.type === 'ADDED'),
      'no ReplicaSet created',
    ).to.deep.equal([]);
  });
});
