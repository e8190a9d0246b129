// Real clients other than kubectl, on each test bed: the official Python client (Debian's
// python3-kubernetes, test/e2e/clients/python_client.py) and @kubernetes/client-node run the same
// steps against Pacer's CRD (create, list, watch from the list's resourceVersion, merge patch, the
// scale subresource, delete, and the errors a user meets) and must see the same thing, which is
// what a real API server answers: one expected result for both clients on both beds.

import * as k8s from '@kubernetes/client-node';
import { expect } from 'chai';
import { join } from 'node:path';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';

const GROUP = 'pacer.dev';
const VERSION = 'v1alpha1';
const PLURAL = 'deployments';
/** Debian's interpreter, where python3-kubernetes is installed (not a pyenv one). */
const PYTHON = '/usr/bin/python3';

type Results = Record<string, unknown>;

function deployment(name: string, replicas: number, image: string): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image }] } },
    },
  };
}

/** What both clients see on either bed. */
const EXPECTED: Results = {
  create: { name: 'py', generation: 1, defaultedStrategy: 'RollingUpdate' },
  list: ['py'],
  patch: { image: 'nginx:2', generation: 2 },
  scale: { kind: 'Scale', before: 2, after: 4, stored: 4 },
  getMissing: { error: { status: 404, reason: 'NotFound', message: 'deployments.pacer.dev "nope" not found' } },
  // One error, the scale subresource's own check (upstream keeps the path's leading dot): the
  // schema states no minimum for spec.replicas, which would report it a second time.
  createInvalid: {
    error: {
      status: 422,
      reason: 'Invalid',
      message:
        'Deployment.pacer.dev "bad" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer',
    },
  },
  createDuplicate: {
    error: { status: 409, reason: 'AlreadyExists', message: 'deployments.pacer.dev "py" already exists' },
  },
  replicaSetScaleMissing: { error: { status: 404, reason: 'NotFound', message: 'replicasets.apps "nope" not found' } },
  // Deleted at once (no finalizers): a custom resource's deletion is answered with a Status.
  delete: { kind: 'Status' },
  watched: [
    ['MODIFIED', 'py', 'nginx:2'],
    ['MODIFIED', 'py', 'nginx:2'],
    ['DELETED', 'py', 'nginx:2'],
  ],
};

/** The Python script's steps with client-node. */
async function clientNodeSteps(kubeconfig: string, NS: string): Promise<Results> {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  const crs = kc.makeApiClient(k8s.CustomObjectsApi);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
  const results: Results = {};
  const step = async (name: string, fn: () => Promise<unknown>) => {
    try {
      results[name] = await fn();
    } catch (e) {
      if (!(e instanceof k8s.ApiException)) throw e;
      const body = (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as { reason?: string; message?: string };
      results[name] = { error: { status: e.code, reason: body.reason, message: body.message } };
    }
  };
  const base = { group: GROUP, version: VERSION, namespace: NS, plural: PLURAL };
  type Obj = {
    metadata: { name: string; generation: number; resourceVersion: string };
    spec: Record<string, any>;
    kind: string;
    items: Obj[];
  };

  await step('create', async () => {
    const d = (await crs.createNamespacedCustomObject({ ...base, body: deployment('py', 2, 'nginx:1') })) as Obj;
    return { name: d.metadata.name, generation: d.metadata.generation, defaultedStrategy: d.spec.strategy.type };
  });
  const listed = (await crs.listNamespacedCustomObject(base)) as Obj;
  results.list = listed.items.map((i) => i.metadata.name).sort();
  const watched: unknown[] = [];
  let done!: () => void;
  const ended = new Promise<void>((r) => {
    done = r;
  });
  const req = await new k8s.Watch(kc).watch(
    `/apis/${GROUP}/${VERSION}/namespaces/${NS}/${PLURAL}`,
    { resourceVersion: listed.metadata.resourceVersion, timeoutSeconds: 20 },
    (type: string, obj: Obj) => {
      watched.push([type, obj.metadata.name, obj.spec.template.spec.containers[0].image]);
      if (type === 'DELETED') done();
    },
    () => done(),
  );
  await step('patch', async () => {
    const d = (await crs.patchNamespacedCustomObject(
      {
        ...base,
        name: 'py',
        body: { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:2' }] } } } },
      },
      merge,
    )) as Obj;
    return { image: d.spec.template.spec.containers[0].image, generation: d.metadata.generation };
  });
  await step('scale', async () => {
    const before = (await crs.getNamespacedCustomObjectScale({ ...base, name: 'py' })) as Obj;
    const after = (await crs.patchNamespacedCustomObjectScale(
      { ...base, name: 'py', body: { spec: { replicas: 4 } } },
      merge,
    )) as Obj;
    const d = (await crs.getNamespacedCustomObject({ ...base, name: 'py' })) as Obj;
    return { kind: before.kind, before: before.spec.replicas, after: after.spec.replicas, stored: d.spec.replicas };
  });
  await step('getMissing', () => crs.getNamespacedCustomObject({ ...base, name: 'nope' }));
  await step('createInvalid', () =>
    crs.createNamespacedCustomObject({ ...base, body: deployment('bad', -1, 'nginx:1') }),
  );
  await step('createDuplicate', () =>
    crs.createNamespacedCustomObject({ ...base, body: deployment('py', 1, 'nginx:1') }),
  );
  await step('replicaSetScaleMissing', () => apps.readNamespacedReplicaSetScale({ name: 'nope', namespace: NS }));
  await step('delete', async () => ({
    kind: ((await crs.deleteNamespacedCustomObject({ ...base, name: 'py' })) as Obj).kind,
  }));
  await Promise.race([ended, new Promise((r) => setTimeout(r, 20_000))]);
  req.abort();
  results.watched = watched;
  return results;
}

for (const bed of BEDS)
  describe(`e2e (${bed}): the Python client and client-node see what a real API server answers`, function () {
    this.timeout(90_000);
    const k = kubectlEnv({ bed, tmpPrefix: 'pacer-clients-', sim: { podStartMs: 30, podReadyMs: 60 } });

    before(async function () {
      await k.start(this);
      await k.ok(k.kubectl('apply', '-f', join(ROOT, 'crds')));
      await k.ok(k.kubectl('wait', '--for=condition=Established', 'crd/deployments.pacer.dev', '--timeout=30s'));
    });
    after(() => k.stop());

    it('client-node: list, watch from a resourceVersion, patch, scale, delete and errors', async () => {
      await k.createNamespace('client-node');
      expect(await clientNodeSteps(join(k.dir, 'kubeconfig'), 'client-node')).to.deep.equal(EXPECTED);
    });

    it('the Python client: the same steps, the same answers (its watch=True watches)', async function () {
      const probe = await k.run(PYTHON, ['-c', 'import kubernetes']);
      if (probe.code !== 0) {
        const reason = `Debian's python3-kubernetes is not installed (make test installs it when run as root): ${probe.stderr.trim().split('\n').at(-1)}`;
        if (process.env.CI === 'true') throw new Error(reason);
        console.log(`      skipped: ${reason}`);
        this.skip();
      }
      await k.createNamespace('python');
      const r = await k.run(PYTHON, [
        join(ROOT, 'test', 'e2e', 'clients', 'python_client.py'),
        join(k.dir, 'kubeconfig'),
        'python',
      ]);
      expect(r.stderr).to.equal('');
      expect(JSON.parse(r.stdout)).to.deep.equal(EXPECTED);
    });
  });
