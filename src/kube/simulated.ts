// How a client tells that its kubeconfig is a simulated cluster's (the one `make run` and `pacer
// sim` write, src/sim/kubeconfig.ts), so that a connection failure can say what most likely
// happened: each run of the simulated cluster listens on a new port and rewrites its kubeconfig,
// and a shell that still exports KUBECONFIG after the run ended points at nothing.

/** The name of the cluster, the user and the context in a simulated cluster's kubeconfig. */
export const SIM_CLUSTER_NAME = 'pacer-sim';

/** Whether a client's cluster (the kubeconfig's name for it: KubeClient.clusterName) is a simulated cluster's. */
export function isSimulatedCluster(client: { clusterName?: string }): boolean {
  return client.clusterName === SIM_CLUSTER_NAME;
}

/** What to do when the simulated cluster a kubeconfig names does not answer. */
export const STALE_SIM_HINT =
  `this kubeconfig's cluster "${SIM_CLUSTER_NAME}" is a simulated cluster that \`make run\` or \`pacer sim\` wrote ` +
  'and that is no longer running; start a new one (`unset KUBECONFIG; make run` in the Pacer clone) and use the kubeconfig it writes';
