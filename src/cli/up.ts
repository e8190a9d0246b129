// `pacer` / `pacer up`: the main job. With no kubeconfig, it starts the simulated cluster, installs
// the CRD, starts the controller, applies examples/ and says how to point kubectl at it; with a
// kubeconfig (flag or KUBECONFIG) it runs the controller against that cluster. Ctrl-C stops
// everything cleanly.

import { stopOnSignals } from './signals.ts';
import { Command } from 'commander';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { CliError, runController } from './controller.ts';
import type { RunningController } from './controller.ts';
import { startSim } from '../sim/index.ts';
import type { SimCluster } from '../sim/index.ts';
import { REF } from '../sim/resources.ts';
import type { KubeObject, ResourceRef } from '../sim/types.ts';
import { createLogger } from '../observe/logger.ts';
import type { LogFormat, LogLevel, Logger } from '../observe/logger.ts';
import { API_VERSION, GROUP, PLURAL, VERSION } from '../api/types.ts';
import { WEBHOOK_PATH, webhookConfiguration } from '../server/webhook.ts';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');
const DEPLOYMENTS: ResourceRef = { group: GROUP, version: VERSION, resource: PLURAL };
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

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
   * The deployment lock's webhook. On the simulated cluster it defaults to "127.0.0.1:0" (a free
   * port) and the sim gets a ValidatingWebhookConfiguration pointing at it; "0" disables both.
   */
  webhookBindAddress?: string;
  logLevel: LogLevel;
  logFormat: LogFormat;
  podStartMs?: number;
  podReadyMs?: number;
  /** Where the instructions go (default stdout). */
  out?: NodeJS.WritableStream;
  logger?: Logger;
}

export interface Up {
  sim?: SimCluster;
  controller: RunningController;
  stop(): Promise<void>;
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
  annotated.metadata.annotations = { ...annotated.metadata.annotations, [LAST_APPLIED]: JSON.stringify(obj) + '\n' };
  sim.store.create(ref, namespace, annotated, { actor: 'pacer-up' });
}

export async function runUp(o: UpOptions): Promise<Up> {
  const logger = o.logger ?? createLogger({ level: o.logLevel, format: o.logFormat });
  const kubeconfig = o.kubeconfig ?? process.env.KUBECONFIG;
  const common = {
    metricsBindAddress: o.metricsBindAddress,
    healthProbeBindAddress: o.healthProbeBindAddress,
    apiBindAddress: o.apiBindAddress ?? '127.0.0.1:8082',
    logger,
  };
  if (kubeconfig) {
    const controller = await runController({ ...common, kubeconfig, ...(o.webhookBindAddress ? { webhookBindAddress: o.webhookBindAddress } : {}) });
    return { controller, stop: () => controller.stop() };
  }

  const sim = await startSim({
    port: o.port,
    kubeconfigPath: o.simKubeconfig,
    ...(o.podStartMs !== undefined ? { podStartMs: o.podStartMs } : {}),
    ...(o.podReadyMs !== undefined ? { podReadyMs: o.podReadyMs } : {}),
  });
  try {
    for (const crd of await readManifests(join(ROOT, 'crds'))) applyToSim(sim, REF.customresourcedefinitions, crd);
    const controller = await runController({ ...common, kubeconfigText: sim.kubeconfig, webhookBindAddress: o.webhookBindAddress ?? '127.0.0.1:0' });
    // The simulated API server calls the lock like a real one would (plain HTTP on loopback).
    if (controller.webhookPort !== undefined) {
      sim.store.create(REF.validatingwebhookconfigurations, undefined, webhookConfiguration(`http://127.0.0.1:${controller.webhookPort}${WEBHOOK_PATH}`));
    }
    const applied: string[] = [];
    for (const obj of await readManifests(o.examples)) {
      if (obj.apiVersion !== API_VERSION || obj.kind !== 'Deployment') continue;
      applyToSim(sim, DEPLOYMENTS, obj, obj.metadata.namespace ?? 'default');
      applied.push(obj.metadata.name ?? '?');
    }
    const out = o.out ?? process.stdout;
    const plugin = join(ROOT, 'bin', 'kubectl-pacer.js');
    out.write([
      `pacer: simulated cluster serving at ${sim.url}`,
      `pacer: controller running; ${[
        controller.metricsPort !== undefined ? `metrics http://127.0.0.1:${controller.metricsPort}/metrics` : 'metrics off',
        controller.healthPort !== undefined ? `health http://127.0.0.1:${controller.healthPort}/healthz` : 'health probes off',
        controller.apiPort !== undefined ? `deployments view http://127.0.0.1:${controller.apiPort}/v2/deployments` : 'deployments view off',
      ].join(', ')}`,
      `pacer: applied examples: ${applied.join(', ') || '(none)'}`,
      `pacer: in another terminal:`,
      `  export KUBECONFIG=${sim.kubeconfigPath}`,
      `  kubectl get pdeploy,rs,pods`,
      `  ln -sf ${plugin} ~/.local/bin/kubectl-pacer   # the kubectl plugin, on your PATH`,
      `  kubectl pacer rollout status web`,
      `  kubectl pacer set image web nginx=nginx:1.28`,
      `  kubectl pacer get web -w`,
      `  kubectl pacer deployments   # or GET /v2/deployments on ${common.apiBindAddress}`,
      `pacer: Ctrl-C stops everything`,
      '',
    ].join('\n'));
    return {
      sim,
      controller,
      stop: async () => {
        await controller.stop();
        await sim.stop();
      },
    };
  } catch (err) {
    await sim.stop();
    throw err;
  }
}

function parsePort(v: string): number {
  if (!/^\d+$/.test(v) || Number(v) > 65535) throw new CliError(`--port: must be an integer from 0 to 65535, got ${JSON.stringify(v)}`, 2);
  return Number(v);
}

export function upCommand(): Command {
  return new Command('up')
    .description('Run Pacer: on the embedded simulated cluster, or against a cluster when a kubeconfig is given')
    .option('--kubeconfig <file>', 'run the controller against this cluster (default: $KUBECONFIG; without either, a simulated cluster)')
    .option('--sim-kubeconfig <file>', 'where to write the simulated cluster\'s kubeconfig', 'pacer-sim.kubeconfig')
    .option('--port <n>', 'port of the simulated cluster (0 = any free port)', '0')
    .option('--examples <dir>', 'Deployments to apply to the simulated cluster', join(ROOT, 'examples'))
    .option('--metrics-bind-address <addr>', 'address of /metrics ("0" disables)', '127.0.0.1:8080')
    .option('--health-probe-bind-address <addr>', 'address of /healthz and /readyz ("0" disables)', '127.0.0.1:8081')
    .option('--api-bind-address <addr>', 'address of the read-only views, GET /v2/deployments ("0" disables)', '127.0.0.1:8082')
    .option('--webhook-bind-address <addr>', 'address of the deployment lock\'s admission webhook ("0" disables; default: a free loopback port on the simulated cluster, ":9443" otherwise)')
    .option('--log-level <level>', 'error, warn, info or debug', 'info')
    .option('--log-format <format>', 'json or text', 'text')
    .action(async (o: Record<string, string | undefined>) => {
      let up: Up;
      try {
        up = await runUp({
          kubeconfig: o.kubeconfig,
          simKubeconfig: o.simKubeconfig ?? 'pacer-sim.kubeconfig',
          port: parsePort(o.port ?? '0'),
          examples: o.examples ?? join(ROOT, 'examples'),
          metricsBindAddress: o.metricsBindAddress ?? '127.0.0.1:8080',
          healthProbeBindAddress: o.healthProbeBindAddress ?? '127.0.0.1:8081',
          apiBindAddress: o.apiBindAddress ?? '127.0.0.1:8082',
          ...(o.webhookBindAddress ? { webhookBindAddress: o.webhookBindAddress } : {}),
          logLevel: (o.logLevel ?? 'info') as LogLevel,
          logFormat: (o.logFormat ?? 'text') as LogFormat,
        });
      } catch (err) {
        process.stderr.write(`error: ${(err as Error).message}\n`);
        process.exit(err instanceof CliError ? err.exitCode : 1);
      }
      stopOnSignals(() => up.stop(), { prefix: 'pacer: ' });
    });
}
