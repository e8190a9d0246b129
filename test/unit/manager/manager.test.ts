// The manager (src/manager/manager.ts): one shared informer per resource type; runnables that need
// leader election run only on the leader, the others everywhere; the order of a graceful stop; the
// write gate; a lost Lease stops the leader-only work and ends the manager with LeaderElectionLost.
// Leader election runs on a manual clock against an in-memory Lease.

import { expect } from 'chai';
import type { ReplicaSet } from '../../../src/api/types.ts';
import { DEPLOYMENTS, KubeClient, PODS, REPLICASETS } from '../../../src/kube/client.ts';
import { loadKubeConfig } from '../../../src/kube/clientnode.ts';
import { ManualClock, settle } from '../../../src/kube/clock.ts';
import { LeaderElectionLost, Manager } from '../../../src/manager/manager.ts';
import type { Runnable } from '../../../src/manager/manager.ts';
import { silentLogger } from '../../../src/observe/logger.ts';
import { startSim } from '../../../src/sim/index.ts';
import { REF } from '../../../src/sim/resources.ts';
import { eventually } from '../../integration/fixtures/cluster.ts';
import { MemoryLease } from './memorylease.ts';

/** A runnable that logs when it starts and when it has stopped. */
function runnable(name: string, needLeaderElection: boolean, log: string[]): Runnable {
  return {
    name,
    needLeaderElection,
    start: (signal) =>
      new Promise<void>((resolve) => {
        log.push(`start ${name}`);
        signal.addEventListener(
          'abort',
          () => {
            log.push(`stop ${name}`);
            resolve();
          },
          { once: true },
        );
      }),
  };
}

const noClient = {} as KubeClient; // informers are not started in these tests unless asked for

describe('manager/manager', () => {
  it('hands out one informer per resource type, shared by every caller', () => {
    const mgr = new Manager({ client: noClient, logger: silentLogger() });
    expect(mgr.informer(DEPLOYMENTS)).to.equal(mgr.informer(DEPLOYMENTS));
    expect(mgr.informer(PODS)).to.not.equal(mgr.informer(DEPLOYMENTS));
    expect(mgr.informer(PODS).name).to.equal('pods');
  });

  it("keeps an object's new version beside the cached one: a write that left a ReplicaSet's spec as it was leaves the cached spec the same object", async () => {
    const sim = await startSim({ port: 0 });
    const mgr = new Manager({
      client: new KubeClient(loadKubeConfig({ kubeconfigText: sim.kubeconfig })),
      logger: silentLogger(),
    });
    try {
      sim.store.create(REF.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
      sim.store.create(REF.replicasets, 'shop', {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'web', namespace: 'shop' },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } },
        },
      } as never);
      const replicaSets = mgr.informer<ReplicaSet>(REPLICASETS);
      mgr.start();
      await replicaSets.waitForSync();
      const before = replicaSets.get('shop/web')!;
      sim.store.patch(REF.replicasets, 'shop', 'web', 'merge', { metadata: { annotations: { touched: 'yes' } } });
      const after = await eventually('the status write in the cache', () => {
        const rs = replicaSets.get('shop/web')!;
        return rs.metadata.resourceVersion !== before.metadata.resourceVersion && rs;
      });
      expect(after.metadata.annotations).to.deep.equal({ touched: 'yes' });
      expect(after.spec).to.equal(before.spec);
      expect(after.metadata.name).to.equal(before.metadata.name);
    } finally {
      await mgr.stop();
      await sim.stop();
    }
  });

  it('without leader election: every runnable starts; a stop ends the leader-only ones first; writes pass the gate', async () => {
    const log: string[] = [];
    const mgr = new Manager({ client: noClient, logger: silentLogger() });
    mgr.add(runnable('reconciler', true, log));
    mgr.add(runnable('server', false, log));
    mgr.start();
    await settle();
    expect(log).to.deep.equal(['start server', 'start reconciler']);
    expect(mgr.isLeader()).to.equal(true);
    expect(mgr.writeRefusal()).to.equal(undefined);
    expect(() => mgr.add(runnable('late', false, log))).to.throw('runnable late added after the manager started');
    expect(() => mgr.informer(PODS)).to.throw('informer for pods requested after the manager started');
    await mgr.stop();
    await mgr.done;
    expect(log).to.deep.equal(['start server', 'start reconciler', 'stop reconciler', 'stop server']);
  });

  it('a graceful stop lets in-flight passes write: the gate shuts only after the leader-only runnables ended', async () => {
    const mgr = new Manager({ client: noClient, logger: silentLogger() });
    const seen: Array<string | undefined> = [];
    mgr.add({
      name: 'reconciler',
      needLeaderElection: true,
      start: (signal) =>
        new Promise<void>((resolve) => {
          signal.addEventListener(
            'abort',
            () => {
              seen.push(mgr.writeRefusal()); // the pass still running when the stop came
              setImmediate(() => {
                seen.push(mgr.writeRefusal());
                resolve();
              });
            },
            { once: true },
          );
        }),
    });
    mgr.start();
    await settle();
    await mgr.stop();
    expect(seen, 'writes allowed until the runnable ended').to.deep.equal([undefined, undefined]);
    expect(mgr.writeRefusal()).to.equal('this replica is not the leader');
  });

  describe('with leader election (manual clock, in-memory Lease)', () => {
    const leaseOpts = (mem: MemoryLease, who: string) => ({
      namespace: 'pacer-system',
      id: 'pacer-controller',
      identity: who,
      store: mem.store(who),
    });

    it('only the leader runs its reconciler and may write; the standby takes over when the leader stops', async () => {
      const clock = new ManualClock();
      const mem = new MemoryLease();
      const logA: string[] = [];
      const logB: string[] = [];
      const a = new Manager({ client: noClient, logger: silentLogger(), clock, leaderElection: leaseOpts(mem, 'a') });
      a.add(runnable('reconciler', true, logA));
      a.start();
      await clock.advance(0);
      const b = new Manager({ client: noClient, logger: silentLogger(), clock, leaderElection: leaseOpts(mem, 'b') });
      b.add(runnable('reconciler', true, logB));
      b.add(runnable('server', false, logB));
      b.start();
      await clock.advance(10_000);
      expect(logA).to.deep.equal(['start reconciler']);
      expect(logB, 'the standby runs its server only').to.deep.equal(['start server']);
      expect([a.isLeader(), b.isLeader()]).to.deep.equal([true, false]);
      expect(b.writeRefusal()).to.equal('this replica is not the leader');

      const stopped = a.stop();
      await clock.advance(0);
      await stopped;
      expect(logA).to.deep.equal(['start reconciler', 'stop reconciler']);
      expect(mem.lease?.spec?.holderIdentity, 'released').to.equal('');
      await clock.advance(4_400); // the standby's next try: at most 2.2 retry periods
      expect(logB).to.deep.equal(['start server', 'start reconciler']);
      expect(b.isLeader()).to.equal(true);
      const bStopped = b.stop();
      await clock.advance(0);
      await bStopped;
      await b.done;
    });

    it('a leader that cannot renew stops its reconciler, shuts the write gate and ends with LeaderElectionLost', async () => {
      const clock = new ManualClock();
      const mem = new MemoryLease();
      const log: string[] = [];
      const a = new Manager({ client: noClient, logger: silentLogger(), clock, leaderElection: leaseOpts(mem, 'a') });
      a.add(runnable('reconciler', true, log));
      a.add(runnable('server', false, log));
      a.start();
      await clock.advance(0);
      expect(log).to.deep.equal(['start server', 'start reconciler']);
      let ended: unknown;
      a.done.catch((err: unknown) => {
        ended = err;
      });
      mem.down.add('a');
      await clock.advance(11_000); // renewals fail from 2 s on; the deadline is 2 + 10 s
      expect(a.isLeader()).to.equal(true);
      await clock.advance(1_000);
      expect(a.isLeader()).to.equal(false);
      expect(a.writeRefusal()).to.equal('this replica lost the leader election lease pacer-controller');
      await clock.advance(1_000);
      expect(log).to.deep.equal(['start server', 'start reconciler', 'stop reconciler', 'stop server']);
      expect(ended).to.be.instanceOf(LeaderElectionLost);
      expect((ended as Error).message).to.equal('leader election lost (lease pacer-system/pacer-controller)');
    });
  });
});
