// Sharding in the manager (src/manager/shards.ts, docs/sharding.md): two managers with four shards
// over one simulated API server (in this process, short Leases). They share the shards two and two;
// each key is reconciled by the holder of its namespace's shard and parked by the other; a pass
// writes only under its own shard's ticket; when one manager stops, the other takes its shards and
// reconciles the keys it had parked. Each caches only its shards' ReplicaSets (shardcache.ts), and
// a shard taken over runs its first pass only once its ReplicaSets are cached (the synced gate).

import { expect } from 'chai';
import { shardOf, fairShare } from '../../../src/engine/shards.ts';
import { CONFIGMAPS, KubeClient, REPLICASETS } from '../../../src/kube/client.ts';
import { loadKubeConfig } from '../../../src/kube/clientnode.ts';
import { register } from '../../../src/manager/controller.ts';
import type { InformerHandlers } from '../../../src/manager/informer.ts';
import { Manager } from '../../../src/manager/manager.ts';
import { shardContext } from '../../../src/manager/shards.ts';
import { silentLogger } from '../../../src/observe/logger.ts';
import { createMetrics } from '../../../src/observe/metrics.ts';
import type { ControllerMetrics } from '../../../src/observe/metrics.ts';
import { startSim } from '../../../src/sim/index.ts';
import type { SimCluster } from '../../../src/sim/index.ts';
import { REF } from '../../../src/sim/resources.ts';
import { eventually } from '../../integration/fixtures/cluster.ts';

const SHARDS = 4;
/** One namespace of each shard. */
const NAMESPACES = (() => {
  const found = new Map<number, string>();
  for (let i = 0; found.size < SHARDS; i++)
    if (!found.has(shardOf(`ns-${i}`, SHARDS))) found.set(shardOf(`ns-${i}`, SHARDS), `ns-${i}`);
  return [...found.entries()].sort((a, b) => a[0] - b[0]).map(([, ns]) => ns);
})();
const KEYS = NAMESPACES.map((ns) => `${ns}/probe`);

interface Replica {
  name: string;
  mgr: Manager;
  metrics: ControllerMetrics;
  passes: string[];
  /** key → how many ReplicaSets of its namespace this replica's cache held when its pass began. */
  replicaSetsSeen: Map<string, number>;
  /** The namespaces of the ReplicaSets in this replica's cache. */
  cachedNamespaces(): string[];
  /** Delivers a change of a watched object to this replica's controller. */
  deliver(key: string): void;
}

describe('manager/shards: two managers, four shards, one API server', function () {
  this.timeout(60_000);
  let sim: SimCluster;
  const replicas: Replica[] = [];

  before(async () => {
    sim = await startSim({ port: 0 });
    for (const ns of ['pacer-system', ...NAMESPACES])
      sim.store.create(REF.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    // One ReplicaSet (of no pods) in each shard's namespace: what a pass of that shard must see.
    for (const ns of NAMESPACES)
      sim.store.create(REF.replicasets, ns, {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'web', namespace: ns },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } },
        },
      } as never);
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.mgr.stop()));
    await sim?.stop();
  });

  function replica(name: string): Replica {
    let mgr: Manager | undefined;
    const client = new KubeClient(loadKubeConfig({ kubeconfigText: sim.kubeconfig }), {
      writeGate: () => mgr?.writeRefusal(),
    });
    const metrics = createMetrics();
    mgr = new Manager({
      client,
      logger: silentLogger(),
      metrics,
      leaderElection: {
        namespace: 'pacer-system',
        id: 'pacer-controller',
        identity: name,
        leaseDurationMs: 2000,
        renewDeadlineMs: 1500,
        retryPeriodMs: 200,
        client: new KubeClient(loadKubeConfig({ kubeconfigText: sim.kubeconfig })),
        sharding: {
          shards: SHARDS,
          assign: (ns) => shardOf(ns, SHARDS),
          share: (members) => fairShare(SHARDS, members),
        },
      },
    });
    const handlers: InformerHandlers<{ metadata: { name: string; namespace: string } }>[] = [];
    const passes: string[] = [];
    const replicaSetsSeen = new Map<string, number>();
    const replicaSets = mgr.informer<{ metadata: { name: string; namespace: string } }>(REPLICASETS);
    register(mgr, {
      name: 'probe',
      workers: 2,
      watches: [
        {
          wire: (enqueue) => handlers.push({ add: (o) => enqueue(`${o.metadata.namespace}/${o.metadata.name}`) }),
        },
      ],
      // Each pass writes a ConfigMap named after the replica in the key's namespace.
      reconcile: async (key) => {
        const ns = key.split('/')[0]!;
        if (!replicaSetsSeen.has(key)) replicaSetsSeen.set(key, replicaSets.list(ns).length);
        await client
          .create(CONFIGMAPS, ns, {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: `by-${name}`, namespace: ns },
          })
          .catch((err: { kind?: string }) => {
            if (err.kind !== 'AlreadyExists') throw err;
          });
        passes.push(key); // once its write is done
        return {};
      },
    });
    const r: Replica = {
      name,
      mgr,
      metrics,
      passes,
      replicaSetsSeen,
      cachedNamespaces: () => [...new Set(replicaSets.list().map((o) => o.metadata.namespace))].sort(),
      deliver: (key) => {
        const [namespace, n] = key.split('/') as [string, string];
        for (const h of handlers) h.add?.({ metadata: { name: n, namespace } });
      },
    };
    replicas.push(r);
    return r;
  }

  it('the shards spread two and two; each key is reconciled by its shard holder alone', async () => {
    const [a, b] = [replica('replica-a'), replica('replica-b')];
    a.mgr.start();
    b.mgr.start();
    await eventually(
      'two shards each',
      async () => a.mgr.shards!.held().length === 2 && b.mgr.shards!.held().length === 2,
      30_000,
    );
    expect([...a.mgr.shards!.held(), ...b.mgr.shards!.held()].sort()).to.deep.equal([0, 1, 2, 3]);
    // pacer_shard_held: 1 for each shard a replica holds, 0 for the others.
    for (const r of [a, b]) {
      const values = (await r.metrics.shardHeld.get()).values;
      const held = values.filter((v) => v.value === 1).map((v) => Number(v.labels.shard));
      expect(held.sort(), `${r.name}'s pacer_shard_held`).to.deep.equal(r.mgr.shards!.held());
      expect(values, `${r.name}: a series for each shard`).to.have.lengthOf(SHARDS);
    }
    for (const key of KEYS) {
      a.deliver(key);
      b.deliver(key);
    }
    await eventually('each key reconciled', async () => a.passes.length + b.passes.length === SHARDS, 10_000);
    for (const [i, key] of KEYS.entries()) {
      const holder = a.mgr.shards!.held().includes(i) ? a : b;
      const other = holder === a ? b : a;
      expect(holder.passes, `${key} by the holder of shard ${i}`).to.include(key);
      expect(other.passes, `${key} not by the other`).to.not.include(key);
      const names = sim.store.list(REF.configmaps, NAMESPACES[i]).items.map((o) => o.metadata.name);
      expect(names, `written in ${NAMESPACES[i]}`).to.deep.equal([`by-${holder.name}`]);
      expect(holder.replicaSetsSeen.get(key), `${key}: its pass saw its namespace's ReplicaSet`).to.equal(1);
    }
    // Each caches the ReplicaSets of its own shards' namespaces, not the other's.
    for (const r of [a, b])
      expect(r.cachedNamespaces(), `${r.name}'s ReplicaSet cache`).to.deep.equal(
        r.mgr
          .shards!.held()
          .map((s) => NAMESPACES[s])
          .sort(),
      );
  });

  it('the write gate: a ticket of a shard held passes, of a shard not held or no ticket at all is refused', () => {
    const a = replicas[0]!;
    const held = a.mgr.shards!.held()[0]!;
    const notHeld = [0, 1, 2, 3].find((s) => !a.mgr.shards!.held().includes(s))!;
    const ticket = a.mgr.shards!.enter(held)!;
    try {
      expect(shardContext.run(ticket, () => a.mgr.writeRefusal())).to.equal(undefined);
      expect(shardContext.run({ shard: notHeld, epoch: ticket.epoch }, () => a.mgr.writeRefusal())).to.equal(
        `this replica no longer holds shard ${notHeld} (lease pacer-system/pacer-controller-shard-${notHeld})`,
      );
      expect(shardContext.run({ shard: held, epoch: ticket.epoch + 100 }, () => a.mgr.writeRefusal())).to.match(
        /no longer holds shard/,
      );
      expect(a.mgr.writeRefusal()).to.match(/^a write outside the reconcile of an object/);
    } finally {
      a.mgr.shards!.leave(ticket);
    }
    expect(a.mgr.shards!.enter(notHeld), 'no ticket for a shard not held').to.equal(undefined);
  });

  it("shard 0's holder caches every namespace while a pass asks for it (the node roller), then its own again", async () => {
    const holder = replicas.find((r) => r.mgr.shards!.held().includes(0))!;
    const own = holder.mgr
      .shards!.held()
      .map((s) => NAMESPACES[s])
      .sort();
    expect(own, 'not every shard').to.have.length.below(SHARDS);
    await holder.mgr.cacheEveryNamespace();
    expect(holder.cachedNamespaces(), 'every namespace, once the promise resolves').to.deep.equal(
      [...NAMESPACES].sort(),
    );
    expect(holder.mgr.cachesNamespace(NAMESPACES[SHARDS - 1])).to.equal(true);
    holder.mgr.uncacheEveryNamespace();
    await eventually('its own namespaces again', async () => holder.cachedNamespaces().join() === own.join(), 10_000);
  });

  it('one manager stops: the other takes its shards and reconciles the keys it had parked', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const aShards = a.mgr.shards!.held();
    await a.mgr.stop();
    await eventually('b holding every shard', async () => b.mgr.shards!.held().length === SHARDS, 30_000);
    await eventually("a's keys reconciled by b", async () => aShards.every((s) => b.passes.includes(KEYS[s]!)), 10_000);
    // The gate: b's first pass of each shard it took saw that shard's ReplicaSet, listed after it took it.
    for (const s of aShards) expect(b.replicaSetsSeen.get(KEYS[s]!), `b's first pass of ${KEYS[s]}`).to.equal(1);
    expect(b.cachedNamespaces(), "b caches every shard's ReplicaSets now").to.deep.equal([...NAMESPACES].sort());
    for (const s of aShards) {
      const names = sim.store
        .list(REF.configmaps, NAMESPACES[s])
        .items.map((o) => o.metadata.name)
        .sort();
      expect(names, `${NAMESPACES[s]}: a wrote while it held the shard, b after`).to.deep.equal([
        'by-replica-a',
        'by-replica-b',
      ]);
    }
    const leases = sim.store.list(REF.leases, 'pacer-system').items.map((o) => o.metadata.name);
    expect(
      leases.filter((n) => n?.includes('-member-')),
      "a's member Lease deleted on its stop",
    ).to.have.lengthOf(1);
  });
});
