// startSim(): the whole simulated cluster in-process: store, HTTP API on 127.0.0.1, audit log,
// faults, kubeconfig, and the simulated control plane (ReplicaSet controller, scheduler, kubelet,
// garbage collector, PDB controller, nodes).

import { writeFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { AuditLog } from './audit.ts';
import { Faults } from './faults.ts';
import { kubeconfigYaml } from './kubeconfig.ts';
import { REF } from './resources.ts';
import { SimServer } from './server.ts';
import { Store } from './store.ts';
import { DEFAULT_POD_READY_MS, DEFAULT_POD_START_MS, startControlPlane } from './control/index.ts';
import { evictPod } from './control/eviction.ts';

export { AuditLog } from './audit.ts';
export { Faults } from './faults.ts';
export { Store } from './store.ts';

export interface SimOptions {
  /** 0 (default) = a free port. */
  port?: number;
  /** Write the kubeconfig there when given. */
  kubeconfigPath?: string;
  nodes?: number;
  zones?: string[];
  podsPerNode?: number;
  podStartMs?: number;
  podReadyMs?: number;
  /** A faults SPEC (src/sim/README.md). */
  faults?: string;
  /** Run the simulated controllers (default true). */
  controlPlane?: boolean;
  /** Watch history length (events); older watch-from-RV requests get 410. */
  historySize?: number;
}

export interface SimCluster {
  url: string;
  port: number;
  kubeconfig: string;
  kubeconfigPath?: string;
  store: Store;
  audit: AuditLog;
  faults: Faults;
  stop(): Promise<void>;
}

export async function startSim(opts: SimOptions = {}): Promise<SimCluster> {
  const store = new Store({ historySize: opts.historySize });
  const audit = new AuditLog();
  const faults = new Faults(opts.faults ?? '');
  for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
    store.create(REF.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  const server = new SimServer({ store, audit, faults, evict: evictPod });
  const port = await server.listen(opts.port ?? 0);
  const url = `http://127.0.0.1:${port}`;
  const kubeconfig = kubeconfigYaml(url);
  let kubeconfigPath: string | undefined;
  if (opts.kubeconfigPath) {
    kubeconfigPath = resolvePath(opts.kubeconfigPath);
    await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 });
  }
  let plane: { stop(): void | Promise<void> } | undefined;
  if (opts.controlPlane !== false) {
    plane = startControlPlane(store, {
      nodes: opts.nodes ?? 3,
      zones: opts.zones ?? ['a', 'b', 'c'],
      podsPerNode: opts.podsPerNode ?? 110,
      podStartMs: opts.podStartMs ?? DEFAULT_POD_START_MS,
      podReadyMs: opts.podReadyMs ?? DEFAULT_POD_READY_MS,
    });
  }
  let stopped = false;
  return {
    url,
    port,
    kubeconfig,
    ...(kubeconfigPath ? { kubeconfigPath } : {}),
    store,
    audit,
    faults,
    async stop() {
      if (stopped) return;
      stopped = true;
      await plane?.stop();
      faults.stop();
      store.closeWatches();
      await server.close();
    },
  };
}
