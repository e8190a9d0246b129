// Two `pacer controller` processes against one simulated cluster, electing a leader on a Lease:
// only the leader writes; a SIGKILLed leader is replaced once its Lease expires and the rollout it
// left half done finishes; a SIGTERMed leader releases the Lease and its successor, which watches
// the Lease, takes over at once. Each replica has its own token, so the sim's audit log tells their requests apart, and
// the test checks from it that the two never write in overlapping periods.
//
// The replicas use a 1 s retry period (the default is 2 s, plus up to 2.4 s of client-go's jitter),
// except the one that takes over on SIGTERM (120 s: only its watch can make it try in time). The
// takeover times are printed, not asserted: wall-clock figures belong to benchmarks.

import { SIM_TOKEN } from '../../src/sim/kubeconfig.ts';
import { expect } from 'chai';
import { HttpMethod } from '@kubernetes/client-node';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Deployment, ReplicaSet } from '../../src/api/types.ts';
import { DEPLOYMENTS } from '../../src/kube/client.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import type { Lease } from '../../src/manager/leaderelection.ts';
import { kubeconfigYaml } from '../../src/sim/kubeconfig.ts';
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

const WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
const NS = 'default';

/** A replica: its name (its token's, in the audit log) and its process. */
type Replica = SpawnedController & { name: string };

describe('leader election: two pacer controller processes, one simulated cluster', function () {
  this.timeout(180_000);
  let dir: string;
  let sim: SimCluster;
  let client: KubeClient;
  const replicas: Replica[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pacer-le-'));
    ({ sim, client } = await startSimWithCrds({ podStartMs: 50, podReadyMs: 1000 }));
    createNamespace(sim, 'pacer-system'); // where the Lease lives, as in the install manifests
  });
  after(async () => {
    for (const r of replicas) r.child.kill('SIGKILL');
    await Promise.all(replicas.map((r) => r.exited));
    await sim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A replica; `retry` is its retry period (1 s unless given: with it, its lease duration and renew deadline). */
  function startReplica(
    name: string,
    retry?: { period: string; renewDeadline: string; leaseDuration: string },
  ): Replica {
    const kubeconfig = join(dir, `${name}.kubeconfig`);
    writeFileSync(kubeconfig, kubeconfigYaml(sim.url, name)); // the token names the replica in the audit log
    const r: Replica = {
      name,
      ...spawnController(
        kubeconfig,
        [
          '--leader-election-retry-period',
          retry?.period ?? '1s',
          ...(retry
            ? [
                '--leader-election-renew-deadline',
                retry.renewDeadline,
                '--leader-election-lease-duration',
                retry.leaseDuration,
              ]
            : []),
          '--log-format',
          'json',
        ],
        { logs: true, name },
      ),
    };
    replicas.push(r);
    return r;
  }

  /** Every write except the Lease's, by token, in the order the sim answered them. */
  function writes(): AuditEntry[] {
    return sim.audit
      .entries()
      .filter((e) => e.user !== undefined && e.user !== SIM_TOKEN && WRITES.has(e.verb) && e.resource !== 'leases');
  }

  async function lease(): Promise<Lease> {
    return client.request<Lease>(
      HttpMethod.GET,
      '/apis/coordination.k8s.io/v1/namespaces/pacer-system/leases/pacer-controller',
    );
  }

  async function newReplicaSet(d: Deployment, image: string): Promise<ReplicaSet | undefined> {
    return (await ownedReplicaSets(client, d)).find((rs) => imageOf(rs) === image);
  }

  it('the first replica leads; the second stands by with synced caches and writes nothing', async () => {
    const a = startReplica('replica-a');
    await a.logged('became the leader; starting workers');
    const b = startReplica('replica-b');
    await b.logged('caches synced; campaigning for leadership');
    await client.create(
      DEPLOYMENTS,
      NS,
      deploymentManifest(NS, 'web', {
        replicas: 4,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      }),
    );
    await waitComplete(client, NS, 'web', '1');
    const by = new Set(writes().map((e) => e.user));
    expect([...by]).to.deep.equal(['replica-a']);
    expect((await lease()).spec?.holderIdentity).to.match(/_/);
    expect(b.logs.some((l) => l.includes('became the leader'))).to.equal(false);
  });

  it('SIGKILL of the leader mid-rollout: the standby takes the Lease once it expires and finishes the rollout', async () => {
    const [a, b] = replicas;
    const before = await lease();
    await client.patch(
      DEPLOYMENTS,
      NS,
      'web',
      { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:2' }] } } } },
      'merge',
    );
    const d = await client.getDeployment(NS, 'web');
    await eventually(
      'the rollout under way',
      async () => ((await newReplicaSet(d, 'nginx:2'))?.spec.replicas ?? 0) >= 1,
      20_000,
    );
    const killedAt = Date.now();
    a!.child.kill('SIGKILL');
    await a!.exited;
    const old = (await ownedReplicaSets(client, d)).find((rs) => imageOf(rs) === 'nginx:1');
    expect(
      old?.spec.replicas ?? 0,
      'killed before the rollout ended: the old ReplicaSet still has replicas',
    ).to.be.greaterThan(0);
    const tookOver = await b!.logged('became the leader; starting workers');
    await waitComplete(client, NS, 'web', '2', 60_000);
    const after = await lease();
    expect(after.spec?.leaseTransitions).to.equal((before.spec?.leaseTransitions ?? 0) + 1);
    expect(after.spec?.holderIdentity).to.not.equal(before.spec?.holderIdentity);
    console.log(
      `      (SIGKILL → standby leading: ${((tookOver - killedAt) / 1000).toFixed(1)} s; the lease duration is 15 s)`,
    );
  });

  it('SIGTERM of the leader: it releases the Lease, and the standby, watching it, takes over at once', async () => {
    const b = replicas[1]!;
    // A retry period of 120 s: c tries once when it starts, and its next try would come two minutes
    // later, after this test has ended. Only its watch of the Lease can make it try in between.
    const c = startReplica('replica-c', { period: '120s', renewDeadline: '200s', leaseDuration: '300s' });
    await c.logged('caches synced; campaigning for leadership');
    await client.patch(
      DEPLOYMENTS,
      NS,
      'web',
      { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:3' }] } } } },
      'merge',
    );
    await waitComplete(client, NS, 'web', '3', 60_000);
    const termAt = Date.now();
    b.child.kill('SIGTERM');
    expect(await b.exited, 'a graceful stop').to.equal(0);
    const releasedAt = sim.audit
      .entries()
      .findLastIndex((e) => e.user === 'replica-b' && e.resource === 'leases' && e.verb === 'update');
    expect(
      sim.audit.entries()[releasedAt]?.code,
      'the last Lease write of the stopped leader succeeded (the release)',
    ).to.equal(200);
    const tookOver = await c.logged('became the leader; starting workers');
    // c read the Lease twice in all: its first try, which found b holding it, and the try its watch
    // started when b released it, followed by its acquiring write. A poll would have been a third
    // read, two minutes after the first.
    const cLease = sim.audit
      .entries()
      .filter((e) => e.user === 'replica-c' && e.resource === 'leases' && e.verb !== 'watch')
      .map((e) => `${e.verb} ${e.code}`);
    expect(cLease, "replica-c's Lease requests").to.deep.equal(['get 200', 'get 200', 'update 200']);
    await client.patch(DEPLOYMENTS, NS, 'web', { spec: { replicas: 2 } }, 'merge');
    await eventually(
      'scaled to 2 by the new leader',
      async () => {
        const x = await client.getDeployment(NS, 'web');
        return x.status?.replicas === 2 && x.status.observedGeneration === x.metadata.generation;
      },
      30_000,
    );
    console.log(
      `      (SIGTERM → standby leading: ${((tookOver - termAt) / 1000).toFixed(2)} s; its retry period 120 s)`,
    );
  });

  it('the audit log: every write came from the leader of its time, and no two replicas ever wrote in overlapping periods', () => {
    const all = writes();
    const order: string[] = [];
    for (const e of all) if (order.at(-1) !== e.user) order.push(e.user!);
    expect(order, 'each replica writes in one unbroken period, in the order they led').to.deep.equal([
      'replica-a',
      'replica-b',
      'replica-c',
    ]);
    const span = (who: string) => {
      const t = all.filter((e) => e.user === who).map((e) => Date.parse(e.time));
      return [Math.min(...t), Math.max(...t)] as const;
    };
    const [, aEnd] = span('replica-a');
    const [bStart, bEnd] = span('replica-b');
    const [cStart] = span('replica-c');
    expect(aEnd).to.be.at.most(bStart);
    expect(bEnd).to.be.at.most(cStart);
  });
});
