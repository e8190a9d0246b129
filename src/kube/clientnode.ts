// The connection through @kubernetes/client-node 2.x, for the kubeconfigs Node's http/https cannot
// carry (kubeconfig.ts's needsClientNode: exec plugins, auth providers, proxies; the controller
// comes here through connect.ts, the plugin through plugin/options.ts): client-node
// loads the kubeconfig and applies its authentication (tokens, client certificates, exec plugins,
// auth providers, proxies) and owns the HTTP dispatcher (undici); KubeClient (client.ts) builds
// every request itself, so that Pacer controls the Content-Type of each patch, the User-Agent, and
// gets plain JSON back (the generated typed APIs turn timestamps into Date objects, which the
// engine's wire-shaped types do not expect). Tests still build clients on its loadKubeConfig.

import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { HttpMethod } from '@kubernetes/client-node';
import { IsomorphicFetchHttpLibrary, KubeConfig, RequestContext } from '@kubernetes/client-node';
import type { Kubeconfig } from './kubeconfig.ts';
import type { Connection, WireRequest, WireResponse } from './wire.ts';

/**
 * Loads a kubeconfig: the given file, else $KUBECONFIG, else the in-cluster service account,
 * else ~/.kube/config. `kubeconfigText` (YAML) is for tests and embedding.
 */
export function loadKubeConfig(opts: { kubeconfig?: string; kubeconfigText?: string } = {}): KubeConfig {
  const kc = new KubeConfig();
  if (opts.kubeconfigText !== undefined) {
    kc.loadFromString(opts.kubeconfigText);
  } else if (opts.kubeconfig) {
    if (!existsSync(opts.kubeconfig)) throw new Error(`--kubeconfig ${opts.kubeconfig}: no such file`);
    kc.loadFromFile(opts.kubeconfig);
  } else if (process.env.KUBECONFIG) {
    // KUBECONFIG is a list of files, as for kubectl; each must exist, so a typo is named.
    const delimiter = process.platform === 'win32' ? ';' : ':';
    for (const f of process.env.KUBECONFIG.split(delimiter).filter(Boolean)) {
      if (!existsSync(f)) throw new Error(`KUBECONFIG ${f}: no such file`);
    }
    kc.loadFromDefault();
  } else if (process.env.KUBERNETES_SERVICE_HOST) {
    kc.loadFromCluster();
  } else if (existsSync(join(homedir(), '.kube', 'config'))) {
    kc.loadFromFile(join(homedir(), '.kube', 'config'));
  } else {
    throw new Error('no kubeconfig: pass --kubeconfig, set KUBECONFIG, or run in a cluster');
  }
  if (!kc.getCurrentCluster()) throw new Error('the kubeconfig has no current cluster');
  return kc;
}

/**
 * A connection through client-node for a kubeconfig read by kubeconfig.ts (the plugin's, when its
 * credentials need client-node), on the context `context`. The entries carry client-node's own
 * field names, so client-node sees the same merged kubeconfig the plugin read.
 */
export function fetchConnectionOf(config: Kubeconfig, context: string): FetchConnection {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: config.clusters,
    users: config.users,
    contexts: config.contexts,
    currentContext: context,
  });
  return new FetchConnection(kc);
}

/** Requests through client-node's fetch, authenticated by its KubeConfig (the current context's). */
export class FetchConnection implements Connection {
  readonly server: string;
  readonly clusterName: string | undefined;
  private readonly http = new IsomorphicFetchHttpLibrary();
  /**
   * The connection pool of the first request, kept for every later one. client-node builds a new
   * one (undici Agent) per request when the cluster needs TLS options (a CA, a client
   * certificate), so every request would open a new TLS connection: on a real API server that
   * doubled the controller's CPU. Authentication headers are still applied per request (a token
   * may be refreshed).
   */
  private dispatcher: ReturnType<RequestContext['getDispatcher']>;

  private readonly kc: KubeConfig;

  constructor(kc: KubeConfig) {
    this.kc = kc;
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/+$/, '');
    this.clusterName = cluster.name;
  }

  async send(req: WireRequest): Promise<WireResponse> {
    const ctx = new RequestContext(this.server + req.path, req.method as HttpMethod);
    for (const [k, v] of Object.entries(req.headers)) ctx.setHeaderParam(k, v);
    await this.kc.applySecurityAuthentication(ctx);
    this.dispatcher ??= ctx.getDispatcher();
    if (this.dispatcher !== undefined) ctx.setDispatcher(this.dispatcher);
    ctx.setSignal(req.signal);
    if (req.body !== undefined) ctx.setBody(req.body);
    const resp = await this.http.send(ctx).toPromise();
    return {
      status: resp.httpStatusCode,
      header: (name) => resp.headers[name.toLowerCase()],
      text: () => resp.body.text(),
      stream: () => (resp.body.stream() as AsyncIterable<Uint8Array> | undefined) ?? emptyStream(),
    };
  }
}

async function* emptyStream(): AsyncIterable<Uint8Array> {}
