// Issue 27's end-to-end check on the real control plane, through Cluster API's own controllers
// (hack/capi): a MachineDeployment of 4 kwok nodes over 2 zones replaced one node at a time under 6
// Deployments with PodDisruptionBudgets, with Pacer's controller a process of its own, SIGKILLed 3
// times during the roll (once the scale-up is recorded, while the second node is under way, while
// the third is); then a MachineSet of 2 (spec.nodeGroup MachineSet/capi/edge) rolled end to end.
//
// The zones: Cluster API gives every Machine of a MachineSet its template's one failure domain
// (spec.template.spec.failureDomain), so a MachineDeployment's Machines name none here and the
// infrastructure places them (capi-bed --zones a,b: a Machine goes to the zone where its
// MachineDeployment has the fewest, as a cloud's auto scaling group places an instance; its Node
// is labelled topology.kubernetes.io/zone, as a cloud's node controller labels it: hack/capi/README.md).
//
// What is checked, each from outside the controller:
// * from a watch of the pods, Nodes, Machines and the MachineDeployment, replayed in
//   resourceVersion order (test/fixtures/recorder.ts: one etcd revision counter for the cluster):
//   - never more than one node out: a node is out from its first pod's eviction until its Node is
//     deleted, and no two such spans overlap;
//   - every evicted pod gone before its node is terminated: each pod that was on an original node
//     is deleted before Pacer marks that node's Machine cluster.x-k8s.io/delete-machine, and so
//     before Cluster API deletes the Machine and its Node;
//   - each pod moved once: the pods ever deleted are exactly the pods of the original nodes, no
//     replacement is deleted;
//   - no scaling twice: the MachineDeployment's spec.replicas went 4, 8, 7, 6, 5, 4 and nothing else,
//     and 4 Machines were made;
// * from the audit log: Pacer evicted each original pod once (one accepted eviction per pod) and
//   no other pod; no request of Pacer's was refused;
// * sampled while it rolls: no Deployment below its PodDisruptionBudget's minAvailable;
// * at the end: the 4 Nodes are new, 2 in each zone, and the roll planned no zone move.

import { expect } from 'chai';
import { TEST_USER_AGENT, eventually } from '../integration/fixtures/cluster.ts';
import {
  APPS_DEPLOYMENTS,
  CAPI_MACHINEDEPLOYMENTS,
  CAPI_MACHINES,
  CAPI_MACHINESETS,
  KubeClient,
  NODEROLLS,
  NODES,
  PODS,
} from '../../src/kube/client.ts';
import { loadKubeConfig } from '../../src/kube/clientnode.ts';
import type { NodeRollStatus } from '../../src/api/noderoll.ts';
import type { KubeObject, StoreEvent } from '../../src/sim/types.ts';
import { POOL, capiNodeRoll, capiSuite, poolWorkload } from '../fixtures/capibed.ts';
import { controllerProcess } from '../fixtures/controllerprocess.ts';
import type { ControllerProcess } from '../fixtures/controllerprocess.ts';
import { ChangeRecorder } from '../fixtures/recorder.ts';
import { PACER_USER } from '../fixtures/realbed.ts';
import { BEDS } from './fixtures.ts';

const ZONE = 'topology.kubernetes.io/zone';
const DELETE_MACHINE = 'cluster.x-k8s.io/delete-machine';
const SHOP = 'shop';
/**
 * An evicted pod's graceful shutdown: it stays Terminating this long (within its 30 s grace period),
 * so that a node terminated before its pods are gone would show.
 */
const STOP_AFTER_MS = 1500;
/** The 6 Deployments: name, replicas, the PodDisruptionBudget's minAvailable. */
const WORKLOADS: Array<[string, number, number]> = [
  ['web', 4, 3],
  ['api', 3, 2],
  ['db', 2, 1],
  ['cache', 3, 2],
  ['queue', 2, 1],
  ['search', 4, 3],
];

type Obj = KubeObject & {
  metadata: KubeObject['metadata'] & { deletionTimestamp?: string };
  spec?: { nodeName?: string; replicas?: number; paused?: boolean };
  status?: {
    nodeRef?: { name?: string };
    availableReplicas?: number;
    conditions?: Array<{ type: string; status: string }>;
  };
};
const ready = (n: Obj) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

for (const bed of BEDS.filter((b) => b === 'real'))
  describe(`e2e (${bed}): a Cluster API MachineDeployment of 4 nodes over 2 zones rolled under 6 Deployments with PDBs, the controller SIGKILLed 3 times`, function () {
    this.timeout(900_000);
    let controller: ControllerProcess | undefined;
    let recorder: ChangeRecorder | undefined;
    after(async () => {
      await controller?.stop();
      await recorder?.stop();
    });
    const s = capiSuite({ bed: { nodes: 1, podStartMs: 50, podReadyMs: 80 }, zones: ['a', 'b'] });
    let client: KubeClient;
    before(function () {
      if (!s.real) this.skip();
      client = new KubeClient(loadKubeConfig({ kubeconfig: s.real.info.kubeconfig }), { userAgent: TEST_USER_AGENT });
    });
    const poolNodes = async (pool: string) =>
      (await client.list<Obj>(NODES, undefined, { labelSelector: `${POOL}=${pool}` })).items;
    const zonesOf = (nodes: Obj[]) => {
      const counts: Record<string, number> = {};
      for (const n of nodes) {
        const z = n.metadata.labels?.[ZONE] ?? '(none)';
        counts[z] = (counts[z] ?? 0) + 1;
      }
      return counts;
    };
    const rollStatus = async (name: string) =>
      (await client.get<{ status?: NodeRollStatus }>(NODEROLLS, undefined, name)).status;
    /**
     * Samples (`sample`, given the roll's status, saying what it saw) every 250 ms until the roll is
     * Complete; a roll Paused or Invalid fails at once, a roll not done in `ms` fails with what was
     * seen last. A failed request is tried again at the next sample.
     */
    const untilComplete = async (
      name: string,
      ms: number,
      sample: (st: NodeRollStatus | undefined) => Promise<string>,
    ): Promise<NodeRollStatus> => {
      const end = Date.now() + ms;
      let last = '';
      for (;;) {
        let st: NodeRollStatus | undefined;
        try {
          st = await rollStatus(name);
          last = `NodeRoll ${name} ${st?.phase} (${st?.message ?? ''}); ${await sample(st)}`;
        } catch (err) {
          last = `${last} [sampling failed: ${(err as Error).message}]`;
        }
        if (st?.phase === 'Complete') return st;
        if (st?.phase === 'Paused' || st?.phase === 'Invalid') throw new Error(`the roll stopped: ${last}`);
        if (Date.now() > end) throw new Error(`the roll was not Complete after ${ms / 1000} s; last seen: ${last}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    };

    it('replaces the 4 nodes one at a time: one node out at most, every Deployment at its minimum, each pod moved once and gone before its node, no second scale-up, zones balanced', async () => {
      const ns = s.capi.info.namespace;
      await s.kubectl(['apply', '-f', '-'], s.capi.machineDeployment('workers', 4, { labels: { [POOL]: 'workers' } }));
      const original = await eventually(
        '4 Ready Nodes of the MachineDeployment, placed in the zones',
        async () => {
          const nodes = await poolNodes('workers');
          return nodes.length === 4 && nodes.every(ready) && nodes.every((n) => n.metadata.labels?.[ZONE]) && nodes;
        },
        180_000,
      );
      expect(zonesOf(original), 'the infrastructure spread the 4 Machines').to.deep.equal({ a: 2, b: 2 });
      const originalNodes = new Set(original.map((n) => n.metadata.name!));

      await s.kubectl(['create', 'namespace', SHOP]);
      await s.kubectl(
        ['apply', '-f', '-'],
        WORKLOADS.map(([name, replicas, minAvailable]) =>
          poolWorkload(name, { namespace: SHOP, pool: 'workers', replicas, minAvailable, stopAfterMs: STOP_AFTER_MS }),
        ).join('---\n'),
      );
      await eventually(
        'the 6 Deployments to be available',
        async () => {
          const ds = (await client.list<Obj>(APPS_DEPLOYMENTS, SHOP)).items;
          return (
            ds.length === 6 &&
            ds.every((d) => d.status?.availableReplicas === WORKLOADS.find(([n]) => n === d.metadata.name)![1])
          );
        },
        120_000,
      );
      // The pods of the original nodes, by uid: those the roll must move, once each.
      const pods = (await client.list<Obj>(PODS, SHOP)).items;
      expect(pods).to.have.length(WORKLOADS.reduce((sum, [, r]) => sum + r, 0));
      const originalPods = new Map(pods.map((p) => [p.metadata.uid!, p]));
      for (const p of pods) expect(originalNodes, `${p.metadata.name}'s node`).to.include(p.spec!.nodeName);

      const machinesBefore = new Set((await client.list<Obj>(CAPI_MACHINES, ns)).items.map((m) => m.metadata.name!));
      recorder = new ChangeRecorder(client, SHOP, [
        PODS,
        NODES,
        { type: CAPI_MACHINES, namespace: ns },
        { type: CAPI_MACHINEDEPLOYMENTS, namespace: ns },
      ]);
      await eventually('the watches to deliver the current state', async () => {
        const seen = new Set((await recorder!.changes()).map((e) => e.object.metadata.uid));
        return [...originalPods.keys()].every((uid) => seen.has(uid));
      });

      controller = await controllerProcess(await s.real.controllerKubeconfig());
      controller.start();
      await s.kubectl(
        ['apply', '-f', '-'],
        capiNodeRoll('workers', { pool: 'workers', nodeGroup: `MachineDeployment/${ns}/workers`, desiredNodes: 4 }),
      );

      // Sampled until the roll ends: each Deployment's fewest available, and the moments to kill at.
      const fewest = new Map<string, number>();
      const kills: string[] = [];
      const killAt = async (why: string) => {
        kills.push(why);
        await controller!.kill();
        controller!.start();
      };
      const status = await untilComplete('workers', 600_000, async (st) => {
        for (const d of (await client.list<Obj>(APPS_DEPLOYMENTS, SHOP)).items)
          fewest.set(
            d.metadata.name!,
            Math.min(fewest.get(d.metadata.name!) ?? Infinity, d.status?.availableReplicas ?? 0),
          );
        const steps = st?.nodes ?? [];
        const done = steps.filter((n) => n.step === 'Done').length;
        const under = steps.filter((n) => n.step !== 'Done' && n.step !== 'Pending').map((n) => `${n.name} ${n.step}`);
        // Killed once the scale-up is recorded, then while the second and the third node are under way.
        if (kills.length === 0 && st?.scaledUpTo !== undefined) await killAt(`scaled up to ${st.scaledUpTo}`);
        else if (kills.length === 1 && done === 1 && under.length > 0) await killAt(`1 node done, ${under.join(', ')}`);
        else if (kills.length === 2 && done === 2 && under.length > 0)
          await killAt(`2 nodes done, ${under.join(', ')}`);
        return `nodes ${JSON.stringify(steps.map((n) => `${n.name} ${n.step}`))}`;
      });
      console.log(`      (SIGKILLed: ${kills.join('; ')})`);
      expect(kills, 'killed at each of the 3 moments').to.have.length(3);
      expect(status.scaledUpTo).to.equal(8);
      expect(status.zoneMoves?.planned ?? 0, 'zone moves planned').to.equal(0);
      for (const [name, , minAvailable] of WORKLOADS)
        expect(fewest.get(name), `${name}'s fewest available (PDB minAvailable ${minAvailable})`).to.be.at.least(
          minAvailable,
        );

      // The end: 4 new Nodes, 2 in each zone; every Deployment whole on them.
      const now = await eventually(
        '4 Nodes in the pool, none of the old ones',
        async () => {
          const nodes = await poolNodes('workers');
          return nodes.length === 4 && nodes.every((n) => !originalNodes.has(n.metadata.name!)) && nodes;
        },
        120_000,
      );
      expect(zonesOf(now), 'the zones at the end').to.deep.equal({ a: 2, b: 2 });
      await eventually(
        'the 6 Deployments to be available on the new nodes',
        async () =>
          (await client.list<Obj>(APPS_DEPLOYMENTS, SHOP)).items.every(
            (d) => d.status?.availableReplicas === WORKLOADS.find(([n]) => n === d.metadata.name)![1],
          ),
        120_000,
      );

      const changes = await recorder.changes();
      const trail = replay(changes, originalNodes, originalPods, machinesBefore);
      expect(trail.replicas, 'the MachineDeployment’s spec.replicas, every value it had').to.deep.equal([
        4, 8, 7, 6, 5, 4,
      ]);
      expect(trail.machinesMade, 'Machines made during the roll').to.equal(4);
      expect(trail.deletedPods.sort(), 'the pods deleted: the original nodes’ pods, each once').to.deep.equal(
        [...originalPods.values()].map((p) => p.metadata.name!).sort(),
      );
      for (const node of originalNodes) {
        const t = trail.nodes.get(node)!;
        expect(t.firstEviction, `${node}: one of its pods evicted`).to.not.equal(undefined);
        expect(t.deleted, `${node}: Node deleted`).to.not.equal(undefined);
        expect(t.marked, `${node}: its Machine marked ${DELETE_MACHINE}`).to.not.equal(undefined);
        expect(t.lastPodGone, `${node}: its pods gone`).to.not.equal(undefined);
        expect(t.lastPodGone!, `${node}: its last pod deleted (rv) before its Machine was marked`).to.be.below(
          t.marked!,
        );
        expect(t.marked!, `${node}: marked before the Node was deleted`).to.be.below(t.deleted!);
      }
      const spans = [...trail.nodes.entries()]
        .map(([node, t]) => ({ node, from: t.firstEviction!, to: t.deleted! }))
        .sort((a, b) => a.from - b.from);
      for (let i = 1; i < spans.length; i++)
        expect(
          spans[i]!.from,
          `${spans[i]!.node}'s first eviction (rv) after ${spans[i - 1]!.node}'s Node was deleted`,
        ).to.be.above(spans[i - 1]!.to);

      // The audit log: one accepted eviction per original pod, by Pacer, and none refused by RBAC.
      const evictions = new Map<string, number>();
      for (const e of await s.real.audit())
        if (
          e.user.username === PACER_USER &&
          e.verb === 'create' &&
          e.objectRef?.subresource === 'eviction' &&
          (e.responseStatus?.code === 200 || e.responseStatus?.code === 201)
        )
          evictions.set(e.objectRef.name!, (evictions.get(e.objectRef.name!) ?? 0) + 1);
      expect(Object.fromEntries(evictions)).to.deep.equal(
        Object.fromEntries([...originalPods.values()].map((p) => [p.metadata.name!, 1])),
      );
      expect(await s.real.forbidden()).to.deep.equal([]);
      await recorder.stop();
      recorder = undefined;
    });

    it('a MachineSet (spec.nodeGroup MachineSet/NS/NAME) of 2 Machines replaced the same way', async () => {
      const ns = s.capi.info.namespace;
      await s.kubectl(['apply', '-f', '-'], s.capi.machineSet('edge', 2, { labels: { [POOL]: 'edge' } }));
      const original = await eventually(
        '2 Ready Nodes of the MachineSet',
        async () => {
          const nodes = await poolNodes('edge');
          return nodes.length === 2 && nodes.every(ready) && nodes;
        },
        180_000,
      );
      const originalNodes = original.map((n) => n.metadata.name!);
      const machines = async () =>
        (await client.list<Obj>(CAPI_MACHINES, ns, { labelSelector: 'cluster.x-k8s.io/set-name=edge' })).items;
      const originalMachines = (await machines()).map((m) => m.metadata.name!);
      expect(originalMachines).to.have.length(2);
      await s.kubectl(['create', 'namespace', 'edge']);
      await s.kubectl(
        ['apply', '-f', '-'],
        poolWorkload('edge', { namespace: 'edge', pool: 'edge', replicas: 2, minAvailable: 1 }),
      );
      await eventually(
        'edge to be available',
        async () => (await client.get<Obj>(APPS_DEPLOYMENTS, 'edge', 'edge')).status?.availableReplicas === 2,
        120_000,
      );
      if (!controller) {
        controller = await controllerProcess(await s.real.controllerKubeconfig());
        controller.start();
      }
      await s.kubectl(
        ['apply', '-f', '-'],
        capiNodeRoll('edge', { pool: 'edge', nodeGroup: `MachineSet/${ns}/edge`, desiredNodes: 2 }),
      );
      let most = 0;
      let fewest = Infinity;
      let pausedSeen = false;
      const status = await untilComplete('edge', 300_000, async (st) => {
        const set = await client.get<Obj>(CAPI_MACHINESETS, ns, 'edge');
        most = Math.max(most, set.spec?.replicas ?? 0);
        if (set.spec?.paused) pausedSeen = true;
        fewest = Math.min(
          fewest,
          (await client.get<Obj>(APPS_DEPLOYMENTS, 'edge', 'edge')).status?.availableReplicas ?? 0,
        );
        return `MachineSet replicas ${set.spec?.replicas}; NodeRoll scaledUpTo ${st?.scaledUpTo}`;
      });
      expect(status.scaledUpTo).to.equal(4);
      expect(most, 'the MachineSet never asked for more than 2 + 2').to.equal(4);
      expect(pausedSeen, 'a MachineSet has no rollout to hold').to.equal(false);
      expect(fewest, 'edge never below its PDB’s minAvailable').to.be.at.least(1);
      expect((await client.get<Obj>(CAPI_MACHINESETS, ns, 'edge')).spec?.replicas).to.equal(2);
      const now = await eventually(
        'the old Machines and Nodes to be gone',
        async () => {
          const ms = await machines();
          const nodes = await poolNodes('edge');
          return ms.length === 2 && nodes.length === 2 && { ms, nodes };
        },
        120_000,
      );
      expect(now.ms.map((m) => m.metadata.name).filter((m) => originalMachines.includes(m!))).to.deep.equal([]);
      expect(now.nodes.map((n) => n.metadata.name).filter((n) => originalNodes.includes(n!))).to.deep.equal([]);
      await eventually(
        'edge to be whole on the new nodes',
        async () => (await client.get<Obj>(APPS_DEPLOYMENTS, 'edge', 'edge')).status?.availableReplicas === 2,
        120_000,
      );
      expect(await s.real.forbidden()).to.deep.equal([]);
    });
  });

/** What the recorded changes, in resourceVersion order, say about the roll. */
interface Trail {
  /** spec.replicas of the MachineDeployment, each value once in the order it had them. */
  replicas: number[];
  /** Machines that were not there when the recording started. */
  machinesMade: number;
  /** The pods that were deleted, by name, once per deletion. */
  deletedPods: string[];
  /** Per original node, the resourceVersions of its moments. */
  nodes: Map<string, { firstEviction?: number; lastPodGone?: number; marked?: number; deleted?: number }>;
}

function replay(
  changes: StoreEvent[],
  originalNodes: Set<string>,
  originalPods: Map<string, Obj>,
  machinesBefore: Set<string>,
): Trail {
  const trail: Trail = { replicas: [], machinesMade: 0, deletedPods: [], nodes: new Map() };
  for (const n of originalNodes) trail.nodes.set(n, {});
  const made = new Set<string>();
  for (const e of changes) {
    const o = e.object as Obj;
    switch (e.ref.resource) {
      case 'machinedeployments': {
        const r = o.spec?.replicas;
        if (r !== undefined && trail.replicas.at(-1) !== r) trail.replicas.push(r);
        break;
      }
      case 'machines': {
        const name = o.metadata.name!;
        if (!machinesBefore.has(name)) made.add(name);
        const node = o.status?.nodeRef?.name;
        const t = node ? trail.nodes.get(node) : undefined;
        if (t && t.marked === undefined && o.metadata.annotations?.[DELETE_MACHINE] !== undefined)
          t.marked = e.resourceVersion;
        break;
      }
      case 'pods': {
        const was = originalPods.get(o.metadata.uid!);
        const leaving = e.type === 'DELETED' || o.metadata.deletionTimestamp !== undefined;
        if (!leaving) break;
        if (e.type === 'DELETED') trail.deletedPods.push(o.metadata.name!);
        const t = was ? trail.nodes.get(was.spec!.nodeName!) : undefined;
        if (!t) break;
        t.firstEviction ??= e.resourceVersion;
        if (e.type === 'DELETED') t.lastPodGone = e.resourceVersion;
        break;
      }
      case 'nodes': {
        const t = trail.nodes.get(o.metadata.name!);
        if (t && e.type === 'DELETED') t.deleted = e.resourceVersion;
        break;
      }
    }
  }
  trail.machinesMade = made.size;
  return trail;
}
