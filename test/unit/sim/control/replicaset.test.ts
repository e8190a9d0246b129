import { expect } from 'chai';
import { compareForDeletion, podsToDelete, replicaSetStatus } from '../../../../src/sim/control/replicaset.ts';
import { cordon } from '../../../../src/sim/control/nodes.ts';
import { isPodAvailable } from '../../../../src/sim/control/util.ts';
import { REF } from '../../../../src/sim/resources.ts';
import type { KubeObject } from '../../../../src/sim/types.ts';
import { ManualClock } from '../../../../src/kube/clock.ts';
import {
  at,
  isReady,
  pod,
  podsOf,
  replicaSet,
  runFor,
  startCluster,
  statusOf,
  waitFor,
  type Cluster,
} from './helpers.ts';

describe('sim/control replicaset: deletion order', () => {
  const now = at(100_000);
  // Each row: the pod upstream deletes first, then the other one.
  const rows: Array<{ rule: string; first: KubeObject; second: KubeObject; ranks?: [number, number] }> = [
    {
      rule: 'unscheduled before scheduled',
      first: pod('a', { phase: 'Pending' }),
      second: pod('b', { node: 'n1', phase: 'Pending' }),
    },
    {
      rule: 'Pending before Running',
      first: pod('a', { node: 'n1', phase: 'Pending' }),
      second: pod('b', { node: 'n1', ready: true }),
    },
    {
      rule: 'Unknown before Running',
      first: pod('a', { node: 'n1', phase: 'Unknown' }),
      second: pod('b', { node: 'n1', phase: 'Running' }),
    },
    {
      rule: 'not ready before ready',
      first: pod('a', { node: 'n1', ready: false }),
      second: pod('b', { node: 'n1', ready: true }),
    },
    {
      rule: 'lower pod-deletion-cost first',
      first: pod('a', { node: 'n1', ready: true, cost: -5 }),
      second: pod('b', { node: 'n1', ready: true, cost: 10 }),
    },
    {
      rule: 'cost beats readiness time',
      first: pod('a', { node: 'n1', ready: true, cost: 0, readySince: at(0) }),
      second: pod('b', { node: 'n1', ready: true, cost: 1, readySince: at(99_000) }),
    },
    {
      rule: 'doubled up on a node first',
      first: pod('a', { node: 'n1', ready: true }),
      second: pod('b', { node: 'n2', ready: true }),
      ranks: [3, 1],
    },
    {
      rule: 'ready for less time first',
      first: pod('a', { node: 'n1', ready: true, readySince: at(99_990) }),
      second: pod('b', { node: 'n1', ready: true, readySince: at(1_000) }),
    },
    {
      rule: 'more restarts first',
      first: pod('a', { node: 'n1', ready: false, restarts: 7 }),
      second: pod('b', { node: 'n1', ready: false, restarts: 1 }),
    },
    {
      rule: 'newer first',
      first: pod('a', { node: 'n1', ready: false, created: at(99_900) }),
      second: pod('b', { node: 'n1', ready: false, created: at(10) }),
    },
  ];
  for (const row of rows) {
    it(row.rule, () => {
      const [ra, rb] = row.ranks ?? [1, 1];
      const a = { pod: row.first, rank: ra };
      const b = { pod: row.second, rank: rb };
      expect(compareForDeletion(a, b, now)).to.be.lessThan(0);
      expect(compareForDeletion(b, a, now)).to.be.greaterThan(0);
    });
  }

  it('ages within one power of two tie and fall back to uid order', () => {
    const a = { pod: pod('a', { node: 'n1', ready: false, created: at(99_000), uid: 'b-uid' }), rank: 1 };
    const b = { pod: pod('b', { node: 'n1', ready: false, created: at(99_001), uid: 'a-uid' }), rank: 1 };
    // 1000 s and 999 s old fall in the same log2 bucket: uid "a-uid" (pod b) goes first.
    expect(compareForDeletion(b, a, now)).to.be.lessThan(0);
  });

  it('availability is no rank: Ready 3.5 s (available at minReadySeconds 3) and 2.5 s (not yet) tie within [2^31, 2^32) ns and the uid decides', () => {
    // The ReplicaSet of test/e2e/analysis.test.ts when Pacer's abort scaled it from 4 to 3 by its
    // one unavailable pod (a recorded run): upstream's Less ranks Ready pods by how long they have
    // been Ready, never by minReadySeconds, so the available pod with the lower uid goes first.
    const now = at(22.5);
    const four = (uids: [string, string]) => [
      pod('s5b62', { node: 'node-1', ready: true, readySince: at(16), uid: '8b75032e' }),
      pod('8fl54', { node: 'node-1', ready: true, readySince: at(17), uid: '8e8d0098' }),
      pod('vvfsk', { node: 'node-1', ready: true, readySince: at(19), uid: uids[0] }),
      pod('wsdkf', { node: 'node-1', ready: true, readySince: at(20), uid: uids[1] }),
    ];
    const pods = four(['652e23ec', '84a776a8']);
    expect(pods.map((p) => isPodAvailable(p, 3, now))).to.deep.equal([true, true, true, false]);
    expect(podsToDelete(pods, pods, 1, now).map((p) => p.metadata.name)).to.deep.equal(['vvfsk']);
    // The same pods with the uids the other way round: the one not yet available goes.
    const swapped = four(['84a776a8', '652e23ec']);
    expect(podsToDelete(swapped, swapped, 1, now).map((p) => p.metadata.name)).to.deep.equal(['wsdkf']);
  });

  it('podsToDelete ranks by related pods on the same node', () => {
    const pods = [
      pod('lonely', { node: 'n1', ready: true, readySince: at(10) }),
      pod('crowded', { node: 'n2', ready: true, readySince: at(10) }),
      pod('pending', { phase: 'Pending' }),
    ];
    const related = [
      ...pods,
      pod('sibling1', { node: 'n2', ready: true }),
      pod('sibling2', { node: 'n2', ready: true }),
    ];
    expect(podsToDelete(pods, related, 2, now).map((p) => p.metadata.name)).to.deep.equal(['pending', 'crowded']);
    expect(podsToDelete(pods, related, 5, now)).to.have.length(3);
  });
});

describe('sim/control replicaset: status', () => {
  const rs = (minReadySeconds = 0): KubeObject => ({
    metadata: { name: 'web', namespace: 'default', generation: 4 },
    spec: {
      replicas: 3,
      minReadySeconds,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web', tier: 'front' } } },
    },
  });
  const full = { app: 'web', tier: 'front' };
  const rows: Array<{
    name: string;
    minReady: number;
    pods: KubeObject[];
    terminating?: number;
    want: Record<string, number>;
    recheck?: number;
  }> = [
    {
      name: 'three ready pods, no minReadySeconds',
      minReady: 0,
      pods: [1, 2, 3].map((i) => pod(`p${i}`, { ready: true, labels: full })),
      want: {
        replicas: 3,
        fullyLabeledReplicas: 3,
        readyReplicas: 3,
        availableReplicas: 3,
        terminatingReplicas: 0,
        observedGeneration: 4,
      },
    },
    {
      name: 'minReadySeconds 10: only the pod ready for 20 s is available',
      minReady: 10,
      pods: [
        pod('old', { ready: true, readySince: at(80), labels: full }),
        pod('new', { ready: true, readySince: at(95), labels: full }),
        pod('starting', { ready: false, labels: full }),
      ],
      want: {
        replicas: 3,
        fullyLabeledReplicas: 3,
        readyReplicas: 2,
        availableReplicas: 1,
        terminatingReplicas: 0,
        observedGeneration: 4,
      },
      recheck: at(105) + 1,
    },
    {
      name: 'exactly minReadySeconds is not yet available (strictly before now)',
      minReady: 10,
      pods: [pod('edge', { ready: true, readySince: at(90), labels: full })],
      want: {
        replicas: 1,
        fullyLabeledReplicas: 1,
        readyReplicas: 1,
        availableReplicas: 0,
        terminatingReplicas: 0,
        observedGeneration: 4,
      },
      recheck: at(100) + 1,
    },
    {
      name: 'a pod without every template label is not fully labeled',
      minReady: 0,
      pods: [pod('adopted', { ready: true, labels: { app: 'web' } }), pod('own', { ready: true, labels: full })],
      want: {
        replicas: 2,
        fullyLabeledReplicas: 1,
        readyReplicas: 2,
        availableReplicas: 2,
        terminatingReplicas: 0,
        observedGeneration: 4,
      },
    },
    {
      name: 'scaled to 0 with two pods still terminating: replicas 0, terminatingReplicas 2',
      minReady: 0,
      pods: [],
      terminating: 2,
      want: {
        replicas: 0,
        fullyLabeledReplicas: 0,
        readyReplicas: 0,
        availableReplicas: 0,
        terminatingReplicas: 2,
        observedGeneration: 4,
      },
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const r = replicaSetStatus(rs(row.minReady), row.pods, at(100), undefined, row.terminating);
      expect(r.status).to.deep.equal(row.want);
      expect(r.recheckAt).to.equal(row.recheck);
    });
  }

  it('adds ReplicaFailure on a failed create and removes it after a clean sync', () => {
    const failed = replicaSetStatus(rs(), [], at(100), {
      reason: 'FailedCreate',
      message: 'pods "web-x" is forbidden: quota',
    });
    const cond = (failed.status.conditions as Array<Record<string, unknown>>)[0];
    expect(cond).to.include({
      type: 'ReplicaFailure',
      status: 'True',
      reason: 'FailedCreate',
      message: 'pods "web-x" is forbidden: quota',
    });
    const again = replicaSetStatus({ ...rs(), status: failed.status }, [], at(101));
    expect(again.status.conditions).to.equal(undefined);
  });
});

describe('sim/control replicaset: behaviour', () => {
  let c: Cluster;
  afterEach(() => c?.stop());
  const rsStatus = () => statusOf(c.store.get(REF.replicasets, 'default', 'web'));

  it('a ReplicaSet of 3 gets 3 ready pods spread over the zones and status 3/3/3', async () => {
    c = startCluster();
    c.store.create(REF.replicasets, 'default', replicaSet('web', 3));
    await waitFor('3/3/3', () => rsStatus().availableReplicas === 3);
    const st = rsStatus();
    expect(st).to.include({
      replicas: 3,
      fullyLabeledReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      observedGeneration: 1,
    });
    const pods = podsOf(c.store, 'app=web');
    const rs = c.store.get(REF.replicasets, 'default', 'web')!;
    for (const p of pods) {
      expect(p.metadata.name).to.match(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      expect(p.metadata.generateName).to.equal('web-');
      expect(p.metadata.ownerReferences).to.deep.equal([
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web',
          uid: rs.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect(isReady(p)).to.equal(true);
    }
    expect(new Set(pods.map((p) => (p.spec as { nodeName: string }).nodeName)).size).to.equal(3);
    // kubectl describe rs shows the controller's events.
    const events = c.store.list(REF.events, 'default').items as Array<Record<string, any>>;
    const created = events
      .filter((e) => e.reason === 'SuccessfulCreate' && e.involvedObject.uid === rs.metadata.uid)
      .map((e) => e.message)
      .sort();
    expect(created).to.deep.equal(pods.map((p) => `Created pod: ${p.metadata.name}`).sort());
    const scheduled = events.filter((e) => e.reason === 'Scheduled').map((e) => e.message as string);
    expect(scheduled).to.have.length(3);
    expect(scheduled[0]).to.match(/^Successfully assigned default\/web-[a-z0-9]{5} to node-[123]$/);
    expect(events[0]).to.deep.include({ type: 'Normal', count: 1, source: { component: events[0].source.component } });
  });

  it('scaling down deletes the unscheduled pods first, then one ready pod', async () => {
    c = startCluster();
    c.store.create(REF.replicasets, 'default', replicaSet('web', 3));
    await waitFor('3 available', () => rsStatus().availableReplicas === 3);
    const original = podsOf(c.store, 'app=web').map((p) => p.metadata.name);
    for (const n of ['node-1', 'node-2', 'node-3']) cordon(c.store, n);
    c.store.patch(REF.replicasets, 'default', 'web', 'merge', { spec: { replicas: 5 } });
    await waitFor('2 pending', () => podsOf(c.store, 'app=web').filter((p) => !(p.spec as any).nodeName).length === 2);
    c.store.patch(REF.replicasets, 'default', 'web', 'merge', { spec: { replicas: 2 } });
    await waitFor('2 pods left', () => podsOf(c.store, 'app=web').length === 2 && rsStatus().replicas === 2);
    const left = podsOf(c.store, 'app=web');
    expect(left.every((p) => original.includes(p.metadata.name))).to.equal(true);
    expect(left.every(isReady)).to.equal(true);
    expect(rsStatus()).to.include({ replicas: 2, readyReplicas: 2, observedGeneration: 3 });
  });

  it('never-ready pods run but never become ready (manual clock: ten minutes)', async () => {
    const clock = new ManualClock();
    c = startCluster({}, clock);
    c.store.create(
      REF.replicasets,
      'default',
      replicaSet('web', 2, { annotations: { 'sim.pacer.dev/never-ready': 'true' } }),
    );
    await runFor(c, clock, 100); // start 5 ms, ready 5 ms for a normal pod
    expect(podsOf(c.store, 'app=web').filter((p) => statusOf(p).phase === 'Running')).to.have.length(2);
    await runFor(c, clock, 10 * 60_000, 1000);
    const pods = podsOf(c.store, 'app=web');
    expect(pods.some(isReady)).to.equal(false);
    expect(statusOf(pods[0]).containerStatuses[0]).to.include({ ready: false, started: true });
    expect(rsStatus()).to.include({ replicas: 2, readyReplicas: 0, availableReplicas: 0 });
  });

  it('crash-looping pods keep restarting, once a second, and wait in CrashLoopBackOff (manual clock)', async () => {
    const clock = new ManualClock();
    c = startCluster({}, clock);
    c.store.create(
      REF.replicasets,
      'default',
      replicaSet('web', 1, { annotations: { 'sim.pacer.dev/crash-loop': 'true' } }),
    );
    const restarts = () => statusOf(podsOf(c.store, 'app=web')[0]).containerStatuses?.[0]?.restartCount;
    await runFor(c, clock, 900);
    expect(restarts(), 'started, not restarted yet').to.equal(0);
    await runFor(c, clock, 1200); // 2.1 s
    expect(restarts()).to.equal(2);
    await runFor(c, clock, 1000); // 3.1 s
    expect(restarts()).to.equal(3);
    const p = podsOf(c.store, 'app=web')[0];
    const cs = statusOf(p).containerStatuses[0];
    expect(cs.state.waiting.reason).to.equal('CrashLoopBackOff');
    expect(cs.lastState.terminated).to.include({ exitCode: 1, reason: 'Error' });
    expect(isReady(p)).to.equal(false);
    expect(statusOf(p).phase).to.equal('Running');
  });

  it('availableReplicas waits for minReadySeconds (manual clock)', async () => {
    const clock = new ManualClock();
    c = startCluster({}, clock);
    c.store.create(REF.replicasets, 'default', replicaSet('web', 2, { minReadySeconds: 2 }));
    await runFor(c, clock, 100); // ready after 5 + 5 ms
    expect(rsStatus()).to.include({ readyReplicas: 2, availableReplicas: 0 });
    await runFor(c, clock, 1800); // 1.9 s
    expect(rsStatus().availableReplicas, 'ready for less than 2 s').to.equal(0);
    await runFor(c, clock, 300); // 2.2 s
    expect(rsStatus().availableReplicas, 'ready for 2 s').to.equal(2);
  });

  it('a failed pod is replaced', async () => {
    c = startCluster();
    c.store.create(REF.replicasets, 'default', replicaSet('web', 2));
    await waitFor('2 available', () => rsStatus().availableReplicas === 2);
    const victim = podsOf(c.store, 'app=web')[0];
    c.store.mutate(
      REF.pods,
      'default',
      victim.metadata.name!,
      (p) => ({ ...p, status: { ...statusOf(p), phase: 'Failed' } }),
      { subresource: 'status' },
    );
    await waitFor(
      'a replacement',
      () => podsOf(c.store, 'app=web').filter((p) => statusOf(p).phase !== 'Failed' && isReady(p)).length === 2,
    );
    expect(podsOf(c.store, 'app=web')).to.have.length(3);
    expect(rsStatus().replicas).to.equal(2);
  });

  it('adopts a matching orphan pod instead of creating one', async () => {
    c = startCluster();
    c.store.create(REF.pods, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'stray', labels: { app: 'web' } },
      spec: { containers: [{ name: 'app', image: 'nginx' }] },
    });
    c.store.create(REF.replicasets, 'default', replicaSet('web', 1));
    await waitFor('1 available', () => rsStatus().availableReplicas === 1);
    const pods = podsOf(c.store, 'app=web');
    expect(pods.map((p) => p.metadata.name)).to.deep.equal(['stray']);
    expect(pods[0].metadata.ownerReferences?.[0]).to.include({ kind: 'ReplicaSet', name: 'web', controller: true });
  });

  it('a per-pod start delay holds that pod in ContainerCreating', async () => {
    c = startCluster();
    c.store.create(
      REF.replicasets,
      'default',
      replicaSet('slow', 1, { annotations: { 'sim.pacer.dev/start-delay-ms': '600000' } }),
    );
    c.store.create(REF.replicasets, 'default', replicaSet('web', 1));
    await waitFor('web available', () => rsStatus().availableReplicas === 1);
    const slow = await waitFor('slow bound', () =>
      podsOf(c.store, 'app=slow').find((p) => statusOf(p).containerStatuses),
    );
    expect(statusOf(slow).phase).to.equal('Pending');
    expect(statusOf(slow).containerStatuses[0].state).to.deep.equal({ waiting: { reason: 'ContainerCreating' } });
  });
});
