// A degraded API server (issue "Reliability and security", item 3), on the simulated cluster with the
// controller in-process: every request failing (503) for a while, then back; a storm of 429s. The
// controller backs off instead of hammering, reports not ready while its caches are stale (and says
// which), loses nothing (a change made during the outage is rolled out once the server is back),
// and is ready again when its lists and watches work.

import { expect } from 'chai';
import type { Deployment } from '../../src/api/types.ts';
import { DEPLOYMENTS } from '../../src/kube/client.ts';
import type { KubeObject } from '../../src/sim/types.ts';
import {
  CONTROLLER_AGENT_PREFIX,
  deploymentManifest,
  eventually,
  podTemplate,
  sleep,
  startCluster,
  waitComplete,
} from './fixtures/cluster.ts';
import type { Cluster } from './fixtures/cluster.ts';

const DEPLOYMENTS_REF = { group: 'pacer.dev', version: 'v1alpha1', resource: 'deployments' };

describe('a degraded API server: the controller backs off, reports stale caches, loses nothing (simulated cluster)', function () {
  this.timeout(120_000);
  let c: Cluster;
  const readyz = async () => {
    const r = await fetch(`http://127.0.0.1:${c.ctl.healthPort}/readyz`);
    return `${r.status} ${(await r.text()).trim()}`;
  };
  before(async () => {
    c = await startCluster({}, { healthProbeBindAddress: '127.0.0.1:0', staleAfterMs: 2000 });
  });
  after(() => c?.stop());

  it('unreachable (every request 503), then back: not ready while stale, bounded retries, the change made meanwhile rolled out', async () => {
    await c.client.create(DEPLOYMENTS, 'default', deploymentManifest('default', 'web', { replicas: 3 }));
    await waitComplete(c.client, 'default', 'web', '1');
    expect(await readyz()).to.equal('200 ok');

    const before = c.sim.audit.entries().length;
    c.sim.faults.set('error=503@1');
    c.sim.faults.dropWatches();
    // Changed during the outage, behind the API (the store, which the faults do not touch).
    c.sim.store.mutate(
      DEPLOYMENTS_REF,
      'default',
      'web',
      (x) => ({ ...x, spec: { ...(x.spec as object), template: podTemplate('web', 'nginx:2') } }) as KubeObject,
    );
    await eventually(
      'not ready: caches stale',
      async () => (await readyz()).startsWith('503 caches stale, the API server failing for: '),
      10_000,
    );
    await sleep(4000);
    const during = c.sim.audit
      .entries()
      .slice(before)
      .filter((e) => e.userAgent.startsWith(CONTROLLER_AGENT_PREFIX));
    const failed = during.filter((e) => e.code === 503).length;
    expect(failed, 'the controller tried').to.be.greaterThan(0);
    // Backing off (200 ms doubling to 30 s, per informer and per key): a few dozen requests in
    // about 6 s, where a client retrying at once would send thousands.
    expect(failed, `requests in the outage: ${failed}`).to.be.lessThan(150);

    c.sim.faults.clear();
    await eventually('ready again', async () => (await readyz()) === '200 ok', 60_000);
    const d = await waitComplete(c.client, 'default', 'web', '2', 60_000);
    expect((d.spec.template!.spec as { containers: Array<{ image: string }> }).containers[0].image).to.equal('nginx:2');
  });

  it('a storm of 429s with Retry-After: the controller waits it out and catches up', async () => {
    c.sim.faults.set('error=429@1');
    c.sim.store.mutate(
      DEPLOYMENTS_REF,
      'default',
      'web',
      (x) => ({ ...x, spec: { ...(x.spec as object), replicas: 5 } }) as KubeObject,
    );
    await sleep(3000);
    c.sim.faults.clear();
    await eventually(
      'web at 5',
      async () => {
        const d = await c.client.get<Deployment>(DEPLOYMENTS, 'default', 'web');
        return d.status?.availableReplicas === 5 && d.status.observedGeneration === d.metadata.generation;
      },
      60_000,
    );
    expect(await readyz()).to.equal('200 ok');
  });
});
