// Native mode (docs/native.md) on the real control plane, the one bed that serves apps/v1
// Deployments:
// * started beside kube-controller-manager's own Deployment controller, Pacer refuses with a
//   message that says how to fix it, and writes nothing but its probe (read from the API server's
//   audit log), which it deletes again;
// * on a bed whose kube-controller-manager runs without it, Pacer is the Deployment controller:
//   the real kubectl's rollout commands (status, history, undo, pause, resume, restart) work on an
//   apps/v1 Deployment as upstream's controller makes them, and an apps/v1 Deployment with
//   pacer.dev/minimum-health-capacity scales exactly as its pacer.dev twin.

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
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
      const rbac = await bed.kubectl(['apply', '-f', join(ROOT, 'manifests', 'native', 'rbac.yaml')]);
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
        ['apply', '-f', join(ROOT, 'manifests', 'native', 'rbac.yaml')],
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

    it("kubectl rollout status, history, undo, pause, resume and restart, as on upstream's controller", async () => {
      await ok('create', 'deployment', 'web', '--image=nginx:1', '--replicas=3');
      expect(await ok('rollout', 'status', 'deployment/web', '--timeout=90s')).to.match(
        /deployment "web" successfully rolled out$/,
      );
      // The revision annotation went through /status, as upstream writes it: the generation did not move.
      expect(
        await ok('get', 'deployment', 'web', '-o', 'jsonpath={.metadata.generation}/{.status.observedGeneration}'),
      ).to.equal('1/1');
      const owner = await ok(
        'get',
        'rs',
        '-l',
        'app=web',
        '-o',
        'jsonpath={.items[0].metadata.ownerReferences[0].apiVersion}',
      );
      expect(owner).to.equal('apps/v1');
      // Named as kube-controller-manager names it for the same command (recorded on this bed with its
      // own Deployment controller: test/fixtures/podtemplate-hash/kube-controller-manager.json).
      const upstream = (
        JSON.parse(
          readFileSync(join(ROOT, 'test', 'fixtures', 'podtemplate-hash', 'kube-controller-manager.json'), 'utf8'),
        ) as Array<{ name: string; hash: string }>
      ).find((r) => r.name.startsWith('kubectl create deployment web --image=nginx:1,'));
      expect(await ok('get', 'rs', '-l', 'app=web', '-o', 'jsonpath={.items[0].metadata.name}')).to.equal(
        `web-${upstream?.hash}`,
      );
      expect(
        await ok('get', 'deployment', 'web', '-o', 'jsonpath={.status.conditions[?(@.type=="Progressing")].reason}'),
      ).to.equal('NewReplicaSetAvailable');

      await ok('set', 'image', 'deployment/web', 'nginx=nginx:2');
      await ok('rollout', 'status', 'deployment/web', '--timeout=90s');
      const history = await ok('rollout', 'history', 'deployment/web');
      expect(history.split('\n').slice(0, 2).join('\n')).to.equal('deployment.apps/web \nREVISION  CHANGE-CAUSE');
      expect(
        history
          .split('\n')
          .slice(2)
          .map((l) => l.trim().split(/\s+/)[0]),
      ).to.deep.equal(['1', '2']);

      expect(await ok('rollout', 'undo', 'deployment/web')).to.equal('deployment.apps/web rolled back');
      await ok('rollout', 'status', 'deployment/web', '--timeout=90s');
      expect(await ok('get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}')).to.equal(
        'nginx:1',
      );
      expect(
        await ok(
          'get',
          'deployment',
          'web',
          '-o',
          "jsonpath={.metadata.annotations['deployment\\.kubernetes\\.io/revision']}",
        ),
      ).to.equal('3');

      expect(await ok('rollout', 'pause', 'deployment/web')).to.equal('deployment.apps/web paused');
      await ok('set', 'image', 'deployment/web', 'nginx=nginx:3');
      await eventually(
        'the paused Deployment observed',
        async () =>
          (await ok(
            'get',
            'deployment',
            'web',
            '-o',
            'jsonpath={.status.conditions[?(@.type=="Progressing")].reason}',
          )) === 'DeploymentPaused',
        30_000,
      );
      expect(
        await ok('get', 'rs', '-l', 'app=web', '-o', 'jsonpath={.items[*].spec.template.spec.containers[0].image}'),
      ).to.not.include('nginx:3');
      const paused = await k('rollout', 'status', 'deployment/web', '--timeout=2s');
      expect(paused.code).to.equal(1);
      expect(await ok('rollout', 'resume', 'deployment/web')).to.equal('deployment.apps/web resumed');
      await ok('rollout', 'status', 'deployment/web', '--timeout=90s');
      expect(await ok('get', 'deployment', 'web', '-o', 'jsonpath={.status.updatedReplicas}')).to.equal('3');

      expect(await ok('rollout', 'restart', 'deployment/web')).to.equal('deployment.apps/web restarted');
      await ok('rollout', 'status', 'deployment/web', '--timeout=90s');
      const revisions = (await ok('rollout', 'history', 'deployment/web')).split('\n').slice(2);
      expect(revisions.map((l) => l.trim().split(/\s+/)[0])).to.deep.equal(['2', '3', '4', '5']);
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
