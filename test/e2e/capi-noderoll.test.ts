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
import { eventually, startTestController } from '../integration/fixtures/cluster.ts';
import type { RunningController } from '../../src/cli/controller.ts';
import { POOL, capiNodeRoll, capiSuite, poolWorkload } from '../fixtures/capibed.ts';
import { BEDS } from './fixtures.ts';

for (const bed of BEDS.filter((b) => b === 'real'))
  describe(`e2e (${bed}): a NodeRoll replaces a Cluster API MachineDeployment's Machines`, function () {
    this.timeout(300_000);
    let controller: RunningController | undefined;
    after(() => controller?.stop());
    const s = capiSuite({ bed: { nodes: 1, podStartMs: 50, podReadyMs: 80 } });
    // s's fields are set by its `before`: read them at call time.
    const kubectl = (args: string[], input?: string) => s.kubectl(args, input);
    const json = <T>(args: string[]) => s.json<T>(args);
    type Named = { metadata: { name: string; annotations?: Record<string, string> } };
    const md = () =>
      json<Named & { spec: { replicas: number; paused?: boolean } }>([
        'get',
        '-n',
        s.capi.info.namespace,
        'machinedeployment.cluster.x-k8s.io/workers',
      ]);
    const machineNames = async () =>
      (
        await json<{ items: Named[] }>([
          'get',
          '-n',
          s.capi.info.namespace,
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
      await kubectl(['apply', '-f', '-'], s.capi.machineDeployment('workers', 2, { labels: { [POOL]: 'workers' } }));
      const oldNodes = await eventually(
        'the 2 Machines’ Nodes, labelled by Cluster API from their Machines',
        async () => ((await poolNodes()).length === 2 ? poolNodes() : false),
        90_000,
      );
      const oldMachines = await machineNames();
      // Its pods only on the pool's nodes, so that every node's drain moves some.
      await kubectl(
        ['apply', '-f', '-'],
        poolWorkload('web', { namespace: 'default', pool: 'workers', replicas: 4, minAvailable: 3 }),
      );
      await eventually(
        'web to be available',
        async () => (await kubectl(['get', 'deployment', 'web', '-o', 'jsonpath={.status.availableReplicas}'])) === '4',
        60_000,
      );
      controller = await startTestController(await s.real.controllerKubeconfig());

      await kubectl(
        ['apply', '-f', '-'],
        capiNodeRoll('workers', {
          pool: 'workers',
          nodeGroup: `MachineDeployment/${s.capi.info.namespace}/workers`,
          desiredNodes: 2,
          timeouts: 'scaleUp: 2m, drain: 2m, deregister: 2m, healthy: 2m',
        }),
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
      expect(await s.real.forbidden()).to.deep.equal([]);
    });
  });
