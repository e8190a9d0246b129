// A node roll held by its maintenance window on the simulated cluster, with the controller
// in-process (docs/semantics/windows.md#node-rolls). The window is a real one, computed at test
// time: it opens at the next whole minute of the controller's clock, and when the roll is created
// that clock reads a few seconds before it (the real clock moved forward by less than a minute just
// before, as a wall clock may jump, so the test waits seconds, not up to a minute; its timers are the
// real ones). Until the window opens the roll does nothing:
// nothing recorded, the group not scaled, the status saying when the window opens; the controller
// looks again at the opening by itself (no other change wakes the roll), and the roll then runs to
// its end.

import { expect } from 'chai';
import type { NodeRoll } from '../../src/api/noderoll.ts';
import { metaTime } from '../../src/api/duration.ts';
import { realClock } from '../../src/kube/clock.ts';
import type { Clock } from '../../src/kube/clock.ts';
import { DEPLOYMENTS, NODEROLLS } from '../../src/kube/client.ts';
import { REF } from '../../src/sim/resources.ts';
import type { KubeObject } from '../../src/sim/types.ts';
import { deploymentManifest, eventually, startCluster, waitComplete } from './fixtures/cluster.ts';
import type { Cluster } from './fixtures/cluster.ts';

/** How long before the window opens the roll is created, on the controller's clock. */
const LEAD_MS = 6_000;

describe('node roll: held until its maintenance window opens (simulated cluster)', function () {
  this.timeout(120_000);
  let c: Cluster;
  /** How far the controller's clock is ahead of the real one. */
  let offset = 0;
  before(async () => {
    const shifted: Clock = { ...realClock, now: () => Date.now() + offset };
    c = await startCluster({ nodes: 0, zones: ['a', 'b'], podStartMs: 20, podReadyMs: 30 }, { clock: shifted });
  });
  after(() => c?.stop());

  it('does nothing before the window, says when it opens, and rolls once it has opened', async () => {
    c.sim.store.create(REF.nodegroups, undefined, {
      apiVersion: 'sim.pacer.dev/v1',
      kind: 'NodeGroup',
      metadata: { name: 'workers' },
      spec: { replicas: 2, zones: ['a', 'b'], launchDelayMs: 50, deregistrationDelayMs: 50 },
    } as KubeObject);
    await c.client.create(
      DEPLOYMENTS,
      'default',
      deploymentManifest('default', 'web', {
        replicas: 2,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } },
      }),
    );
    await waitComplete(c.client, 'default', 'web', '1');
    const originals = c.sim.store
      .list(REF.nodes, undefined)
      .items.map((n) => n.metadata.name ?? '')
      .sort();
    // The window opens at the next whole minute; the controller's clock jumps to LEAD_MS before it.
    const opensAt = Math.ceil((Date.now() + LEAD_MS) / 60_000) * 60_000;
    offset = opensAt - LEAD_MS - Date.now();
    const start = new Date(opensAt);
    const hhmm = `${String(start.getUTCHours()).padStart(2, '0')}:${String(start.getUTCMinutes()).padStart(2, '0')}`;
    await c.client.create(NODEROLLS, undefined, {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'NodeRoll',
      metadata: { name: 'nightly' },
      spec: {
        nodeSelector: { matchLabels: { 'sim.pacer.dev/node-group': 'workers' } },
        nodeGroup: 'workers',
        desiredNodes: 2,
        windows: [{ start: hhmm, duration: '30m', timeZone: 'UTC' }],
      },
    });
    const roll = () => c.client.get<NodeRoll>(NODEROLLS, undefined, 'nightly');

    // Before the window: the status says when it opens, and nothing has been done.
    const held = await eventually('the roll to report its window', async () => {
      const r = await roll();
      return r.status?.window ? r : undefined;
    });
    expect(held.status?.window).to.deep.equal({ open: false, opensAt: metaTime(opensAt) });
    expect(held.status?.conditions?.find((x) => x.type === 'Window')).to.deep.include({
      status: 'False',
      reason: 'OutsideWindow',
      message: `outside its maintenance windows: the next window opens at ${metaTime(opensAt)}; nothing new is cordoned, drained or terminated until then`,
    });
    expect(held.status?.originalNodes, 'not started').to.equal(undefined);
    const group = c.sim.store.get(REF.nodegroups, undefined, 'workers')!;
    expect((group.spec as { replicas: number }).replicas, 'the group not scaled').to.equal(2);

    // Once the window opens, the controller looks again by itself and the roll runs to its end.
    const done = await eventually(
      'the roll to complete',
      async () => {
        const r = await roll();
        return r.status?.phase === 'Complete' ? r : undefined;
      },
      90_000,
    );
    expect(
      Date.parse(done.status?.scaledUpAt ?? ''),
      "the scale-up (the roll's first step) is recorded at or after the opening, on the controller's clock",
    ).to.be.at.least(opensAt);
    expect(done.status?.scaledUpTo).to.equal(4);
    expect(done.status?.originalNodes).to.deep.equal(originals);
    const nodes = c.sim.store.list(REF.nodes, undefined).items.map((n) => n.metadata.name ?? '');
    expect(
      nodes.filter((n) => originals.includes(n)),
      'the original nodes are gone',
    ).to.deep.equal([]);
  });
});
