// A NodeRoll through Cluster API on the real bed: Pacer (as its own ServiceAccount, with
// manifests/base's role) replaces the 2 Machines of a MachineDeployment (spec.nodeGroup
// MachineDeployment/capi/workers) under a Deployment whose PodDisruptionBudget lets one pod go at a
// time. Cluster API's own controllers (hack/capi) do the rest: the scale-up to 4 makes 2 Machines
// whose Nodes kwok runs; each old node is cordoned and drained by Pacer, then its Machine marked
// cluster.x-k8s.io/delete-machine and the MachineDeployment scaled down by one, and Cluster API
// deletes that Machine and its Node. At the end: the 2 Machines are new ones, the old Nodes gone,
// the MachineDeployment at 2 with its rollout no longer held (spec.paused back to false), the
// Deployment whole, and no request of Pacer's refused (the audit log). Sampled from outside while it
// rolls: the MachineDeployment is paused (its rollout held) and never asked for more than 4.

import { expect } from 'chai';
import { join } from 'node:path';
import { eventually, startTestController } from '../integration/fixtures/cluster.ts';
import type { RunningController } from '../../src/cli/controller.ts';
import { CAPI_BED, CAPI_BED_HOW, startCapiBed } from '../fixtures/capibed.ts';
import type { CapiBed } from '../fixtures/capibed.ts';
import { startRealBed } from '../fixtures/realbed.ts';
import type { RealBed } from '../fixtures/realbed.ts';
import { requireTool } from '../fixtures/tools.ts';
import { BEDS, ROOT } from './fixtures.ts';

const POOL = 'node.cluster.x-k8s.io/pool';

for (const bed of BEDS.filter((b) => b === 'real'))
  describe(`e2e (${bed}): a NodeRoll replaces a Cluster API MachineDeployment's Machines`, function () {
    this.timeout(300_000);
    let real: RealBed | undefined;
    let capi: CapiBed | undefined;
    let controller: RunningController | undefined;

    before(async function () {
      this.timeout(420_000);
      requireTool(this, 'kube-bed', 'hack/kube/build.sh builds it with Go; make test runs it');
      requireTool(this, CAPI_BED, CAPI_BED_HOW);
      if (process.env.PACER_E2E_KUBECONFIG) {
        console.log('      skipped: Cluster API here needs a kube-bed (its kwok and webhook certificate)');
        this.skip();
      }
      real = await startRealBed({ nodes: 1, podStartMs: 50, podReadyMs: 80 });
      capi = await startCapiBed(real);
    });
    after(async () => {
      await controller?.stop();
      await capi?.stop();
      await real?.stop();
    });

    const kubectl = async (args: string[], input?: string) => {
      const r = await real!.kubectl(args, input);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    const json = async <T>(args: string[]) => JSON.parse(await kubectl([...args, '-o', 'json'])) as T;
    type Named = { metadata: { name: string; annotations?: Record<string, string> } };
    const md = () =>
      json<Named & { spec: { replicas: number; paused?: boolean } }>([
        'get',
        '-n',
        capi!.info.namespace,
        'machinedeployment.cluster.x-k8s.io/workers',
      ]);
    const machineNames = async () =>
      (
        await json<{ items: Named[] }>([
          'get',
          '-n',
          capi!.info.namespace,
          'machines.cluster.x-k8s.io',
          '-l',
          'cluster.x-k8s.io/deployment-name=workers',
        ])
      ).items
        .map((m) => m.metadata.name)
        .sort();
    const poolNodes = async () =>
      (await json<{ items: Named[] }>(['get', 'nodes', '-l', `${POOL}=workers`])).items
        .map((n) => n.metadata.name)
        .sort();

    it('replaces both Machines one node at a time, the rollout held meanwhile, nothing refused', async () => {
      await kubectl(['apply', '-f', '-'], capi!.machineDeployment('workers', 2, { labels: { [POOL]: 'workers' } }));
      const oldNodes = await eventually(
        'the 2 Machines’ Nodes, labelled by Cluster API from their Machines',
        async () => ((await poolNodes()).length === 2 ? poolNodes() : false),
        90_000,
      );
      const oldMachines = await machineNames();
      await kubectl(['apply', '-f', join(ROOT, 'crds')]);
      await kubectl(['wait', '--for=condition=Established', 'crd/noderolls.pacer.dev', '--timeout=60s']);
      // Its pods only on the pool's nodes, so that every node's drain moves some.
      await kubectl(
        ['apply', '-f', '-'],
        [
          'apiVersion: apps/v1',
          'kind: Deployment',
          'metadata: {name: web, namespace: default}',
          'spec:',
          '  replicas: 4',
          '  selector: {matchLabels: {app: web}}',
          '  template:',
          '    metadata: {labels: {app: web}}',
          `    spec: {nodeSelector: {${POOL}: workers}, containers: [{name: web, image: "web:1"}]}`,
          '---',
          'apiVersion: policy/v1',
          'kind: PodDisruptionBudget',
          'metadata: {name: web, namespace: default}',
          'spec: {minAvailable: 3, selector: {matchLabels: {app: web}}}',
          '',
        ].join('\n'),
      );
      await eventually(
        'web to be available',
        async () => (await kubectl(['get', 'deployment', 'web', '-o', 'jsonpath={.status.availableReplicas}'])) === '4',
        60_000,
      );
      controller = await startTestController(await real!.controllerKubeconfig());

      await kubectl(
        ['apply', '-f', '-'],
        [
          'apiVersion: pacer.dev/v1alpha1',
          'kind: NodeRoll',
          'metadata: {name: workers}',
          'spec:',
          `  nodeSelector: {matchLabels: {${POOL}: workers}}`,
          `  nodeGroup: MachineDeployment/${capi!.info.namespace}/workers`,
          '  desiredNodes: 2',
          '  timeouts: {scaleUp: 2m, drain: 2m, deregister: 2m, healthy: 2m}',
          '',
        ].join('\n'),
      );
      // Sampled from outside until the roll ends: the largest size asked for, and whether the
      // rollout was seen held.
      let most = 0;
      let heldSeen = false;
      let last = '';
      const roll = await eventually(
        'the NodeRoll to be Complete',
        async () => {
          const d = await md();
          most = Math.max(most, d.spec.replicas);
          if (d.spec.paused === true && d.metadata.annotations?.['pacer.dev/rebalance-held-by'] === 'workers')
            heldSeen = true;
          const r = await json<{ status?: { phase?: string; scaledUpTo?: number; message?: string } }>([
            'get',
            'noderoll',
            'workers',
          ]);
          last = `MachineDeployment replicas ${d.spec.replicas}, paused ${d.spec.paused}; NodeRoll status ${JSON.stringify(r.status)}`;
          if (r.status?.phase === 'Paused' || r.status?.phase === 'Invalid')
            throw new Error(`the roll stopped: ${r.status.phase}: ${r.status.message}`);
          return r.status?.phase === 'Complete' ? r : false;
        },
        180_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; last seen: ${last}`);
      });
      expect(roll.status?.scaledUpTo).to.equal(4);
      expect(most).to.equal(4);
      expect(heldSeen, 'the MachineDeployment seen paused by the roll').to.equal(true);

      const after = await md();
      expect(after.spec.replicas).to.equal(2);
      expect(after.spec.paused ?? false).to.equal(false);
      expect(after.metadata.annotations?.['pacer.dev/rebalance-held-by']).to.equal(undefined);
      const nowMachines = await eventually(
        'the old Machines to be gone',
        async () => {
          const names = await machineNames();
          return names.length === 2 ? names : false;
        },
        60_000,
      );
      expect(nowMachines.filter((m) => oldMachines.includes(m))).to.deep.equal([]);
      const nowNodes = await poolNodes();
      expect(nowNodes).to.have.length(2);
      expect(nowNodes.filter((n) => oldNodes.includes(n))).to.deep.equal([]);
      await eventually(
        'web to be whole on the new nodes',
        async () => (await kubectl(['get', 'deployment', 'web', '-o', 'jsonpath={.status.availableReplicas}'])) === '4',
        60_000,
      );
      expect(await real!.forbidden()).to.deep.equal([]);
    });
  });
