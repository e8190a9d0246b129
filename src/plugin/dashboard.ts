// `kubectl pacer dashboard [--port 3100] [--address 127.0.0.1] [-n NS | -A] [--read-only]`: the web
// dashboard (src/dashboard/) on this machine, with the user's kubeconfig: what the user may do, the
// page may do. It runs until Ctrl-C.

import { isIP } from 'node:net';
import type { KubeClient } from '../kube/client.ts';
import { Hub, kubeSources } from '../dashboard/hub.ts';
import { PACER_NAMESPACE } from '../api/types.ts';
import { pluginActions, pluginOperations } from '../dashboard/actions.ts';
import type { Act, Operate } from '../dashboard/actions.ts';
import { startDashboardServer } from '../dashboard/server.ts';
import type { RunningDashboard } from '../dashboard/server.ts';
import { loadStaticFiles } from '../dashboard/static.ts';
import { operationWords } from '../dashboard/access.ts';
import { kubePodLog } from '../dashboard/logs.ts';

export { operationWords };
import { PluginError } from './errors.ts';
import type { Session, Streams } from './options.ts';

export const DEFAULT_PORT = 3100;
export const DEFAULT_ADDRESS = '127.0.0.1';

/** --port: a whole number 0-65535 (0: any free port), in kubectl's words when it is not. */
export function parsePort(v: string | undefined): number {
  if (v === undefined) return DEFAULT_PORT;
  if (!/^-?[0-9]+$/.test(v))
    throw new PluginError(
      `invalid argument "${v}" for "--port" flag: strconv.ParseInt: parsing "${v}": invalid syntax`,
    );
  const port = Number(v);
  if (port < 0 || port > 65535)
    throw new PluginError(
      `invalid argument "${v}" for "--port" flag: port ${v} is out of range (0-65535; 0 picks a free port)`,
    );
  return port;
}

/** --address: an IP address, or localhost (as kubectl port-forward's --address takes it). */
export function parseAddress(v: string | undefined): string {
  if (v === undefined) return DEFAULT_ADDRESS;
  if (v === 'localhost') return '127.0.0.1';
  if (isIP(v) === 0)
    throw new PluginError(
      `invalid argument "${v}" for "--address" flag: not an IP address (e.g. 127.0.0.1, ::1, 0.0.0.0, or localhost)`,
    );
  return v;
}

/**
 * Every action also as one line on stdout, once answered: when, what, on what, and the answer
 * (`2026-03-01T10:00:00.000Z pause default/web: 403 Error from server (Forbidden): ...`).
 */
export function audited(act: Act, io: Streams, now: () => Date = () => new Date()): Act {
  return async (namespace, name, action, req) => {
    const outcome = await act(namespace, name, action, req);
    const what =
      action === 'setImage'
        ? `set image ${req.container ?? ''}=${req.image ?? ''}`
        : req.toRevision !== undefined
          ? `${action} --to-revision=${req.toRevision}`
          : action;
    io.stdout.write(
      `${now().toISOString()} ${what} ${namespace}/${name}: ${outcome.status} ${outcome.result.message.split('\n')[0]}\n`,
    );
    return outcome;
  };
}

/** The node roll, freeze and plan actions, each one line on stdout once answered, as audited() does. */
export function auditedOperations(operate: Operate, io: Streams, now: () => Date = () => new Date()): Operate {
  return async (op) => {
    const outcome = await operate(op);
    io.stdout.write(
      `${now().toISOString()} ${operationWords(op)}: ${outcome.status} ${outcome.result.message.split('\n')[0]}\n`,
    );
    return outcome;
  };
}

export interface DashboardOptions {
  port: number;
  address: string;
  /** undefined: every namespace (-A). */
  namespace: string | undefined;
  readOnly: boolean;
  /** Called once it listens (tests); the URL is printed either way. */
  onListening?: (d: RunningDashboard) => void;
}

/** A dashboard serving: its server, and how to stop it (the server, then the cache). */
export interface ServedDashboard {
  server: RunningDashboard;
  stop(): Promise<void>;
}

/**
 * The dashboard through `client`: its page's files read, its cache started, its server listening;
 * every action one line on `io.stdout`. Throws PluginError in kubectl's words when the page is not
 * built or the address cannot be listened on (the cache stopped again).
 */
export async function serveDashboard(
  client: KubeClient,
  io: Streams,
  o: Pick<DashboardOptions, 'port' | 'address' | 'namespace' | 'readOnly'>,
): Promise<ServedDashboard> {
  let files: Awaited<ReturnType<typeof loadStaticFiles>>;
  try {
    files = await loadStaticFiles();
  } catch (err) {
    throw new PluginError((err as Error).message);
  }
  const hub = new Hub(kubeSources(client, o.namespace), {
    onError: (err, what) => io.stderr.write(`warning: ${what}: ${err.message}\n`),
  });
  hub.start();
  let server: RunningDashboard;
  try {
    server = await startDashboardServer({
      hub,
      files,
      act: audited(pluginActions(client), io),
      operate: auditedOperations(pluginOperations(client, PACER_NAMESPACE, o.namespace ?? null), io),
      podLog: kubePodLog(client),
      address: o.address,
      port: o.port,
      config: { namespace: o.namespace ?? null, readOnly: o.readOnly, server: client.server },
    });
  } catch (err) {
    await hub.stop();
    const e = err as NodeJS.ErrnoException;
    const where = o.address.includes(':') ? `[${o.address}]:${o.port}` : `${o.address}:${o.port}`;
    if (e.code === 'EADDRINUSE') throw new PluginError(`listen tcp ${where}: bind: address already in use`);
    if (e.code === 'EADDRNOTAVAIL') throw new PluginError(`listen tcp ${where}: bind: cannot assign requested address`);
    throw new PluginError(`listen tcp ${where}: ${e.message}`);
  }
  return {
    server,
    stop: async () => {
      await server.close();
      await hub.stop();
    },
  };
}

export async function runDashboard(s: Session, o: DashboardOptions): Promise<number> {
  const served = await serveDashboard(s.client, s.io, o);
  const scope = o.namespace === undefined ? 'all namespaces' : `namespace ${o.namespace}`;
  s.io.stdout.write(
    `Pacer dashboard: ${served.server.url} (${scope}${o.readOnly ? ', read-only' : ''}; Ctrl-C to stop)\n`,
  );
  o.onListening?.(served.server);
  await new Promise<void>((resolve) => {
    if (!s.signal || s.signal.aborted) return resolve();
    s.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await served.stop();
  return 0;
}
