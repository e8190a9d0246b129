// The options every `kubectl pacer` command shares (-n, --kubeconfig, --context, KUBECONFIG),
// the connection they lead to, printing data as -o json|yaml, and the check that turns a 404 into
// "Pacer's CRD is not installed" when the API server does not serve pacer.dev at all.

import { type Command, Option } from 'commander';
import { HttpMethod, KubeClient } from '../kube/client.ts';
import { HttpConnection } from '../kube/httpconnection.ts';
import { needsClientNode, readKubeconfig, selectContext } from '../kube/kubeconfig.ts';
import type { Kubeconfig, Selected } from '../kube/kubeconfig.ts';
import type { Connection } from '../kube/wire.ts';
import { stringify as toYaml } from 'yaml';
import { KubeError } from '../kube/errors.ts';
import { isSimulatedCluster } from '../kube/simulated.ts';
import { GROUP, PLURAL, VERSION } from '../api/types.ts';
import { PluginError, describeError } from './errors.ts';
import type { DeploymentKind } from './target.ts';

export const PLUGIN_USER_AGENT = 'kubectl-pacer/0.1.0';
/** The source component of the Events the plugin records. */
export const PLUGIN_COMPONENT = 'kubectl-pacer';

export interface CommonOptions {
  namespace?: string;
  kubeconfig?: string;
  context?: string;
  output?: string;
  allNamespaces?: boolean;
}

/** Where a command writes: the process in real use, buffers in tests. */
export interface Streams {
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown };
}

/** The connection a command works through. */
export interface Session {
  client: KubeClient;
  /** -n, else the kubeconfig context's namespace, else "default". */
  namespace: string;
  io: Streams;
  /** Aborted on Ctrl-C: watches end, commands return. */
  signal?: AbortSignal;
  /** The kind of Deployment the command names (default Pacer's; `client` is then on its resource). */
  kind?: DeploymentKind;
}

export function addCommonOptions(cmd: Command, opts: { output?: boolean; allNamespaces?: boolean } = {}): Command {
  cmd
    .option('-n, --namespace <namespace>', 'the namespace (default: the kubeconfig context\'s, else "default")')
    .option('--kubeconfig <file>', 'path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
    .option('--context <name>', 'the kubeconfig context to use');
  if (opts.allNamespaces) cmd.option('-A, --all-namespaces', 'list across all namespaces');
  if (opts.output) cmd.addOption(new Option('-o, --output <format>', 'output format').choices(['json', 'yaml']));
  return cmd;
}

/**
 * Reads the kubeconfig (honouring --kubeconfig, KUBECONFIG and --context, kube/kubeconfig.ts) and
 * picks the namespace. The requests go over Node's http/https (kube/httpconnection.ts) unless the
 * user's credentials need client-node (exec plugins, auth providers, proxies), which is then
 * loaded on the first request (kube/clientnode.ts).
 */
export function connect(o: CommonOptions, io: Streams, signal?: AbortSignal): Session {
  let kc: Kubeconfig;
  try {
    kc = readKubeconfig({ kubeconfig: o.kubeconfig });
  } catch (err) {
    throw new PluginError((err as Error).message);
  }
  if (o.context !== undefined && !kc.contexts.some((c) => c.name === o.context))
    throw new PluginError(`context was not found for specified context: ${o.context}`);
  const selected = selectContext(kc, o.context ?? kc.currentContext);
  if (!selected.cluster) {
    if (o.context === undefined) throw new PluginError('the kubeconfig has no current cluster');
    throw new PluginError(`the kubeconfig's context "${o.context}" has no cluster`);
  }
  const namespace = o.namespace || selected.context?.namespace || 'default';
  let connection: Connection;
  try {
    connection =
      needsClientNode(selected) === undefined
        ? new HttpConnection(selected.cluster, selected.user)
        : clientNodeConnection(kc, selected);
  } catch (err) {
    throw new PluginError((err as Error).message);
  }
  return { client: new KubeClient(connection, { userAgent: PLUGIN_USER_AGENT }), namespace, io, signal };
}

/** A connection through client-node, loaded on its first request, for the context `selected`. */
function clientNodeConnection(kc: Kubeconfig, selected: Selected): Connection {
  let real: Promise<Connection> | undefined;
  const cluster = selected.cluster!;
  return {
    server: cluster.server,
    clusterName: cluster.name,
    send: async (req) => {
      real ??= import('../kube/clientnode.ts').then((m) => m.fetchConnectionOf(kc, selected.context!.name));
      return (await real).send(req);
    },
  };
}

/** Does the API server serve pacer.dev `plural` (default: deployments)? (Discovery: readable by every user.) */
export async function crdInstalled(client: KubeClient, plural: string = PLURAL): Promise<boolean> {
  try {
    const list = await client.request<{ resources?: Array<{ name?: string }> }>(
      HttpMethod.GET,
      `/apis/${GROUP}/${VERSION}`,
      { what: 'discovery' },
    );
    return (list.resources ?? []).some((r) => r.name === plural);
  } catch (err) {
    if (err instanceof KubeError && err.kind === 'NotFound') return false;
    return true; // unknown: let the original error speak
  }
}

/**
 * Runs `fn`, turning a failure into kubectl's one line on stderr; returns the exit code. `resource`
 * is the plural of the resource `name` is one of (default: deployments), `group` its group (default
 * pacer.dev; a missing CRD is looked for only there).
 */
export async function reportErrors(
  io: Streams,
  name: string | undefined,
  getSession: () => Session | undefined,
  fn: () => Promise<number>,
  resource: string = PLURAL,
  group: string = GROUP,
): Promise<number> {
  try {
    return await fn();
  } catch (err) {
    const session = getSession();
    let crdMissing = false;
    if (session && group === GROUP && err instanceof KubeError && err.kind === 'NotFound')
      crdMissing = !(await crdInstalled(session.client, resource));
    const simulated = session !== undefined && isSimulatedCluster(session.client);
    io.stderr.write(
      `${describeError(err, { server: session?.client.server, name, crdMissing, resource, group, simulated })}\n`,
    );
    return err instanceof PluginError ? err.exitCode : 1;
  }
}

/**
 * A list as `kubectl get` prints one: -o json|yaml as a v1 List, else `table(items)`, or kubectl's
 * "No resources found" (on stderr) when it is empty.
 */
export function printList<T>(
  s: Session,
  list: { resourceVersion?: string; items: T[] },
  o: { allNamespaces: boolean; output?: string },
  table: (items: T[]) => string,
): number {
  if (o.output) {
    printData(s.io, o.output, {
      apiVersion: 'v1',
      kind: 'List',
      metadata: { resourceVersion: list.resourceVersion },
      items: list.items,
    });
  } else if (list.items.length === 0) {
    s.io.stderr.write(o.allNamespaces ? 'No resources found\n' : `No resources found in ${s.namespace} namespace.\n`);
  } else {
    s.io.stdout.write(table(list.items));
  }
  return 0;
}

/** Prints `obj` as -o json (kubectl: 4-space indent) or yaml. */
export function printData(io: Streams, format: string, obj: unknown): void {
  if (format === 'json') io.stdout.write(`${JSON.stringify(obj, null, 4)}\n`);
  else io.stdout.write(toYaml(obj));
}
