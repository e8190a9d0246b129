// Sharding past one leader (docs/sharding.md): three `pacer controller --shards 3` processes over
// one simulated cluster, 30 Deployments in 6 namespaces (two of each shard). The shards spread one
// a replica; a fleet-wide image change; the holder of one shard is SIGKILLed mid-roll; a survivor
// takes that shard once its Leases expire and every rollout converges. Each replica has its own
// token, so the sim's audit log tells their writes apart, and the last test checks from it that
// every namespace was written by one replica at a time: each shard's writers form unbroken
// periods, one after the other, as the leader election test proves for the single Lease.
//
// Short Leases (3 s, renewed every 500 ms) keep the test short; the takeover time is printed,
// and asserted only against a generous bound (the lease duration plus 20 s: the machine is loaded).

import { expect } from 'chai';
import { HttpMethod } from '@kubernetes/client-node';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shardOf } from '../../src/engine/shards.ts';
import { DEPLOYMENTS } from '../../src/kube/client.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import type { Lease } from '../../src/manager/leaderelection.ts';
import { SIM_TOKEN, kubeconfigYaml } from '../../src/sim/kubeconfig.ts';
import type { SimCluster } from '../../src/sim/index.ts';
import type { AuditEntry } from '../../src/sim/audit.ts';
import {
  createNamespace,
  deploymentManifest,
  eventually,
  imageOf,
  ownedReplicaSets,
  startSimWithCrds,
  waitComplete,
} from './fixtures/cluster.ts';
import { spawnController } from '../fixtures/controllerprocess.ts';
import type { SpawnedController } from '../fixtures/controllerprocess.ts';

const SHARDS = 3;
const PER_NAMESPACE = 5;
const LEASE_DURATION_S = 3;
const WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
/** Two namespaces of each shard, the first found among ns-0, ns-1, ... */
const NAMESPACES: string[] = (() => {
  const per = new Map<number, string[]>();
  for (let i = 0; [...per.values()].flat().length < 2 * SHARDS; i++) {
    const ns = `ns-${i}`;
    const list = per.get(shardOf(ns, SHARDS)) ?? [];
    if (list.length < 2) per.set(shardOf(ns, SHARDS), [...list, ns]);
  }
  return [...per.values()].flat();
})();

type Replica = SpawnedController & { name: string; identity: string };

describe('sharding: three pacer controller processes, three shards, one simulated cluster', function () {
  this.timeout(180_000);
  let dir: string;
  let sim: SimCluster;
  let client: KubeClient;
  const replicas: Replica[] = [];
  let victim: Replica | undefined;
  let victimShard = -1;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pacer-shards-'));
    // Pods ready 2 s after they start: a rollout of 3 replicas one surge pod at a time takes three
    // such steps, so the SIGKILL, which follows the victim's first step, lands mid-roll.
    ({ sim, client } = await startSimWithCrds({ podStartMs: 50, podReadyMs: 2000 }));
    createNamespace(sim, 'pacer-system');
    for (const ns of NAMESPACES) createNamespace(sim, ns);
  });
  after(async () => {
    for (const r of replicas) r.child.kill('SIGKILL');
    await Promise.all(replicas.map((r) => r.exited));
    await sim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function startReplica(name: string): Promise<Replica> {
    const kubeconfig = join(dir, `${name}.kubeconfig`);
    writeFileSync(kubeconfig, kubeconfigYaml(sim.url, name)); // the token names the replica in the audit log
    const spawned = spawnController(
      kubeconfig,
      [
        '--shards',
        String(SHARDS),
        '--leader-election-lease-duration',
        `${LEASE_DURATION_S}s`,
        '--leader-election-renew-deadline',
        '2s',
        '--leader-election-retry-period',
        '500ms',
        '--kube-api-qps',
        '100',
        '--kube-api-burst',
        '200',
        '--log-format',
        'json',
      ],
      { logs: true, name },
    );
    await spawned.logged('caches synced; campaigning for shards');
    const line = spawned.logs.find((l) => l.includes('caches synced; campaigning for shards')) ?? '{}';
    const r: Replica = { name, identity: (JSON.parse(line) as { identity: string }).identity, ...spawned };
    replicas.push(r);
    return r;
  }

  async function holders(): Promise<string[]> {
    return Promise.all(
      Array.from({ length: SHARDS }, async (_, k) => {
        const l = await client.request<Lease>(
          HttpMethod.GET,
          `/apis/coordination.k8s.io/v1/namespaces/pacer-system/leases/pacer-controller-shard-${k}`,
        );
        return l.spec?.holderIdentity ?? '';
      }),
    );
  }

  /** Every write but the Leases', by token, in the order the sim answered them. */
  function writes(): AuditEntry[] {
    return sim.audit
      .entries()
      .filter((e) => e.user !== undefined && e.user !== SIM_TOKEN && WRITES.has(e.verb) && e.resource !== 'leases');
  }

  const all = async (fn: (ns: string, name: string) => Promise<unknown>) =>
    Promise.all(NAMESPACES.flatMap((ns) => Array.from({ length: PER_NAMESPACE }, (_, i) => fn(ns, `app-${i}`))));

  it('the shards spread one a replica, and the fleet rolls out', async () => {
    expect(new Set(NAMESPACES.map((ns) => shardOf(ns, SHARDS))).size, 'every shard has namespaces').to.equal(SHARDS);
    await Promise.all(['replica-a', 'replica-b', 'replica-c'].map(startReplica));
    await eventually(
      'each replica holding one shard',
      async () => {
        const h = await holders().catch(() => []);
        return h.length === SHARDS && h.every(Boolean) && new Set(h).size === SHARDS;
      },
      60_000,
    );
    await all((ns, name) =>
      client.create(
        DEPLOYMENTS,
        ns,
        deploymentManifest(ns, name, {
          replicas: 3,
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        }),
      ),
    );
    await all((ns, name) => waitComplete(client, ns, name, '1', 60_000));
  });

  it('a fleet-wide image change; the holder of a shard is SIGKILLed mid-roll; a survivor takes its shard and every rollout converges', async () => {
    const before = await holders();
    await all((ns, name) =>
      client.patch(
        DEPLOYMENTS,
        ns,
        name,
        { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:2' }] } } } },
        'merge',
      ),
    );
    // The victim: the holder of the first namespace's shard, once its rollout there is under way.
    victimShard = shardOf(NAMESPACES[0], SHARDS);
    victim = replicas.find((r) => r.identity === before[victimShard]);
    expect(victim, `the holder of shard ${victimShard}`).to.not.equal(undefined);
    await eventually(
      "the victim's rollout under way",
      async () => {
        const d = await client.getDeployment(NAMESPACES[0]!, 'app-0');
        const next = (await ownedReplicaSets(client, d)).find((rs) => imageOf(rs) === 'nginx:2');
        return (next?.spec.replicas ?? 0) >= 1;
      },
      30_000,
    );
    const killedAt = Date.now();
    victim!.child.kill('SIGKILL');
    await victim!.exited;
    const unfinished = await Promise.all(
      NAMESPACES.filter((ns) => shardOf(ns, SHARDS) === victimShard).flatMap((ns) =>
        Array.from({ length: PER_NAMESPACE }, async (_, i) => {
          // Not finished as `kubectl rollout status` reads it: the change not yet observed (a
          // Deployment whose pass has not written its status still shows the old rollout's 3 of
          // 3, the kill can come that soon), or not every replica updated.
          const d = await client.getDeployment(ns, `app-${i}`);
          return (
            (d.status?.observedGeneration ?? 0) < (d.metadata.generation ?? 0) ||
            d.status?.updatedReplicas !== 3 ||
            d.status.replicas !== 3
          );
        }),
      ),
    );
    expect(unfinished.some(Boolean), 'killed mid-roll: a rollout of its shard not finished').to.equal(true);
    const survivors = replicas.filter((r) => r !== victim).map((r) => r.identity);
    const takenAt = await eventually(
      `shard ${victimShard} taken by a survivor`,
      async () => survivors.includes((await holders())[victimShard] ?? '') && Date.now(),
      LEASE_DURATION_S * 1000 + 20_000,
    );
    await all((ns, name) => waitComplete(client, ns, name, '2', 90_000));
    const after = await holders();
    for (let k = 0; k < SHARDS; k++)
      if (k !== victimShard) expect(after[k], `shard ${k} stayed with its holder`).to.equal(before[k]);
    console.log(
      `      (SIGKILL → shard ${victimShard} taken: ${((takenAt - killedAt) / 1000).toFixed(1)} s; the lease duration is ${LEASE_DURATION_S} s)`,
    );
  });

  it('the audit log: each namespace was written by one replica at a time, the victim only before its successor', () => {
    const w = writes().filter((e) => e.namespace !== undefined && NAMESPACES.includes(e.namespace));
    expect(w.length).to.be.greaterThan(0);
    expect(
      writes().filter((e) => e.namespace === undefined),
      'no cluster-scoped writes in this fleet',
    ).to.deep.equal([]);
    for (const ns of NAMESPACES) {
      const mine = w.filter((e) => e.namespace === ns);
      const order: string[] = [];
      for (const e of mine) if (order.at(-1) !== e.user) order.push(e.user!);
      if (shardOf(ns, SHARDS) !== victimShard) {
        expect(order, `${ns}: one writer`).to.have.lengthOf(1);
        continue;
      }
      expect(order, `${ns}: the victim, then its successor`).to.have.lengthOf(2);
      expect(order[0], `${ns}: the victim first`).to.equal(victim!.name);
      const last = Math.max(...mine.filter((e) => e.user === order[0]).map((e) => Date.parse(e.time)));
      const first = Math.min(...mine.filter((e) => e.user === order[1]).map((e) => Date.parse(e.time)));
      expect(last, `${ns}: the victim's last write before the successor's first`).to.be.at.most(first);
    }
    // The Events too are written under their pass's shard (a write outside any pass is refused):
    // each Deployment's rollouts recorded some in its namespace.
    for (const ns of NAMESPACES) {
      const events = w.filter((e) => e.namespace === ns && e.resource === 'events' && e.code === 201).length;
      expect(events, `Events written in ${ns}`).to.be.at.least(PER_NAMESPACE);
    }
    // Each shard's namespaces had the same writers: a shard is owned whole.
    for (let k = 0; k < SHARDS; k++) {
      const writers = new Set(w.filter((e) => shardOf(e.namespace, SHARDS) === k).map((e) => e.user));
      expect(writers.size, `shard ${k}'s writers`).to.equal(k === victimShard ? 2 : 1);
    }
  });
});
