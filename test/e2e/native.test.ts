// Native mode (docs/native.md) on the real control plane, the one bed that serves apps/v1
// Deployments: started beside kube-controller-manager's own Deployment controller, Pacer refuses
// with a message that says how to fix it, and writes nothing but its probe (read from the API
// server's audit log), which it deletes again.

import { expect } from 'chai';
import { join } from 'node:path';
import { runController } from '../../src/cli/controller.ts';
import { silentLogger } from '../../src/observe/logger.ts';
import { eventually } from '../integration/fixtures/cluster.ts';
import { BEDS } from '../fixtures/beds.ts';
import { PACER_USER, startRealBed } from '../fixtures/realbed.ts';
import type { RealBed } from '../fixtures/realbed.ts';
import { ROOT } from './fixtures.ts';

const WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

if (BEDS.includes('real'))
  describe('e2e (real): native mode', function () {
    this.timeout(180_000);
    let bed: RealBed;
    before(async function () {
      this.timeout(300_000);
      bed = await startRealBed({ nodes: 1 });
      const crds = await bed.kubectl(['apply', '-f', join(ROOT, 'crds')]);
      expect(crds.code, crds.stderr).to.equal(0);
      await eventually(
        'the CRDs served',
        async () => (await bed.kubectl(['get', 'deployments.pacer.dev', '-A'])).code === 0,
        30_000,
      );
    });
    after(async () => {
      await bed?.stop();
    });

    it("beside kube-controller-manager's Deployment controller: refused, saying how to fix it; only the probe written, and deleted", async () => {
      const kubeconfig = await bed.controllerKubeconfig();
      const rbac = await bed.kubectl(['apply', '-f', join(ROOT, 'manifests', 'native', 'rbac.yaml')]);
      expect(rbac.code, rbac.stderr).to.equal(0);
      const since = (await bed.audit()).length;
      let error: Error | undefined;
      try {
        const running = await runController({
          kubeconfigText: kubeconfig,
          deployments: ['pacer', 'apps'],
          leaderElectionNamespace: 'pacer-system',
          metricsBindAddress: '0',
          healthProbeBindAddress: '0',
          apiBindAddress: '0',
          webhookBindAddress: '0',
          logger: silentLogger(),
        });
        await running.stop();
      } catch (err) {
        error = err as Error;
      }
      expect(error?.message).to.match(
        /^native mode refused: another Deployment controller \(kube-controller-manager\) controls apps\/v1 Deployments: it observed the probe Deployment Pacer created in namespace pacer-system\. Start kube-controller-manager with --controllers=\*,-deployment-controller/,
      );
      expect((error as { exitCode?: number }).exitCode).to.equal(1);
      await eventually(
        'the probe deleted',
        async () => {
          const left = await bed.kubectl([
            'get',
            'deployments',
            '-n',
            'pacer-system',
            '-l',
            'pacer.dev/native-probe',
            '-o',
            'name',
          ]);
          return left.code === 0 && left.stdout.trim() === '';
        },
        30_000,
      );
      const writes = (await bed.audit())
        .slice(since)
        .filter((e) => e.user.username === PACER_USER && e.stage === 'ResponseComplete' && WRITES.has(e.verb))
        .map((e) => `${e.verb} ${e.objectRef?.apiGroup ?? ''}/${e.objectRef?.resource} ${e.objectRef?.namespace}`);
      expect(writes).to.deep.equal(['create apps/deployments pacer-system', 'delete apps/deployments pacer-system']);
    });
  });
