// The cluster's default maintenance windows on the simulated cluster, with the controller
// in-process, driven through `kubectl pacer windows` (docs/semantics/windows.md#the-clusters-default):
// a file with a mistake is refused before anything is written; a ConfigMap written by hand with a
// mistake holds a NodeRoll without windows of its own (its condition naming the key, the path and the
// value) while a Deployment's rollout goes on; valid windows that open hours from now hold it
// (the condition naming the ConfigMap, the group not scaled); cleared, the roll runs to its end.

import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONFIGMAPS, DEPLOYMENTS, EVENTS, NODEROLLS } from '../../src/kube/client.ts';
import { REF } from '../../src/sim/resources.ts';
import type { KubeObject } from '../../src/sim/types.ts';
import {
  createNamespace,
  deploymentManifest,
  eventually,
  pluginOn,
  podTemplate,
  startCluster,
  waitComplete,
} from './fixtures/cluster.ts';
import type { Cluster } from './fixtures/cluster.ts';

interface RollStatus {
  phase?: string;
  originalNodes?: string[];
  window?: { open: boolean; opensAt?: string };
  conditions?: Array<{ type: string; status: string; reason: string; message: string }>;
}

const SOURCE = 'configmap pacer-system/pacer-maintenance-windows';

describe("the cluster's default maintenance windows hold a node roll without its own (simulated cluster)", function () {
  this.timeout(120_000);
  let c: Cluster;
  let dir: string;
  let kubeconfig: string;
  const plugin = pluginOn(() => kubeconfig);
  before(async () => {
    c = await startCluster({ nodes: 0, zones: ['a', 'b'], podStartMs: 20, podReadyMs: 30 });
    createNamespace(c.sim, 'pacer-system');
    dir = mkdtempSync(join(tmpdir(), 'pacer-windows-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, c.sim.kubeconfig);
  });
  after(async () => {
    await c?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a bad file, holds on a bad ConfigMap and outside its windows, and rolls once cleared', async () => {
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
    expect(await plugin('windows', 'status')).to.deep.equal({
      code: 0,
      stdout: `no default maintenance windows (no ${SOURCE}): NodeRolls without windows of their own may roll at any time\n`,
      stderr: '',
    });

    // A file with a mistake: refused with its path and value, nothing written.
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'windows:\n  - start: "22:00"\n    duration: 4h\n    timeZone: Europe/Atlantis\n');
    expect(await plugin('windows', 'set', '-f', bad)).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: `error: ${bad}: windows[0].timeZone: Invalid value: "Europe/Atlantis": unknown time zone: must be a name of the IANA time zone database, such as "Europe/Berlin" or "UTC"\n`,
    });
    expect(
      (await c.client.list<{ metadata: { name?: string } }>(CONFIGMAPS, 'pacer-system')).items.map(
        (x) => x.metadata.name,
      ),
    ).to.not.include('pacer-maintenance-windows');

    // The same mistake written by hand: the roll is held, named; the controller goes on.
    await c.client.create(CONFIGMAPS, 'pacer-system', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'pacer-maintenance-windows', namespace: 'pacer-system' },
      data: { windows: '- start: "22:00"\n  duration: 4h\n  timeZone: Europe/Atlantis\n' },
    });
    await c.client.create(NODEROLLS, undefined, {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'NodeRoll',
      metadata: { name: 'upgrade' },
      spec: {
        nodeSelector: { matchLabels: { 'sim.pacer.dev/node-group': 'workers' } },
        nodeGroup: 'workers',
        desiredNodes: 2,
      },
    });
    const roll = async () =>
      (await c.client.get<{ status?: RollStatus }>(NODEROLLS, undefined, 'upgrade')).status ?? {};
    const windowCondition = async () => (await roll()).conditions?.find((x) => x.type === 'Window');
    const invalid = await eventually('the roll held by the invalid default', async () => {
      const w = await windowCondition();
      return w?.reason === 'DefaultWindowsInvalid' ? w : undefined;
    });
    expect(invalid).to.deep.include({
      status: 'False',
      message: `the cluster's default maintenance windows (${SOURCE}) are invalid: data.windows[0].timeZone: Invalid value: "Europe/Atlantis": unknown time zone: must be a name of the IANA time zone database, such as "Europe/Berlin" or "UTC"; nothing new is cordoned, drained or terminated until it is fixed or deleted`,
    });
    // Nothing else stops: a Deployment's rollout goes on.
    await c.client.patch(DEPLOYMENTS, 'default', 'web', { spec: { template: podTemplate('web', 'nginx:2') } }, 'merge');
    await waitComplete(c.client, 'default', 'web', '2', 60_000);
    expect((await roll()).originalNodes, 'the roll not started').to.equal(undefined);

    // Valid windows through the plugin: every day, opening two hours from now (UTC).
    const opens = new Date(Date.now() + 2 * 3_600_000);
    const hhmm = `${String(opens.getUTCHours()).padStart(2, '0')}:${String(opens.getUTCMinutes()).padStart(2, '0')}`;
    const good = join(dir, 'windows.yaml');
    writeFileSync(good, `windows:\n  - start: "${hhmm}"\n    duration: 30m\n`);
    expect(await plugin('windows', 'set', '-f', good)).to.deep.equal({
      code: 0,
      stdout: `${SOURCE} configured: 1 window, 0 blackouts\n`,
      stderr: '',
    });
    expect((await plugin('windows', 'set', '-f', good)).stdout).to.equal(
      `${SOURCE} unchanged: 1 window, 0 blackouts\n`,
    );
    const outside = await eventually('the roll held outside the default window', async () => {
      const w = await windowCondition();
      return w?.reason === 'OutsideWindow' ? w : undefined;
    });
    const status = await roll();
    expect(outside.message).to.equal(
      `outside the cluster's default maintenance windows (${SOURCE}): the next window opens at ${status.window?.opensAt}; nothing new is cordoned, drained or terminated until then`,
    );
    expect(Date.parse(status.window?.opensAt ?? '')).to.be.within(Date.now() + 3_600_000, Date.now() + 2 * 3_600_000);
    expect(status.originalNodes, 'still not started').to.equal(undefined);
    const groupSize = () =>
      (c.sim.store.get(REF.nodegroups, undefined, 'workers')!.spec as { replicas: number }).replicas;
    expect(groupSize(), 'the group not scaled').to.equal(2);
    const shown = await plugin('windows', 'status', '-o', 'json');
    expect(shown.code).to.equal(0);
    expect(JSON.parse(shown.stdout)).to.deep.include({
      configMap: 'pacer-system/pacer-maintenance-windows',
      set: true,
      open: false,
      opensAt: status.window?.opensAt,
    });

    // Cleared: the roll starts and runs to its end.
    expect(await plugin('windows', 'clear')).to.deep.equal({
      code: 0,
      stdout: `${SOURCE} deleted: NodeRolls without windows of their own may roll at any time (their own blackouts still hold)\n`,
      stderr: '',
    });
    expect((await plugin('windows', 'clear')).stdout).to.equal(`no default maintenance windows (no ${SOURCE})\n`);
    await eventually('the roll to complete', async () => (await roll()).phase === 'Complete', 90_000);
    const events = (
      await c.client.list<{ reason: string; involvedObject: { kind: string; name: string } }>(EVENTS)
    ).items.map((e) => `${e.involvedObject.kind}/${e.involvedObject.name} ${e.reason}`);
    expect(events).to.include.members([
      'NodeRoll/upgrade NodeRollDefaultWindowsInvalid',
      'ConfigMap/pacer-maintenance-windows DefaultWindowsChanged',
      'ConfigMap/pacer-maintenance-windows DefaultWindowsCleared',
    ]);
  });
});
