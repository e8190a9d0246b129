// The scaffolding of the end-to-end tests: the real kubectl (built by make test, first on PATH)
// against one of two test beds, in a temp dir of its own (kubeconfig, kubectl's cache, edited
// examples and, when asked, a `kubectl-pacer` link so kubectl finds the plugin), with an in-process
// controller:
// * `sim`: Pacer's simulated cluster, in-process;
// * `real`: a real control plane (hack/kube's kube-bed: etcd, kube-apiserver, kube-controller-manager,
//   kube-scheduler, kwok), where the controller runs as the ServiceAccount and ClusterRole that
//   manifests/base ships, and a request the API server forbids fails the suite.
// Every suite runs once per bed in BEDS (PACER_E2E_BEDS=sim or real picks one).
//
//   for (const bed of BEDS) describe(`e2e (${bed}): ...`, function () {
//     const k = kubectlEnv({ bed, tmpPrefix: 'pacer-x-', sim: { podStartMs: 30, podReadyMs: 60 } });
//     before(function () { return k.start(this); });
//     after(() => k.stop());
//     const { kubectl, ok } = k;

import { expect } from 'chai';
import { execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSim } from '../../src/sim/index.ts';
import { KubeClient, DEPLOYMENTS, EVENTS, PODS, REPLICASETS } from '../../src/kube/client.ts';
import { loadKubeConfig } from '../../src/kube/clientnode.ts';
import { webhookConfiguration } from '../../src/server/webhook.ts';
import type { SimCluster, SimOptions } from '../../src/sim/index.ts';
import { runController } from '../../src/cli/controller.ts';
import type { RunControllerOptions, RunningController } from '../../src/cli/controller.ts';
import { silentLogger } from '../../src/observe/logger.ts';
import { KUBECTL_HOW, requireTool } from '../fixtures/tools.ts';
import type { BedKind } from '../fixtures/beds.ts';
import { startRealBed } from '../fixtures/realbed.ts';
import type { RealBed } from '../fixtures/realbed.ts';
import { ChangeRecorder } from '../fixtures/recorder.ts';
import { parseExposition, samples } from '../fixtures/prometheus.ts';
import { TEST_USER_AGENT, Timeline } from '../integration/fixtures/cluster.ts';

export { BEDS } from '../fixtures/beds.ts';
type WebhookConfiguration = ReturnType<typeof webhookConfiguration>;
/** Changes in one namespace, as a Timeline whose invariants are checked on every change. */
export interface Recording {
  /** The Timeline up to now (on the real bed, once the watches have caught up). */
  timeline(): Promise<Timeline>;
}

/** The repository's root (crds/, examples/, bin/). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What a finished command left: its exit code and its output. */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** One change to an example: the first match of `from` (which must be there) becomes `to`. */
export type Edit = [from: string | RegExp, to: string];

export interface KubectlEnvOptions {
  /** Which bed (default the simulated cluster). */
  bed?: BedKind;
  /** The temp dir's name starts with it (`pacer-quickstart-`). */
  tmpPrefix: string;
  /**
   * The simulated cluster's options; the fixture adds port 0 and the kubeconfig file. On the real
   * bed, nodes, zones, podStartMs and podReadyMs set kube-bed's nodes and kwok's delays.
   */
  sim: Omit<SimOptions, 'port' | 'kubeconfigPath'>;
  /**
   * Put a `kubectl-pacer` link on PATH so that `kubectl pacer` finds the plugin. The kubeconfig
   * then travels in KUBECONFIG (the plugin reads it too); without the plugin, kubectl gets
   * `--kubeconfig`.
   */
  plugin?: boolean;
  /** A command still running after this long is killed (default 30 s). */
  timeoutMs?: number;
  /**
   * The real bed's kube-controller-manager without its Deployment controller, for Pacer's native
   * mode (the simulated cluster runs none anyway).
   */
  noDeploymentController?: boolean;
}

export interface KubectlEnv {
  readonly bed: BedKind;
  /** The temp dir (after start). */
  readonly dir: string;
  /** The simulated cluster (after start; on the sim bed only). */
  readonly sim: SimCluster;
  /** The real control plane (after start; on the real bed only). */
  readonly real: RealBed;
  /** The environment commands run with (KUBECONFIG and PATH with the plugin). */
  readonly env: NodeJS.ProcessEnv;
  /** The controller, once startController has run. */
  readonly controller: RunningController | undefined;
  /** For `before`: skips the suite without kubectl (fails under CI=true); else makes the dir and starts the cluster. */
  start(suite: Mocha.Context): Promise<void>;
  /** For `after`: kills what still runs, stops the controller and the cluster, removes the dir. */
  stop(): Promise<void>;
  /** kubectl's full argument list: the per-run cache (and kubeconfig) flags, then `args`. */
  kubectlArgs(args: string[]): string[];
  /** Runs kubectl; `kubectl pacer ...` gets no flags first (kubectl would not find the plugin). */
  kubectl(...args: string[]): Promise<CommandResult>;
  /** Runs any command with the env, without blocking the event loop (the cluster is in-process). */
  run(cmd: string, args: string[]): Promise<CommandResult>;
  /** Kills `child` in stop if it still runs. */
  track<C extends ChildProcess>(child: C): C;
  /** The stdout of a command that must succeed: empty stderr, exit 0. */
  ok(result: Promise<CommandResult>): Promise<string>;
  /** examples/`file` with `edits` applied, written to the dir as `out` (default `file`); its path. */
  editedExample(file: string, edits: Edit[], out?: string): Promise<string>;
  /**
   * Starts the controller on the cluster: every server off unless `opts` binds it. On the real bed
   * it runs as Pacer's ServiceAccount, and its webhook serves the bed's certificate.
   */
  startController(opts?: RunControllerOptions): Promise<RunningController>;
  /**
   * Registers the controller's validating webhooks (on the real bed: HTTPS, with the bed's CA
   * bundle): `build`'s configuration (default Pacer's own, webhookConfiguration).
   */
  registerWebhook(controller: RunningController, build?: (base: string) => WebhookConfiguration): Promise<void>;
  /** Creates a namespace (through kubectl, as the admin). */
  createNamespace(name: string): Promise<void>;
  /** Starts recording the changes in `namespace`; `setup` adds the Timeline's invariants. */
  record(namespace: string, setup: (t: Timeline) => void): Promise<Recording>;
}

export function kubectlEnv(options: KubectlEnvOptions): KubectlEnv {
  const bed = options.bed ?? 'sim';
  const timeout = options.timeoutMs ?? 30_000;
  let dir: string | undefined;
  let sim: SimCluster | undefined;
  let real: RealBed | undefined;
  let controller: RunningController | undefined;
  /** Stops the recordings (their watches, or their store subscriptions). */
  const recordings: Array<() => Promise<void> | void> = [];
  let env: NodeJS.ProcessEnv = process.env;
  const children: ChildProcess[] = [];
  // The command line of each result, for ok's failure message.
  const commands = new WeakMap<CommandResult, string>();

  const started = () => {
    if (dir === undefined || (sim === undefined && real === undefined))
      throw new Error('kubectlEnv: start() has not run');
    return { dir };
  };
  const kubectlFile = async (name: string, objects: object[]): Promise<void> => {
    const path = join(started().dir, name);
    await writeFile(path, objects.map((o) => JSON.stringify(o)).join('\n'));
    const r = await exec('kubectl', kubectlArgs(['apply', '-f', path]), `kubectl apply -f ${name}`);
    if (r.code !== 0) throw new Error(`kubectl apply -f ${name}: ${r.stderr}`);
  };
  const track = <C extends ChildProcess>(child: C): C => {
    children.push(child);
    return child;
  };
  const exec = (cmd: string, args: string[], label: string): Promise<CommandResult> =>
    new Promise((resolve) => {
      track(
        execFile(cmd, args, { env, timeout }, (err, stdout, stderr) => {
          const result = {
            code: err ? (typeof err.code === 'number' ? err.code : 1) : 0,
            stdout: String(stdout),
            stderr: String(stderr),
          };
          commands.set(result, label);
          resolve(result);
        }),
      );
    });
  const kubectlArgs = (args: string[]): string[] => {
    const d = started().dir;
    if (args[0] === 'pacer') return args;
    const kubeconfig = options.plugin ? [] : ['--kubeconfig', join(d, 'kubeconfig')];
    return [...kubeconfig, '--cache-dir', join(d, 'cache'), ...args];
  };

  return {
    bed,
    get dir() {
      return started().dir;
    },
    get sim() {
      if (!sim) throw new Error(`kubectlEnv: no simulated cluster on the ${bed} bed`);
      return sim;
    },
    get real() {
      if (!real) throw new Error(`kubectlEnv: no real control plane on the ${bed} bed`);
      return real;
    },
    get env() {
      return env;
    },
    get controller() {
      return controller;
    },

    async start(suite) {
      requireTool(suite, 'kubectl', KUBECTL_HOW);
      if (bed === 'real') requireTool(suite, 'kube-bed', KUBECTL_HOW);
      dir = await mkdtemp(join(tmpdir(), options.tmpPrefix));
      const kubeconfigPath = join(dir, 'kubeconfig');
      if (options.plugin) {
        // kubectl finds plugins on PATH: a link named kubectl-pacer to the launcher in bin/.
        await mkdir(join(dir, 'bin'));
        await symlink(join(ROOT, 'bin', 'kubectl-pacer.js'), join(dir, 'bin', 'kubectl-pacer'));
        env = { ...process.env, KUBECONFIG: kubeconfigPath, PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}` };
      }
      if (bed === 'sim') {
        sim = await startSim({ ...options.sim, port: 0, kubeconfigPath });
        return;
      }
      const o = options.sim;
      real = await startRealBed({
        ...(o.nodes !== undefined ? { nodes: o.nodes } : {}),
        ...(o.zones ? { zones: o.zones } : {}),
        ...(o.podStartMs !== undefined ? { podStartMs: o.podStartMs } : {}),
        ...(o.podReadyMs !== undefined ? { podReadyMs: o.podReadyMs } : {}),
        ...(options.noDeploymentController ? { noDeploymentController: true } : {}),
      });
      await writeFile(kubeconfigPath, await readFile(real.info.kubeconfig, 'utf8'), { mode: 0o600 });
    },

    async stop() {
      for (const c of children) if (c.exitCode === null) c.kill();
      await controller?.stop();
      for (const stopRecording of recordings) await stopRecording();
      await sim?.stop();
      // On the real bed, a request of Pacer's that RBAC refused fails the suite: the ClusterRole
      // that manifests/base ships must allow everything the controller does. The audit log says
      // which; on a cluster without one, the controller's own request counter says how many.
      let forbidden: string[] = [];
      if (real?.info.auditLog) forbidden = await real.forbidden();
      else if (real && controller) {
        const counted = samples(
          parseExposition(await controller.metrics.registry.metrics()),
          'rest_client_requests_total',
          { code: '403' },
        );
        forbidden = counted
          .filter((c) => c.value > 0)
          .map((c) => `${c.value} ${c.labels.method} requests answered 403`);
      }
      await real?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
      expect(forbidden, 'requests of pacer-controller the API server forbade').to.deep.equal([]);
    },

    kubectlArgs,
    kubectl: (...args) => exec('kubectl', kubectlArgs(args), `kubectl ${args.join(' ')}`),
    run: (cmd, args) => exec(cmd, args, `${cmd} ${args.join(' ')}`),
    track,

    async ok(result) {
      const r = await result;
      expect(r.stderr, commands.get(r)).to.equal('');
      expect(r.code).to.equal(0);
      return r.stdout;
    },

    async editedExample(file, edits, out = file) {
      let text = await readFile(join(ROOT, 'examples', file), 'utf8');
      for (const [from, to] of edits) {
        if (typeof from === 'string') expect(text).to.contain(from);
        else expect(text).to.match(from);
        text = text.replace(from, to);
      }
      const path = join(started().dir, out);
      await writeFile(path, text);
      return path;
    },

    async startController(opts = {}) {
      started();
      const webhook = opts.webhookBindAddress !== undefined && opts.webhookBindAddress !== '0';
      controller = await runController({
        kubeconfigText: real ? await real.controllerKubeconfig() : sim!.kubeconfig,
        metricsBindAddress: '0',
        healthProbeBindAddress: '0',
        apiBindAddress: '0',
        webhookBindAddress: '0',
        logger: silentLogger(),
        ...(real && webhook ? { webhookCertDir: real.info.webhookCertDir } : {}),
        ...opts,
      });
      return controller;
    },

    async registerWebhook(c, build = webhookConfiguration) {
      // The simulated API server calls webhooks over plain HTTP; a real one only over HTTPS, and
      // it checks the serving certificate against the configuration's CA bundle.
      const scheme = real ? 'https' : 'http';
      const config = build(`${scheme}://127.0.0.1:${c.webhookPort}`);
      if (real) {
        const ca = (await readFile(real.info.ca)).toString('base64');
        for (const w of config.webhooks as Array<{ clientConfig: Record<string, string> }>)
          w.clientConfig.caBundle = ca;
      }
      await kubectlFile('webhook.json', [config]);
    },

    async createNamespace(name) {
      await kubectlFile(`namespace-${name}.json`, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }]);
    },

    async record(namespace, setup) {
      if (sim) {
        const t = new Timeline(sim, namespace);
        setup(t);
        recordings.push(() => t.stop());
        return { timeline: async () => t };
      }
      const client = new KubeClient(loadKubeConfig({ kubeconfig: join(started().dir, 'kubeconfig') }), {
        userAgent: TEST_USER_AGENT,
      });
      const rec = new ChangeRecorder(client, namespace, [DEPLOYMENTS, REPLICASETS, PODS, EVENTS]);
      recordings.push(() => rec.stop());
      return { timeline: () => rec.timeline(setup) };
    },
  };
}
