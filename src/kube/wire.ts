// What KubeClient (client.ts) needs from the layer that carries its requests: one HTTP request out,
// its status and body back. Two carry them: Node's own http/https with Pacer's small kubeconfig
// reader (httpconnection.ts and kubeconfig.ts: the controller's through connect.ts, and the kubectl
// plugin's, which then start without loading client-node or undici: docs/plugin.md, "Start-up
// time", docs/install.md#memory), and, for the kubeconfigs that need it (exec plugins, auth
// providers, proxies), client-node's fetch with client-node's kubeconfig handling (clientnode.ts).

/** One request as KubeClient builds it; the connection adds the server and the credentials. */
export interface WireRequest {
  method: string;
  /** The path and query under the server's URL: `/apis/apps/v1/namespaces/ns/replicasets`. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Aborts the request, and the reading of its body; the promise then rejects with `signal.reason`. */
  signal: AbortSignal;
}

/** An answer: its status, then its body once (as text, or as a stream for a watch). */
export interface WireResponse {
  status: number;
  /** A header of the answer (its name in any case), or undefined when it has none. */
  header(name: string): string | undefined;
  text(): Promise<string>;
  stream(): AsyncIterable<Uint8Array>;
}

/** An API server with the credentials to talk to it. */
export interface Connection {
  /** The API server's URL, without a trailing slash. */
  readonly server: string;
  /** The name the kubeconfig gives the current cluster (a simulated cluster's is `pacer-sim`). */
  readonly clusterName: string | undefined;
  send(req: WireRequest): Promise<WireResponse>;
}
