// How a deleted pod stops, on both beds, through the real kubectl: its containers take their own
// time (sim.pacer.dev/stop-after-ms on the simulated kubelet and on the real bed's kwok) and are
// killed when its grace period (terminationGracePeriodSeconds) ends, whichever comes first; a
// finalizer holds it past both. The node roller's graceful drains wait on exactly this
// (docs/semantics/node-roll.md, Graceful drains), so the two beds must agree on it.

import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '../integration/fixtures/cluster.ts';
import { BEDS, kubectlEnv } from './fixtures.ts';

for (const bed of BEDS)
  describe(`e2e (${bed}): a deleted pod stops within its grace period`, function () {
    this.timeout(60_000);
    const k = kubectlEnv({ bed, tmpPrefix: 'pacer-podstop-', sim: { nodes: 1, podStartMs: 30, podReadyMs: 30 } });
    const { kubectl, ok } = k;
    before(function () {
      return k.start(this);
    });
    after(() => k.stop());

    const pod = (name: string, grace: number, annotations: Record<string, string>, finalizers: string[] = []) =>
      [
        'apiVersion: v1',
        'kind: Pod',
        'metadata:',
        `  name: ${name}`,
        `  annotations: ${JSON.stringify(annotations)}`,
        `  finalizers: ${JSON.stringify(finalizers)}`,
        `spec: {terminationGracePeriodSeconds: ${grace}, containers: [{name: app, image: "app:1"}]}`,
        '',
      ].join('\n');
    const exists = async (name: string) => (await kubectl('get', 'pod', name, '-o', 'name')).code === 0;

    it('stops after its own stop time within the grace period, is killed when the grace period ends, and is held by a finalizer', async () => {
      const file = join(k.dir, 'pods.yaml');
      await writeFile(
        file,
        [
          pod('slow', 30, { 'sim.pacer.dev/stop-after-ms': '2000' }),
          pod('stubborn', 1, { 'sim.pacer.dev/stop-after-ms': '600000' }),
          pod('held', 1, {}, ['example.com/hold']),
        ].join('---\n'),
      );
      await ok(kubectl('apply', '-f', file));
      await eventually(
        'the pods running',
        async () =>
          (await ok(kubectl('get', 'pods', '-o', 'jsonpath={.items[*].status.phase}'))) === 'Running Running Running',
        30_000,
      );
      const deletedAt = Date.now();
      await ok(kubectl('delete', 'pod', 'slow', 'stubborn', 'held', '--wait=false'));
      // Within its 30 s grace period, slow is still stopping half a second later.
      expect(await ok(kubectl('get', 'pod', 'slow', '-o', 'jsonpath={.metadata.deletionGracePeriodSeconds}'))).to.equal(
        '30',
      );
      await new Promise((r) => setTimeout(r, Math.max(0, deletedAt + 500 - Date.now())));
      expect(await exists('slow'), 'slow is still stopping 0.5 s after its deletion').to.equal(true);
      // stubborn would take 10 minutes: it is killed when its 1 s grace period ends.
      await eventually(
        'stubborn killed at the end of its grace period',
        async () => !(await exists('stubborn')),
        20_000,
      );
      await eventually('slow stopped by itself', async () => !(await exists('slow')), 20_000);
      // held is past its grace period, held by its finalizer, until the finalizer goes.
      await new Promise((r) => setTimeout(r, Math.max(0, deletedAt + 3000 - Date.now())));
      expect(await ok(kubectl('get', 'pod', 'held', '-o', 'jsonpath={.metadata.finalizers[*]}'))).to.equal(
        'example.com/hold',
      );
      await ok(kubectl('patch', 'pod', 'held', '--type=merge', '-p', '{"metadata":{"finalizers":null}}'));
      await eventually('held gone once its finalizer is removed', async () => !(await exists('held')), 20_000);
    });
  });
