// The real kubectl (v1.36, built by hack/kube, on PATH) against an in-process simulated cluster: the commands and the
// error messages of docs/simulated-api-server.md#errors, asserted on kubectl's own output. Then
// apps/v1 Deployments on both beds: the same commands, and the answers kube-apiserver gave on the
// real-control-plane bed expected from each (the real bed runs kube-controller-manager's Deployment
// controller, so what the tests compare is what the API server itself answers: replicas 0, and
// status only as written in the same request).

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BEDS, kubectlEnv } from './fixtures.ts';

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

const WEB = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 0
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx:1
`;

for (const bed of BEDS)
  describe(`e2e (${bed}): apps/v1 Deployments as kube-apiserver serves them`, function () {
    this.timeout(120_000);
    const k = kubectlEnv({ bed, tmpPrefix: 'pacer-apps-deploy-', sim: { controlPlane: true, nodes: 1 } });
    const { kubectl, ok } = k;
    /** kubectl's table as lines of single-spaced cells, every age (`2s`, `3m2s`) made `AGE`. */
    const cells = (text: string) =>
      text
        .trimEnd()
        .split('\n')
        .map((l) =>
          l
            .split(/\s+/)
            .map((c) => (/^\d+[smhdy](\d+[smh])?$/.test(c) ? 'AGE' : c))
            .join(' '),
        );
    const file = async (name: string, text: string) => {
      const path = join(k.dir, name);
      await writeFile(path, text);
      return path;
    };

    before(async function () {
      await k.start(this);
      await ok(kubectl('apply', '-f', PACER_CRD));
    });
    after(() => k.stop());

    it('discovery: deployments (deploy) in apps/v1 beside pacer.dev (pdeploy)', async () => {
      const r = await ok(kubectl('api-resources', '--no-headers', '-o', 'wide'));
      const lines = r
        .split('\n')
        .filter((l) => /^deployments\s/.test(l))
        .map((l) => l.split(/\s+/).join(' '));
      expect(lines).to.deep.equal([
        'deployments deploy apps/v1 true Deployment create,delete,deletecollection,get,list,patch,update,watch all',
        'deployments pdeploy pacer.dev/v1alpha1 true Deployment delete,deletecollection,get,list,patch,create,update,watch pacer',
      ]);
    });

    it('create: valid; spec.plan refused (Strict), warned and dropped (--validate=warn)', async () => {
      expect(await ok(kubectl('create', '-f', await file('web.yaml', WEB)))).to.equal('deployment.apps/web created\n');
      const planned = await file(
        'planned.yaml',
        WEB.replace('name: web', 'name: planned')
          .replaceAll('app: web', 'app: planned')
          .replace('  replicas: 0\n', '  replicas: 0\n  plan: {strategy: serial-canary}\n'),
      );
      const strict = await kubectl('create', '-f', planned);
      expect([strict.code, strict.stderr]).to.deep.equal([
        1,
        `Error from server (BadRequest): error when creating "${planned}": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.plan"\n`,
      ]);
      const warn = await kubectl('create', '-f', planned, '--validate=warn');
      expect([warn.code, warn.stderr, warn.stdout]).to.deep.equal([
        0,
        'Warning: unknown field "spec.plan"\n',
        'deployment.apps/planned created\n',
      ]);
      expect(
        await ok(kubectl('get', 'deploy', 'planned', '-o', 'jsonpath={.spec.plan}|{.metadata.generation}')),
      ).to.equal('|1');
      const spec = JSON.parse(await ok(kubectl('get', 'deploy', 'web', '-o', 'jsonpath={.spec}')));
      expect(spec.strategy).to.deep.equal({
        rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' },
        type: 'RollingUpdate',
      });
      expect([spec.revisionHistoryLimit, spec.progressDeadlineSeconds, spec.template.spec.dnsPolicy]).to.deep.equal([
        10,
        600,
        'ClusterFirst',
      ]);
    });

    it('create: invalid objects are 422 with the same message', async () => {
      const bad = await file(
        'bad.yaml',
        WEB.replace('name: web', 'name: bad')
          .replace(
            '  replicas: 0\n',
            '  replicas: -2\n  revisionHistoryLimit: -1\n  strategy: {type: Recreate, rollingUpdate: {}}\n',
          )
          .replace('        image: nginx:1\n', ''),
      );
      const r = await kubectl('create', '-f', bad);
      expect([r.code, r.stderr]).to.deep.equal([
        1,
        'The Deployment "bad" is invalid: \n' +
          '* spec.replicas: Invalid value: -2: must be greater than or equal to 0\n' +
          '* spec.template.spec.containers[0].image: Required value\n' +
          "* spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'\n" +
          '* spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0\n',
      ]);
      const typed = await kubectl(
        'create',
        '-f',
        await file('typed.yaml', WEB.replace('replicas: 0', 'replicas: "3"')),
      );
      expect(typed.stderr).to.match(
        /Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec\.spec\.replicas of type int32\n$/,
      );
    });

    it('get and get -o wide print the Deployment columns', async () => {
      expect(cells(await ok(kubectl('get', 'deploy', 'web')))).to.deep.equal([
        'NAME READY UP-TO-DATE AVAILABLE AGE',
        'web 0/0 0 0 AGE',
      ]);
      expect(cells(await ok(kubectl('get', 'deploy', 'web', '-o', 'wide')))).to.deep.equal([
        'NAME READY UP-TO-DATE AVAILABLE AGE CONTAINERS IMAGES SELECTOR',
        'web 0/0 0 0 AGE app nginx:1 app=web',
      ]);
    });

    it('generation: annotations bump it, labels do not; the status subresource takes status and annotations only', async () => {
      await ok(kubectl('annotate', 'deploy', 'web', 'a=b'));
      await ok(kubectl('label', 'deploy', 'web', 'l=1'));
      expect(await ok(kubectl('get', 'deploy', 'web', '-o', 'jsonpath={.metadata.generation}'))).to.equal('2');
      const status = await ok(
        kubectl(
          'patch',
          'deploy',
          'web',
          '--subresource=status',
          '--type=merge',
          '-p',
          '{"metadata":{"labels":{"x":"y"},"annotations":{"s":"t"}},"spec":{"replicas":7},"status":{"observedGeneration":42}}',
          '-o',
          'jsonpath={.metadata.generation} {.spec.replicas} {.metadata.labels} {.metadata.annotations.s} {.status.observedGeneration}',
        ),
      );
      expect(status).to.equal('2 0 {"l":"1"} t 42');
      const invalid = await kubectl(
        'patch',
        'deploy',
        'web',
        '--subresource=status',
        '--type=merge',
        '-p',
        '{"status":{"replicas":1,"readyReplicas":2,"availableReplicas":0,"updatedReplicas":0}}',
      );
      expect([invalid.code, invalid.stderr]).to.deep.equal([
        1,
        'The Deployment "web" is invalid: status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas\n',
      ]);
    });

    it('the rollback annotation is spec: not a number is refused, a number kept as one, a /status write cannot clear it', async () => {
      // Paused: the real bed's Deployment controller would act on the annotation (a paused one is only synced).
      await ok(
        kubectl(
          'create',
          '-f',
          await file(
            'rb.yaml',
            WEB.replace('name: web', 'name: rb').replace('  replicas: 0\n', '  replicas: 0\n  paused: true\n'),
          ),
        ),
      );
      const key = 'deprecated.deployment.rollback.to';
      const bad = await kubectl('annotate', 'deploy', 'rb', `${key}=abc`);
      expect(bad.code).to.equal(1);
      expect(bad.stderr).to.match(
        /^The request is invalid: patch: Invalid value: "\{.*\}": failed to parse annotation\[deprecated\.deployment\.rollback\.to\]=abc as int64: strconv\.ParseInt: parsing "abc": invalid syntax\n$/,
      );
      await ok(kubectl('annotate', 'deploy', 'rb', `${key}=+07`));
      const viaStatus = await ok(
        kubectl(
          'patch',
          'deploy',
          'rb',
          '--subresource=status',
          '--type=merge',
          '-p',
          JSON.stringify({ metadata: { annotations: { [key]: null, s: 't' } } }),
          '-o',
          'jsonpath={.metadata.annotations}',
        ),
      );
      const annotations = JSON.parse(viaStatus);
      expect([annotations[key], annotations.s]).to.deep.equal(['7', 't']);
      await ok(kubectl('delete', 'deploy', 'rb'));
    });

    it('scale, strategic merge and JSON patches; the selector stays', async () => {
      expect(await ok(kubectl('scale', 'deploy', 'web', '--replicas=2'))).to.equal('deployment.apps/web scaled\n');
      expect(
        await ok(kubectl('get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas} {.metadata.generation}')),
      ).to.equal('2 3');
      const scale = JSON.parse(
        await ok(kubectl('get', '--raw', '/apis/apps/v1/namespaces/default/deployments/web/scale')),
      );
      expect([scale.kind, scale.apiVersion, scale.spec, scale.status.selector]).to.deep.equal([
        'Scale',
        'autoscaling/v1',
        { replicas: 2 },
        'app=web',
      ]);
      await ok(
        kubectl(
          'patch',
          'deploy',
          'web',
          '-p',
          '{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:2"}]}}}}',
        ),
      );
      await ok(
        kubectl(
          'patch',
          'deploy',
          'web',
          '--type=json',
          '-p',
          '[{"op":"replace","path":"/spec/revisionHistoryLimit","value":3}]',
        ),
      );
      expect(
        await ok(
          kubectl(
            'get',
            'deploy',
            'web',
            '-o',
            'jsonpath={.metadata.generation} {.spec.revisionHistoryLimit} {.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].imagePullPolicy}',
          ),
        ),
      ).to.equal('5 3 nginx:2 IfNotPresent');
      const immutable = await kubectl(
        'patch',
        'deploy',
        'web',
        '--type=merge',
        '-p',
        '{"spec":{"selector":{"matchLabels":{"app":"web","x":"y"}}}}',
      );
      expect([immutable.code, immutable.stderr]).to.deep.equal([
        1,
        'The Deployment "web" is invalid: \n' +
          '* spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`\n' +
          '* spec.selector: Invalid value: {"matchLabels":{"app":"web","x":"y"}}: field is immutable\n',
      ]);
    });

    it('delete --cascade=foreground takes the ReplicaSets the Deployment owns', async () => {
      const uid = await ok(kubectl('get', 'deploy', 'planned', '-o', 'jsonpath={.metadata.uid}'));
      // Owned but not controlled (and selecting other pods), so that no Deployment controller claims it.
      const rs = {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name: 'planned-extra',
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'Deployment', name: 'planned', uid, blockOwnerDeletion: true },
          ],
        },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'extra' } },
          template: {
            metadata: { labels: { app: 'extra' } },
            spec: { containers: [{ name: 'app', image: 'nginx:1' }] },
          },
        },
      };
      await ok(kubectl('create', '-f', await file('rs.json', JSON.stringify(rs))));
      expect(await ok(kubectl('delete', 'deploy', 'planned', '--cascade=foreground', '--timeout=60s'))).to.equal(
        'deployment.apps "planned" deleted from default namespace\n',
      );
      const gone = await kubectl('get', 'rs', 'planned-extra');
      expect(gone.stderr).to.equal('Error from server (NotFound): replicasets.apps "planned-extra" not found\n');
    });
  });

// kubectl's typed clients send built-in kinds as protobuf (Content-Type
// application/vnd.kubernetes.protobuf), with no retry as JSON on a 415: the simulated API server
// decodes the kinds `kubectl create` sends (src/sim/protobuf.ts). The same commands on both beds,
// the same answers expected from each.
for (const bed of BEDS)
  describe(`e2e (${bed}): kubectl create of built-in kinds (protobuf request bodies)`, function () {
    this.timeout(120_000);
    const ns = 'demo-create';
    const k = kubectlEnv({ bed, tmpPrefix: 'pacer-create-', sim: {} });
    const { kubectl, ok } = k;

    before(function () {
      return k.start(this);
    });
    after(() => k.stop());

    it('kubectl create namespace: created, Active, with the kubernetes finalizer', async () => {
      expect(await ok(kubectl('create', 'namespace', ns))).to.equal(`namespace/${ns} created\n`);
      const r = await ok(kubectl('get', 'namespace', ns, '-o', 'jsonpath={.status.phase} {.spec.finalizers}'));
      expect(r).to.equal('Active ["kubernetes"]');
      const again = await kubectl('create', 'namespace', ns);
      expect(again.code).to.equal(1);
      expect(again.stderr).to.equal(`Error from server (AlreadyExists): namespaces "${ns}" already exists\n`);
    });

    it('kubectl create configmap --from-literal and --from-file, and --dry-run=server', async () => {
      const file = join(k.dir, 'settings.txt');
      await writeFile(file, 'line one\nline two\n');
      const r = await ok(
        kubectl('create', 'configmap', 'x', '-n', ns, '--from-literal=a=b', `--from-file=settings=${file}`),
      );
      expect(r).to.equal('configmap/x created\n');
      const got = await ok(kubectl('get', 'configmap', 'x', '-n', ns, '-o', 'jsonpath={.data}'));
      expect(JSON.parse(got)).to.deep.equal({ a: 'b', settings: 'line one\nline two\n' });
      const dry = await ok(kubectl('create', 'configmap', 'y', '-n', ns, '--from-literal=k=v', '--dry-run=server'));
      expect(dry).to.equal('configmap/y created (server dry run)\n');
      expect((await kubectl('get', 'configmap', 'y', '-n', ns)).code).to.equal(1);
    });

    it('kubectl create secret generic and docker-registry: the data as bytes, the type', async () => {
      expect(await ok(kubectl('create', 'secret', 'generic', 's', '-n', ns, '--from-literal=a=b'))).to.equal(
        'secret/s created\n',
      );
      const s = await ok(kubectl('get', 'secret', 's', '-n', ns, '-o', 'jsonpath={.type} {.data.a}'));
      expect(s).to.equal(`Opaque ${Buffer.from('b').toString('base64')}`);
      const reg = await ok(
        kubectl(
          'create',
          'secret',
          'docker-registry',
          'reg',
          '-n',
          ns,
          '--docker-server=registry.example',
          '--docker-username=u',
          '--docker-password=p',
        ),
      );
      expect(reg).to.equal('secret/reg created\n');
      const r = await ok(
        kubectl('get', 'secret', 'reg', '-n', ns, '-o', 'jsonpath={.type} {.data.\\.dockerconfigjson}'),
      );
      const [type, data] = r.split(' ');
      expect(type).to.equal('kubernetes.io/dockerconfigjson');
      expect(JSON.parse(Buffer.from(data, 'base64').toString('utf8')).auths['registry.example'].username).to.equal('u');
    });
  });
