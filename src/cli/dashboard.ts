// `pacer dashboard`: the web dashboard run in the cluster (manifests/dashboard/, the Helm chart's
// dashboard.enabled), the same server as `kubectl pacer dashboard` behind a Gate: every request's
// bearer token (a header, or the page's sign-in) checked by TokenReview, every view and action by a
// SubjectAccessReview for that user, the actions then carried out with the dashboard's own
// ServiceAccount and audited in the log (docs/dashboard.md#in-the-cluster).

import { Command, Option } from 'commander';
import { PACER_NAMESPACE } from '../api/types.ts';
import { pluginActions, pluginOperations } from '../dashboard/actions.ts';
import { Hub, kubeSources } from '../dashboard/hub.ts';
import { DEFAULT_REVIEW_TTL_MS, Gate } from '../dashboard/incluster.ts';
import { kubePodLog } from '../dashboard/logs.ts';
import { startDashboardServer } from '../dashboard/server.ts';
import type { RunningDashboard } from '../dashboard/server.ts';
import { loadStaticFiles } from '../dashboard/static.ts';
import { DEFAULT_USER_AGENT, KubeClient } from '../kube/client.ts';
import { connector, resolveKubeconfig } from '../kube/connect.ts';
import { authenticate, authorize } from '../kube/reviews.ts';
import { createLogger, isLogLevel } from '../observe/logger.ts';
import type { LogFormat, Logger } from '../observe/logger.ts';
import { parseBindAddress } from '../server/http.ts';
import { CliError, durationMs } from './controller.ts';

export const DEFAULT_DASHBOARD_BIND_ADDRESS = ':3100';

export interface InClusterDashboardOptions {
  kubeconfig?: string;
  /** undefined: every namespace. */
  namespace?: string;
  bindAddress?: string;
  readOnly?: boolean;
  reviewCacheTtlMs?: number;
  /** Where the freeze switch lives (default pacer-system). */
  pacerNamespace?: string;
  logger?: Logger;
  logFormat?: LogFormat;
}

export interface RunningInClusterDashboard {
  server: RunningDashboard;
  stop(): Promise<void>;
}

/** A duration flag (`20s`, `1m`), or a CliError naming it and the value given. */
function durationFlag(flag: string, v: string): number {
  const ms = durationMs(v);
  if (ms === undefined || ms <= 0)
    throw new CliError(`${flag}: must be a positive duration such as 10s, 30s or 1m, got ${JSON.stringify(v)}`, 2);
  return ms;
}

/** Starts the in-cluster dashboard in this process (the command, and tests). */
export async function runInClusterDashboard(o: InClusterDashboardOptions = {}): Promise<RunningInClusterDashboard> {
  const logger = o.logger ?? createLogger({ format: o.logFormat ?? 'json' });
  let bind: ReturnType<typeof parseBindAddress>;
  try {
    bind = parseBindAddress(o.bindAddress ?? DEFAULT_DASHBOARD_BIND_ADDRESS);
  } catch (err) {
    throw new CliError(`--bind-address: ${(err as Error).message}`, 2);
  }
  if (!bind) throw new CliError('--bind-address: "0" would serve nothing; give [host]:port, e.g. ":3100"', 2);
  let client: KubeClient;
  let reviewsClient: KubeClient;
  try {
    const kc = await connector(resolveKubeconfig({ kubeconfig: o.kubeconfig }));
    client = new KubeClient(kc(), { userAgent: `${DEFAULT_USER_AGENT} dashboard` });
    // The reviews never queue behind the caches' lists and the actions.
    reviewsClient = new KubeClient(kc(), { userAgent: `${DEFAULT_USER_AGENT} dashboard-reviews` });
  } catch (err) {
    throw new CliError(`kubeconfig: ${(err as Error).message}`, 1);
  }
  let files: Awaited<ReturnType<typeof loadStaticFiles>>;
  try {
    files = await loadStaticFiles();
  } catch (err) {
    throw new CliError((err as Error).message, 1);
  }
  const pacerNamespace = o.pacerNamespace ?? PACER_NAMESPACE;
  const hub = new Hub(kubeSources(client, o.namespace, pacerNamespace), {
    onError: (err, what) => logger.warn(`dashboard cache: ${what}: ${err.message}`),
  });
  hub.start();
  const gate = new Gate({
    reviews: {
      authenticate: (token) => authenticate(reviewsClient, token),
      authorize: (caller, access) => authorize(reviewsClient, caller, access),
    },
    reviewTtlMs: o.reviewCacheTtlMs ?? DEFAULT_REVIEW_TTL_MS,
  });
  let server: RunningDashboard;
  try {
    server = await startDashboardServer({
      hub,
      files,
      act: pluginActions(client),
      operate: pluginOperations(client, pacerNamespace),
      podLog: kubePodLog(client),
      gate,
      pacerNamespace,
      audit: (entry) => logger.info('dashboard action', { audit: true, ...entry }),
      address: bind.host ?? '0.0.0.0',
      port: bind.port,
      config: { namespace: o.namespace ?? null, readOnly: o.readOnly === true, server: client.server },
    });
  } catch (err) {
    await hub.stop();
    throw new CliError(
      `cannot listen on ${o.bindAddress ?? DEFAULT_DASHBOARD_BIND_ADDRESS}: ${(err as Error).message}`,
      1,
    );
  }
  logger.info(`dashboard serving on ${server.url}`, {
    namespace: o.namespace ?? 'all',
    readOnly: o.readOnly === true,
    reviewCacheTtl: `${gate.reviewTtlMs / 1000}s`,
  });
  return {
    server,
    stop: async () => {
      await server.close();
      await hub.stop();
    },
  };
}

export function dashboardCommand(): Command {
  return new Command('dashboard')
    .description(
      "Serve the web dashboard in the cluster: every request signed in with a token the API server accepts (TokenReview), every view and action allowed by RBAC for that user (SubjectAccessReview), the actions done with the dashboard's own ServiceAccount",
    )
    .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG, else in-cluster, else ~/.kube/config)')
    .option('--namespace <ns>', 'serve only this namespace (default: all, each user seeing what RBAC lets them list)')
    .option('--bind-address <addr>', 'address of the dashboard ([host]:port)', DEFAULT_DASHBOARD_BIND_ADDRESS)
    .option('--read-only', 'show only: every action is refused (403)', false)
    .option(
      '--review-cache-ttl <duration>',
      'how long an answer of TokenReview or SubjectAccessReview is kept',
      `${DEFAULT_REVIEW_TTL_MS / 1000}s`,
    )
    .option('--pacer-namespace <ns>', 'where the freeze switch (the ConfigMap pacer-freeze) lives', PACER_NAMESPACE)
    .option('--log-level <level>', 'error, warn, info or debug', 'info')
    .addOption(new Option('--log-format <format>', 'json or text').choices(['json', 'text']).default('json'))
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
    .action(async (o: Record<string, string | boolean | undefined>) => {
      let running: RunningInClusterDashboard | undefined;
      try {
        const level = String(o.logLevel ?? 'info');
        if (!isLogLevel(level))
          throw new CliError(`--log-level: must be error, warn, info or debug, got ${JSON.stringify(level)}`, 2);
        const logFormat = (o.logFormat ?? 'json') as LogFormat;
        running = await runInClusterDashboard({
          kubeconfig: o.kubeconfig as string | undefined,
          namespace: o.namespace as string | undefined,
          bindAddress: o.bindAddress as string | undefined,
          readOnly: o.readOnly === true,
          reviewCacheTtlMs: durationFlag('--review-cache-ttl', String(o.reviewCacheTtl ?? '20s')),
          pacerNamespace: o.pacerNamespace as string | undefined,
          logger: createLogger({ level, format: logFormat }),
        });
      } catch (err) {
        process.stderr.write(`error: ${(err as Error).message}\n`);
        process.exit(err instanceof CliError ? err.exitCode : 1);
      }
      const stop = () => {
        void running?.stop().then(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
