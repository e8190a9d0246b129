// The controller's (and `pacer up`'s and the dashboard's) way to the API server: the kubeconfig
// resolved in the order kubectl and client-go use, read by Pacer's own reader (kubeconfig.ts), and
// carried over Node's http/https (httpconnection.ts) whenever that can carry it; client-node
// (clientnode.ts) is imported only for what needs it (kubeconfig.ts's needsClientNode: exec
// credential plugins, auth providers, a proxy-url). A controller on the simulated cluster, on a
// kubeconfig with a token or a client certificate, or in a pod thus never loads client-node, its
// generated API models and undici: about 25 MiB of live heap and 75 MiB of RSS
// (docs/install.md#memory).
//
// In a pod (no --kubeconfig, no $KUBECONFIG, KUBERNETES_SERVICE_HOST set) the connection is
// client-go's rest.InClusterConfig
// (https://github.com/kubernetes/client-go/blob/master/rest/config.go, InClusterConfig): the
// server from KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT (an IPv6 host in brackets), the
// service account's CA (ca.crt) and its token file, which httpconnection.ts reads again after a
// minute as client-go's cached file token source does, since a projected service account token is
// rotated by the kubelet.

import { HttpConnection } from './httpconnection.ts';
import type { HttpConnectionOptions } from './httpconnection.ts';
import { needsClientNode, parseKubeconfig, readKubeconfig, selectContext, SERVICE_ACCOUNT_DIR } from './kubeconfig.ts';
import type { Kubeconfig, Selected } from './kubeconfig.ts';
import type { Connection } from './wire.ts';

export interface KubeconfigSource {
  /** --kubeconfig: this file alone. */
  kubeconfig?: string;
  /** Kubeconfig YAML (in-process use: tests, the simulated cluster); before every other source. */
  kubeconfigText?: string;
}

/**
 * Internal, for tests only (no flag sets it): where the service account's files are (default
 * /var/run/secrets/kubernetes.io/serviceaccount), the environment read, the clock of token files.
 */
export interface ConnectInternals {
  serviceAccountDir?: string;
  env?: NodeJS.ProcessEnv;
  connection?: HttpConnectionOptions;
}

/** A resolved kubeconfig: its context, and how requests reach its cluster. */
export interface ResolvedKubeconfig {
  source: KubeconfigSource;
  config: Kubeconfig;
  selected: Selected & { cluster: NonNullable<Selected['cluster']> };
  /** Why client-node carries the requests (an exec plugin, an auth provider, a proxy-url), or undefined. */
  clientNode: string | undefined;
}

/**
 * The kubeconfig: `kubeconfigText`, else the --kubeconfig file, else $KUBECONFIG's files, else the
 * in-cluster service account, else ~/.kube/config (the order client-node's loadKubeConfig used).
 */
export function resolveKubeconfig(src: KubeconfigSource = {}, internals: ConnectInternals = {}): ResolvedKubeconfig {
  const env = internals.env ?? process.env;
  const config =
    src.kubeconfigText !== undefined
      ? parseKubeconfig(src.kubeconfigText, 'the kubeconfig')
      : readKubeconfig({ kubeconfig: src.kubeconfig }, env, internals.serviceAccountDir ?? SERVICE_ACCOUNT_DIR);
  const selected = selectContext(config);
  if (!selected.cluster) throw new Error('the kubeconfig has no current cluster');
  return {
    source: src,
    config,
    selected: { ...selected, cluster: selected.cluster },
    clientNode: needsClientNode(selected),
  };
}

/**
 * Makes connections to the resolved cluster, one pool of connections each (as each KubeClient had
 * its own before): Node's http/https, or, when the kubeconfig needs it, client-node, imported here
 * and given the same kubeconfig to load itself, as the controller always did (clientnode.ts's
 * loadKubeConfig: client-node's own reading of exec plugins, auth providers and proxies), so that
 * what it cannot read is reported at start.
 */
export async function connector(r: ResolvedKubeconfig, internals: ConnectInternals = {}): Promise<() => Connection> {
  const { cluster, user } = r.selected;
  if (r.clientNode === undefined) return () => new HttpConnection(cluster, user, internals.connection);
  const m = await import('./clientnode.ts');
  const kc = m.loadKubeConfig(r.source);
  return () => new m.FetchConnection(kc);
}
