// @kubernetes/client-node against the simulated cluster: typed clients (json-patch by default,
// merge patch on request), custom objects with status and scale, and an informer that sees add,
// update and delete and recovers from a 410 by relisting.

import { SIM_TOKEN } from '../../src/sim/kubeconfig.ts';
import * as k8s from '@kubernetes/client-node';
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { startSim } from '../../src/sim/index.ts';
import type { SimCluster } from '../../src/sim/index.ts';
import type { KubeObject } from '../../src/sim/types.ts';

const CRD = parse(
  readFileSync(fileURLToPath(new URL('../fixtures/sim/widget-crd.yaml', import.meta.url)), 'utf8'),
) as k8s.V1CustomResourceDefinition;
const MERGE = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

function pod(name: string, labels: Record<string, string> = { app: 'web' }): k8s.V1Pod {
  return { metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
}

async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('integration: client-node against the simulated cluster', function () {
  this.timeout(40_000);
  let sim: SimCluster;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;
  let apps: k8s.AppsV1Api;
  let custom: k8s.CustomObjectsApi;

  before(async () => {
    sim = await startSim({ port: 0, controlPlane: false });
    kc = new k8s.KubeConfig();
    kc.loadFromString(sim.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
    apps = kc.makeApiClient(k8s.AppsV1Api);
    custom = kc.makeApiClient(k8s.CustomObjectsApi);
  });

  after(async () => {
    await sim?.stop();
  });

  it('creates, reads, lists with a label selector, and patches pods', async () => {
    const created = await core.createNamespacedPod({ namespace: 'default', body: pod('p1') });
    expect(created.metadata?.uid).to.be.a('string');
    await core.createNamespacedPod({ namespace: 'default', body: pod('p2', { app: 'db' }) });
    const list = await core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=web' });
    expect(list.items.map((p) => p.metadata?.name)).to.deep.equal(['p1']);
    expect(list.metadata?.resourceVersion).to.equal(String(sim.store.currentResourceVersion()));
    // The typed patch methods send application/json-patch+json by default.
    const jp = await core.patchNamespacedPod({
      namespace: 'default',
      name: 'p1',
      body: [{ op: 'add', path: '/metadata/labels/tier', value: 'front' }],
    });
    expect(jp.metadata?.labels).to.deep.equal({ app: 'web', tier: 'front' });
    const mp = await core.patchNamespacedPod(
      { namespace: 'default', name: 'p1', body: { metadata: { labels: { tier: null } } } },
      MERGE,
    );
    expect(mp.metadata?.labels).to.deep.equal({ app: 'web' });
    const patches = sim.audit.entries({ verb: 'patch', resource: 'pods' });
    expect(patches.map((e) => [e.name, e.code, e.user])).to.deep.equal([
      ['p1', 200, SIM_TOKEN],
      ['p1', 200, SIM_TOKEN],
    ]);
  });

  it('a missing object is an ApiException with code 404 and a Status body', async () => {
    try {
      await core.readNamespacedPod({ namespace: 'default', name: 'nosuch' });
      expect.fail('should throw');
    } catch (e) {
      expect(e).to.be.instanceOf(k8s.ApiException);
      const ex = e as k8s.ApiException<string>;
      expect(ex.code).to.equal(404);
      expect(JSON.parse(ex.body)).to.include({
        kind: 'Status',
        reason: 'NotFound',
        message: 'pods "nosuch" not found',
        code: 404,
      });
    }
  });

  it('a stale update is a 409 Conflict', async () => {
    const p = await core.readNamespacedPod({ namespace: 'default', name: 'p1' });
    await core.patchNamespacedPod(
      { namespace: 'default', name: 'p1', body: { metadata: { annotations: { a: 'b' } } } },
      MERGE,
    );
    try {
      await core.replaceNamespacedPod({ namespace: 'default', name: 'p1', body: p });
      expect.fail('should throw');
    } catch (e) {
      expect((e as k8s.ApiException<string>).code).to.equal(409);
    }
  });

  it('scales a ReplicaSet through AppsV1Api', async () => {
    await apps.createNamespacedReplicaSet({
      namespace: 'default',
      body: {
        metadata: { name: 'rs1' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'rs1' } },
          template: { metadata: { labels: { app: 'rs1' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
      },
    });
    const scale = await apps.readNamespacedReplicaSetScale({ namespace: 'default', name: 'rs1' });
    expect(scale.spec?.replicas).to.equal(1);
    expect(scale.status?.selector).to.equal('app=rs1');
    await apps.patchNamespacedReplicaSetScale(
      { namespace: 'default', name: 'rs1', body: { spec: { replicas: 4 } } },
      MERGE,
    );
    const rs = await apps.readNamespacedReplicaSet({ namespace: 'default', name: 'rs1' });
    expect([rs.spec?.replicas, rs.metadata?.generation]).to.deep.equal([4, 2]);
  });

  it('custom objects: create, merge patch, status and scale', async () => {
    const ext = kc.makeApiClient(k8s.ApiextensionsV1Api);
    await ext.createCustomResourceDefinition({ body: CRD });
    const base = { group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets' };
    await custom.createNamespacedCustomObject({
      ...base,
      body: {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w1' },
        spec: { size: 'small', replicas: 1 },
      },
    });
    const w = (await custom.getNamespacedCustomObject({ ...base, name: 'w1' })) as {
      spec: { replicas: number };
      metadata: { generation: number };
    };
    expect([w.spec.replicas, w.metadata.generation]).to.deep.equal([1, 1]);
    await custom.patchNamespacedCustomObject({ ...base, name: 'w1', body: { spec: { replicas: 3 } } }, MERGE);
    await custom.patchNamespacedCustomObjectStatus(
      { ...base, name: 'w1', body: { status: { replicas: 2, selector: 'app=w1' } } },
      MERGE,
    );
    const scale = (await custom.getNamespacedCustomObjectScale({ ...base, name: 'w1' })) as {
      spec: { replicas: number };
      status: { replicas: number; selector: string };
    };
    expect(scale.spec.replicas).to.equal(3);
    expect(scale.status).to.deep.equal({ replicas: 2, selector: 'app=w1' });
    const jp = (await custom.patchNamespacedCustomObject({
      ...base,
      name: 'w1',
      body: [{ op: 'replace', path: '/spec/size', value: 'large' }],
    })) as { spec: { size: string }; metadata: { generation: number } };
    expect(jp.spec.size).to.equal('large');
    expect(jp.metadata.generation).to.equal(3);
  });

  it('an informer sees add, update and delete, and relists after a 410', async () => {
    const informer = k8s.makeInformer(
      kc,
      '/api/v1/namespaces/default/pods',
      () => core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=inf' }),
      'app=inf',
    );
    const seen: string[] = [];
    informer.on('add', (p) => seen.push(`add ${p.metadata?.name}`));
    informer.on('update', (p) => seen.push(`update ${p.metadata?.name}`));
    informer.on('delete', (p) => seen.push(`delete ${p.metadata?.name}`));
    informer.on('error', () => {});
    await informer.start();
    try {
      await core.createNamespacedPod({ namespace: 'default', body: pod('i1', { app: 'inf' }) });
      await eventually(() => seen.includes('add i1'), 'add');
      await core.patchNamespacedPod(
        { namespace: 'default', name: 'i1', body: { metadata: { annotations: { x: 'y' } } } },
        MERGE,
      );
      await eventually(() => seen.includes('update i1'), 'update');
      await core.deleteNamespacedPod({ namespace: 'default', name: 'i1' });
      await eventually(() => seen.includes('delete i1'), 'delete');
      sim.store.create(
        { group: '', version: 'v1', resource: 'pods' },
        'default',
        pod('i2', { app: 'inf' }) as KubeObject,
      );
      await eventually(() => seen.includes('add i2'), 'add i2');
      // Expire every version and drop the watch: the re-watch gets 410 and the informer relists.
      const listsBefore = sim.audit.entries({ verb: 'list', resource: 'pods' }).length;
      sim.faults.expireResourceVersions();
      sim.faults.dropWatches();
      await eventually(() => sim.audit.entries({ verb: 'list', resource: 'pods' }).length > listsBefore, 'a relist');
      expect(informer.list('default').map((p) => p.metadata?.name)).to.deep.equal(['i2']);
      // And it watches again after the relist.
      await core.createNamespacedPod({ namespace: 'default', body: pod('i3', { app: 'inf' }) });
      await eventually(() => seen.includes('add i3'), 'add i3 after the relist');
    } finally {
      await informer.stop();
    }
  });
});
