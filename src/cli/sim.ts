// `pacer sim`: run the simulated cluster until SIGINT/SIGTERM, with a kubeconfig that kubectl and
// client-node accept as it is.

import { stopOnSignals } from './signals.ts';
import { Command } from 'commander';
import { resolve } from 'node:path';
import { parseFaults } from '../sim/faults.ts';
import { startSim } from '../sim/index.ts';
import { REF } from '../sim/resources.ts';
import type { KubeObject } from '../sim/types.ts';
import { PACER_NAMESPACE } from '../api/types.ts';

export interface SimFlags {
  kubeconfig: string;
  port: string;
  nodes: string;
  zones: string;
  podsPerNode: string;
  podStartMs?: string;
  podReadyMs?: string;
  faults?: string;
}

/** An integer flag within [min, max]; otherwise a message naming the flag. */
function intFlag(flag: string, text: string, min: number, max: number): number | string {
  if (!/^\d+$/.test(text.trim())) return `${flag} must be an integer between ${min} and ${max}, got "${text}"`;
  const n = Number(text);
  if (n < min || n > max) return `${flag} must be between ${min} and ${max}, got ${n}`;
  return n;
}

export interface SimConfig {
  kubeconfigPath: string;
  port: number;
  nodes: number;
  zones: string[];
  podsPerNode: number;
  podStartMs?: number;
  podReadyMs?: number;
  faults?: string;
}

/** Checks the flags; returns the config or the first problem, naming its flag. */
export function simConfig(f: SimFlags): SimConfig | { error: string } {
  const port = intFlag('--port', f.port, 0, 65535);
  if (typeof port === 'string') return { error: port };
  const nodes = intFlag('--nodes', f.nodes, 0, 10_000);
  if (typeof nodes === 'string') return { error: nodes };
  const podsPerNode = intFlag('--pods-per-node', f.podsPerNode, 1, 100_000);
  if (typeof podsPerNode === 'string') return { error: podsPerNode };
  const zones = f.zones.split(',').map((z) => z.trim());
  if (zones.length === 0 || zones.some((z) => !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(z))) {
    return {
      error: `--zones must be a comma-separated list of zone names (lower-case letters, digits, '-', '.'), got "${f.zones}"`,
    };
  }
  const cfg: SimConfig = { kubeconfigPath: resolve(f.kubeconfig), port, nodes, zones, podsPerNode };
  if (f.podStartMs !== undefined) {
    const v = intFlag('--pod-start-ms', f.podStartMs, 0, 3_600_000);
    if (typeof v === 'string') return { error: v };
    cfg.podStartMs = v;
  }
  if (f.podReadyMs !== undefined) {
    const v = intFlag('--pod-ready-ms', f.podReadyMs, 0, 3_600_000);
    if (typeof v === 'string') return { error: v };
    cfg.podReadyMs = v;
  }
  if (f.faults !== undefined) {
    try {
      parseFaults(f.faults);
    } catch (e) {
      return { error: `--faults: ${(e as Error).message}` };
    }
    cfg.faults = f.faults;
  }
  return cfg;
}

export function simCommand(): Command {
  return new Command('sim')
    .description('run a simulated Kubernetes cluster (API server and control plane) on 127.0.0.1')
    .option('--kubeconfig <file>', 'where to write the kubeconfig', './pacer-sim.kubeconfig')
    .option('--port <n>', 'port to listen on (0 = a free port)', '0')
    .option('--nodes <n>', 'number of simulated nodes', '3')
    .option('--zones <list>', 'zones the nodes are spread over', 'a,b,c')
    .option('--pods-per-node <n>', 'pod capacity of each node', '110')
    .option('--pod-start-ms <n>', 'delay from scheduled to Running')
    .option('--pod-ready-ms <n>', 'delay from Running to Ready')
    .option('--faults <spec>', 'fault injection spec (see src/sim/README.md)')
    .action(async (flags: SimFlags, cmd: Command) => {
      const cfg = simConfig(flags);
      if ('error' in cfg) {
        cmd.error(`error: ${cfg.error}`, { exitCode: 2, code: 'pacer.sim.invalidFlag' });
        return;
      }
      const sim = await startSim({
        port: cfg.port,
        kubeconfigPath: cfg.kubeconfigPath,
        nodes: cfg.nodes,
        zones: cfg.zones,
        podsPerNode: cfg.podsPerNode,
        ...(cfg.podStartMs !== undefined ? { podStartMs: cfg.podStartMs } : {}),
        ...(cfg.podReadyMs !== undefined ? { podReadyMs: cfg.podReadyMs } : {}),
        ...(cfg.faults !== undefined ? { faults: cfg.faults } : {}),
      });
      // Pacer's own namespace, as the install manifests make it: the controller's defaults put the
      // leader election Lease and the freeze switch there (the simulator itself knows nothing of Pacer).
      sim.store.create(REF.namespaces, undefined, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: PACER_NAMESPACE },
      } as KubeObject);
      process.stdout.write(`pacer sim ready: KUBECONFIG=${sim.kubeconfigPath}\n`);
      // Its stdout is one line a script waits for: nothing more is printed on the way out.
      stopOnSignals(() => sim.stop(), { quiet: true });
    });
}
