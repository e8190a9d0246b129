// Cluster API's own controllers on the real bed (hack/capi: capi-manager is sigs.k8s.io/cluster-api's
// core manager, capi-kwok CAPD's in-memory DevMachine provider whose Nodes are kwok Nodes of the
// bed), before Pacer drives them: a MachineDeployment scaled to 4 gives 4 Ready Nodes, each
// Machine's status.nodeRef naming the Node whose spec.providerID is the Machine's; a Machine marked
// cluster.x-k8s.io/delete-machine goes first when the MachineDeployment is scaled down, with its
// Node, and the other Machines stay (the oldest Machine is marked, its MachineDeployment's deletion
// order Newest: only the mark takes it). This is the contract a Cluster API node-group provider relies
// on. The simulated bed has no Cluster API: the real bed's only.

import { expect } from 'chai';
import { eventually } from '../integration/fixtures/cluster.ts';
import { CAPI_BED, CAPI_BED_HOW, startCapiBed } from '../fixtures/capibed.ts';
import type { CapiBed } from '../fixtures/capibed.ts';
import { startRealBed } from '../fixtures/realbed.ts';
import type { RealBed } from '../fixtures/realbed.ts';
import { requireTool } from '../fixtures/tools.ts';
import { BEDS } from './fixtures.ts';

interface Machine {
  metadata: { name: string; annotations?: Record<string, string>; deletionTimestamp?: string };
  spec: { providerID?: string };
  status?: { nodeRef?: { name?: string } };
}
interface Node {
  metadata: { name: string; labels?: Record<string, string> };
  spec: { providerID?: string; taints?: Array<{ key: string }> };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

for (const bed of BEDS.filter((b) => b === 'real'))
  describe(`e2e (${bed}): Cluster API's controllers turn Machines into kwok Nodes of the bed`, function () {
    this.timeout(240_000);
    let real: RealBed | undefined;
    let capi: CapiBed | undefined;
    /** The MachineDeployment's first Machine: the last its deletion order (Newest) would take. */
    let oldest = '';

    before(async function () {
      this.timeout(420_000);
      requireTool(this, 'kube-bed', 'hack/kube/build.sh builds it with Go; make test runs it');
      requireTool(this, CAPI_BED, CAPI_BED_HOW);
      if (process.env.PACER_E2E_KUBECONFIG) {
        console.log('      skipped: Cluster API here needs a kube-bed (its kwok and webhook certificate)');
        this.skip();
      }
      real = await startRealBed({ nodes: 1 });
      capi = await startCapiBed(real);
    });
    after(async () => {
      await capi?.stop();
      await real?.stop();
    });

    const kubectl = async (args: string[], input?: string) => {
      const r = await real!.kubectl(args, input);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    const machines = async (): Promise<Machine[]> =>
      (
        JSON.parse(
          await kubectl([
            'get',
            'machines.cluster.x-k8s.io',
            '-n',
            capi!.info.namespace,
            '-l',
            'cluster.x-k8s.io/deployment-name=workers',
            '-o',
            'json',
          ]),
        ) as { items: Machine[] }
      ).items;
    const nodes = async (): Promise<Node[]> =>
      (JSON.parse(await kubectl(['get', 'nodes', '-o', 'json'])) as { items: Node[] }).items;
    const ready = (n: Node) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
    /** The Machines with a Node, each with that Node, once every Machine has one and it is Ready. */
    const settled = async (want: number) => {
      const ms = await machines();
      const ns = await nodes();
      if (ms.length !== want || ms.some((m) => m.metadata.deletionTimestamp)) return false;
      const pairs = ms.map((m) => ({ m, n: ns.find((n) => n.metadata.name === m.status?.nodeRef?.name) }));
      if (pairs.some((p) => !p.n || !ready(p.n))) return false;
      return pairs as Array<{ m: Machine; n: Node }>;
    };

    it('the Cluster is the bed: its control-plane Machine has a Node there, tainted as kubeadm taints one', async () => {
      const n = (await nodes()).find((x) => x.metadata.name === capi!.info.controlPlaneNode);
      expect(n, `node ${capi!.info.controlPlaneNode}`).to.not.equal(undefined);
      expect(n!.spec.taints?.map((t) => t.key)).to.include('node-role.kubernetes.io/control-plane');
      expect(n!.spec.providerID).to.equal(`in-memory://${capi!.info.controlPlaneNode}`);
    });

    it('a MachineDeployment scaled to 4: 4 Ready Nodes, each Machine’s nodeRef naming the Node with its providerID', async () => {
      await kubectl(
        ['apply', '-f', '-'],
        capi!.machineDeployment('workers', 1, { zone: 'a', deletionOrder: 'Newest' }),
      );
      oldest = (await eventually('1 Machine with a Ready Node', () => settled(1), 60_000))[0]!.m.metadata.name;
      await kubectl([
        'scale',
        '-n',
        capi!.info.namespace,
        'machinedeployment.cluster.x-k8s.io/workers',
        '--replicas=4',
      ]);
      const pairs = await eventually('4 Machines with Ready Nodes', () => settled(4), 90_000);
      const names = pairs.map((p) => p.n.metadata.name);
      expect(new Set(names).size).to.equal(4);
      for (const { m, n } of pairs) {
        expect(m.spec.providerID, m.metadata.name).to.match(/^in-memory:\/\//);
        expect(n.spec.providerID, n.metadata.name).to.equal(m.spec.providerID);
        // Labelled by capi-kwok for kwok, and with the Machine's zone label synced by Cluster API.
        expect(n.metadata.labels?.type).to.equal('kwok');
        expect(n.metadata.labels?.['topology.kubernetes.io/zone']).to.equal('a');
      }
      // The MachineDeployment counts them available, as Cluster API's own status.
      await eventually(
        'the MachineDeployment to report 4 available',
        async () =>
          (await kubectl([
            'get',
            '-n',
            capi!.info.namespace,
            'machinedeployment.cluster.x-k8s.io/workers',
            '-o',
            'jsonpath={.status.availableReplicas}',
          ])) === '4',
        60_000,
      );
    });

    it('a Machine marked cluster.x-k8s.io/delete-machine goes first on a scale to 3 (the oldest, where the order is Newest), with its Node', async () => {
      const before = (await settled(4)) || [];
      expect(before).to.have.length(4);
      // The oldest: the MachineDeployment deletes the newest first, so only the mark makes it go.
      const victim = before.find((p) => p.m.metadata.name === oldest)!;
      expect(victim, oldest).to.not.equal(undefined);
      await kubectl([
        'annotate',
        '-n',
        capi!.info.namespace,
        `machine.cluster.x-k8s.io/${victim.m.metadata.name}`,
        'cluster.x-k8s.io/delete-machine=pacer-e2e',
      ]);
      await kubectl([
        'scale',
        '-n',
        capi!.info.namespace,
        'machinedeployment.cluster.x-k8s.io/workers',
        '--replicas=3',
      ]);
      const after = await eventually('3 Machines with Ready Nodes', () => settled(3), 90_000);
      const kept = after.map((p) => p.m.metadata.name).sort();
      expect(kept).to.deep.equal(
        before
          .map((p) => p.m.metadata.name)
          .filter((n) => n !== victim.m.metadata.name)
          .sort(),
      );
      await eventually(
        `node ${victim.n.metadata.name} to be gone`,
        async () => !(await nodes()).some((n) => n.metadata.name === victim.n.metadata.name),
        60_000,
      );
    });
  });
