// A Drain roll in place (no spec.nodeGroup) through the real kubectl and the plugin, over the bed's
// 3 nodes (kwok's on the real control plane), with real PodDisruptionBudgets and the Eviction API:
// * a roll that completes: each node cordoned, drained (every evicted pod gone) and uncordoned in
//   turn, seen from outside by a watch; the web Deployment never below its PDB's minAvailable;
// * a roll a PDB blocks (minAvailable = replicas): paused with DrainTimeout on the node of that pod
//   after the spec's short drain timeout; `kubectl pacer node-roll skip` rolls the others and comes
//   back to it, paused again; the PDB relaxed, `kubectl pacer node-roll resume` finishes;
// * (real bed) the node roller's part of manifests/base/rbac.yaml proven minimal from the API
//   server's audit log: Pacer ran as its ServiceAccount, nothing it asked was refused, the role
//   allowed every request, and every grant of the node roller's rules was used, except those of the
//   node group providers this bed has not (the simulated cluster's NodeGroups, Cluster API).

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pod } from '../../src/api/types.ts';
import { KubeClient, NODES, PODS } from '../../src/kube/client.ts';
import { loadKubeConfig } from '../../src/kube/clientnode.ts';
import type { ResourceType } from '../../src/kube/client.ts';
import { TEST_USER_AGENT, eventually } from '../integration/fixtures/cluster.ts';
import {
  RBAC_FILE,
  deniedBy,
  describePermission,
  isNodeRollerRule,
  pacerRequests,
  policyRules,
  providerOf,
  unusedGrants,
} from '../fixtures/rbac.ts';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';

const POOL = 'e2e.pacer.dev/pool';

type Node = { metadata: { name: string }; spec?: { unschedulable?: boolean } };
type RollStatus = {
  phase?: string;
  message?: string;
  paused?: { node?: string; wait: string; message: string };
  skipped?: string[];
  nodes?: Array<{ name: string; step: string }>;
  conditions?: Array<{ type: string; status: string; reason: string; message: string }>;
};

/** Follows every change of `t` (resumed where it ended) until `signal` aborts; `on` sees each object. */
async function follow<T>(client: KubeClient, t: ResourceType, on: (o: T) => void, signal: AbortSignal) {
  let rv = '';
  while (!signal.aborted) {
    try {
      await client.watch<T & { metadata?: { resourceVersion?: string } }>(
        t,
        undefined,
        { resourceVersion: rv, timeoutSeconds: 300 },
        (e) => {
          const v = e.object?.metadata?.resourceVersion;
          if (v) rv = v;
          if (e.type === 'ADDED' || e.type === 'MODIFIED') on(e.object);
        },
        signal,
      );
    } catch {
      if (!signal.aborted) await new Promise((r) => setTimeout(r, 200));
    }
  }
}

for (const bed of BEDS)
  describe(`e2e (${bed}): a Drain roll in place, PodDisruptionBudgets and the Eviction API`, function () {
    this.timeout(240_000);
    const k = kubectlEnv({
      bed,
      tmpPrefix: 'pacer-drain-',
      plugin: true,
      sim: { nodes: 3, zones: ['a', 'b', 'c'], podStartMs: 50, podReadyMs: 80 },
    });
    const { kubectl, ok } = k;
    let client: KubeClient;
    let nodes: string[] = [];
    const watching = new AbortController();
    /** Each node's spec.unschedulable as seen from outside, changes only. */
    const cordons = new Map<string, boolean[]>();
    /** The fewest available web pods seen (its Deployment's status). */
    let lowestWeb = Infinity;
    let follows: Array<Promise<void>> = [];

    before(async function () {
      this.timeout(300_000);
      await k.start(this);
      await ok(kubectl('apply', '-f', join(ROOT, 'crds')));
      await eventually('the CRDs to be served', async () => (await kubectl('get', 'noderolls')).code === 0);
      client = new KubeClient(loadKubeConfig({ kubeconfig: join(k.dir, 'kubeconfig') }), {
        userAgent: TEST_USER_AGENT,
      });
      nodes = (await ok(kubectl('get', 'nodes', '-o', 'jsonpath={.items[*].metadata.name}'))).split(' ').sort();
      expect(nodes).to.have.length(3);
      await ok(kubectl('label', 'nodes', ...nodes, `${POOL}=workers`));
      follows = [
        follow<Node>(
          client,
          NODES,
          (n) => {
            const seen = cordons.get(n.metadata.name) ?? [];
            const now = n.spec?.unschedulable === true;
            if (seen.at(-1) !== now) cordons.set(n.metadata.name, [...seen, now]);
          },
          watching.signal,
        ),
      ];
      await k.startController();
    });
    after(async () => {
      watching.abort();
      await Promise.allSettled(follows);
      await k.stop();
    });

    const status = async (name: string) =>
      JSON.parse(await ok(kubectl('get', 'noderoll', name, '-o', 'jsonpath={.status}'))) as RollStatus;
    const apply = async (file: string, docs: string[]) => {
      const path = join(k.dir, file);
      await writeFile(path, docs.join('---\n'));
      return ok(kubectl('apply', '-f', path));
    };
    /** A Pacer Deployment that may lose one pod by its own strategy (the PDB says the rest). */
    const deployment = (name: string, replicas: number) =>
      [
        'apiVersion: pacer.dev/v1alpha1',
        'kind: Deployment',
        `metadata: {name: ${name}}`,
        'spec:',
        `  replicas: ${replicas}`,
        '  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}',
        `  selector: {matchLabels: {app: ${name}}}`,
        '  template:',
        // Each evicted pod takes a second to stop (within its grace period): the drain waits for it.
        `    metadata: {labels: {app: ${name}}, annotations: {sim.pacer.dev/stop-after-ms: "1000"}}`,
        `    spec: {terminationGracePeriodSeconds: 5, containers: [{name: app, image: "${name}:1"}]}`,
        '',
      ].join('\n');
    const pdb = (name: string, minAvailable: number) =>
      `apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: ${name}}\nspec: {minAvailable: ${minAvailable}, selector: {matchLabels: {app: ${name}}}}\n`;
    const roll = (name: string, drain: string) =>
      [
        'apiVersion: pacer.dev/v1alpha1',
        'kind: NodeRoll',
        `metadata: {name: ${name}}`,
        'spec:',
        '  mode: Drain',
        `  nodeSelector: {matchLabels: {${POOL}: workers}}`,
        `  timeouts: {drain: ${drain}, healthy: 2m}`,
        '',
      ].join('\n');
    const available = async (name: string) =>
      Number(await ok(kubectl('get', 'pdeploy', name, '-o', 'jsonpath={.status.availableReplicas}')));

    it('completes: each node cordoned, drained and uncordoned in turn; web never below its PDB; nothing terminated', async () => {
      await apply('web.yaml', [deployment('web', 3), pdb('web', 2)]);
      await eventually('web available', async () => (await available('web')) === 3, 90_000);
      const sampling = new AbortController();
      follows.push(
        follow<{ metadata: { name: string }; status?: { availableReplicas?: number } }>(
          client,
          { group: 'pacer.dev', version: 'v1alpha1', plural: 'deployments', kind: 'Deployment', namespaced: true },
          (d) => {
            if (d.metadata.name === 'web') lowestWeb = Math.min(lowestWeb, d.status?.availableReplicas ?? 0);
          },
          sampling.signal,
        ),
      );
      const before = (await client.list<Pod>(PODS, 'default')).items.map((p) => p.metadata.name);
      expect(await apply('roll.yaml', [roll('maintenance', '2m')])).to.equal(
        'noderoll.pacer.dev/maintenance created\n',
      );
      let last: RollStatus = {};
      await eventually(
        'the roll to complete',
        async () => {
          last = await status('maintenance');
          if (last.phase === 'Paused' || last.phase === 'Invalid')
            throw new Error(`the roll stopped: ${last.phase}: ${last.message}`);
          return last.phase === 'Complete';
        },
        150_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; last seen: ${JSON.stringify(last)}`);
      });
      sampling.abort();
      expect(last.message).to.equal('every original node has been drained in place and uncordoned');
      expect(last.nodes!.map((n) => [n.name, n.step])).to.deep.equal(nodes.map((n) => [n, 'Done']));
      await eventually('the watch to see the last uncordon', () =>
        nodes.every((n) => cordons.get(n)?.at(-1) === false),
      );
      expect(
        Object.fromEntries(nodes.map((n) => [n, cordons.get(n)])),
        'each node cordoned once and uncordoned after',
      ).to.deep.equal(Object.fromEntries(nodes.map((n) => [n, [false, true, false]])));
      expect(
        (await ok(kubectl('get', 'nodes', '-l', `${POOL}=workers`, '-o', 'name'))).trim().split('\n'),
        'no node terminated',
      ).to.have.length(3);
      expect(lowestWeb, "web never below its PDB's minAvailable").to.be.at.least(2);
      const after = (await client.list<Pod>(PODS, 'default')).items.map((p) => p.metadata.name);
      expect(
        after.filter((p) => before.includes(p)),
        'every pod of web was evicted once its node drained',
      ).to.deep.equal([]);
      const text = await ok(kubectl('pacer', 'node-roll', 'status', 'maintenance'));
      expect(text.split('\n').slice(0, 3)).to.deep.equal([
        'NodeRoll maintenance: Complete',
        '  every original node has been drained in place and uncordoned',
        'Mode: Drain, 1 node(s) at a time, in place (no group)',
      ]);
      expect(await ok(kubectl('get', 'noderolls'))).to.match(
        /^NAME\s+MODE\s+PHASE\s+AGE\nmaintenance\s+Drain\s+Complete\s+\S+\n$/,
      );
    });

    it('blocked by a PDB (minAvailable = replicas): paused with DrainTimeout; skip rolls the others and comes back; resume, once the PDB is relaxed, finishes', async () => {
      // db alone: with a drain timeout this short, only the drain the PDB blocks may time out.
      await ok(kubectl('delete', '-f', join(k.dir, 'web.yaml'), '--wait=false'));
      await eventually('web gone', async () => (await client.list<Pod>(PODS, 'default')).items.length === 0, 60_000);
      await apply('db.yaml', [deployment('db', 1), pdb('db', 1)]);
      await eventually('db available', async () => (await available('db')) === 1, 90_000);
      const dbPod = () =>
        client
          .list<Pod>(PODS, 'default', { labelSelector: 'app=db' })
          .then((l) => l.items.filter((p) => !p.metadata.deletionTimestamp));
      const dbNode = (await dbPod())[0]!.spec!.nodeName as string;
      await apply('blocked.yaml', [roll('blocked', '3s')]);
      const paused = await eventually(
        "the roll paused on db's node",
        async () => {
          const st = await status('blocked');
          return st.paused !== undefined && st;
        },
        120_000,
      );
      expect(paused.phase).to.equal('Paused');
      expect(paused.paused).to.deep.include({ node: dbNode, wait: 'drain' });
      // Pacer's own budget lets db lose its pod (maxUnavailable 1): the API server's PDB refused it.
      expect(paused.paused!.message).to.match(new RegExp(`^node ${dbNode}: 1 pod\\(s\\) not evicted after \\d+ s$`));
      expect(paused.conditions?.find((c) => c.type === 'Paused')).to.deep.include({
        status: 'True',
        reason: 'DrainTimeout',
      });
      expect((await ok(kubectl('pacer', 'node-roll', 'status', 'blocked'))).split('\n')[0]).to.equal(
        'NodeRoll blocked: Paused',
      );

      expect(await ok(kubectl('pacer', 'node-roll', 'skip', 'blocked', dbNode))).to.equal(
        `noderoll.pacer.dev/blocked: node ${dbNode} skipped (revisited once the others are done)\n`,
      );
      let seen: RollStatus = {};
      const again = await eventually(
        "the others done, paused again on db's node",
        async () => {
          const st = (seen = await status('blocked'));
          return (
            st.skipped?.includes(dbNode) &&
            st.paused?.node === dbNode &&
            st.nodes!.filter((n) => n.step === 'Done').length === 2 &&
            st
          );
        },
        120_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; last seen: ${JSON.stringify(seen)}`);
      });
      expect(again.nodes!.filter((n) => n.step === 'Done').map((n) => n.name)).to.deep.equal(
        nodes.filter((n) => n !== dbNode),
      );
      expect(
        await ok(kubectl('get', 'node', dbNode, '-o', 'jsonpath={.spec.unschedulable}')),
        'the skipped node stayed cordoned',
      ).to.equal('true');

      await ok(kubectl('delete', 'pdb', 'db'));
      expect(await ok(kubectl('pacer', 'node-roll', 'resume', 'blocked'))).to.equal(
        'noderoll.pacer.dev/blocked resumed\n',
      );
      await eventually('the roll to complete', async () => (await status('blocked')).phase === 'Complete', 120_000);
      const moved = await eventually('db on another node', async () => {
        const pods = await dbPod();
        return pods.length === 1 && pods[0]!.spec!.nodeName !== dbNode && pods[0]!.spec!.nodeName;
      });
      expect(nodes).to.include(moved);
      expect(
        await ok(kubectl('get', 'node', dbNode, '-o', 'jsonpath={.spec.unschedulable}')),
        'uncordoned at the end (false: the real API server leaves it out)',
      ).to.be.oneOf(['', 'false']);
    });

    if (bed === 'real')
      it("the node roller's part of the role is minimal: every request allowed and none refused, every grant used but those of providers this bed has not", async () => {
        // Stopped first, so that every request it made is in the log.
        await k.controller!.stop();
        const used = pacerRequests(await k.real.audit());
        expect(await k.real.forbidden()).to.deep.equal([]);
        const rules = policyRules(readFileSync(RBAC_FILE, 'utf8'));
        expect(deniedBy(rules, used), 'requests the roles do not allow').to.deep.equal([]);
        const roller = rules.filter(isNodeRollerRule);
        const here = roller.filter((r) => providerOf(r) === undefined);
        expect(
          unusedGrants(here, used).map(describePermission),
          "the node roller's grants a Drain roll in place never used",
        ).to.deep.equal([]);
        // What this bed cannot use: the providers' grants, and none of them was used.
        const elsewhere = roller.filter((r) => providerOf(r) !== undefined);
        expect(unusedGrants(elsewhere, used).map(describePermission)).to.deep.equal([
          'delete nodes',
          'get sim.pacer.dev/nodegroups',
          'patch sim.pacer.dev/nodegroups',
          'get cluster.x-k8s.io/machinedeployments',
          'patch cluster.x-k8s.io/machinedeployments',
          'get cluster.x-k8s.io/machinesets',
          'patch cluster.x-k8s.io/machinesets',
          'list cluster.x-k8s.io/machines',
          'patch cluster.x-k8s.io/machines',
          'delete cluster.x-k8s.io/machines',
        ]);
      });
  });
