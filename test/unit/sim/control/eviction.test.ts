import { expect } from 'chai';
import { evictPod } from '../../../../src/sim/control/eviction.ts';
import { Store } from '../../../../src/sim/store.ts';
import { REF } from '../../../../src/sim/resources.ts';
import { isReady, podsOf, replicaSet, startCluster, statusOf, waitFor, type Cluster } from './helpers.ts';

const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";

function tooMany(cause: string) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: VIOLATION,
    reason: 'TooManyRequests',
    details: { causes: [{ reason: 'DisruptionBudget', message: cause }] },
    code: 429,
  };
}

interface Row {
  name: string;
  pod?: { phase?: string; ready?: boolean; deleting?: boolean };
  pdbs?: Array<{
    name?: string;
    status: Record<string, unknown>;
    generation?: number;
    unhealthyPodEvictionPolicy?: string;
  }>;
  body?: unknown;
  code: number;
  body201?: boolean;
  want?: object;
  podDeleted: boolean;
  /** disruptionsAllowed of the (first) budget afterwards. */
  allowedAfter?: number;
}

const rows: Row[] = [
  { name: 'no budget: evicted', code: 201, podDeleted: true },
  {
    name: 'budget allows one: evicted and decremented',
    pdbs: [{ status: { disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2 } }],
    code: 201,
    podDeleted: true,
    allowedAfter: 0,
  },
  {
    name: 'budget allows none: 429 with the cause',
    pdbs: [{ status: { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2 } }],
    code: 429,
    want: tooMany('The disruption budget web-pdb needs 2 healthy pods and has 2 currently'),
    podDeleted: false,
    allowedAfter: 0,
  },
  {
    name: 'budget not observed yet: 429 still being processed',
    pdbs: [{ generation: 2, status: { observedGeneration: 1, disruptionsAllowed: 5 } }],
    code: 429,
    want: tooMany('The disruption budget web-pdb is still being processed by the server.'),
    podDeleted: false,
    allowedAfter: 5,
  },
  {
    name: 'negative disruptionsAllowed: 403',
    pdbs: [{ status: { disruptionsAllowed: -1 } }],
    code: 403,
    podDeleted: false,
    want: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message: 'poddisruptionbudget.policy "web-pdb" is forbidden: pdb disruptions allowed is negative',
      details: { name: 'web-pdb', group: 'policy', kind: 'poddisruptionbudget' },
    },
  },
  {
    name: 'two budgets: 500',
    pdbs: [{ status: { disruptionsAllowed: 1 } }, { name: 'other', status: { disruptionsAllowed: 1 } }],
    code: 500,
    podDeleted: false,
    want: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      reason: 'InternalError',
      code: 500,
      message:
        'Internal error occurred: This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      details: {
        causes: [
          {
            message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
          },
        ],
      },
    },
  },
  {
    name: 'a Pending pod bypasses the budget',
    pod: { phase: 'Pending' },
    pdbs: [{ status: { disruptionsAllowed: 0 } }],
    code: 201,
    podDeleted: true,
    allowedAfter: 0,
  },
  {
    name: 'a Failed pod bypasses the budget',
    pod: { phase: 'Failed', ready: false },
    pdbs: [{ status: { disruptionsAllowed: 0 } }],
    code: 201,
    podDeleted: true,
    allowedAfter: 0,
  },
  {
    name: 'a Succeeded pod bypasses the budget',
    pod: { phase: 'Succeeded', ready: false },
    pdbs: [{ status: { disruptionsAllowed: 0 } }],
    code: 201,
    podDeleted: true,
    allowedAfter: 0,
  },
  {
    name: 'a terminating pod bypasses the budget',
    pod: { deleting: true },
    pdbs: [{ status: { disruptionsAllowed: 0 } }],
    code: 201,
    podDeleted: true,
    allowedAfter: 0,
  },
  {
    name: 'an unready pod goes free while the budget is healthy',
    pod: { ready: false },
    pdbs: [{ status: { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2 } }],
    code: 201,
    podDeleted: true,
    allowedAfter: 0,
  },
  {
    name: 'an unready pod with an unhealthy budget is refused',
    pod: { ready: false },
    pdbs: [{ status: { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 2 } }],
    code: 429,
    want: tooMany('The disruption budget web-pdb needs 2 healthy pods and has 1 currently'),
    podDeleted: false,
  },
  {
    name: 'AlwaysAllow lets an unready pod go',
    pod: { ready: false },
    pdbs: [
      {
        unhealthyPodEvictionPolicy: 'AlwaysAllow',
        status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 2 },
      },
    ],
    code: 201,
    podDeleted: true,
    allowedAfter: 0,
  },
  {
    name: 'dry run: allowed, nothing changes',
    body: { deleteOptions: { dryRun: ['All'] } },
    pdbs: [{ status: { disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2 } }],
    code: 201,
    podDeleted: false,
    allowedAfter: 1,
  },
  {
    name: 'name mismatch: 400',
    body: { metadata: { name: 'other' } },
    code: 400,
    podDeleted: false,
    want: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      reason: 'BadRequest',
      code: 400,
      message: 'name in URL does not match name in Eviction object',
    },
  },
];

function setup(row: Row): Store {
  const store = new Store();
  store.create(REF.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  const p = row.pod ?? {};
  store.create(REF.pods, 'default', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-1', labels: { app: 'web' }, ...(p.deleting ? { finalizers: ['test/hold'] } : {}) },
    spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'nginx' }] },
  });
  store.mutate(
    REF.pods,
    'default',
    'web-1',
    (o) => ({
      ...o,
      status: {
        phase: p.phase ?? 'Running',
        conditions: [{ type: 'Ready', status: p.ready === false ? 'False' : 'True' }],
      },
    }),
    { subresource: 'status' },
  );
  if (p.deleting) store.delete(REF.pods, 'default', 'web-1', { gracePeriodSeconds: 0 });
  for (const b of row.pdbs ?? []) {
    const name = b.name ?? 'web-pdb';
    store.create(REF.poddisruptionbudgets, 'default', {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name },
      spec: {
        minAvailable: 1,
        selector: { matchLabels: { app: 'web' } },
        ...(b.unhealthyPodEvictionPolicy ? { unhealthyPodEvictionPolicy: b.unhealthyPodEvictionPolicy } : {}),
      },
    });
    for (let g = 1; g < (b.generation ?? 1); g++) {
      store.patch(REF.poddisruptionbudgets, 'default', name, 'merge', { spec: { minAvailable: 1 + g } });
    }
    store.mutate(
      REF.poddisruptionbudgets,
      'default',
      name,
      (o) => ({ ...o, status: { observedGeneration: b.generation ?? 1, ...b.status } }),
      { subresource: 'status' },
    );
  }
  return store;
}

describe('sim/control eviction: rules', () => {
  it('404 when the pod does not exist', () => {
    const store = setup({ name: '', code: 0, podDeleted: false });
    expect(evictPod(store, 'default', 'nope', {}, Date.now())).to.deep.equal({
      code: 404,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'pods "nope" not found',
        reason: 'NotFound',
        details: { name: 'nope', kind: 'pods' },
        code: 404,
      },
    });
  });

  for (const row of rows) {
    it(row.name, () => {
      const store = setup(row);
      const before = store.get(REF.pods, 'default', 'web-1')!;
      const res = evictPod(
        store,
        'default',
        'web-1',
        row.body ?? {
          apiVersion: 'policy/v1',
          kind: 'Eviction',
          metadata: { name: 'web-1', namespace: 'default' },
          deleteOptions: {},
        },
        Date.now(),
      );
      expect(res.code).to.equal(row.code);
      if (row.code === 201)
        expect(res.body).to.deep.equal({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Success',
          code: 201,
        });
      if (row.want) expect(res.body).to.deep.equal(row.want);
      const after = store.get(REF.pods, 'default', 'web-1');
      const deleted =
        !after ||
        (!!after.metadata.deletionTimestamp && !before.metadata.deletionTimestamp) ||
        row.pod?.deleting === true;
      expect(deleted).to.equal(row.podDeleted);
      if (row.allowedAfter !== undefined) {
        const st = statusOf(store.get(REF.poddisruptionbudgets, 'default', 'web-pdb'));
        expect(st.disruptionsAllowed).to.equal(row.allowedAfter);
        const decremented = row.code === 201 && row.pdbs?.[0].status.disruptionsAllowed === 1 && !row.body;
        expect(Object.keys(st.disruptedPods ?? {})).to.deep.equal(decremented ? ['web-1'] : []);
        if (decremented)
          expect(st.conditions[0]).to.include({
            type: 'DisruptionAllowed',
            status: 'False',
            reason: 'InsufficientPods',
          });
      }
    });
  }
});

describe('sim/control eviction: with the control plane', () => {
  let c: Cluster;
  afterEach(() => c?.stop());

  it('refuses while the budget is tight, allows once there is room', async () => {
    c = startCluster();
    c.store.create(REF.replicasets, 'default', replicaSet('web', 2));
    c.store.create(REF.poddisruptionbudgets, 'default', {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web' },
      spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } },
    });
    const pdb = () => statusOf(c.store.get(REF.poddisruptionbudgets, 'default', 'web'));
    await waitFor('2 healthy', () => pdb().currentHealthy === 2);
    const victim = podsOf(c.store, 'app=web')[0].metadata.name!;
    const refused = evictPod(c.store, 'default', victim, { deleteOptions: {} }, Date.now());
    expect(refused).to.deep.equal({
      code: 429,
      body: tooMany('The disruption budget web needs 2 healthy pods and has 2 currently'),
    });
    c.store.patch(REF.replicasets, 'default', 'web', 'merge', { spec: { replicas: 3 } });
    await waitFor('1 allowed', () => pdb().disruptionsAllowed === 1);
    const ok = evictPod(c.store, 'default', victim, { deleteOptions: {} }, Date.now());
    expect(ok.code).to.equal(201);
    await waitFor('victim gone', () => !c.store.get(REF.pods, 'default', victim));
    await waitFor('3 ready again', () => podsOf(c.store, 'app=web').filter(isReady).length === 3);
  });
});
