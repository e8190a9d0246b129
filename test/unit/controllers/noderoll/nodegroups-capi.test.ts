// The Cluster API node-group provider's writes, against a small in-memory stand-in for the API
// server's objects (a MachineDeployment and its Machines): what each call writes, and that calling
// it again (a pass repeated after a crash) writes nothing more. The real controllers' side of the
// contract is test/e2e/capi.test.ts; a whole roll, test/e2e/capi-noderoll.test.ts.

import { expect } from 'chai';
import type { KubeClient, ResourceType } from '../../../../src/kube/client.ts';
import { KubeError } from '../../../../src/kube/errors.ts';
import {
  DELETE_MACHINE,
  REBALANCE_HELD_BY,
  clusterAPINodeGroups,
} from '../../../../src/controllers/noderoll/nodegroups.ts';

type Obj = {
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string | null>;
    deletionTimestamp?: string;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};

/** Objects by "plural/namespace/name", and every write made, as "verb plural/name body". */
function world(objs: Array<[plural: string, obj: Obj]>) {
  const store = new Map(objs.map(([p, o]) => [`${p}/${o.metadata.namespace}/${o.metadata.name}`, structuredClone(o)]));
  const writes: string[] = [];
  const key = (t: ResourceType, ns: string | undefined, name: string) => `${t.plural}/${ns}/${name}`;
  const merge = (into: Record<string, unknown>, patch: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(patch)) {
      if (v === null) delete into[k];
      else if (typeof v === 'object' && !Array.isArray(v))
        merge((into[k] ??= {}) as Record<string, unknown>, v as Record<string, unknown>);
      else into[k] = v;
    }
  };
  const client = {
    async get(t: ResourceType, ns: string | undefined, name: string) {
      const o = store.get(key(t, ns, name));
      if (!o) throw new KubeError('NotFound', `${t.plural} ${name} not found`);
      return structuredClone(o);
    },
    async list(t: ResourceType, ns: string | undefined, opts: { labelSelector?: string } = {}) {
      const [k, v] = (opts.labelSelector ?? '=').split('=');
      const items = [...store.entries()]
        .filter(([id, o]) => id.startsWith(`${t.plural}/${ns}/`) && (!k || o.metadata.labels?.[k] === v))
        .map(([, o]) => structuredClone(o));
      return { items, metadata: {} };
    },
    async patch(t: ResourceType, ns: string | undefined, name: string, body: Obj) {
      const o = store.get(key(t, ns, name));
      if (!o) throw new KubeError('NotFound', `${t.plural} ${name} not found`);
      const rv = body.metadata?.resourceVersion;
      if (rv !== undefined && rv !== o.metadata.resourceVersion)
        throw new KubeError('Conflict', `${t.plural} ${name}: the object has been modified`);
      writes.push(`patch ${t.plural}/${name} ${JSON.stringify(body)}`);
      const { resourceVersion: _, ...meta } = body.metadata ?? {};
      merge(o as unknown as Record<string, unknown>, { ...body, metadata: meta });
      o.metadata.resourceVersion = String(Number(o.metadata.resourceVersion ?? '1') + 1);
      return structuredClone(o);
    },
    async delete(t: ResourceType, ns: string | undefined, name: string) {
      if (!store.has(key(t, ns, name))) throw new KubeError('NotFound', `${t.plural} ${name} not found`);
      writes.push(`delete ${t.plural}/${name}`);
      store.get(key(t, ns, name))!.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    },
  };
  return { client: client as unknown as KubeClient, store, writes };
}

const GROUP = 'MachineDeployment/capi/workers';
const md = (spec: Record<string, unknown>, annotations?: Record<string, string>): [string, Obj] => [
  'machinedeployments',
  { metadata: { name: 'workers', namespace: 'capi', resourceVersion: '7', annotations }, spec },
];
const machine = (name: string, node: string, extra: Partial<Obj['metadata']> = {}): [string, Obj] => [
  'machines',
  {
    metadata: { name, namespace: 'capi', labels: { 'cluster.x-k8s.io/deployment-name': 'workers' }, ...extra },
    status: { nodeRef: { name: node } },
  },
];

describe('controllers: the Cluster API node-group provider', () => {
  it('scale sets the MachineDeployment’s spec.replicas', async () => {
    const w = world([md({ replicas: 2 })]);
    await clusterAPINodeGroups(w.client).scale(GROUP, 4);
    expect(w.writes).to.deep.equal(['patch machinedeployments/workers {"spec":{"replicas":4}}']);
  });

  it('terminate marks the Machine whose nodeRef is the node, then lowers replicas by one; again, it writes nothing', async () => {
    const w = world([
      md({ replicas: 4 }),
      machine('m1', 'n1'),
      machine('m2', 'n2'),
      machine('m3', 'n3'),
      machine('m4', 'n4'),
    ]);
    const p = clusterAPINodeGroups(w.client);
    await p.terminate(GROUP, 'n2', true);
    expect(w.writes).to.deep.equal([
      `patch machines/m2 {"metadata":{"annotations":{"${DELETE_MACHINE}":"true"}}}`,
      'patch machinedeployments/workers {"metadata":{"resourceVersion":"7"},"spec":{"replicas":3}}',
    ]);
    // Repeated before Cluster API has deleted m2 (a restart between the write and the next status):
    // m2 is marked and counted, 3 replicas = 4 live − 1 marked, so nothing more.
    await p.terminate(GROUP, 'n2', true);
    expect(w.writes).to.have.length(2);
  });

  it('terminate after a crash between the mark and the scale-down lowers replicas once', async () => {
    const w = world([
      md({ replicas: 4 }),
      machine('m1', 'n1', { annotations: { [DELETE_MACHINE]: 'true' } }),
      machine('m2', 'n2'),
      machine('m3', 'n3'),
      machine('m4', 'n4'),
    ]);
    await clusterAPINodeGroups(w.client).terminate(GROUP, 'n1', true);
    expect(w.writes).to.deep.equal([
      'patch machinedeployments/workers {"metadata":{"resourceVersion":"7"},"spec":{"replicas":3}}',
    ]);
  });

  it('terminate leaves a Machine already deleting, and a node no Machine has, alone', async () => {
    const w = world([
      md({ replicas: 3 }),
      machine('m1', 'n1', { deletionTimestamp: '2026-01-01T00:00:00Z' }),
      machine('m2', 'n2'),
    ]);
    const p = clusterAPINodeGroups(w.client);
    await p.terminate(GROUP, 'n1', true);
    await p.terminate(GROUP, 'gone', true);
    expect(w.writes).to.deep.equal([]);
  });

  it('a Drain roll’s terminate deletes the Machine (its MachineSet replaces it), replicas untouched', async () => {
    const w = world([md({ replicas: 2 }), machine('m1', 'n1'), machine('m2', 'n2')]);
    await clusterAPINodeGroups(w.client).terminate(GROUP, 'n1', false);
    expect(w.writes).to.deep.equal(['delete machines/m1']);
  });

  it('hold pauses the MachineDeployment’s rollout for the roll; release unpauses it only for that roll', async () => {
    const w = world([md({ replicas: 2 })]);
    const p = clusterAPINodeGroups(w.client);
    await p.holdRebalance(GROUP, 'upgrade');
    await p.holdRebalance(GROUP, 'upgrade'); // held already: nothing
    await p.releaseRebalance(GROUP, 'another'); // not its hold: nothing
    await p.releaseRebalance(GROUP, 'upgrade');
    await p.releaseRebalance(GROUP, 'upgrade'); // released already: nothing
    expect(w.writes).to.deep.equal([
      `patch machinedeployments/workers {"metadata":{"resourceVersion":"7","annotations":{"${REBALANCE_HELD_BY}":"upgrade"}},"spec":{"paused":true}}`,
      `patch machinedeployments/workers {"metadata":{"resourceVersion":"8","annotations":{"${REBALANCE_HELD_BY}":null}},"spec":{"paused":false}}`,
    ]);
  });

  it('a MachineDeployment paused by someone else stays paused after the roll', async () => {
    const w = world([md({ replicas: 2, paused: true })]);
    const p = clusterAPINodeGroups(w.client);
    await p.holdRebalance(GROUP, 'upgrade');
    await p.releaseRebalance(GROUP, 'upgrade');
    expect(w.writes).to.deep.equal([]);
  });

  it('refuses a group that is not Cluster API’s, naming it', async () => {
    const w = world([]);
    let err: unknown;
    await clusterAPINodeGroups(w.client)
      .scale('workers', 3)
      .catch((e: unknown) => {
        err = e;
      });
    expect(String(err)).to.equal(
      'Error: node group "workers" is not a Cluster API MachineDeployment or MachineSet (KIND/NAMESPACE/NAME)',
    );
  });
});
