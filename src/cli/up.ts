// `pacer` / `pacer up`: the main job. With no kubeconfig, it starts the simulated cluster, installs
// the CRD, starts the controller, applies examples/ (Plans and NodeRolls once its Deployments have
// rolled out) and says how to point kubectl at it; with a kubeconfig (flag or KUBECONFIG) it runs
// the controller against that cluster. Ctrl-C stops everything cleanly.
//
// On the simulated cluster the terminal is for people: the instructions, then one status line (the
// Deployments and how many are complete or still progressing), rewritten in place on a TTY and
// printed again on each change otherwise. The controller's logs go to a file (.pacer/controller.log
// under the working directory, --log-file) unless --log-to-stderr (-v) asks for them on stderr.
// Against a real cluster the controller's logs are the output, on stderr as `pacer controller`'s.

import { stopOnSignals } from './signals.ts';
import { Command } from 'commander';
import { createWriteStream, mkdirSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { CliError, runController } from './controller.ts';
import type { RunningController } from './controller.ts';
import { startSim } from '../sim/index.ts';
import { SIM_TOKEN } from '../sim/kubeconfig.ts';
import type { SimCluster } from '../sim/index.ts';
import { REF } from '../sim/resources.ts';
import type { KubeObject, ResourceRef } from '../sim/types.ts';
import { createLogger } from '../observe/logger.ts';
import type { LogFormat, LogLevel, Logger } from '../observe/logger.ts';
import { API_VERSION, GROUP, PACER_NAMESPACE, PLAN_PLURAL, PLURAL, VERSION } from '../api/types.ts';
import { NODEROLL_PLURAL } from '../api/noderoll.ts';
import type { Deployment } from '../api/types.ts';
import { deploymentComplete, getCondition, PROGRESSING, REASON } from '../engine/index.ts';
import { webhookConfiguration } from '../server/webhook.ts';
import { checkPortsFree, claimUp } from './uplock.ts';
import { parseBindAddress } from '../server/http.ts';
import { DEFAULT_USER_AGENT, KubeClient } from '../kube/client.ts';
import { connector, resolveKubeconfig } from '../kube/connect.ts';
import { serveDashboard } from '../plugin/dashboard.ts';
import type { ServedDashboard } from '../plugin/dashboard.ts';
import type { UpClaim } from './uplock.ts';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');

/** Where `pacer up` serves the dashboard on the simulated cluster: `kubectl pacer dashboard`'s own default. */
export const DEFAULT_DASHBOARD_ADDRESS = '127.0.0.1:3100';

/**
 * The dashboard's action lines (and its cache's warnings) go where the controller's logs go: the
 * log file (the terminal keeps the status line), or stderr with -v; nowhere when the caller passed
 * its own logger.
 */
function dashboardLog(log: NodeJS.WritableStream | undefined): { write(t: string): void } {
  return { write: (t: string) => void log?.write(`dashboard: ${t}`) };
}
const DEPLOYMENTS: ResourceRef = { group: GROUP, version: VERSION, resource: PLURAL };
/**
 * What `pacer up` applies from the examples directory (its top level: examples/failing/ is left
 * out), by apiVersion/kind: Pacer's Deployments, Plans and NodeRolls, and the simulated cloud's
 * NodeGroups that a NodeRoll replaces.
 */
const EXAMPLE_KINDS: Record<string, { ref: ResourceRef; namespaced: boolean; afterRollout?: boolean }> = {
  [`${API_VERSION}/Deployment`]: { ref: DEPLOYMENTS, namespaced: true },
  [`${API_VERSION}/Plan`]: {
    ref: { group: GROUP, version: VERSION, resource: PLAN_PLURAL },
    namespaced: true,
    afterRollout: true,
  },
  [`${API_VERSION}/NodeRoll`]: {
    ref: { group: GROUP, version: VERSION, resource: NODEROLL_PLURAL },
    namespaced: false,
    afterRollout: true,
  },
  'sim.pacer.dev/v1/NodeGroup': { ref: REF.nodegroups, namespaced: false },
};
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** Where the controller logs on the simulated cluster, relative to the working directory. */
export const DEFAULT_LOG_FILE = join('.pacer', 'controller.log');

export interface UpOptions {
  kubeconfig?: string;
  simKubeconfig: string;
  port: number;
  examples: string;
  metricsBindAddress: string;
  healthProbeBindAddress: string;
  /** The read-only views (GET /v2/deployments); "0" disables. */
  apiBindAddress?: string;
  /**
   * The dashboard on the simulated cluster (`kubectl pacer dashboard -A` with the simulated
   * cluster's kubeconfig), default 127.0.0.1:3100; "0" disables. Not started against a cluster.
   */
  dashboardBindAddress?: string;
  /**
   * The admission webhook (the deployment lock, the analysis resources' validation). On the
   * simulated cluster it defaults to "127.0.0.1:0" (a free port) and the sim gets a
   * ValidatingWebhookConfiguration pointing at it; "0" disables both.
   */
  webhookBindAddress?: string;
  logLevel: LogLevel;
  logFormat: LogFormat;
  /**
   * The controller's log file (truncated at start: this run's logs). Default: DEFAULT_LOG_FILE on
   * the simulated cluster, stderr against a cluster. Ignored with `logger` or `logToStderr`.
   */
  logFile?: string;
  /** The controller's logs on stderr, also on the simulated cluster. */
  logToStderr?: boolean;
  podStartMs?: number;
  podReadyMs?: number;
  /** Where the instructions and the status line go (default stdout). */
  out?: NodeJS.WritableStream;
  /** The status line on the simulated cluster (default on). */
  status?: boolean;
  /** How often the status line is refreshed (default 1000 ms). */
  statusIntervalMs?: number;
  logger?: Logger;
}

export interface Up {
  sim?: SimCluster;
  controller: RunningController;
  /** The controller's log file (absolute), when it logs to one. */
  logFile?: string;
  /** The live status line, on the simulated cluster. */
  status?: LiveStatus;
  stop(): Promise<void>;
}

/** The pacer.dev Deployments by where their rollout stands, for the status line. */
export interface DeploymentCounts {
  total: number;
  /** DeploymentComplete: every replica updated and available, the generation observed. */
  complete: number;
  /** Progressing=False with ProgressDeadlineExceeded. */
  failed: number;
  /** Paused before completing. */
  paused: number;
  /** Every other one: a rollout or a scaling under way (or waiting on its dependencies). */
  progressing: number;
}

export function countDeployments(items: readonly Deployment[]): DeploymentCounts {
  const c: DeploymentCounts = { total: 0, complete: 0, failed: 0, paused: 0, progressing: 0 };
  for (const d of items) {
    c.total++;
    const p = getCondition(d.status, PROGRESSING);
    if (!d.metadata.deletionTimestamp && deploymentComplete(d, d.status ?? {})) c.complete++;
    else if (p?.status === 'False' && p.reason === REASON.timedOut) c.failed++;
    else if (d.spec?.paused === true) c.paused++;
    else c.progressing++;
  }
  return c;
}

/** "pacer: 5 Deployments: 3 complete, 1 progressing, 1 past its progress deadline" */
export function statusLine(c: DeploymentCounts): string {
  const parts = [`${c.complete} complete`, `${c.progressing} progressing`];
  if (c.paused > 0) parts.push(`${c.paused} paused`);
  if (c.failed > 0) parts.push(`${c.failed} past ${c.failed === 1 ? 'its' : 'their'} progress deadline`);
  return `pacer: ${c.total} Deployment${c.total === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

/**
 * The status line: on a TTY one line rewritten in place (no newline until stop), otherwise a plain
 * line each time it changes. Refreshed every `intervalMs` from `read`.
 */
export class LiveStatus {
  private readonly out: NodeJS.WritableStream;
  private readonly inPlace: boolean;
  private readonly read: () => readonly Deployment[];
  private readonly timer: NodeJS.Timeout;
  private last: string | undefined;
  private stopped = false;

  constructor(
    out: NodeJS.WritableStream,
    read: () => readonly Deployment[],
    opts: { inPlace: boolean; intervalMs: number },
  ) {
    this.out = out;
    this.read = read;
    this.inPlace = opts.inPlace;
    this.timer = setInterval(() => this.refresh(), opts.intervalMs);
    this.timer.unref();
    this.refresh();
  }

  /** The line shown now (undefined before the first refresh that could read the Deployments). */
  get current(): string | undefined {
    return this.last;
  }

  refresh(): void {
    if (this.stopped) return;
    let line: string;
    try {
      line = statusLine(countDeployments(this.read()));
    } catch {
      return; // the store is stopping or the resource is not served yet: keep the last line
    }
    if (line === this.last) return;
    this.last = line;
    if (!this.inPlace) {
      this.out.write(`${line}\n`);
      return;
    }
    const columns = (this.out as { columns?: number }).columns;
    const shown = columns && line.length >= columns ? `${line.slice(0, Math.max(0, columns - 2))}…` : line;
    this.out.write(`\r\x1b[2K${shown}`);
  }

  /** A line of its own above the status line (which is drawn again below it). */
  note(line: string): void {
    if (this.stopped) return;
    if (!this.inPlace) {
      this.out.write(`${line}\n`);
      return;
    }
    this.out.write(`\r\x1b[2K${line}\n`);
    const last = this.last;
    this.last = undefined;
    if (last !== undefined) this.refresh();
  }

  /** No more updates; a line left open on the TTY is ended, so whatever follows starts on its own. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    if (this.inPlace && this.last !== undefined) this.out.write('\n');
  }
}

/** The controller's endpoints as the instructions and the run's record name them. */
function endpoints(controller: RunningController): string[] {
  return [
    controller.metricsPort !== undefined ? `metrics http://127.0.0.1:${controller.metricsPort}/metrics` : 'metrics off',
    controller.healthPort !== undefined
      ? `health http://127.0.0.1:${controller.healthPort}/healthz`
      : 'health probes off',
    controller.apiPort !== undefined
      ? `deployments view http://127.0.0.1:${controller.apiPort}/v2/deployments`
      : 'deployments view off',
  ];
}

/**
 * What `pacer up` prints on the simulated cluster: where everything is, then the lines to paste in
 * another terminal, the first two of which are the README's (the kubeconfig, and the directory of
 * the kubectl plugin on PATH: bin/kubectl-pacer, a link to bin/kubectl-pacer.js).
 */
export function instructions(i: {
  server: string;
  kubeconfig: string;
  endpoints: string[];
  applied: string[];
  /** Applied once the Deployments have rolled out (Plans, NodeRolls). */
  later?: string[];
  /** Where the controller logs; undefined when the caller passed its own logger. */
  logs?: string;
  apiPort?: number;
  /** The dashboard's URL; a sentence why there is none otherwise. */
  dashboard?: { url: string } | { off: string };
}): string {
  return [
    `pacer: simulated cluster serving at ${i.server}`,
    `pacer: controller running; ${i.endpoints.join(', ')}`,
    ...(i.dashboard === undefined
      ? []
      : 'url' in i.dashboard
        ? [`pacer: dashboard: ${i.dashboard.url} (every namespace; open it in a browser)`]
        : [`pacer: dashboard off: ${i.dashboard.off}`]),
    `pacer: applied examples: ${i.applied.join(', ') || '(none)'}`,
    ...(i.later?.length ? [`pacer: once they have rolled out: ${i.later.join(', ')}`] : []),
    ...(i.logs !== undefined ? [`pacer: controller logs: ${i.logs}`] : []),
    `pacer: in another terminal:`,
    `  export KUBECONFIG=${i.kubeconfig}`,
    `  export PATH=${join(ROOT, 'bin')}:$PATH   # kubectl pacer: the plugin`,
    `  kubectl get pdeploy,rs,pods`,
    `  kubectl pacer rollout status web`,
    `  kubectl pacer set image web nginx=nginx:1.28`,
    `  kubectl pacer get web -w`,
    `  kubectl pacer deployments`,
    ...(i.apiPort !== undefined
      ? [
          // The views check the caller's token with the API server; the kubeconfig's is an admin's.
          `  curl -H "Authorization: Bearer ${SIM_TOKEN}" http://127.0.0.1:${i.apiPort}/v2/deployments   # the kubeconfig's token`,
        ]
      : []),
    `pacer: Ctrl-C stops everything`,
    '',
  ].join('\n');
}

/** The log file, its directory created, truncated (this run's logs); write errors are dropped. */
function openLogFile(path: string): WriteStream {
  mkdirSync(dirname(path), { recursive: true });
  const stream = createWriteStream(path, { flags: 'w' });
  stream.on('error', () => {}); // a full disk must not stop the controller
  return stream;
}

/** Every object of every YAML file in `dir` (sorted by file name). Names the file on a parse error. */
export async function readManifests(dir: string): Promise<KubeObject[]> {
  const files = (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml').sort();
  const out: KubeObject[] = [];
  for (const f of files) {
    const text = await readFile(join(dir, f), 'utf8');
    for (const [i, doc] of parseAllDocuments(text).entries()) {
      if (doc.errors.length > 0) throw new CliError(`${join(dir, f)}: document ${i + 1}: ${doc.errors[0].message}`, 1);
      const obj = doc.toJS() as KubeObject | null;
      if (obj) out.push(obj);
    }
  }
  return out;
}

/** Creates `obj` in the simulated cluster as `kubectl apply` would (with its last-applied annotation). */
function applyToSim(sim: SimCluster, ref: ResourceRef, obj: KubeObject, namespace?: string): void {
  const annotated: KubeObject = structuredClone(obj);
  annotated.metadata.annotations = { ...annotated.metadata.annotations, [LAST_APPLIED]: `${JSON.stringify(obj)}\n` };
  sim.store.create(ref, namespace, annotated, { actor: 'pacer-up' });
}

export async function runUp(o: UpOptions): Promise<Up> {
  const kubeconfig = o.kubeconfig ?? process.env.KUBECONFIG;
  const wantFile =
    o.logger === undefined && !o.logToStderr ? (o.logFile ?? (kubeconfig ? undefined : DEFAULT_LOG_FILE)) : undefined;
  const logFile = wantFile !== undefined ? resolve(wantFile) : undefined;
  // On the simulated cluster: refuse before writing anything (the kubeconfig, the log) when another
  // run holds this kubeconfig, or when a port to listen on is taken (uplock.ts).
  let claim: UpClaim | undefined;
  if (!kubeconfig) {
    claim = claimUp(resolve(o.simKubeconfig), logFile !== undefined ? { logFile } : {});
    try {
      await checkPortsFree([
        ['--metrics-bind-address', o.metricsBindAddress],
        ['--health-probe-bind-address', o.healthProbeBindAddress],
        ['--api-bind-address', o.apiBindAddress ?? '127.0.0.1:8082'],
        ['--webhook-bind-address', o.webhookBindAddress],
        ['--dashboard-bind-address', o.dashboardBindAddress ?? DEFAULT_DASHBOARD_ADDRESS],
      ]);
    } catch (err) {
      claim.release();
      throw err;
    }
  }
  const logStream = logFile !== undefined ? openLogFile(logFile) : undefined;
  const closeLog = async (): Promise<void> => {
    claim?.release();
    if (logStream) await new Promise<void>((done) => logStream.end(done));
  };
  const logger =
    o.logger ?? createLogger({ level: o.logLevel, format: o.logFormat, ...(logStream ? { stream: logStream } : {}) });
  const common = {
    metricsBindAddress: o.metricsBindAddress,
    healthProbeBindAddress: o.healthProbeBindAddress,
    apiBindAddress: o.apiBindAddress ?? '127.0.0.1:8082',
    logger,
  };
  if (kubeconfig) {
    let controller: RunningController;
    try {
      controller = await runController({
        ...common,
        kubeconfig,
        ...(o.webhookBindAddress ? { webhookBindAddress: o.webhookBindAddress } : {}),
      });
    } catch (err) {
      await closeLog();
      throw err;
    }
    return {
      controller,
      ...(logFile !== undefined ? { logFile } : {}),
      stop: async () => {
        await controller.stop();
        await closeLog();
      },
    };
  }

  let sim: SimCluster;
  try {
    sim = await startSim({
      port: o.port,
      kubeconfigPath: o.simKubeconfig,
      ...(o.podStartMs !== undefined ? { podStartMs: o.podStartMs } : {}),
      ...(o.podReadyMs !== undefined ? { podReadyMs: o.podReadyMs } : {}),
    });
  } catch (err) {
    await closeLog();
    throw err;
  }
  try {
    for (const crd of await readManifests(join(ROOT, 'crds'))) applyToSim(sim, REF.customresourcedefinitions, crd);
    // Pacer's own namespace, as the install manifests make it: the freeze switch lives there.
    applyToSim(sim, REF.namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: PACER_NAMESPACE },
    } as KubeObject);
    const controller = await runController({
      ...common,
      kubeconfigText: sim.kubeconfig,
      webhookBindAddress: o.webhookBindAddress ?? '127.0.0.1:0',
    });
    // The simulated API server calls the webhooks (the lock, the analysis resources' validation)
    // like a real one would (plain HTTP on loopback).
    if (controller.webhookPort !== undefined) {
      sim.store.create(
        REF.validatingwebhookconfigurations,
        undefined,
        webhookConfiguration(`http://127.0.0.1:${controller.webhookPort}`),
      );
    }
    let dashboard: ServedDashboard | undefined;
    let dashboardLine: { url: string } | { off: string } | undefined;
    const dashboardAt = o.dashboardBindAddress ?? DEFAULT_DASHBOARD_ADDRESS;
    if (dashboardAt !== '0') {
      const bind = parseBindAddress(dashboardAt);
      if (!bind) throw new CliError(`--dashboard-bind-address: not HOST:PORT: ${JSON.stringify(dashboardAt)}`, 2);
      try {
        dashboard = await serveDashboard(
          new KubeClient((await connector(resolveKubeconfig({ kubeconfigText: sim.kubeconfig })))(), {
            userAgent: `${DEFAULT_USER_AGENT} dashboard`,
          }),
          {
            stdout: dashboardLog(logStream ?? (o.logToStderr ? process.stderr : undefined)),
            stderr: dashboardLog(logStream ?? (o.logToStderr ? process.stderr : undefined)),
          },
          { address: bind.host || '127.0.0.1', port: bind.port, namespace: undefined, readOnly: false },
        );
        dashboardLine = { url: dashboard.server.url };
      } catch (err) {
        // The page not built (no make): the rest runs, and says why there is no dashboard.
        dashboardLine = { off: (err as Error).message };
      }
    } else dashboardLine = { off: '--dashboard-bind-address=0' };
    const applied: string[] = [];
    // Plans and NodeRolls wait for the Deployments' first rollout: a Plan is created interrupted and
    // would hold its Deployments' first rollout too, and a node roll waits for every workload to be
    // healthy. Applied after, the Plan holds the next change (examples/custom-plan.yaml) and the roll
    // moves pods that are running.
    const later: Array<{ obj: KubeObject; kind: (typeof EXAMPLE_KINDS)[string] }> = [];
    const label = (obj: KubeObject) =>
      obj.kind === 'Deployment' ? (obj.metadata.name ?? '?') : `${obj.kind} ${obj.metadata.name}`;
    for (const obj of await readManifests(o.examples)) {
      const kind = EXAMPLE_KINDS[`${obj.apiVersion}/${obj.kind}`];
      if (!kind) continue;
      if (kind.afterRollout) {
        later.push({ obj, kind });
        continue;
      }
      applyToSim(sim, kind.ref, obj, kind.namespaced ? (obj.metadata.namespace ?? 'default') : undefined);
      applied.push(label(obj));
    }
    const out = o.out ?? process.stdout;
    claim?.update({
      server: sim.url,
      kubeconfig: sim.kubeconfigPath ?? o.simKubeconfig,
      endpoints: endpoints(controller),
    });
    out.write(
      instructions({
        server: sim.url,
        kubeconfig: sim.kubeconfigPath ?? o.simKubeconfig,
        endpoints: endpoints(controller),
        applied,
        later: later.map(({ obj }) => label(obj)),
        logs: o.logger
          ? undefined
          : logFile !== undefined
            ? `${logFile} (tail -f it; -v or --log-to-stderr shows them here)`
            : 'on stderr',
        apiPort: controller.apiPort,
        dashboard: dashboardLine,
      }),
    );
    const status =
      o.status === false
        ? undefined
        : new LiveStatus(
            out,
            () => sim.store.list(DEPLOYMENTS, undefined, { shared: true }).items as unknown as Deployment[],
            // In place only when nothing else writes to the terminal meanwhile.
            {
              inPlace: (out as { isTTY?: boolean }).isTTY === true && logStream !== undefined,
              intervalMs: o.statusIntervalMs ?? 1000,
            },
          );
    const listDeployments = () =>
      sim.store.list(DEPLOYMENTS, undefined, { shared: true }).items as unknown as Deployment[];
    const laterTimer =
      later.length === 0
        ? undefined
        : setInterval(() => {
            let c: DeploymentCounts;
            try {
              c = countDeployments(listDeployments());
            } catch {
              return; // the store is stopping
            }
            if (c.complete < c.total) return;
            clearInterval(laterTimer);
            for (const { obj, kind } of later)
              applyToSim(sim, kind.ref, obj, kind.namespaced ? (obj.metadata.namespace ?? 'default') : undefined);
            const line = `pacer: the Deployments have rolled out; applied ${later.map(({ obj }) => label(obj)).join(', ')}`;
            if (status) status.note(line);
            else out.write(`${line}\n`);
          }, 250);
    laterTimer?.unref();
    return {
      sim,
      controller,
      ...(logFile !== undefined ? { logFile } : {}),
      ...(status ? { status } : {}),
      stop: async () => {
        clearInterval(laterTimer);
        status?.stop();
        await dashboard?.stop();
        await controller.stop();
        await sim.stop();
        await closeLog();
      },
    };
  } catch (err) {
    await sim.stop();
    await closeLog();
    throw err;
  }
}

function parsePort(v: string): number {
  if (!/^\d+$/.test(v) || Number(v) > 65535)
    throw new CliError(`--port: must be an integer from 0 to 65535, got ${JSON.stringify(v)}`, 2);
  return Number(v);
}

export function upCommand(): Command {
  return new Command('up')
    .description('Run Pacer: on the embedded simulated cluster, or against a cluster when a kubeconfig is given')
    .option(
      '--kubeconfig <file>',
      'run the controller against this cluster (default: $KUBECONFIG; without either, a simulated cluster)',
    )
    .option('--sim-kubeconfig <file>', "where to write the simulated cluster's kubeconfig", 'pacer-sim.kubeconfig')
    .option('--port <n>', 'port of the simulated cluster (0 = any free port)', '0')
    .option(
      '--examples <dir>',
      'what to apply to the simulated cluster: the Deployments and NodeGroups of its YAML files, then, once the Deployments have rolled out, their Plans and NodeRolls',
      join(ROOT, 'examples'),
    )
    .option('--metrics-bind-address <addr>', 'address of /metrics ("0" disables)', '127.0.0.1:8443')
    .option('--health-probe-bind-address <addr>', 'address of /healthz and /readyz ("0" disables)', '127.0.0.1:8081')
    .option(
      '--api-bind-address <addr>',
      'address of the read-only views, GET /v2/deployments ("0" disables)',
      '127.0.0.1:8082',
    )
    .option(
      '--dashboard-bind-address <addr>',
      'address of the dashboard on the simulated cluster ("0" disables)',
      DEFAULT_DASHBOARD_ADDRESS,
    )
    .option(
      '--webhook-bind-address <addr>',
      'address of the admission webhook: the deployment lock and the analysis resources\' validation ("0" disables; default: a free loopback port on the simulated cluster, ":9443" otherwise)',
    )
    .option('--log-level <level>', 'error, warn, info or debug', 'info')
    .option('--log-format <format>', 'json or text', 'text')
    .option(
      '--log-file <file>',
      `the controller's log file (default on the simulated cluster: ${DEFAULT_LOG_FILE}; against a cluster: stderr)`,
    )
    .option('-v, --log-to-stderr', "the controller's logs on stderr, also on the simulated cluster")
    .action(async (o: Record<string, string | undefined>) => {
      let up: Up;
      try {
        up = await runUp({
          kubeconfig: o.kubeconfig,
          simKubeconfig: o.simKubeconfig ?? 'pacer-sim.kubeconfig',
          port: parsePort(o.port ?? '0'),
          examples: o.examples ?? join(ROOT, 'examples'),
          metricsBindAddress: o.metricsBindAddress ?? '127.0.0.1:8443',
          healthProbeBindAddress: o.healthProbeBindAddress ?? '127.0.0.1:8081',
          apiBindAddress: o.apiBindAddress ?? '127.0.0.1:8082',
          dashboardBindAddress: o.dashboardBindAddress ?? DEFAULT_DASHBOARD_ADDRESS,
          ...(o.webhookBindAddress ? { webhookBindAddress: o.webhookBindAddress } : {}),
          logLevel: (o.logLevel ?? 'info') as LogLevel,
          logFormat: (o.logFormat ?? 'text') as LogFormat,
          ...(o.logFile !== undefined ? { logFile: o.logFile } : {}),
          logToStderr: (o as Record<string, unknown>).logToStderr === true,
        });
      } catch (err) {
        process.stderr.write(`error: ${(err as Error).message}\n`);
        process.exit(err instanceof CliError ? err.exitCode : 1);
      }
      // The status line ends before "received SIGINT, stopping" is written (these run first).
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => up.status?.stop());
      stopOnSignals(() => up.stop(), { prefix: 'pacer: ' });
    });
}
