import { expect } from 'chai';
import { desiredHealthy, pdbNumbers, pdbStatus, DELETION_TIMEOUT_MS } from '../../../../src/sim/control/pdb.ts';
import { REF } from '../../../../src/sim/resources.ts';
import type { KubeObject } from '../../../../src/sim/types.ts';
import { at, iso, isReady, pod, podsOf, replicaSet, startCluster, statusOf, waitFor, type Cluster } from './helpers.ts';

describe('sim/control pdb: desired healthy', () => {
  // Rows over 3 matching pods whose controllers' scale is 4.
  const rows: Array<{ spec: Record<string, unknown>; expected: number; desired: number }> = [
    { spec: { minAvailable: 2 }, expected: 3, desired: 2 },
    { spec: { minAvailable: '50%' }, expected: 4, desired: 2 },
    { spec: { minAvailable: '30%' }, expected: 4, desired: 2 }, // 1.2 rounds up
    { spec: { maxUnavailable: 1 }, expected: 4, desired: 3 },
    { spec: { maxUnavailable: '30%' }, expected: 4, desired: 2 }, // 1.2 rounds up to 2 unavailable
    { spec: { maxUnavailable: 10 }, expected: 4, desired: 0 },
    { spec: {}, expected: 0, desired: 0 },
  ];
  for (const row of rows) {
    it(JSON.stringify(row.spec), () => {
      expect(desiredHealthy(row.spec, 3, () => 4)).to.deep.equal({ expected: row.expected, desired: row.desired });
    });
  }
});

describe('sim/control pdb: status numbers', () => {
  const now = at(1000);
  const pdb = (spec: Record<string, unknown>, disruptedPods?: Record<string, string>): KubeObject => ({
    metadata: { name: 'web', namespace: 'default', generation: 2 },
    spec: { selector: { matchLabels: { app: 'web' } }, ...spec },
    status: disruptedPods ? { disruptedPods } : {},
  });
  const ready = (n: string, o = {}) => pod(n, { node: 'n1', ready: true, ...o });
  const rows: Array<{
    name: string;
    pdb: KubeObject;
    pods: KubeObject[];
    want: Partial<ReturnType<typeof pdbNumbers>>;
  }> = [
    {
      name: 'minAvailable 2 of 3 ready: one disruption allowed',
      pdb: pdb({ minAvailable: 2 }),
      pods: [ready('a'), ready('b'), ready('c')],
      want: { expectedPods: 3, currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1, disruptedPods: {} },
    },
    {
      name: 'minAvailable 2 with one unready pod: none allowed',
      pdb: pdb({ minAvailable: 2 }),
      pods: [ready('a'), ready('b'), pod('c', { node: 'n1', ready: false })],
      want: { expectedPods: 3, currentHealthy: 2, desiredHealthy: 2, disruptionsAllowed: 0 },
    },
    {
      name: 'a terminating pod is not healthy',
      pdb: pdb({ minAvailable: 1 }),
      pods: [ready('a'), ready('b', { deleting: true })],
      want: { currentHealthy: 1, disruptionsAllowed: 0 },
    },
    {
      name: 'a recently disrupted pod is not healthy and stays listed',
      pdb: pdb({ minAvailable: 1 }, { b: iso(at(990)) }),
      pods: [ready('a'), ready('b')],
      want: {
        currentHealthy: 1,
        disruptionsAllowed: 0,
        disruptedPods: { b: iso(at(990)) },
        recheckAt: at(990) + DELETION_TIMEOUT_MS,
      },
    },
    {
      name: 'a disrupted pod not deleted within two minutes counts again',
      pdb: pdb({ minAvailable: 1 }, { b: iso(at(800)) }),
      pods: [ready('a'), ready('b')],
      want: { currentHealthy: 2, disruptionsAllowed: 1, disruptedPods: {} },
    },
    {
      name: 'disrupted entries of pods that are gone are dropped',
      pdb: pdb({ minAvailable: 1 }, { gone: iso(at(999)) }),
      pods: [ready('a')],
      want: { currentHealthy: 1, disruptionsAllowed: 0, disruptedPods: {} },
    },
    {
      name: 'maxUnavailable 1 over a scale of 3',
      pdb: pdb({ maxUnavailable: 1 }),
      pods: [ready('a'), ready('b'), ready('c')],
      want: { expectedPods: 3, desiredHealthy: 2, disruptionsAllowed: 1 },
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(pdbNumbers(row.pdb, row.pods, () => 3, now)).to.deep.include(row.want);
    });
  }

  it('writes the DisruptionAllowed condition with the generation', () => {
    const p = pdb({ minAvailable: 2 });
    const st = pdbStatus(
      p,
      pdbNumbers(p, [ready('a'), ready('b'), ready('c')], () => 3, now),
      now,
    );
    expect(st).to.deep.include({
      observedGeneration: 2,
      disruptionsAllowed: 1,
      currentHealthy: 3,
      desiredHealthy: 2,
      expectedPods: 3,
    });
    expect((st.conditions as object[])[0]).to.deep.equal({
      type: 'DisruptionAllowed',
      status: 'True',
      observedGeneration: 2,
      lastTransitionTime: iso(now),
      reason: 'SufficientPods',
      message: '',
    });
  });
});

describe('sim/control pdb: behaviour', () => {
  let c: Cluster;
  afterEach(() => c?.stop());

  it('keeps the status of a budget over a ReplicaSet current', async () => {
    c = startCluster();
    c.store.create(REF.replicasets, 'default', replicaSet('web', 3));
    c.store.create(REF.poddisruptionbudgets, 'default', {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web' },
      spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } },
    });
    const get = () => statusOf(c.store.get(REF.poddisruptionbudgets, 'default', 'web'));
    await waitFor('1 allowed', () => get().disruptionsAllowed === 1 && get().currentHealthy === 3);
    expect(get()).to.deep.include({ observedGeneration: 1, expectedPods: 3, desiredHealthy: 2 });
    expect(get().conditions[0]).to.include({ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods' });
    // Scaling the ReplicaSet changes what the budget expects.
    c.store.patch(REF.replicasets, 'default', 'web', 'merge', { spec: { replicas: 5 } });
    await waitFor(
      '5 healthy',
      () => get().currentHealthy === 5 && podsOf(c.store, 'app=web').filter(isReady).length === 5,
    );
    expect(get()).to.deep.include({ expectedPods: 5, desiredHealthy: 4, disruptionsAllowed: 1 });
    // A spec change bumps the generation; the controller catches up.
    c.store.patch(REF.poddisruptionbudgets, 'default', 'web', 'merge', { spec: { maxUnavailable: 2 } });
    await waitFor('generation 2 observed', () => get().observedGeneration === 2);
    expect(get()).to.deep.include({ desiredHealthy: 3, disruptionsAllowed: 2 });
  });

  it("counts an apps/v1 Deployment's scale once for the pods of its ReplicaSets (upstream's getPodDeployment)", async () => {
    c = startCluster();
    const d = c.store.create(REF.deployments, 'default', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 4,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1' }] } },
      },
    });
    const owned = (name: string, replicas: number, hash: string): KubeObject => {
      const rs = replicaSet(name, replicas, { labels: { app: 'web', hash } });
      rs.metadata.ownerReferences = [
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: d.metadata.uid!, controller: true },
      ];
      return rs;
    };
    c.store.create(REF.replicasets, 'default', owned('web-a', 2, 'a'));
    c.store.create(REF.replicasets, 'default', owned('web-b', 1, 'b'));
    c.store.create(REF.poddisruptionbudgets, 'default', {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web' },
      spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } },
    });
    const get = () => statusOf(c.store.get(REF.poddisruptionbudgets, 'default', 'web'));
    await waitFor('3 healthy', () => get().currentHealthy === 3);
    // The Deployment's 4, not the ReplicaSets' 2 + 1.
    expect(get()).to.deep.include({ expectedPods: 4, desiredHealthy: 3, disruptionsAllowed: 0 });
  });
});
