import { expect } from 'chai';
import { kubeletStatus, stopDelayMs, type KubeletBehaviour } from '../../../../src/sim/control/kubelet.ts';
import { setNodeNotReady } from '../../../../src/sim/control/nodes.ts';
import { REF } from '../../../../src/sim/resources.ts';
import type { KubeObject } from '../../../../src/sim/types.ts';
import { at, isReady, podsOf, replicaSet, startCluster, statusOf, waitFor, type Cluster } from './helpers.ts';

describe('sim/control kubelet: status over time', () => {
  const fresh: KubeObject = {
    metadata: { name: 'web-abcde', namespace: 'default', uid: 'u-1' },
    spec: {
      nodeName: 'node-1',
      containers: [
        { name: 'app', image: 'nginx:1.27' },
        { name: 'side', image: 'envoy' },
      ],
    },
    status: { phase: 'Pending' },
  };
  const normal: KubeletBehaviour = { startDelayMs: 200, readyAfterMs: 300, neverReady: false, crashLoop: false };
  const timeline = { boundAt: at(0), podIP: '10.244.0.7' };
  const cond = (st: Record<string, any>, type: string) => st.conditions.find((c: { type: string }) => c.type === type);
  const rows: Array<{
    name: string;
    b: KubeletBehaviour;
    t: number;
    phase: string;
    ready: string;
    state: string;
    restarts: number;
    next?: number;
  }> = [
    {
      name: 'bound, not started: ContainerCreating',
      b: normal,
      t: at(0.1),
      phase: 'Pending',
      ready: 'False',
      state: 'waiting',
      restarts: 0,
      next: at(0.2),
    },
    {
      name: 'started, not ready yet',
      b: normal,
      t: at(0.3),
      phase: 'Running',
      ready: 'False',
      state: 'running',
      restarts: 0,
      next: at(0.5),
    },
    {
      name: 'ready after the ready delay',
      b: normal,
      t: at(0.5),
      phase: 'Running',
      ready: 'True',
      state: 'running',
      restarts: 0,
    },
    {
      name: 'never-ready runs forever unready',
      b: { ...normal, neverReady: true },
      t: at(60),
      phase: 'Running',
      ready: 'False',
      state: 'running',
      restarts: 0,
    },
    {
      name: 'crash-loop: three restarts after 3.5 s',
      b: { ...normal, crashLoop: true },
      t: at(3.7),
      phase: 'Running',
      ready: 'False',
      state: 'waiting',
      restarts: 3,
      next: at(4.2),
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const { status, nextAt } = kubeletStatus(fresh, timeline, row.b, '10.0.0.3', row.t);
      expect(status.phase).to.equal(row.phase);
      expect(cond(status, 'Ready').status).to.equal(row.ready);
      expect(cond(status, 'ContainersReady').status).to.equal(row.ready);
      expect(cond(status, 'PodScheduled').status).to.equal('True');
      const cs = status.containerStatuses as Array<Record<string, any>>;
      expect(cs.map((c) => c.name)).to.deep.equal(['app', 'side']);
      expect(Object.keys(cs[0].state)).to.deep.equal([row.state]);
      expect(cs[0].restartCount).to.equal(row.restarts);
      expect(nextAt).to.equal(row.next);
      expect(status).to.include({ podIP: '10.244.0.7', hostIP: '10.0.0.3', startTime: '2026-01-01T00:00:00Z' });
      if (row.ready === 'False')
        expect(cond(status, 'Ready')).to.include({
          reason: 'ContainersNotReady',
          message: 'containers with unready status: [app side]',
        });
    });
  }

  describe("a deleted pod stops after its containers' own stop time, or when its grace period ends, whichever is first", () => {
    const rows: Array<[string, Record<string, string> | undefined, number | undefined, number]> = [
      ['no annotation: quick (100 ms), within a 30 s grace period', undefined, 30, 100],
      ['stop-after-ms 800 within a 30 s grace period: 800 ms', { 'sim.pacer.dev/stop-after-ms': '800' }, 30, 800],
      ['stop-after-ms 5000 with a 1 s grace period: killed at 1 s', { 'sim.pacer.dev/stop-after-ms': '5000' }, 1, 1000],
      ['a force delete (grace 0): at once', { 'sim.pacer.dev/stop-after-ms': '5000' }, 0, 0],
    ];
    for (const [what, annotations, grace, ms] of rows) {
      it(what, () => {
        expect(
          stopDelayMs({
            metadata: {
              name: 'p',
              ...(annotations ? { annotations } : {}),
              ...(grace !== undefined ? { deletionGracePeriodSeconds: grace } : {}),
            },
          }),
        ).to.equal(ms);
      });
    }
  });

  it('keeps lastTransitionTime while a condition holds', () => {
    const first = kubeletStatus(fresh, timeline, normal, '10.0.0.3', at(0.6)).status;
    const later = kubeletStatus({ ...fresh, status: first }, timeline, normal, '10.0.0.3', at(30)).status;
    expect(cond(later, 'Ready').lastTransitionTime).to.equal(cond(first, 'Ready').lastTransitionTime);
  });
});

describe('sim/control kubelet and nodes: behaviour', () => {
  let c: Cluster;
  afterEach(() => c?.stop());

  it('finalizes a deleted pod promptly', async () => {
    c = startCluster();
    c.store.create(REF.replicasets, 'default', replicaSet('web', 1));
    const p = await waitFor('ready pod', () => podsOf(c.store, 'app=web').find(isReady));
    const pending = c.store.delete(REF.pods, 'default', p.metadata.name!);
    expect(pending.metadata.deletionTimestamp).to.be.a('string');
    await waitFor('pod gone', () => !c.store.get(REF.pods, 'default', p.metadata.name!));
  });

  it('a NotReady node makes its pods unready, and Ready again restores them', async () => {
    c = startCluster({ nodes: 1 });
    c.store.create(REF.replicasets, 'default', replicaSet('web', 2));
    await waitFor('2 ready', () => podsOf(c.store, 'app=web').filter(isReady).length === 2);
    setNodeNotReady(c.store, 'node-1', true);
    await waitFor('0 ready', () => podsOf(c.store, 'app=web').filter(isReady).length === 0);
    const node = c.store.get(REF.nodes, undefined, 'node-1')!;
    expect(statusOf(node).conditions.find((x: any) => x.type === 'Ready')).to.include({
      status: 'Unknown',
      reason: 'NodeStatusUnknown',
    });
    await waitFor('rs ready 0', () => statusOf(c.store.get(REF.replicasets, 'default', 'web')).readyReplicas === 0);
    setNodeNotReady(c.store, 'node-1', false);
    await waitFor('2 ready again', () => podsOf(c.store, 'app=web').filter(isReady).length === 2);
  });

  it('pods of a deleted node are deleted and replaced elsewhere', async () => {
    c = startCluster({ nodes: 2, zones: ['a', 'b'] });
    c.store.create(REF.replicasets, 'default', replicaSet('web', 2));
    await waitFor('2 ready', () => podsOf(c.store, 'app=web').filter(isReady).length === 2);
    const onNode1 = podsOf(c.store, 'app=web')
      .filter((p) => (p.spec as any).nodeName === 'node-1')
      .map((p) => p.metadata.name);
    expect(onNode1).to.have.length(1);
    c.store.delete(REF.nodes, undefined, 'node-1');
    await waitFor('2 ready on node-2', () => {
      const pods = podsOf(c.store, 'app=web');
      return pods.length === 2 && pods.every((p) => (p.spec as any).nodeName === 'node-2' && isReady(p));
    });
    expect(c.store.get(REF.pods, 'default', onNode1[0]!)).to.equal(undefined);
  });
});
