// The real kubectl (v1.36, built by hack/kube, on PATH) against an in-process simulated cluster: the commands and the
// error messages of docs/simulated-api-server.md#errors, asserted on kubectl's own output.

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubectlEnv } from './fixtures.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/sim/', import.meta.url));
const PACER_CRD = fileURLToPath(new URL('../../crds/deployments.pacer.dev.yaml', import.meta.url));
const WIDGETS = { group: 'example.com', version: 'v1', resource: 'widgets' };

describe('e2e: kubectl against the simulated cluster', function () {
  this.timeout(60_000);
  const k = kubectlEnv({
    tmpPrefix: 'pacer-sim-e2e-',
    sim: { controlPlane: true, nodes: 2, podStartMs: 50, podReadyMs: 50 },
  });
  const { kubectl } = k;

  /** Starts a long-running kubectl and collects its stdout lines. */
  function kubectlStream(...a: string[]): {
    child: ChildProcess;
    lines: string[];
    waitFor(n: number): Promise<void>;
    exit: Promise<number>;
  } {
    const child = k.track(spawn('kubectl', k.kubectlArgs(a), { stdio: ['ignore', 'pipe', 'pipe'] }));
    const lines: string[] = [];
    let buf = '';
    const waiters: Array<() => void> = [];
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const parts = buf.split('\n');
      buf = parts.pop()!;
      lines.push(...parts);
      for (const w of waiters.splice(0)) w();
    });
    const exit = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
    const waitFor = async (n: number): Promise<void> => {
      const deadline = Date.now() + 20_000;
      while (lines.length < n) {
        if (Date.now() > deadline) throw new Error(`waited for ${n} lines, got ${JSON.stringify(lines)}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 200);
        });
      }
    };
    return { child, lines, waitFor, exit };
  }

  before(function () {
    return k.start(this);
  });

  after(() => k.stop());

  it('applies a CRD, which becomes Established at once', async () => {
    const r = await kubectl('apply', '-f', join(FIXTURES, 'widget-crd.yaml'));
    expect(r.stderr).to.equal('');
    expect(r.stdout).to.equal('customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\n');
    const w = await kubectl('wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=10s');
    expect(w.stdout).to.equal('customresourcedefinition.apiextensions.k8s.io/widgets.example.com condition met\n');
  });

  it('applies a custom resource and a ReplicaSet', async () => {
    const w = await kubectl('apply', '-f', join(FIXTURES, 'widget.yaml'));
    expect(w.stdout).to.equal('widget.example.com/w1 created\n');
    const rs = await kubectl('apply', '-f', join(FIXTURES, 'replicaset.yaml'));
    expect(rs.stdout).to.equal('replicaset.apps/rs1 created\n');
    const again = await kubectl('apply', '-f', join(FIXTURES, 'widget.yaml'));
    expect(again.stdout).to.equal('widget.example.com/w1 unchanged\n');
  });

  it('get prints the printer columns', async () => {
    const r = await kubectl('get', 'widgets');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).to.match(/^NAME\s+REPLICAS\s+AGE$/);
    expect(lines[1]).to.match(/^w1\s+2\s+\d+s$/);
    const short = await kubectl('get', 'wd', 'w1', '-o', 'jsonpath={.spec.size} {.metadata.generation}');
    expect(short.stdout).to.equal('small 1');
  });

  it('get rs prints the ReplicaSet columns and the controller makes pods', async () => {
    const r = await kubectl('get', 'rs', 'rs1');
    expect(r.stdout.split('\n')[0]).to.match(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE$/);
    const w = await kubectl('wait', '--for=jsonpath={.status.readyReplicas}=2', 'rs/rs1', '--timeout=20s');
    expect(w.stdout).to.equal('replicaset.apps/rs1 condition met\n');
    const pods = await kubectl('get', 'pods', '-l', 'app=web', '-o', 'name');
    expect(pods.stdout.trim().split('\n')).to.have.length(2);
  });

  it('apply of a changed ReplicaSet sends a strategic merge patch that the server merges', async () => {
    const changed = (await import('node:fs'))
      .readFileSync(join(FIXTURES, 'replicaset.yaml'), 'utf8')
      .replace('replicas: 2', 'replicas: 3')
      .replace('image: nginx', 'image: nginx:2');
    const file = join(k.dir, 'rs2.yaml');
    await writeFile(file, changed);
    const r = await kubectl('apply', '-f', file);
    expect(r.stdout).to.equal('replicaset.apps/rs1 configured\n');
    const got = await kubectl(
      'get',
      'rs',
      'rs1',
      '-o',
      'jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image} {.metadata.generation}',
    );
    expect(got.stdout).to.equal('3 nginx:2 2');
  });

  it('get -w streams a line per change', async () => {
    const w = kubectlStream('get', 'widgets', '-w');
    await w.waitFor(2);
    expect(w.lines[0]).to.match(/^NAME\s+REPLICAS\s+AGE$/);
    const l = await kubectl('label', 'widget', 'w1', 'watched=yes');
    expect(l.stdout).to.equal('widget.example.com/w1 labeled\n');
    await w.waitFor(3);
    expect(w.lines[2]).to.match(/^w1\s+2\s+\d+s$/);
    w.child.kill();
    await w.exit;
  });

  it('scale writes through the scale subresource', async () => {
    expect((await kubectl('scale', 'widget', 'w1', '--replicas=5')).stdout).to.equal('widget.example.com/w1 scaled\n');
    expect((await kubectl('scale', 'widget', 'w1', '--replicas=6', '--current-replicas=5')).stdout).to.equal(
      'widget.example.com/w1 scaled\n',
    );
    const stale = await kubectl('scale', 'widget', 'w1', '--replicas=7', '--resource-version=1');
    expect(stale.stderr).to.match(/^error: Expected resource version to be 1, was \d+\n$/);
    const g = await kubectl('get', 'widget', 'w1', '-o', 'jsonpath={.spec.replicas} {.metadata.generation}');
    expect(g.stdout).to.equal('6 3');
    expect((await kubectl('scale', 'rs', 'rs1', '--replicas=1')).stdout).to.equal('replicaset.apps/rs1 scaled\n');
  });

  it('wait --for=condition sees a status change made by a controller', async () => {
    const w = kubectlStream('wait', '--for=condition=Ready', 'widget/w1', '--timeout=20s');
    await new Promise((r) => setTimeout(r, 500));
    const cur = k.sim.store.get(WIDGETS, 'default', 'w1')!;
    k.sim.store.patch(
      WIDGETS,
      'default',
      'w1',
      'merge',
      {
        status: {
          replicas: 6,
          conditions: [{ type: 'Ready', status: 'True', observedGeneration: cur.metadata.generation }],
        },
      },
      { subresource: 'status' },
    );
    expect(await w.exit).to.equal(0);
    expect(w.lines).to.deep.equal(['widget.example.com/w1 condition met']);
  });

  it('patch --type=merge and --type=json; the default strategic patch is refused for a CR', async () => {
    expect((await kubectl('patch', 'widget', 'w1', '--type=merge', '-p', '{"spec":{"size":"large"}}')).stdout).to.equal(
      'widget.example.com/w1 patched\n',
    );
    expect((await kubectl('patch', 'widget', 'w1', '--type=merge', '-p', '{"spec":{"size":"large"}}')).stdout).to.equal(
      'widget.example.com/w1 patched (no change)\n',
    );
    expect(
      (
        await kubectl(
          'patch',
          'widget',
          'w1',
          '--type=json',
          '-p',
          '[{"op":"replace","path":"/spec/replicas","value":10}]',
        )
      ).stdout,
    ).to.equal('widget.example.com/w1 patched\n');
    const smp = await kubectl('patch', 'widget', 'w1', '-p', '{"spec":{"size":"small"}}');
    expect(smp.code).to.equal(1);
    expect(smp.stderr).to.equal(
      'error: application/strategic-merge-patch+json is not supported by example.com/v1, Kind=Widget: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml\n',
    );
  });

  it('replace with a stale resourceVersion prints the 409', async () => {
    const file = join(k.dir, 'stale.yaml');
    await writeFile(
      file,
      'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\n  resourceVersion: "1"\nspec:\n  replicas: 1\n  size: small\n',
    );
    const r = await kubectl('replace', '-f', file);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.equal(
      `Error from server (Conflict): error when replacing "${file}": Operation cannot be fulfilled on widgets.example.com "w1": the object has been modified; please apply your changes to the latest version and try again\n`,
    );
  });

  it('an invalid object is a 422 naming the field', async () => {
    const file = join(k.dir, 'invalid.yaml');
    await writeFile(
      file,
      'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: invalid-x\nspec:\n  replicas: "string"\n  size: small\n',
    );
    const r = await kubectl('create', '-f', file);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.equal(
      'The Widget "invalid-x" is invalid: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"\n',
    );
  });

  it('a missing object is a 404 with the upstream message', async () => {
    const r = await kubectl('get', 'widget', 'nosuch');
    expect(r.code).to.equal(1);
    expect(r.stderr).to.equal('Error from server (NotFound): widgets.example.com "nosuch" not found\n');
    const rs = await kubectl('delete', 'rs', 'nosuch');
    expect(rs.stderr).to.equal('Error from server (NotFound): replicasets.apps "nosuch" not found\n');
    const kind = await kubectl('get', 'foo');
    expect(kind.stderr).to.equal('error: the server doesn\'t have a resource type "foo"\n');
  });

  it('a watch from a too-old resourceVersion gets a 410 Expired event', async () => {
    k.sim.faults.expireResourceVersions();
    const r = await kubectl(
      'get',
      '--raw',
      '/apis/example.com/v1/namespaces/default/widgets?watch=true&resourceVersion=1',
    );
    const event = JSON.parse(r.stdout.trim()) as {
      type: string;
      object: { code: number; reason: string; message: string };
    };
    expect(event.type).to.equal('ERROR');
    expect(event.object.code).to.equal(410);
    expect(event.object.reason).to.equal('Expired');
    expect(event.object.message).to.match(/^too old resource version: 1 \(\d+\)$/);
  });

  it('explain descends into the CRD schema', async () => {
    const r = await kubectl('explain', 'widgets.spec');
    expect(r.code).to.equal(0);
    expect(r.stdout).to.match(/^GROUP:\s+example\.com\nKIND:\s+Widget\nVERSION:\s+v1\n/);
    expect(r.stdout).to.include('FIELD: spec <Object>');
    expect(r.stdout).to.match(/size\s+<string> -required-/);
  });

  it('delete waits for finalizers and for the DELETED event', async () => {
    const file = join(k.dir, 'wf.yaml');
    await writeFile(
      file,
      'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: wf\n  finalizers: [example.com/cleanup]\nspec:\n  size: small\n',
    );
    expect((await kubectl('create', '-f', file)).stdout).to.equal('widget.example.com/wf created\n');
    const d = kubectlStream('delete', 'widget', 'wf', '--timeout=20s');
    await d.waitFor(1);
    expect(d.lines[0]).to.equal('widget.example.com "wf" deleted from default namespace');
    expect(k.sim.store.get(WIDGETS, 'default', 'wf')?.metadata.deletionTimestamp).to.be.a('string');
    const p = await kubectl('patch', 'widget', 'wf', '--type=merge', '-p', '{"metadata":{"finalizers":null}}');
    expect(p.stdout).to.equal('widget.example.com/wf patched\n');
    expect(await d.exit).to.equal(0);
    expect(k.sim.store.get(WIDGETS, 'default', 'wf')).to.equal(undefined);
  });

  it('delete of a ReplicaSet cascades to its pods (foreground)', async () => {
    const fg = await kubectl('delete', 'rs', 'rs1', '--cascade=foreground', '--timeout=20s');
    expect(fg.stdout).to.equal('replicaset.apps "rs1" deleted from default namespace\n');
    const deadline = Date.now() + 10_000;
    while (
      k.sim.store.list({ group: '', version: 'v1', resource: 'pods' }, 'default', { labelSelector: 'app=web' }).items
        .length > 0
    ) {
      if (Date.now() > deadline) throw new Error('pods of rs1 were not deleted');
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  it('drain cordons a node and evicts its pods through the eviction subresource', async () => {
    const file = join(k.dir, 'rs-drain.yaml');
    await writeFile(
      file,
      (await import('node:fs'))
        .readFileSync(join(FIXTURES, 'replicaset.yaml'), 'utf8')
        .replace('name: rs1', 'name: rs-drain')
        .replaceAll('app: web', 'app: drain'),
    );
    expect((await kubectl('apply', '-f', file)).stdout).to.equal('replicaset.apps/rs-drain created\n');
    await kubectl('wait', '--for=jsonpath={.status.readyReplicas}=2', 'rs/rs-drain', '--timeout=20s');
    const node = (await kubectl('get', 'pods', '-l', 'app=drain', '-o', 'jsonpath={.items[0].spec.nodeName}')).stdout;
    const pod = (await kubectl('get', 'pods', '-l', 'app=drain', '-o', 'jsonpath={.items[0].metadata.name}')).stdout;
    const r = await kubectl('drain', node, '--timeout=20s');
    expect(r.code).to.equal(0);
    expect(r.stdout).to.include(`node/${node} cordoned\n`);
    expect(r.stdout).to.include(`pod/${pod} evicted\n`);
    expect(r.stdout).to.include(`node/${node} drained\n`);
    expect(
      k.sim.audit.entries({ resource: 'pods' }).some((e) => e.subresource === 'eviction' && e.code === 201),
    ).to.equal(true);
    expect((await kubectl('uncordon', node)).stdout).to.equal(`node/${node} uncordoned\n`);
  });

  it('deleting the CRD removes its resources and its API', async () => {
    const r = await kubectl('delete', '-f', join(FIXTURES, 'widget-crd.yaml'));
    expect(r.stdout).to.equal('customresourcedefinition.apiextensions.k8s.io "widgets.example.com" deleted\n');
    // kubectl still has widgets in its discovery cache, so it asks and gets the 404 of a path
    // that is no longer served, exactly as with a real server.
    const g = await kubectl('get', 'widgets');
    expect(g.stderr).to.equal(
      'Error from server (NotFound): Unable to list "example.com/v1, Resource=widgets": the server could not find the requested resource\n',
    );
    const discovery = await kubectl('api-resources', '--api-group=example.com', '--no-headers');
    expect(discovery.stdout).to.equal('');
  });

  it('applies the Pacer CRD', async function () {
    if (!existsSync(PACER_CRD)) this.skip(); // Skipped until the API work package writes crds/.
    const r = await kubectl('apply', '-f', PACER_CRD);
    expect(r.stdout).to.equal('customresourcedefinition.apiextensions.k8s.io/deployments.pacer.dev created\n');
    const res = await kubectl('api-resources', '--api-group=pacer.dev', '--no-headers');
    expect(res.stdout).to.match(/^deployments\s+pdeploy\s+pacer\.dev\/v1alpha1\s+true\s+Deployment\n$/);
  });
});
