// Leader election on the real control plane: two `pacer controller` processes with the
// ServiceAccount's token over https (the controller's own connection, Node's https: kube/connect.ts),
// one Lease in pacer-system, client-node never loaded. The first leads; SIGTERMed, it releases the Lease and the standby,
// watching it, takes it. The simulated cluster's version, with a SIGKILL and the audit log's proof
// that no two replicas wrote at once, is test/integration/leaderelection.test.ts; this one shows
// that the Lease's reads, writes and watch work against kube-apiserver itself.

import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnController } from '../fixtures/controllerprocess.ts';
import type { SpawnedController } from '../fixtures/controllerprocess.ts';
import { startRealBed } from '../fixtures/realbed.ts';
import type { RealBed } from '../fixtures/realbed.ts';
import { BEDS, ROOT } from './fixtures.ts';

if (BEDS.includes('real'))
  describe('e2e (real): leader election between two pacer controller processes', function () {
    this.timeout(120_000);
    let bed: RealBed;
    let dir: string;
    const replicas: SpawnedController[] = [];
    before(async () => {
      bed = await startRealBed();
      const crds = await bed.kubectl(['apply', '-f', join(ROOT, 'crds')]);
      expect(crds.code, crds.stderr).to.equal(0);
      dir = mkdtempSync(join(tmpdir(), 'pacer-le-real-'));
      writeFileSync(join(dir, 'kubeconfig'), await bed.controllerKubeconfig(), { mode: 0o600 });
    });
    after(async () => {
      for (const r of replicas) if (r.child.exitCode === null) r.child.kill('SIGKILL');
      await bed?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const start = (name: string) => {
      const r = spawnController(
        join(dir, 'kubeconfig'),
        ['--leader-elect=true', '--leader-election-retry-period', '1s', '--log-format', 'json'],
        // The probe prints at exit whether client-node was loaded (test/fixtures/clientnode-probe.ts).
        { logs: true, name, nodeArgs: ['--import', join(ROOT, 'test', 'fixtures', 'clientnode-probe.ts')] },
      );
      replicas.push(r);
      return r;
    };

    it('one leads, the other stands by; on SIGTERM the Lease is released and the standby takes it', async () => {
      const a = start('replica a');
      await a.logged('became the leader; starting workers');
      const b = start('replica b');
      await b.logged('caches synced; campaigning for leadership');
      const holder = async () => {
        const r = await bed.kubectl([
          'get',
          'lease',
          '-n',
          'pacer-system',
          'pacer-controller',
          '-o',
          'jsonpath={.spec.holderIdentity}',
        ]);
        expect(r.code, r.stderr).to.equal(0);
        return r.stdout;
      };
      const first = await holder();
      expect(first).to.match(/_/);
      expect(b.logs.some((l) => l.includes('became the leader'))).to.equal(false);
      a.child.kill('SIGTERM');
      expect(await a.exited).to.equal(0);
      // Its stderr may still be read after the exit: its last line is the probe's.
      const stderr = a.child.stderr!;
      if (!stderr.closed) await new Promise((r) => stderr.once('close', r));
      // A token and a CA: Node's https carried every request, client-node was never loaded.
      expect(a.logs).to.include('client-node loaded: no');
      await b.logged('became the leader; starting workers');
      const second = await holder();
      expect(second).to.match(/_/).and.not.equal(first);
      expect(await bed.forbidden()).to.deep.equal([]);
    });
  });
