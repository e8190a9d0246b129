// The controller against the simulated cluster: wiring (informers, queue, reconciler, events) with
// a stand-in engine, then real rollouts with the engine of src/engine/decide.ts and the simulated
// ReplicaSet controller and kubelet, and the start-up checks of `pacer controller`.

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { parse as parseYaml } from 'yaml';
import { startSim } from '../../src/sim/index.ts';
import type { SimCluster } from '../../src/sim/index.ts';
import { KubeClient, CRDS, DEPLOYMENTS, EVENTS, REPLICASETS } from '../../src/kube/client.ts';
import { loadKubeConfig } from '../../src/kube/clientnode.ts';
import { runController, CRD_MISSING_MESSAGE, CliError } from '../../src/cli/controller.ts';
import type { RunningController } from '../../src/cli/controller.ts';
import type { Engine } from '../../src/controllers/deployment/reconciler.ts';
import { controllerOf } from '../../src/api/owners.ts';
import type { Deployment, ReplicaSet } from '../../src/api/types.ts';
import type { Action, Decision, Snapshot } from '../../src/engine/types.ts';
import { silentLogger } from '../../src/observe/logger.ts';
import { eventually } from './fixtures/cluster.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const CRD_FILE = `${ROOT}crds/deployments.pacer.dev.yaml`;

async function installCrd(client: KubeClient): Promise<void> {
  const crd = parseYaml(readFileSync(CRD_FILE, 'utf8')) as {
    metadata: { name: string };
    spec: {
      versions: Array<{ schema?: { openAPIV3Schema?: { properties?: Record<string, Record<string, unknown>> } } }>;
    };
  };
  // An API server refuses anything but `type: object` under metadata; drop a description if the
  // CRD file still carries one (reported to the CRD's author) so these tests exercise the controller.
  await client.create(CRDS, undefined, crd);
  await eventually('the CRD to be served', async () => {
    await client.list(DEPLOYMENTS, 'default');
    return true;
  });
}

/** A pod spec as a user writes it: the API server defaults the ReplicaSets' copies, not this one. */
function podSpec(image: string): Record<string, unknown> {
  return { containers: [{ name: 'web', image }] };
}

function webDeployment(name: string, image: string, replicas = 3): Deployment {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: podSpec(image) },
    },
  };
}

/**
 * A stand-in for the engine: one ReplicaSet `<name>-rs` at spec.replicas, status.replicas copied
 * from it. Enough to prove the shell (informers → queue → reconcile → writes → events).
 */
const standInEngine: Engine = {
  decide(s: Snapshot): Decision {
    const d = s.deployment;
    const name = `${d.metadata.name}-rs`;
    const want = d.spec.replicas ?? 1;
    const rs = s.replicaSets.find((r) => r.metadata.name === name);
    const actions: Action[] = [];
    if (!rs) {
      const object: ReplicaSet = {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name,
          namespace: d.metadata.namespace,
          labels: { ...d.spec.template?.metadata?.labels },
          ownerReferences: [
            {
              apiVersion: 'pacer.dev/v1alpha1',
              kind: 'Deployment',
              name: d.metadata.name!,
              uid: d.metadata.uid!,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        spec: { replicas: want, selector: d.spec.selector!, template: d.spec.template },
      };
      actions.push({
        verb: 'create',
        kind: 'ReplicaSet',
        name,
        replicas: want,
        object,
        event: {
          type: 'Normal',
          reason: 'ScalingReplicaSet',
          message: `Scaled up replica set ${name} from 0 to ${want}`,
        },
      });
    } else if (rs.spec.replicas !== want) {
      const from = rs.spec.replicas ?? 0;
      actions.push({
        verb: 'scale',
        kind: 'ReplicaSet',
        name,
        from,
        replicas: want,
        object: { ...rs, spec: { ...rs.spec, replicas: want } },
        event: {
          type: 'Normal',
          reason: 'ScalingReplicaSet',
          message: `Scaled ${want > from ? 'up' : 'down'} replica set ${name} from ${from} to ${want}`,
        },
      });
    }
    const status = { observedGeneration: d.metadata.generation, replicas: rs?.spec.replicas ?? 0 };
    const changed =
      JSON.stringify(status) !==
      JSON.stringify({ observedGeneration: d.status?.observedGeneration, replicas: d.status?.replicas });
    if (changed) actions.push({ verb: 'updateStatus', kind: 'Deployment', name: d.metadata.name!, status });
    return {
      deployment: `${d.metadata.namespace}/${d.metadata.name}`,
      actions,
      status,
      requeueAfterSeconds: null,
      events: [],
      objects: { deployment: d, replicaSets: [] },
    };
  },
  onCreateConflict: (s) => ({
    deployment: '',
    actions: [],
    status: s.deployment.status ?? {},
    requeueAfterSeconds: null,
    events: [],
    objects: { deployment: s.deployment, replicaSets: [] },
  }),
  onCreateError: (s) => ({
    deployment: '',
    actions: [],
    status: s.deployment.status ?? {},
    requeueAfterSeconds: null,
    events: [],
    objects: { deployment: s.deployment, replicaSets: [] },
  }),
};

describe('controller against the simulated cluster', function () {
  this.timeout(60_000);

  describe('start-up checks', () => {
    it('a missing CRD: "deployments.pacer.dev is not installed: kubectl apply -f crds/", exit 1', async () => {
      const sim = await startSim({ port: 0, controlPlane: false });
      try {
        let err: unknown;
        try {
          await runController({
            kubeconfigText: sim.kubeconfig,
            metricsBindAddress: '0',
            healthProbeBindAddress: '0',
            apiBindAddress: '0',
            webhookBindAddress: '0',
            logger: silentLogger(),
            engine: standInEngine,
          });
        } catch (e) {
          err = e;
        }
        expect(err).to.be.instanceOf(CliError);
        expect((err as CliError).message).to.equal(CRD_MISSING_MESSAGE);
        expect((err as CliError).exitCode).to.equal(1);
      } finally {
        await sim.stop();
      }
    });

    it('an unreachable API server: one line naming the server URL, exit 1', async () => {
      // A port that was free a moment ago: nothing listens there.
      const port = await new Promise<number>((resolve) => {
        const s = createServer().listen(0, '127.0.0.1', () => {
          const p = (s.address() as { port: number }).port;
          s.close(() => resolve(p));
        });
      });
      const kubeconfig = [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]`,
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
      ].join('\n');
      let err: unknown;
      try {
        await runController({
          kubeconfigText: kubeconfig,
          metricsBindAddress: '0',
          healthProbeBindAddress: '0',
          apiBindAddress: '0',
          webhookBindAddress: '0',
          logger: silentLogger(),
          engine: standInEngine,
        });
      } catch (e) {
        err = e;
      }
      expect(err).to.be.instanceOf(CliError);
      expect((err as CliError).exitCode).to.equal(1);
      expect((err as CliError).message).to.match(
        new RegExp(
          `^cannot reach the API server at http://127\\.0\\.0\\.1:${port}: dial tcp 127\\.0\\.0\\.1:${port}: connect: connection refused$`,
        ),
      );
      expect((err as CliError).message).to.not.contain('\n');
    });

    it('a stopped simulated cluster (its kubeconfig still exported): the refusal, then a hint', async () => {
      const sim = await startSim({});
      const kubeconfig = sim.kubeconfig;
      await sim.stop();
      const err = await runController({
        kubeconfigText: kubeconfig,
        metricsBindAddress: '0',
        healthProbeBindAddress: '0',
        apiBindAddress: '0',
        webhookBindAddress: '0',
        logger: silentLogger(),
        engine: standInEngine,
      }).then(
        () => expect.fail('runController should fail'),
        (e: unknown) => e as CliError,
      );
      const port = new URL(sim.url).port;
      expect(err.message).to.equal(
        `cannot reach the API server at http://127.0.0.1:${port}: dial tcp 127.0.0.1:${port}: connect: connection refused\n` +
          `hint: this kubeconfig's cluster "pacer-sim" is a simulated cluster that \`make run\` or \`pacer sim\` wrote and that is no longer running; start a new one (\`unset KUBECONFIG; make run\` in the Pacer clone) and use the kubeconfig it writes`,
      );
      expect(err.exitCode).to.equal(1);
    });

    it('bad flag values: an error naming the flag, exit 2', async () => {
      const rows: Array<[object, RegExp]> = [
        [{ workers: 0 }, /^--workers: /],
        [{ namespace: 'Bad_NS' }, /^--namespace: /],
        [{ metricsBindAddress: '8080' }, /^--metrics-bind-address: /],
        [{ healthProbeBindAddress: ':99999' }, /^--health-probe-bind-address: /],
        [{ logLevel: 'loud' }, /^--log-level: /],
        [{ logFormat: 'xml' }, /^--log-format: /],
      ];
      for (const [opts, msg] of rows) {
        let err: unknown;
        try {
          await runController({ ...opts, logger: silentLogger(), engine: standInEngine });
        } catch (e) {
          err = e;
        }
        expect((err as CliError).exitCode, JSON.stringify(opts)).to.equal(2);
        expect((err as CliError).message).to.match(msg);
      }
    });
  });

  describe('the shell with a stand-in engine', () => {
    let sim: SimCluster;
    let client: KubeClient;
    let ctl: RunningController;
    before(async () => {
      sim = await startSim({ port: 0, controlPlane: false });
      client = new KubeClient(loadKubeConfig({ kubeconfigText: sim.kubeconfig }));
      await installCrd(client);
      ctl = await runController({
        kubeconfigText: sim.kubeconfig,
        workers: 2,
        metricsBindAddress: '127.0.0.1:0',
        healthProbeBindAddress: '127.0.0.1:0',
        apiBindAddress: '0',
        webhookBindAddress: '0',
        logger: silentLogger(),
        engine: standInEngine,
      });
      await eventually('caches to sync', async () => ctl.ready());
    });
    after(async () => {
      await ctl?.stop();
      await sim?.stop();
    });

    it('is ready once synced, and serves /readyz and /metrics', async () => {
      expect((await fetch(`http://127.0.0.1:${ctl.healthPort}/readyz`)).status).to.equal(200);
      const metrics = await (await fetch(`http://127.0.0.1:${ctl.metricsPort}/metrics`)).text();
      expect(metrics).to.contain('workqueue_depth{name="deployment",controller="deployment"}');
    });

    it('creates the ReplicaSet with a controller ownerReference, writes status, records the event', async () => {
      const created = await client.create<Deployment>(DEPLOYMENTS, 'default', webDeployment('shell', 'nginx:1', 3));
      const rs = await eventually('the ReplicaSet', () => client.get<ReplicaSet>(REPLICASETS, 'default', 'shell-rs'));
      expect(controllerOf(rs)?.uid).to.equal(created.metadata.uid);
      expect(rs.spec.replicas).to.equal(3);
      await eventually(
        'status.replicas = 3',
        async () => (await client.getDeployment('default', 'shell')).status?.replicas === 3,
      );
      const events = await eventually('the event', async () => {
        const list = await client.list<{
          reason: string;
          message: string;
          source?: { component?: string };
          involvedObject: { name: string };
        }>(EVENTS, 'default');
        const e = list.items.filter((x) => x.involvedObject.name === 'shell');
        return e.length > 0 && e;
      });
      expect(events.map((e) => e.message)).to.deep.equal(['Scaled up replica set shell-rs from 0 to 3']);
      expect(events[0].source?.component).to.equal('pacer-controller');
      const agents = new Set(sim.audit.entries({ resource: 'replicasets', verb: 'create' }).map((e) => e.userAgent));
      expect([...agents]).to.deep.equal(['pacer-controller/0.1.0']);
    });

    it('a scale is applied and the ReplicaSet event maps back to its Deployment', async () => {
      await client.patch(DEPLOYMENTS, 'default', 'shell', { spec: { replicas: 5 } }, 'merge');
      await eventually(
        'the ReplicaSet at 5',
        async () => (await client.get<ReplicaSet>(REPLICASETS, 'default', 'shell-rs')).spec.replicas === 5,
      );
      await eventually(
        'status.replicas = 5',
        async () => (await client.getDeployment('default', 'shell')).status?.replicas === 5,
      );
    });

    it('a 409 on status writes is retried and nothing is lost', async () => {
      sim.faults.set('error=409@0.6:verb=update,resource=deployments;seed=7');
      try {
        await client.patch(DEPLOYMENTS, 'default', 'shell', { spec: { replicas: 2 } }, 'merge');
        await eventually(
          'status.replicas = 2 through the conflicts',
          async () => (await client.getDeployment('default', 'shell')).status?.replicas === 2,
        );
      } finally {
        sim.faults.clear();
      }
      const statusWrites = sim.audit
        .entries({ resource: 'deployments', verb: 'update' })
        .filter((e) => e.subresource === 'status');
      expect(
        statusWrites.some((e) => e.code === 409),
        'some status writes met a 409',
      ).to.equal(true);
      const d = await client.getDeployment('default', 'shell');
      expect([d.spec.replicas, d.status?.replicas, d.status?.observedGeneration]).to.deep.equal([
        2,
        2,
        d.metadata.generation,
      ]);
    });

    it('survives the sim dropping its watches and expiring resourceVersions', async () => {
      const resources = ['deployments', 'replicasets', 'pods'];
      const lists = () => resources.map((resource) => sim.audit.entries({ verb: 'list', resource }).length);
      const before = lists();
      sim.faults.dropWatches();
      sim.faults.expireResourceVersions();
      // Each informer re-watches from a resourceVersion that is now too old, gets 410 and relists.
      await eventually('the informers to relist after the expiry', () => lists().every((n, i) => n > before[i]));
      await client.patch(DEPLOYMENTS, 'default', 'shell', { spec: { replicas: 4 } }, 'merge');
      await eventually(
        'the ReplicaSet at 4 after the drop',
        async () => (await client.get<ReplicaSet>(REPLICASETS, 'default', 'shell-rs')).spec.replicas === 4,
      );
      sim.faults.dropWatches();
      await client.create<Deployment>(DEPLOYMENTS, 'default', webDeployment('after-drop', 'nginx:1', 1));
      await eventually('a ReplicaSet for a Deployment created after the drop', () =>
        client.get<ReplicaSet>(REPLICASETS, 'default', 'after-drop-rs'),
      );
    });

    it('stops gracefully', async () => {
      const other = await runController({
        kubeconfigText: sim.kubeconfig,
        metricsBindAddress: '0',
        healthProbeBindAddress: '0',
        apiBindAddress: '0',
        webhookBindAddress: '0',
        logger: silentLogger(),
        engine: standInEngine,
      });
      await eventually('sync', async () => other.ready());
      await other.stop();
      expect(other.controller.queue.isShuttingDown()).to.equal(true);
    });
  });

  describe('rollouts with the engine', () => {
    let sim: SimCluster;
    let client: KubeClient;
    let ctl: RunningController;
    /** The messages of the Events about web. */
    const webEvents = async (): Promise<string[]> =>
      (await client.list<{ message: string; involvedObject: { name: string } }>(EVENTS, 'default')).items
        .filter((e) => e.involvedObject.name === 'web')
        .map((e) => e.message);
    before(async () => {
      sim = await startSim({ port: 0, podStartMs: 50, podReadyMs: 50 });
      client = new KubeClient(loadKubeConfig({ kubeconfigText: sim.kubeconfig }));
      await installCrd(client);
      ctl = await runController({
        kubeconfigText: sim.kubeconfig,
        workers: 2,
        metricsBindAddress: '0',
        healthProbeBindAddress: '0',
        apiBindAddress: '0',
        webhookBindAddress: '0',
        logger: silentLogger(),
      });
      await eventually('caches to sync', async () => ctl.ready());
    });
    after(async () => {
      await ctl?.stop();
      await sim?.stop();
    });

    const progressing = (d: Deployment) => d.status?.conditions?.find((c) => c.type === 'Progressing');
    const complete = (d: Deployment, n: number) =>
      d.status?.observedGeneration === d.metadata.generation &&
      d.status?.availableReplicas === n &&
      d.status?.updatedReplicas === n &&
      d.status?.replicas === n &&
      progressing(d)?.reason === 'NewReplicaSetAvailable' &&
      progressing(d)?.status === 'True';

    it('rolls out 3 replicas: 3/3 available, Progressing=True NewReplicaSetAvailable, a "Scaled up" event', async () => {
      await client.create<Deployment>(DEPLOYMENTS, 'default', webDeployment('web', 'nginx:1', 3));
      const d = await eventually('3/3 available', async () => {
        const x = await client.getDeployment('default', 'web');
        return complete(x, 3) && x;
      });
      expect(d.metadata.annotations?.['pacer.dev/revision']).to.equal('1');
      const rss = (await client.list<ReplicaSet>(REPLICASETS, 'default')).items.filter(
        (r) => controllerOf(r)?.uid === d.metadata.uid,
      );
      expect(rss).to.have.length(1);
      // Events trail the writes (they take the rate limiter's spare tokens).
      await eventually('the scale-up Event', async () =>
        (await webEvents()).includes(`Scaled up replica set ${rss[0].metadata.name} from 0 to 3`),
      );
    });

    it('a new image: a new ReplicaSet, the old one scaled to 0, revision 2', async () => {
      await client.patch(DEPLOYMENTS, 'default', 'web', { spec: { template: { spec: podSpec('nginx:2') } } }, 'merge');
      const d = await eventually(
        'the rollout to finish',
        async () => {
          const x = await client.getDeployment('default', 'web');
          return complete(x, 3) && x.metadata.annotations?.['pacer.dev/revision'] === '2' && x;
        },
        30_000,
      );
      const rss = (await client.list<ReplicaSet>(REPLICASETS, 'default')).items.filter(
        (r) => controllerOf(r)?.uid === d.metadata.uid,
      );
      expect(rss).to.have.length(2);
      const byImage = (img: string) => rss.find((r) => JSON.stringify(r.spec.template).includes(img))!;
      expect(byImage('nginx:2').spec.replicas).to.equal(3);
      expect(byImage('nginx:1').spec.replicas).to.equal(0);
      await eventually('the last scale-down Event', async () =>
        (await webEvents()).includes(`Scaled down replica set ${byImage('nginx:1').metadata.name} from 1 to 0`),
      );
    });
  });
});
