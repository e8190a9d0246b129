// The kubeconfig reader of the kubectl plugin and the controller (connect.ts): which files, how
// several merge, which context, cluster and user apply, and whether Node's own http/https can carry
// the requests (httpconnection.ts) or client-node must (clientnode.ts: exec credential plugins,
// auth providers, proxies). Both thus start without client-node, its YAML parser and undici
// (docs/plugin.md, "Start-up time"; docs/install.md#memory).
//
// The files and their merge are kubectl's (https://kubernetes.io/docs/concepts/configuration/organize-cluster-access-kubeconfig/#merging-kubeconfig-files):
// --kubeconfig alone, else every file of $KUBECONFIG, where the first file to name a cluster, user
// or context wins and the first current-context set wins, else the in-cluster service account,
// else ~/.kube/config. Relative file paths in a file are relative to that file's folder.

import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { blockYaml } from './blockyaml.ts';

/** A cluster entry, in client-node's field names (clientnode.ts gets the same objects). */
export interface KubeconfigCluster {
  name: string;
  server: string;
  caFile?: string;
  caData?: string;
  skipTLSVerify: boolean;
  tlsServerName?: string;
  proxyUrl?: string;
}

/** A user entry, in client-node's field names; `tokenFile` is kubectl's, read on use. */
export interface KubeconfigUser {
  name: string;
  token?: string;
  tokenFile?: string;
  certFile?: string;
  certData?: string;
  keyFile?: string;
  keyData?: string;
  username?: string;
  password?: string;
  impersonateUser?: string;
  exec?: unknown;
  authProvider?: unknown;
}

export interface KubeconfigContext {
  name: string;
  cluster: string;
  user?: string;
  namespace?: string;
}

export interface Kubeconfig {
  clusters: KubeconfigCluster[];
  users: KubeconfigUser[];
  contexts: KubeconfigContext[];
  currentContext?: string;
}

/** Where the service account's files are mounted in a pod. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function absolute(dir: string | undefined, file: string | undefined): string | undefined {
  return file === undefined || dir === undefined || isAbsolute(file) ? file : join(dir, file);
}

/** An entry of `clusters`, `users` or `contexts`: its name and its inner map (`cluster:`, ...). */
function entries(doc: Record<string, unknown>, list: string, inner: string, source: string) {
  const v = doc[list];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new Error(`${source}: ${list}: not a list: ${JSON.stringify(v)}`);
  return v.map((e: unknown, i) => {
    const entry = (e ?? {}) as Record<string, unknown>;
    const name = str(entry.name);
    if (name === undefined) throw new Error(`${source}: ${list}[${i}].name is missing (entry ${JSON.stringify(e)})`);
    const body = entry[inner];
    if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body)))
      throw new Error(`${source}: ${list}[${i}].${inner}: not a map: ${JSON.stringify(body)}`);
    return { i, name, body: (body ?? {}) as Record<string, unknown> };
  });
}

/**
 * One kubeconfig file's text as a Kubeconfig. `source` names it in errors; `dir`, its folder, makes
 * relative file names absolute (a text without a file: none).
 */
export function parseKubeconfig(text: string, source: string, dir?: string): Kubeconfig {
  let doc: unknown;
  try {
    doc = blockYaml(text) ?? parseYaml(text);
  } catch (err) {
    throw new Error(`${source}: not a kubeconfig: ${(err as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return { clusters: [], users: [], contexts: [] };
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new Error(`${source}: not a kubeconfig: a map was expected, not ${JSON.stringify(doc)}`);
  const d = doc as Record<string, unknown>;
  const clusters = entries(d, 'clusters', 'cluster', source).map(({ i, name, body }) => {
    const server = str(body.server);
    if (server === undefined)
      throw new Error(`${source}: clusters[${i}].cluster.server is missing (cluster "${name}")`);
    return {
      name,
      server: server.replace(/\/+$/, ''),
      caFile: absolute(dir, str(body['certificate-authority'])),
      caData: str(body['certificate-authority-data']),
      skipTLSVerify: body['insecure-skip-tls-verify'] === true,
      tlsServerName: str(body['tls-server-name']),
      proxyUrl: str(body['proxy-url']),
    };
  });
  const users = entries(d, 'users', 'user', source).map(({ name, body }) => ({
    name,
    token: str(body.token),
    // kubectl's tokenFile, relative to the file; client-node's token-file as client-node reads it.
    tokenFile: absolute(dir, str(body.tokenFile)) ?? str(body['token-file']),
    certFile: absolute(dir, str(body['client-certificate'])),
    certData: str(body['client-certificate-data']),
    keyFile: absolute(dir, str(body['client-key'])),
    keyData: str(body['client-key-data']),
    username: str(body.username),
    password: str(body.password),
    impersonateUser: str(body.as),
    exec: body.exec ?? undefined,
    authProvider: body['auth-provider'] ?? undefined,
  }));
  const contexts = entries(d, 'contexts', 'context', source).map(({ i, name, body }) => {
    const cluster = str(body.cluster);
    if (cluster === undefined)
      throw new Error(`${source}: contexts[${i}].context.cluster is missing (context "${name}")`);
    return { name, cluster, user: str(body.user), namespace: str(body.namespace) };
  });
  return { clusters, users, contexts, currentContext: str(d['current-context']) };
}

/** kubectl's merge: the first to name a cluster, user or context wins, and the first current-context. */
export function mergeKubeconfigs(configs: readonly Kubeconfig[]): Kubeconfig {
  const out: Kubeconfig = { clusters: [], users: [], contexts: [] };
  for (const c of configs) {
    for (const x of c.clusters) if (!out.clusters.some((y) => y.name === x.name)) out.clusters.push(x);
    for (const x of c.users) if (!out.users.some((y) => y.name === x.name)) out.users.push(x);
    for (const x of c.contexts) if (!out.contexts.some((y) => y.name === x.name)) out.contexts.push(x);
    out.currentContext ??= c.currentContext;
  }
  return out;
}

/**
 * The in-cluster configuration (a pod's service account), as client-go's rest.InClusterConfig
 * (https://github.com/kubernetes/client-go/blob/master/rest/config.go) and client-node's
 * loadFromCluster build it: the server from KUBERNETES_SERVICE_HOST and _PORT (an IPv6 host in
 * brackets), the CA file ca.crt and the token file `token` (read on use, again each minute:
 * httpconnection.ts). client-node's http for ports 80, 8080 and 8001 is kept (client-go: always https).
 */
export function inClusterKubeconfig(env: NodeJS.ProcessEnv, dir: string = SERVICE_ACCOUNT_DIR): Kubeconfig {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  const scheme = ['80', '8080', '8001'].includes(port) ? 'http' : 'https';
  const namespaceFile = join(dir, 'namespace');
  const namespace = existsSync(namespaceFile) ? readFileSync(namespaceFile, 'utf8').trim() : undefined;
  return {
    clusters: [
      {
        name: 'inCluster',
        server: `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`,
        caFile: join(dir, 'ca.crt'),
        skipTLSVerify: false,
      },
    ],
    users: [{ name: 'inClusterUser', tokenFile: join(dir, 'token') }],
    contexts: [{ name: 'inClusterContext', cluster: 'inCluster', user: 'inClusterUser', namespace }],
    currentContext: 'inClusterContext',
  };
}

function readFile(file: string, source: string): Kubeconfig {
  if (!existsSync(file)) throw new Error(`${source} ${file}: no such file`);
  return parseKubeconfig(readFileSync(file, 'utf8'), file, dirname(file));
}

/**
 * The kubeconfig the plugin works with, read as kubectl reads it (above): `--kubeconfig`, else
 * $KUBECONFIG's files, else in a pod its service account, else ~/.kube/config. A file that is
 * named but missing is an error naming it. `serviceAccountDir` is for tests (no flag sets it).
 */
export function readKubeconfig(
  opts: { kubeconfig?: string } = {},
  env: NodeJS.ProcessEnv = process.env,
  serviceAccountDir: string = SERVICE_ACCOUNT_DIR,
): Kubeconfig {
  if (opts.kubeconfig) return readFile(opts.kubeconfig, '--kubeconfig');
  if (env.KUBECONFIG) {
    const delimiter = process.platform === 'win32' ? ';' : ':';
    return mergeKubeconfigs(
      env.KUBECONFIG.split(delimiter)
        .filter(Boolean)
        .map((f) => readFile(f, 'KUBECONFIG')),
    );
  }
  if (env.KUBERNETES_SERVICE_HOST) return inClusterKubeconfig(env, serviceAccountDir);
  const home = join(homedir(), '.kube', 'config');
  if (existsSync(home)) return readFile(home, 'kubeconfig');
  throw new Error('no kubeconfig: pass --kubeconfig, set KUBECONFIG, or run in a cluster');
}

/** What a context names: the context itself, its cluster and its user (undefined where the kubeconfig lacks them). */
export interface Selected {
  context?: KubeconfigContext;
  cluster?: KubeconfigCluster;
  user?: KubeconfigUser;
}

/** The context `name` (default: the current context) with its cluster and user. */
export function selectContext(kc: Kubeconfig, name: string | undefined = kc.currentContext): Selected {
  const context = name === undefined ? undefined : kc.contexts.find((c) => c.name === name);
  if (!context) return {};
  return {
    context,
    cluster: kc.clusters.find((c) => c.name === context.cluster),
    user: context.user === undefined ? undefined : kc.users.find((u) => u.name === context.user),
  };
}

/**
 * Why Node's http/https alone cannot carry this cluster's requests with this user's credentials,
 * so that client-node must: an exec credential plugin, an auth provider (OIDC, and the cloud
 * ones), a proxy. Undefined when they can: tokens and token files, client certificates, basic
 * auth, impersonation, CAs, insecure-skip-tls-verify and tls-server-name.
 */
export function needsClientNode(s: Selected): string | undefined {
  if (s.user?.exec !== undefined) return 'an exec credential plugin';
  if (s.user?.authProvider !== undefined) return 'an auth provider';
  if (s.cluster?.proxyUrl !== undefined) return 'a proxy-url';
  return undefined;
}
