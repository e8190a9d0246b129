// How a deleted pod stops, on both beds, through the real kubectl: its containers take their own
// time (sim.pacer.dev/stop-after-ms on the simulated kubelet and on the real bed's kwok) and are
// killed when its grace period (terminationGracePeriodSeconds) ends, whichever comes first; a
// finalizer holds it past both. The node roller's graceful drains wait on exactly this
// (docs/semantics/node-roll.md, Graceful drains), so the two beds must agree on it.
//
// And a pod's log, as `kubectl logs` reads it: on the real bed the API server asks the node's
// kubelet endpoint, kwok's, which serves kube-bed's pod log file (hack/kube/README.md), so kubectl
// prints its lines and, with -f, each line appended to it; the simulated API server serves no
// pods/log and answers 404 as it does for any path it does not serve.

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '../integration/fixtures/cluster.ts';
import { BEDS, kubectlEnv } from './fixtures.ts';

for (const bed of BEDS)
  describe(`e2e (${bed}): a deleted pod stops within its grace period; a pod's log`, function () {
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
          pod('slow', 30, { 'sim.pacer.dev/stop-after-ms': '6000' }),
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
      // Within its 30 s grace period, slow is still stopping half a second later (it takes 6 s: room
      // for a loaded machine's kubectl calls between the deletion and the look).
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

    it("kubectl logs prints the pod's log (the real bed's file through kube-apiserver and kwok; the simulated cluster's 404), and -f follows it", async function () {
      await writeFile(join(k.dir, 'talker.yaml'), pod('talker', 1, {}));
      await ok(kubectl('apply', '-f', join(k.dir, 'talker.yaml')));
      await eventually(
        'talker running',
        async () => (await ok(kubectl('get', 'pod', 'talker', '-o', 'jsonpath={.status.phase}'))) === 'Running',
        30_000,
      );
      if (bed === 'sim') {
        const r = await kubectl('logs', 'talker');
        expect(r.code).to.equal(1);
        expect(r.stderr.trim()).to.equal(
          'Error from server (NotFound): the server could not find the requested resource',
        );
        return;
      }
      const podLog = k.real.info.podLog;
      if (!podLog) {
        console.log(
          '      (skipped: PACER_E2E_KUBECONFIG names a cluster kube-bed did not start, with no pod log file)',
        );
        this.skip();
      }
      // What kube-bed wrote when it started, then a line appended: each as kubectl prints it.
      expect(await ok(kubectl('logs', 'talker'))).to.equal(
        `kube-bed: every container's log on this bed is ${podLog} (kwok serves it; append lines in the CRI log format)\n`,
      );
      const nonce = `${process.pid}-${Date.now()}`;
      await k.real.appendPodLog([`first ${nonce}`]);
      expect(await ok(kubectl('logs', 'talker', '-c', 'app', '--tail=1'))).to.equal(`first ${nonce}\n`);
      // kubectl's own refusal of a container the pod does not have, and kwok's of a previous one.
      const nope = await kubectl('logs', 'talker', '-c', 'nope');
      expect(nope.stderr.trim()).to.equal('error: container nope is not valid for pod talker out of: app');
      const previous = await kubectl('logs', 'talker', '--previous');
      expect(previous.code).to.equal(1);
      expect(previous.stderr).to.contain('Error from server (BadRequest): failed to try resolving symlinks in path');
      // -f: the last line at once, then each appended line as it comes.
      const follow = k.track(spawn('kubectl', k.kubectlArgs(['logs', '-f', 'talker', '--tail=1']), { env: k.env }));
      let followed = '';
      follow.stdout.on('data', (b: Buffer) => (followed += b));
      follow.stderr.on('data', (b: Buffer) => (followed += b));
      await eventually('the last line', async () => followed === `first ${nonce}\n`, 20_000);
      await k.real.appendPodLog([`second ${nonce}`, `third ${nonce}`]);
      await eventually(
        'the appended lines followed',
        async () => followed === `first ${nonce}\nsecond ${nonce}\nthird ${nonce}\n`,
        20_000,
      );
      expect(follow.exitCode, 'kubectl logs -f still follows').to.equal(null);
      follow.kill();
    });
  });
