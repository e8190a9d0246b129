// Native mode (docs/native.md) on the real control plane, the one bed that serves apps/v1
// Deployments:
// * started beside kube-controller-manager's own Deployment controller, Pacer refuses with a
//   message that says how to fix it, and writes nothing but its probe (read from the API server's
//   audit log), which it deletes again;
// * the rollout table: the real kubectl's rollout commands (status, history, undo, pause, resume,
//   restart, and their refusals) give the same output and exit code line for line with Pacer's
//   native mode as beside kube-controller-manager's Deployment controller, ReplicaSet names (the
//   pod-template-hash) included (ROLLOUT_TABLE);
// * on a bed whose kube-controller-manager runs without it, Pacer is the Deployment controller,
//   writing as upstream's does; an apps/v1 Deployment with pacer.dev/minimum-health-capacity
//   scales exactly as its pacer.dev twin, and one with pacer.dev/dependencies waits for its
//   dependency as its twin does.

import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runController } from '../../src/cli/controller.ts';
import type { RunningController } from '../../src/cli/controller.ts';
import { silentLogger } from '../../src/observe/logger.ts';
import { eventually } from '../integration/fixtures/cluster.ts';
import { BEDS } from '../fixtures/beds.ts';
import { PACER_USER, startRealBed } from '../fixtures/realbed.ts';
import type { RealBed } from '../fixtures/realbed.ts';
import { ROOT } from './fixtures.ts';

const WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * kubectl's rollout commands on one apps/v1 Deployment, in the order a user would type them; run
 * once beside kube-controller-manager's Deployment controller and once with Pacer's native mode,
 * each row's output must be the same line for line (docs/native.md shows the table). `last` keeps
 * only the last line of stdout: `rollout status` prints a line per change it sees on the way,
 * which depends on timing, not on the controller; its last line and exit code do not.
 */
const ROLLOUT_TABLE: Array<{ args: string[]; last?: boolean }> = [
  { args: ['create', 'deployment', 'web', '--image=nginx:1', '--replicas=3'] },
  { args: ['rollout', 'status', 'deployment/web', '--timeout=90s'], last: true },
  { args: ['rollout', 'history', 'deployment/web'] },
  { args: ['set', 'image', 'deployment/web', 'nginx=nginx:2'] },
  { args: ['rollout', 'status', 'deployment/web', '--timeout=90s'], last: true },
  { args: ['rollout', 'history', 'deployment/web'] },
  // The pod template with its pod-template-hash label: the same hash from both controllers.
  { args: ['rollout', 'history', 'deployment/web', '--revision=1'] },
  { args: ['rollout', 'status', 'deployment/web', '--revision=1'] },
  { args: ['rollout', 'undo', 'deployment/web', '--to-revision=7'] },
  { args: ['rollout', 'undo', 'deployment/web', '--to-revision=2'] },
  { args: ['rollout', 'undo', 'deployment/web'] },
  { args: ['rollout', 'status', 'deployment/web', '--timeout=90s'], last: true },
  { args: ['rollout', 'history', 'deployment/web'] },
  {
    args: [
      'get',
      'rs',
      '-l',
      'app=web',
      '--sort-by=.metadata.annotations.deployment\\.kubernetes\\.io/revision',
      '-o',
      'custom-columns=NAME:.metadata.name,DESIRED:.spec.replicas,READY:.status.readyReplicas,REVISION:.metadata.annotations.deployment\\.kubernetes\\.io/revision,HISTORY:.metadata.annotations.deployment\\.kubernetes\\.io/revision-history',
    ],
  },
  { args: ['rollout', 'pause', 'deployment/web'] },
  { args: ['rollout', 'pause', 'deployment/web'] },
  { args: ['set', 'image', 'deployment/web', 'nginx=nginx:3'] },
  { args: ['rollout', 'status', 'deployment/web', '--timeout=3s'], last: true },
  { args: ['rollout', 'undo', 'deployment/web'] },
  { args: ['rollout', 'resume', 'deployment/web'] },
  { args: ['rollout', 'resume', 'deployment/web'] },
  { args: ['rollout', 'status', 'deployment/web', '--timeout=90s'], last: true },
  { args: ['rollout', 'restart', 'deployment/web'] },
  { args: ['rollout', 'status', 'deployment/web', '--timeout=90s'], last: true },
  { args: ['rollout', 'history', 'deployment/web'] },
  {
    args: [
      'get',
      'deployment',
      'web',
      '-o',
      'custom-columns=READY:.status.readyReplicas,UPDATED:.status.updatedReplicas,AVAILABLE:.status.availableReplicas,REVISION:.metadata.annotations.deployment\\.kubernetes\\.io/revision,PROGRESSING:.status.conditions[?(@.type=="Progressing")].reason',
    ],
  },
  // A rollout that cannot finish: kwok keeps pods of an image tagged 404 in ErrImagePull.
  { args: ['create', 'deployment', 'stuck', '--image=nginx:404', '--replicas=2'] },
  { args: ['patch', 'deployment', 'stuck', '-p', '{"spec":{"progressDeadlineSeconds":5}}'] },
  { args: ['rollout', 'status', 'deployment/stuck', '--timeout=90s'], last: true },
  {
    args: [
      'get',
      'deployment',
      'stuck',
      '-o',
      'jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason}: {.message}{"\\n"}{end}',
    ],
  },
];

interface TableRow {
  command: string;
  code: number;
  output: string;
}

/**
 * Runs ROLLOUT_TABLE in a new namespace of the bed. Before each command every Deployment of the
 * namespace must have been observed (status.observedGeneration = metadata.generation), as a user
 * would see it a moment later: otherwise `rollout status` races the controller's first look.
 */
async function rolloutTable(bed: RealBed, namespace: string): Promise<TableRow[]> {
  const created = await bed.kubectl(['create', 'namespace', namespace]);
  expect(created.code, created.stderr).to.equal(0);
  const rows: TableRow[] = [];
  for (const { args, last } of ROLLOUT_TABLE) {
    await eventually(
      'every Deployment observed',
      async () => {
        const r = await bed.kubectl([
          '-n',
          namespace,
          'get',
          'deployments.apps',
          '-o',
          'jsonpath={range .items[*]}{.metadata.generation}={.status.observedGeneration} {end}',
        ]);
        return r.code === 0 && r.stdout.split(' ').every((g) => g === '' || g.split('=')[0] === g.split('=')[1]);
      },
      30_000,
    );
    const r = await bed.kubectl(['-n', namespace, ...args]);
    const stdout = r.stdout.trimEnd();
    const output = [last ? (stdout.split('\n').at(-1) ?? '') : stdout, r.stderr.trimEnd()].filter((x) => x).join('\n');
    rows.push({ command: `kubectl ${args.join(' ')}`, code: r.code, output });
  }
  return rows;
}

/** The table as Markdown: each command, upstream's output beside Pacer's (docs/native.md). */
function markdownTable(upstream: TableRow[], pacer: TableRow[]): string {
  const cell = (row: TableRow | undefined) =>
    row ? `exit ${row.code}<br>${row.output.replaceAll('|', '\\|').replaceAll('\n', '<br>')}` : '(not run)';
  return [
    "| command | kube-controller-manager's controller | Pacer's native mode |",
    '|---|---|---|',
    ...upstream.map((row, i) => `| \`${row.command.replaceAll('|', '\\|')}\` | ${cell(row)} | ${cell(pacer[i])} |`),
  ].join('\n');
}

/** Upstream's table, from the first describe's bed; the second compares Pacer's with it. */
let upstreamTable: TableRow[] | undefined;

if (BEDS.includes('real'))
  describe('e2e (real): native mode', function () {
    this.timeout(180_000);
    let bed: RealBed;
    before(async function () {
      this.timeout(300_000);
      bed = await startRealBed({ nodes: 1 });
      const crds = await bed.kubectl(['apply', '-f', join(ROOT, 'crds')]);
      expect(crds.code, crds.stderr).to.equal(0);
      await eventually(
        'the CRDs served',
        async () => (await bed.kubectl(['get', 'deployments.pacer.dev', '-A'])).code === 0,
        30_000,
      );
    });
    after(async () => {
      await bed?.stop();
    });

    it("beside kube-controller-manager's Deployment controller: refused, saying how to fix it; only the probe written, and deleted", async () => {
      const kubeconfig = await bed.controllerKubeconfig();
      const rbac = await bed.kubectl(['apply', '-f', join(ROOT, 'manifests', 'native', 'rbac', 'rbac.yaml')]);
      expect(rbac.code, rbac.stderr).to.equal(0);
      const since = (await bed.audit()).length;
      let error: Error | undefined;
      try {
        const running = await runController({
          kubeconfigText: kubeconfig,
          deployments: ['pacer', 'apps'],
          leaderElectionNamespace: 'pacer-system',
          metricsBindAddress: '0',
          healthProbeBindAddress: '0',
          apiBindAddress: '0',
          webhookBindAddress: '0',
          logger: silentLogger(),
        });
        await running.stop();
      } catch (err) {
        error = err as Error;
      }
      expect(error?.message).to.match(
        /^native mode refused: another Deployment controller \(kube-controller-manager\) controls apps\/v1 Deployments: it observed the probe Deployment Pacer created in namespace pacer-system\. Start kube-controller-manager with --controllers=\*,-deployment-controller/,
      );
      expect((error as { exitCode?: number }).exitCode).to.equal(1);
      await eventually(
        'the probe deleted',
        async () => {
          const left = await bed.kubectl([
            'get',
            'deployments',
            '-n',
            'pacer-system',
            '-l',
            'pacer.dev/native-probe',
            '-o',
            'name',
          ]);
          return left.code === 0 && left.stdout.trim() === '';
        },
        30_000,
      );
      const writes = (await bed.audit())
        .slice(since)
        .filter((e) => e.user.username === PACER_USER && e.stage === 'ResponseComplete' && WRITES.has(e.verb))
        .map((e) => `${e.verb} ${e.objectRef?.apiGroup ?? ''}/${e.objectRef?.resource} ${e.objectRef?.namespace}`);
      expect(writes).to.deep.equal(['create apps/deployments pacer-system', 'delete apps/deployments pacer-system']);
    });
    it("the rollout table: kubectl's rollout commands beside kube-controller-manager's Deployment controller", async () => {
      upstreamTable = await rolloutTable(bed, 'table');
      // The upstream side makes sense on its own: what the Pacer side must then match.
      expect(
        upstreamTable.find((r) => r.command.startsWith('kubectl rollout undo deployment/web --to-revision=2'))?.output,
      ).to.match(/skipped rollback/);
      expect(upstreamTable.find((r) => r.command.includes('deployment/stuck --timeout'))?.code).to.equal(1);
    });
  });

/** The controller options of an in-process Pacer with no servers, as `kubeconfig` allows. */
const quiet = (kubeconfig: string) => ({
  kubeconfigText: kubeconfig,
  deployments: ['pacer', 'apps'] as Array<'pacer' | 'apps'>,
  leaderElectionNamespace: 'pacer-system',
  metricsBindAddress: '0',
  healthProbeBindAddress: '0',
  apiBindAddress: '0',
  webhookBindAddress: '0',
  logger: silentLogger(),
});

if (BEDS.includes('real'))
  describe("e2e (real): native mode, with kube-controller-manager's Deployment controller off", function () {
    this.timeout(240_000);
    let bed: RealBed;
    let pacer: RunningController | undefined;
    const k = async (...args: string[]) => bed.kubectl(['-n', 'native', ...args]);
    const ok = async (...args: string[]) => {
      const r = await k(...args);
      expect(r.code, `kubectl ${args.join(' ')}: ${r.stderr}`).to.equal(0);
      return r.stdout.trim();
    };
    before(async function () {
      this.timeout(300_000);
      bed = await startRealBed({ nodes: 1, noDeploymentController: true, podStartMs: 200, podReadyMs: 200 });
      // Pacer's namespace, ServiceAccount and base role first (the native role binds to them).
      const kubeconfig = await bed.controllerKubeconfig();
      for (const args of [
        ['apply', '-f', join(ROOT, 'crds')],
        ['apply', '-f', join(ROOT, 'manifests', 'native', 'rbac', 'rbac.yaml')],
        ['create', 'namespace', 'native'],
      ]) {
        const r = await bed.kubectl(args);
        expect(r.code, r.stderr).to.equal(0);
      }
      await eventually(
        'the CRDs served',
        async () => (await bed.kubectl(['get', 'deployments.pacer.dev', '-A'])).code === 0,
        30_000,
      );
      pacer = await runController(quiet(kubeconfig));
    });
    after(async () => {
      await pacer?.stop();
      await bed?.stop();
    });

    it('the start-up check passes: nobody else observes the probe', () => {
      expect(pacer?.apps).to.not.equal(undefined);
    });

    it("upstream's marks on what Pacer writes: the revision through /status (generation unmoved), ReplicaSets owned as apps/v1, no request refused by RBAC", async () => {
      await ok('create', 'deployment', 'web', '--image=nginx:1', '--replicas=3');
      await ok('rollout', 'status', 'deployment/web', '--timeout=90s');
      expect(
        await ok('get', 'deployment', 'web', '-o', 'jsonpath={.metadata.generation}/{.status.observedGeneration}'),
      ).to.equal('1/1');
      expect(
        await ok('get', 'rs', '-l', 'app=web', '-o', 'jsonpath={.items[0].metadata.ownerReferences[0].apiVersion}'),
      ).to.equal('apps/v1');
      expect(await bed.forbidden()).to.deep.equal([]);
    });
    it("the rollout table: kubectl's rollout commands with Pacer's native mode, line for line as beside upstream's controller", async () => {
      if (!upstreamTable)
        throw new Error(
          "upstream's side of the rollout table did not run: run the whole file (-g 'rollout table' runs both)",
        );
      const pacerTable = await rolloutTable(bed, 'table');
      if (process.env.PACER_ROLLOUT_TABLE)
        await writeFile(process.env.PACER_ROLLOUT_TABLE, `${markdownTable(upstreamTable, pacerTable)}\n`);
      expect(pacerTable, markdownTable(upstreamTable, pacerTable)).to.deep.equal(upstreamTable);
      expect(await bed.forbidden()).to.deep.equal([]);
    });
    it('pacer.dev/minimum-health-capacity "0.5": an apps/v1 Deployment scales step for step as its pacer.dev twin', async () => {
      const manifest = (apiVersion: string, name: string, image: string) => {
        const native = apiVersion === 'apps/v1';
        return `apiVersion: ${apiVersion}
kind: Deployment
metadata:
  name: ${name}
  namespace: native
${native ? "  annotations: {pacer.dev/minimum-health-capacity: '0.5'}\n" : ''}spec:
  replicas: 4
  minReadySeconds: 1
  selector: {matchLabels: {app: ${name}}}
${native ? '' : '  strategy: {type: MinimumHealth, minimumHealth: {minimumHealthCapacity: 0.5}}\n'}  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: app, image: "${image}"}]}
`;
      };
      const apply = async (image: string) => {
        for (const [apiVersion, name] of [
          ['apps/v1', 'mh-native'],
          ['pacer.dev/v1alpha1', 'mh-twin'],
        ]) {
          const r = await bed.kubectl(['apply', '-f', '-'], manifest(apiVersion, name, image));
          expect(r.code, r.stderr).to.equal(0);
        }
      };
      const complete = async (kind: string, name: string) =>
        eventually(
          `${name} complete`,
          async () =>
            (await ok('get', kind, name, '-o', 'jsonpath={.status.conditions[?(@.type=="Progressing")].reason}')) ===
              'NewReplicaSetAvailable' &&
            (await ok('get', kind, name, '-o', 'jsonpath={.status.updatedReplicas}')) === '4',
          90_000,
        );
      await apply('nginx:1');
      await complete('deployment.apps', 'mh-native');
      await complete('deployments.pacer.dev', 'mh-twin');
      await apply('nginx:2');
      await complete('deployment.apps', 'mh-native');
      await complete('deployments.pacer.dev', 'mh-twin');
      /** The Deployment's scalings in order, its ReplicaSets named by image ("1 up 0 to 4"). */
      const scalings = async (name: string) => {
        const rs = await ok(
          'get',
          'rs',
          '-l',
          `app=${name}`,
          '-o',
          'jsonpath={range .items[*]}{.metadata.name}={.spec.template.spec.containers[0].image}{"\\n"}{end}',
        );
        const image = new Map(rs.split('\n').map((l) => l.split('=') as [string, string]));
        const events = await ok(
          'get',
          'events',
          '--field-selector',
          `involvedObject.name=${name},reason=ScalingReplicaSet`,
          '--sort-by',
          '.metadata.creationTimestamp',
          '-o',
          'jsonpath={range .items[*]}{.message}{"\\n"}{end}',
        );
        return events.split('\n').map((m) => {
          const x = /^Scaled (up|down) replica set (\S+) from (\d+) to (\d+)/.exec(m);
          return x ? `${image.get(x[2])} ${x[1]} ${x[3]} to ${x[4]}` : m;
        });
      };
      const native = await scalings('mh-native');
      expect(native).to.deep.equal(await scalings('mh-twin'));
      // Marathon's rule, not a rolling update's: the old version goes down to 2 (0.5 × 4) first.
      expect(native).to.include('nginx:1 down 4 to 2');
    });
    it('pacer.dev/dependencies: an apps/v1 app waits for its db as its pacer.dev twin does, and starts once db is available', async () => {
      const manifest = (apiVersion: string, name: string, depends?: string) => {
        const native = apiVersion === 'apps/v1';
        const deps = depends === undefined ? '' : native ? `  annotations: {pacer.dev/dependencies: ${depends}}\n` : '';
        return `apiVersion: ${apiVersion}
kind: Deployment
metadata:
  name: ${name}
  namespace: native
${deps}spec:
  replicas: 2
  selector: {matchLabels: {app: ${name}}}
${depends !== undefined && !native ? `  dependencies: [${depends}]\n` : ''}  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: app, image: "nginx:1"}]}
`;
      };
      const apply = async (text: string) => {
        const r = await bed.kubectl(['apply', '-f', '-'], text);
        expect(r.code, r.stderr).to.equal(0);
      };
      const twins = [
        { kind: 'deployment.apps', apiVersion: 'apps/v1', db: 'dep-db', app: 'dep-app' },
        { kind: 'deployments.pacer.dev', apiVersion: 'pacer.dev/v1alpha1', db: 'twin-db', app: 'twin-app' },
      ];
      const ready = async (kind: string, name: string) =>
        ok(
          'get',
          kind,
          name,
          '-o',
          'jsonpath={.status.conditions[?(@.type=="DependenciesReady")].status}/{.status.conditions[?(@.type=="DependenciesReady")].reason}',
        );
      // The app alone: it waits, visibly, and makes no ReplicaSet.
      for (const t of twins) await apply(manifest(t.apiVersion, t.app, t.db));
      for (const t of twins)
        await eventually(
          `${t.app} waiting`,
          async () => (await ready(t.kind, t.app)) === 'False/DependencyMissing',
          30_000,
        );
      await new Promise((r) => setTimeout(r, 2000));
      for (const t of twins) expect(await ok('get', 'rs', '-l', `app=${t.app}`, '-o', 'name')).to.equal('');
      // Its db: once db is available, app rolls out.
      for (const t of twins) await apply(manifest(t.apiVersion, t.db));
      for (const t of twins)
        await eventually(
          `${t.app} rolled out`,
          async () => (await ok('get', t.kind, t.app, '-o', 'jsonpath={.status.availableReplicas}')) === '2',
          90_000,
        );
      for (const t of twins) {
        expect(await ready(t.kind, t.app)).to.equal('True/DependenciesReady');
        // app's first ReplicaSet came after db was available, to the second (the API server stamps a
        // ReplicaSet in whole seconds; Pacer's own kind keeps its conditions' milliseconds).
        const dbAvailable =
          1000 *
          Math.floor(
            Date.parse(
              await ok(
                'get',
                t.kind,
                t.db,
                '-o',
                'jsonpath={.status.conditions[?(@.type=="Available")].lastTransitionTime}',
              ),
            ) / 1000,
          );
        const appRS = Date.parse(
          await ok('get', 'rs', '-l', `app=${t.app}`, '-o', 'jsonpath={.items[0].metadata.creationTimestamp}'),
        );
        expect(appRS, `${t.app}'s ReplicaSet against ${t.db} available`).to.be.at.least(dbAvailable);
      }
    });
    it('another controller writing a status after the start (as kube-controller-manager would): Pacer stands down, a Warning Event says why, nothing more is written', async () => {
      await ok('create', 'deployment', 'late', '--image=nginx:1', '--replicas=2');
      await ok('rollout', 'status', 'deployment/late', '--timeout=90s');
      // What the built-in controller's status write leaves in managedFields: its manager name on the status subresource.
      await ok(
        'patch',
        'deployment',
        'late',
        '--subresource=status',
        '--type=merge',
        '--field-manager=kube-controller-manager',
        '-p',
        // A value that changes (a write that changes nothing leaves no managedFields entry).
        '{"status":{"observedGeneration":7}}',
      );
      await eventually('Pacer stood down', async () => pacer?.apps?.stoodDown !== undefined, 30_000);
      expect(pacer?.apps?.stoodDown).to.match(
        /^native mode stopped: another Deployment controller \(kube-controller-manager\) wrote the status of deployment native\/late after Pacer started/,
      );
      await eventually(
        'the Warning Event',
        async () =>
          (await ok(
            'get',
            'events',
            '--field-selector',
            'reason=OtherDeploymentController',
            '-o',
            'jsonpath={.items[*].type}',
          )) === 'Warning',
        30_000,
      );
      await ok('scale', 'deployment', 'late', '--replicas=3');
      await new Promise((r) => setTimeout(r, 3000));
      expect(await ok('get', 'rs', '-l', 'app=late', '-o', 'jsonpath={.items[*].spec.replicas}')).to.equal('2');
    });
  });
