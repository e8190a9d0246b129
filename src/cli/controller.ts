// `pacer controller`: runs the Deployment controller against a cluster.
//
// Exit codes: 0 after a graceful stop (SIGINT/SIGTERM), 1 when the cluster is not usable (API
// server unreachable, CRD missing, kubeconfig unreadable), 2 for a bad flag value.

import { parseGoDuration } from '../api/duration.ts';
import { stopOnSignals } from './signals.ts';
import { Command, Option } from 'commander';
import { APPS_DEPLOYMENTS, HttpMethod, KubeClient, DEFAULT_USER_AGENT, PODS, REPLICASETS } from '../kube/client.ts';
import type { ResourceType } from '../kube/client.ts';
import { connector, resolveKubeconfig } from '../kube/connect.ts';
import type { ConnectInternals } from '../kube/connect.ts';
import { otherDeploymentController } from './native.ts';
import { youngGeneration } from './nodeoptions.ts';
import { toKubeError } from '../kube/errors.ts';
import { isSimulatedCluster, STALE_SIM_HINT } from '../kube/simulated.ts';
import { DeploymentController, loadEngine } from '../controllers/deployment/controller.ts';
import { PlanController } from '../controllers/plan/controller.ts';
import { NodeRollController } from '../controllers/noderoll/controller.ts';
import { clusterAPINodeGroups, nodeGroupProviders, simNodeGroups } from '../controllers/noderoll/nodegroups.ts';
import { FreezeSwitch } from '../controllers/freeze/switch.ts';
import { DefaultWindowsSource } from '../controllers/freeze/defaultwindows.ts';
import { AnalysisRunController } from '../controllers/analysis/controller.ts';
import { Manager } from '../manager/manager.ts';
import type { ShardingOptions } from '../manager/shards.ts';
import { realClock } from '../kube/clock.ts';
import type { Clock } from '../kube/clock.ts';
import {
  checkDurations,
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
} from '../manager/leaderelection.ts';
import { existsSync, readFileSync } from 'node:fs';
import { MAX_SHARDS, fairShare, shardOf } from '../engine/index.ts';
import type { Engine } from '../controllers/deployment/reconciler.ts';
import { createLogger, isLogLevel } from '../observe/logger.ts';
import type { LogFormat, LogLevel, Logger } from '../observe/logger.ts';
import { createMetrics } from '../observe/metrics.ts';
import type { ControllerMetrics } from '../observe/metrics.ts';
import { parseBindAddress, startServers } from '../server/http.ts';
import { METRICS_REVIEW_TTL, cachedReviews } from '../server/auth.ts';
import { startWebhookServer } from '../server/webhook.ts';
import { readCertDir, selfSignedCertificate } from '../server/certs.ts';
import type { ServingCertificate } from '../server/certs.ts';
import { operate } from '../planops/service.ts';
import { authenticate, authorize } from '../kube/reviews.ts';
import type { RunningWebhook } from '../server/webhook.ts';
import { GROUP, PACER_NAMESPACE, PLAN_PLURAL, PLURAL, VERSION } from '../api/types.ts';
import type { Pod, ReplicaSet } from '../api/types.ts';
import { NODEROLL_PLURAL } from '../api/noderoll.ts';
import { ANALYSIS_RUN_PLURAL, ANALYSIS_TEMPLATE_PLURAL, CLUSTER_ANALYSIS_TEMPLATE_PLURAL } from '../api/analysis.ts';

/** The analysis resources: spec.analysis needs all three. */
const ANALYSIS_PLURALS = [ANALYSIS_RUN_PLURAL, ANALYSIS_TEMPLATE_PLURAL, CLUSTER_ANALYSIS_TEMPLATE_PLURAL];

/**
 * The controller client's limits (--kube-api-qps, --kube-api-burst): ten times kube-controller-manager's
 * 20 and 30, a ceiling against a runaway rather than a pace, the API server's priority and fairness
 * doing the rest (docs/flow-control.md gives the measurements behind it).
 */
export const DEFAULT_KUBE_API_QPS = 200;
export const DEFAULT_KUBE_API_BURST = 400;

export const CRD_MISSING_MESSAGE = `${PLURAL}.${GROUP} is not installed: kubectl apply -f crds/`;

/** A failure with the exit code the command ends with. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** kube-controller-manager's default for --concurrent-deployment-syncs. */
export const DEFAULT_WORKERS = 5;

export interface RunControllerOptions {
  kubeconfig?: string;
  /** Kubeconfig YAML (in-process use: tests, the simulated cluster). */
  kubeconfigText?: string;
  /** Internal, for tests (no flag): the service account's folder, the environment the kubeconfig is found from. */
  connectInternals?: ConnectInternals;
  namespace?: string;
  /**
   * The Deployment kinds to control: `pacer` (deployments.pacer.dev, the default), and with `apps`
   * also apps/v1 Deployments (native mode: docs/native.md; kube-controller-manager's Deployment
   * controller must be off, which is checked at start).
   */
  deployments?: DeploymentKind[];
  /** How long native mode's start-up check waits for another controller to show itself (default 5 s). */
  nativeProbeWaitMs?: number;
  /** Concurrent Deployment reconciles; default 5, kube-controller-manager's --concurrent-deployment-syncs. */
  workers?: number;
  /** Default ":8443" (kubebuilder's port for secure metrics); "0" disables. */
  metricsBindAddress?: string;
  /**
   * Serve /metrics over HTTPS, only to callers the API server authenticates (TokenReview) and
   * authorises for GET /metrics (SubjectAccessReview), as controller-runtime's secure serving (the
   * CLI's default; in-process: off, plain HTTP).
   */
  metricsSecure?: boolean;
  /** Directory with tls.crt and tls.key for secure metrics (default: a self-signed certificate made at start). */
  metricsCertDir?: string;
  /** Default ":8081"; "0" disables. */
  healthProbeBindAddress?: string;
  /** The read-only views (GET /v2/deployments). Default ":8082"; "0" disables. */
  apiBindAddress?: string;
  /** The validating admission webhook (the deployment lock, the analysis resources' validation, native mode's annotations). Default ":9443"; "0" disables. */
  webhookBindAddress?: string;
  /** Directory with tls.crt and tls.key: the webhook serves HTTPS when both exist, plain HTTP otherwise. */
  webhookCertDir?: string;
  logLevel?: LogLevel;
  logFormat?: LogFormat;
  logger?: Logger;
  /** Client-side rate limit of the controller's requests, as kube-controller-manager's --kube-api-qps (default 200; 0: none). */
  kubeApiQps?: number;
  /** Burst of that limit, as --kube-api-burst (default 400). */
  kubeApiBurst?: number;
  /** The engine (default: src/engine/decide.ts). */
  engine?: Engine;
  /** Time for the manager, its informers, queues and leader election, and the rate limiter (default: real). */
  clock?: Clock;
  /** Run workers only while holding the leader election Lease (the CLI's default; in-process: off). */
  leaderElect?: boolean;
  /** Namespace of the Lease (default: the pod's own namespace in a cluster, else pacer-system). */
  leaderElectionNamespace?: string;
  /** Name of the Lease (default pacer-controller). */
  leaderElectionId?: string;
  /** This replica's name in the Lease (default: hostname_uuid). */
  leaderElectionIdentity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /**
   * Split the objects into this many shards by namespace, a Lease each (default 1: the one Lease
   * of leader election, as before). Needs leader election. docs/sharding.md
   */
  shards?: number;
  /** Static membership: hold shard K only (default: automatic, every shard up to a fair share). */
  shardId?: number;
  userAgent?: string;
  resyncMs?: number;
  watchdogMs?: number;
  /** A cache whose lists and watches have failed this long makes the controller not ready (default 30 s). */
  staleAfterMs?: number;
}

export interface RunningController {
  stop(): Promise<void>;
  /** The controller's metrics (scrape `metrics.registry` when the server is off). */
  metrics: ControllerMetrics;
  ready(): boolean;
  metricsPort?: number;
  /** Whether /metrics is served over HTTPS behind the reviews. */
  metricsSecure?: boolean;
  healthPort?: number;
  apiPort?: number;
  webhookPort?: number;
  controller: DeploymentController;
  /** The controller of apps/v1 Deployments, in native mode (--deployments apps,pacer). */
  apps?: DeploymentController;
  manager: Manager;
  client: KubeClient;
  /** Resolves after stop(); rejects when the leader election Lease was lost (the process should exit 1). */
  done: Promise<void>;
}

export const DEFAULT_LEADER_ELECTION_ID = 'pacer-controller';
/** Where the install manifests put Pacer; the default Lease namespace outside a cluster. */
export const DEFAULT_LEADER_ELECTION_NAMESPACE = PACER_NAMESPACE;
const IN_CLUSTER_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** The Lease's namespace: the flag, else the pod's own namespace (in a cluster), else pacer-system. */
export function leaderElectionNamespace(flag: string | undefined, namespaceFile = IN_CLUSTER_NAMESPACE_FILE): string {
  if (flag) return flag;
  if (existsSync(namespaceFile)) {
    const ns = readFileSync(namespaceFile, 'utf8').trim();
    if (ns) return ns;
  }
  return DEFAULT_LEADER_ELECTION_NAMESPACE;
}

/** The secure metrics server's certificate: the directory's (checked by validateOptions), else a self-signed one (controller-runtime's default). */
function metricsCertificate(certDir: string | undefined): ServingCertificate {
  return readCertDir(certDir) ?? selfSignedCertificate(['pacer-controller-metrics', 'localhost', '127.0.0.1', '::1']);
}

/** A Go duration ("15s", "1m30s", "500ms", "1.5s") in ms, not negative; undefined when the text is none. */
export function durationMs(text: string): number | undefined {
  try {
    const ms = parseGoDuration(text.trim());
    return ms >= 0 ? ms : undefined;
  } catch {
    return undefined;
  }
}

const NAMESPACE_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Checks flag values; throws CliError(…, 2) naming the flag. */
export type DeploymentKind = 'pacer' | 'apps';

/** --deployments: a comma-separated list of pacer and apps (pacer must be one of them for now). */
export function parseDeploymentKinds(v: string): DeploymentKind[] {
  const kinds = v.split(',').map((x) => x.trim());
  const bad = kinds.find((k) => k !== 'pacer' && k !== 'apps');
  if (bad !== undefined || kinds.length === 0)
    throw new CliError(`--deployments: must be pacer or apps,pacer, got ${JSON.stringify(v)}`, 2);
  if (!kinds.includes('pacer'))
    throw new CliError(
      `--deployments: native mode runs beside Pacer's own kind for now: use apps,pacer, got ${JSON.stringify(v)}`,
      2,
    );
  return [...new Set(kinds)] as DeploymentKind[];
}

export function validateOptions(o: RunControllerOptions): void {
  if (o.metricsSecure && o.metricsCertDir !== undefined && !readCertDir(o.metricsCertDir)) {
    throw new CliError(`--metrics-cert-dir: ${JSON.stringify(o.metricsCertDir)} holds no tls.crt and tls.key`, 2);
  }
  if (o.workers !== undefined && (!Number.isInteger(o.workers) || o.workers < 1 || o.workers > 1000)) {
    throw new CliError(`--workers: must be an integer from 1 to 1000, got ${JSON.stringify(String(o.workers))}`, 2);
  }
  for (const [flag, value] of [
    ['--namespace', o.namespace],
    ['--leader-election-namespace', o.leaderElectionNamespace],
  ] as const) {
    if (value !== undefined && (value.length > 63 || !NAMESPACE_RE.test(value))) {
      throw new CliError(
        `${flag}: ${JSON.stringify(value)} is not a valid namespace name (lowercase letters, digits and '-', at most 63)`,
        2,
      );
    }
  }
  for (const [flag, value] of [
    ['--metrics-bind-address', o.metricsBindAddress],
    ['--health-probe-bind-address', o.healthProbeBindAddress],
    ['--api-bind-address', o.apiBindAddress],
    ['--webhook-bind-address', o.webhookBindAddress],
  ] as const) {
    if (value === undefined) continue;
    try {
      parseBindAddress(value);
    } catch (err) {
      throw new CliError(`${flag}: ${(err as Error).message}`, 2);
    }
  }
  if (o.kubeApiQps !== undefined && !(Number.isFinite(o.kubeApiQps) && o.kubeApiQps >= 0)) {
    throw new CliError(
      `--kube-api-qps: must be a number of at least 0 (0: no limit), got ${JSON.stringify(String(o.kubeApiQps))}`,
      2,
    );
  }
  if (o.kubeApiBurst !== undefined && !(Number.isInteger(o.kubeApiBurst) && o.kubeApiBurst >= 1)) {
    throw new CliError(
      `--kube-api-burst: must be an integer of at least 1, got ${JSON.stringify(String(o.kubeApiBurst))}`,
      2,
    );
  }
  if (o.leaderElectionId !== undefined && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(o.leaderElectionId)) {
    throw new CliError(
      `--leader-election-id: ${JSON.stringify(o.leaderElectionId)} is not a valid Lease name (lowercase letters, digits, '-' and '.')`,
      2,
    );
  }
  if (o.leaderElect) {
    const bad = checkDurations(
      o.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS,
      o.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS,
      o.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS,
    );
    if (bad)
      throw new CliError(
        `--leader-election-lease-duration, --leader-election-renew-deadline, --leader-election-retry-period: ${bad}`,
        2,
      );
  }
  if (o.shards !== undefined && !(Number.isInteger(o.shards) && o.shards >= 1 && o.shards <= MAX_SHARDS))
    throw new CliError(
      `--shards: must be an integer from 1 to ${MAX_SHARDS}, got ${JSON.stringify(String(o.shards))}`,
      2,
    );
  if (o.shardId !== undefined) {
    const shards = o.shards ?? 1;
    if (!(Number.isInteger(o.shardId) && o.shardId >= 0))
      throw new CliError(`--shard-id: must be an integer of at least 0, got ${JSON.stringify(String(o.shardId))}`, 2);
    if (shards < 2)
      throw new CliError(
        `--shard-id: needs --shards of at least 2 (one shard is the single leader election Lease), got --shard-id ${o.shardId} with --shards ${shards}`,
        2,
      );
    if (o.shardId >= shards)
      throw new CliError(
        `--shard-id: must be below --shards ${shards} (shards are numbered from 0), got ${JSON.stringify(String(o.shardId))}`,
        2,
      );
  }
  if ((o.shards ?? 1) > 1 && !o.leaderElect)
    throw new CliError(
      `--shards: shards are held through Leases and need --leader-elect=true, got --shards ${o.shards} with --leader-elect=false`,
      2,
    );
  if (o.logLevel !== undefined && !isLogLevel(o.logLevel))
    throw new CliError(`--log-level: must be one of error, warn, info, debug, got ${JSON.stringify(o.logLevel)}`, 2);
  if (o.logFormat !== undefined && o.logFormat !== 'json' && o.logFormat !== 'text')
    throw new CliError(`--log-format: must be json or text, got ${JSON.stringify(o.logFormat)}`, 2);
}

/**
 * The API server answers, and serves pacer.dev/v1alpha1 deployments (CliError(…, 1) otherwise);
 * whether it serves plans too (custom plans are off without them).
 */
export async function checkCluster(
  client: KubeClient,
): Promise<{ plans: boolean; noderolls: boolean; analysis: boolean; analysisRuns: boolean }> {
  try {
    await client.version();
  } catch (err) {
    const e = toKubeError(err);
    const hint = e.kind === 'Unreachable' && isSimulatedCluster(client) ? `\nhint: ${STALE_SIM_HINT}` : '';
    throw new CliError(
      `cannot reach the API server at ${client.server}: ${e.message.replace(/^GET \S+: /, '')}${hint}`,
      1,
    );
  }
  // Discovery, not a CRD read: every authenticated client may use it, and a least-privilege role
  // need not grant access to CustomResourceDefinitions.
  let resources: Array<{ name?: string }> = [];
  try {
    const list = await client.request<{ resources?: Array<{ name?: string }> }>(
      HttpMethod.GET,
      `/apis/${GROUP}/${VERSION}`,
      { what: 'discovery' },
    );
    resources = list.resources ?? [];
  } catch (err) {
    const e = toKubeError(err);
    if (e.kind !== 'NotFound') throw new CliError(`cannot read API discovery from ${client.server}: ${e.message}`, 1);
  }
  if (!resources.some((r) => r.name === PLURAL)) throw new CliError(CRD_MISSING_MESSAGE, 1);
  return {
    plans: resources.some((r) => r.name === PLAN_PLURAL),
    noderolls: resources.some((r) => r.name === NODEROLL_PLURAL),
    analysis: ANALYSIS_PLURALS.every((p) => resources.some((r) => r.name === p)),
    analysisRuns: resources.some((r) => r.name === ANALYSIS_RUN_PLURAL),
  };
}

/** Starts the controller in this process (the `pacer controller` command, tests, `pacer` main). */
export async function runController(opts: RunControllerOptions = {}): Promise<RunningController> {
  validateOptions(opts);
  const logger = opts.logger ?? createLogger({ level: opts.logLevel, format: opts.logFormat });
  const metrics = createMetrics();
  const clock = opts.clock ?? realClock;
  let client: KubeClient;
  let leaseClient: KubeClient | undefined;
  // The manager shuts this gate when it does not lead: no write leaves a standby or a deposed leader.
  let manager: Manager | undefined;
  let opsClient: KubeClient | undefined;
  const writeGate = (): string | undefined => manager?.writeRefusal();
  try {
    // Node's http/https, or client-node where the kubeconfig needs it (kube/connect.ts).
    const kc = await connector(
      resolveKubeconfig({ kubeconfig: opts.kubeconfig, kubeconfigText: opts.kubeconfigText }, opts.connectInternals),
      opts.connectInternals,
    );
    const qps = opts.kubeApiQps ?? DEFAULT_KUBE_API_QPS;
    const userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
    client = new KubeClient(kc(), {
      userAgent,
      metrics: metrics.restClient,
      writeGate,
      clock,
      ...(qps > 0 ? { rateLimit: { qps, burst: opts.kubeApiBurst ?? DEFAULT_KUBE_API_BURST } } : {}),
    });
    // client-go renews the Lease through a client of its own: never throttled behind reconciles.
    if (opts.leaderElect)
      leaseClient = new KubeClient(kc(), { userAgent: `${userAgent} leader-election`, metrics: metrics.restClient });
    opsClient = new KubeClient(kc(), { userAgent: `${userAgent} plan-operations`, metrics: metrics.restClient });
  } catch (err) {
    throw new CliError(`kubeconfig: ${(err as Error).message}`, 1);
  }
  const served = await checkCluster(client);
  const engine = opts.engine ?? (await loadEngine());
  const mgr = new Manager({
    client,
    logger,
    metrics,
    clock,
    namespace: opts.namespace,
    resyncMs: opts.resyncMs,
    watchdogMs: opts.watchdogMs,
    staleAfterMs: opts.staleAfterMs,
    ...(opts.leaderElect
      ? {
          leaderElection: {
            namespace: leaderElectionNamespace(opts.leaderElectionNamespace),
            id: opts.leaderElectionId ?? DEFAULT_LEADER_ELECTION_ID,
            identity: opts.leaderElectionIdentity,
            leaseDurationMs: opts.leaseDurationMs,
            renewDeadlineMs: opts.renewDeadlineMs,
            retryPeriodMs: opts.retryPeriodMs,
            client: leaseClient,
            ...((opts.shards ?? 1) > 1 ? { sharding: shardingOf(opts.shards!, opts.shardId) } : {}),
          },
        }
      : {}),
  });
  manager = mgr;
  // The freeze switch lives beside the Lease, in Pacer's own namespace (docs/semantics/freeze.md).
  const freeze = new FreezeSwitch(mgr, leaderElectionNamespace(opts.leaderElectionNamespace));
  const controller = new DeploymentController(mgr, {
    engine,
    workers: opts.workers ?? DEFAULT_WORKERS,
    customPlans: served.plans,
    analysis: served.analysis,
    freeze,
  });
  // Native mode (docs/native.md): the same engine on apps/v1 Deployments, once no other
  // Deployment controller is found (the check writes only its probe, deleted again).
  let apps: DeploymentController | undefined;
  if (opts.deployments?.includes('apps')) {
    const probeNamespace = leaderElectionNamespace(opts.leaderElectionNamespace);
    // Through the client without the leader's write gate: the check runs before anyone leads.
    const refused = await otherDeploymentController(opsClient!, probeNamespace, opts.nativeProbeWaitMs).catch(
      (err: unknown) => {
        throw new CliError((err as Error).message, 1);
      },
    );
    if (refused !== undefined) throw new CliError(refused, 1);
    apps = new DeploymentController(mgr, {
      engine,
      workers: opts.workers ?? DEFAULT_WORKERS,
      resource: APPS_DEPLOYMENTS,
      // pacer.dev/analysis (api/native.ts) judges an apps/v1 Deployment's rollouts as spec.analysis does.
      analysis: served.analysis,
      freeze,
    });
  }
  // AnalysisRuns are measured wherever their CRD is served (docs/semantics/analysis.md#a-run-over-time).
  if (served.analysisRuns) new AnalysisRunController(mgr);
  else
    logger.warn(
      `${ANALYSIS_RUN_PLURAL}.${GROUP} is not installed: no analysis run is measured until the controller is restarted after kubectl apply -f crds/`,
    );
  if (!served.analysis)
    logger.warn(
      `${ANALYSIS_PLURALS.map((p) => `${p}.${GROUP}`).join(', ')} are not installed: spec.analysis is ignored (and a NodeRoll whose health gate names templates pauses at its first node) until the controller is restarted after kubectl apply -f crds/`,
    );
  // Custom plans need their CRD; without it the rest runs as before (checked once, at start).
  if (served.plans) new PlanController(mgr);
  else
    logger.warn(
      `${PLAN_PLURAL}.${GROUP} is not installed: custom plans are off until the controller is restarted after kubectl apply -f crds/`,
    );
  // Node rolls reach their groups through the simulated cluster's NodeGroups or Cluster API's
  // MachineDeployments and MachineSets, by the form of spec.nodeGroup. A controller watching one namespace does not see every pod of a node: it would drain
  // blind, so it rolls no nodes.
  if (served.noderolls && opts.namespace === undefined) {
    new NodeRollController(mgr, {
      provider: nodeGroupProviders({ sim: simNodeGroups(client), clusterAPI: clusterAPINodeGroups(client) }),
      freeze,
      // Beside the freeze switch: the cluster's default maintenance windows (docs/semantics/windows.md).
      defaultWindows: new DefaultWindowsSource(mgr, leaderElectionNamespace(opts.leaderElectionNamespace)),
      analysis: served.analysis,
    });
  } else if (served.noderolls) {
    logger.warn(
      `node rolls are off: with --namespace ${opts.namespace} the controller does not see every pod of a node`,
    );
  }
  // A namespace's ReplicaSets or pods for the plan views: from the cache, or listed when this
  // replica does not cache that namespace (sharded, a shard it does not hold).
  const cachedOrListed =
    <T extends ReplicaSet | Pod>(cache: { list(ns: string): readonly T[] }, type: ResourceType) =>
    (ns: string): readonly T[] | Promise<readonly T[]> =>
      mgr.cachesNamespace(ns) ? cache.list(ns) : opsClient!.list<T>(type, ns).then((l) => l.items);
  const servers = await startServers({
    metrics: parseBindAddress(opts.metricsBindAddress ?? ':8443'),
    ...(opts.metricsSecure
      ? {
          metricsSecurity: {
            // Who scrapes is who the API server says, and may what RBAC says (GET /metrics); the
            // answers kept as controller-runtime keeps them (METRICS_REVIEW_TTL).
            reviews: cachedReviews(
              {
                authenticate: (token) => authenticate(opsClient!, token),
                authorize: (caller, access) => authorize(opsClient!, caller, access),
              },
              METRICS_REVIEW_TTL,
            ),
            certificate: metricsCertificate(opts.metricsCertDir),
          },
        }
      : {}),
    health: parseBindAddress(opts.healthProbeBindAddress ?? ':8081'),
    registry: metrics.registry,
    // /readyz: the caches, and a replica that cannot campaign for the Lease at all (it would never lead).
    ready: () => mgr.ready() && mgr.campaignProblem() === undefined,
    notReady: () => mgr.notReady() ?? mgr.campaignProblem(),
    api: parseBindAddress(opts.apiBindAddress ?? ':8082'),
    views: {
      deployments: () => controller.deployments.list(),
      replicaSets: cachedOrListed(controller.replicaSets, REPLICASETS),
      pods: cachedOrListed(controller.pods, PODS),
      ready: () => mgr.ready(),
      ...(controller.plans ? { plans: (ns: string) => controller.plans!.list(ns) } : {}),
      // Any replica serves plan operations (they write what the leader's reconciler reads): through
      // a client without the leader's write gate.
      operate: (namespace, service, command) =>
        operate(
          { client: opsClient!, namespace, component: 'pacer-controller', now: () => clock.now() },
          service,
          command,
        ),
      // Callers of the operations are who the API server says they are, and may what RBAC says.
      authenticate: (token) => authenticate(opsClient!, token),
      authorize: (caller, access) => authorize(opsClient!, caller, access),
      // State-changing calls are audited in the log, refused ones too.
      audit: (entry) => logger.info('plan operation', { audit: true, ...entry }),
    },
  }).catch((err: unknown) => {
    throw new CliError(`cannot listen: ${(err as Error).message}`, 1);
  });
  const webhookAddr = parseBindAddress(opts.webhookBindAddress ?? ':9443');
  let webhook: RunningWebhook | undefined;
  if (webhookAddr) {
    webhook = await startWebhookServer(
      webhookAddr,
      { deployments: () => controller.deployments.list() },
      opts.webhookCertDir,
    ).catch(async (err: unknown) => {
      await servers.close();
      throw new CliError(`cannot listen: ${(err as Error).message}`, 1);
    });
  }
  mgr.start();
  logger.info('pacer controller started', {
    server: client.server,
    namespace: opts.namespace ?? '(all)',
    metricsPort: servers.metricsPort,
    metricsSecure: servers.metricsSecure,
    healthPort: servers.healthPort,
    apiPort: servers.apiPort,
    webhookPort: webhook?.port,
    webhookTls: webhook?.tls,
    leaderElect: !!opts.leaderElect,
    youngGeneration: youngGeneration(),
    ...((opts.shards ?? 1) > 1 ? { shards: opts.shards, shardId: opts.shardId ?? '(automatic)' } : {}),
    ...(mgr.identity() ? { identity: mgr.identity() } : {}),
  });
  const closeServers = (): Promise<void> => Promise.all([servers.close(), webhook?.close()]).then(() => undefined);
  // A lost Lease stops the manager by itself; the servers go with it.
  const done = mgr.done.then(closeServers, async (err: unknown) => {
    await closeServers();
    throw err;
  });
  done.catch(() => undefined);
  return {
    controller,
    ...(apps ? { apps } : {}),
    manager: mgr,
    client,
    metrics,
    done,
    metricsPort: servers.metricsPort,
    metricsSecure: servers.metricsSecure,
    healthPort: servers.healthPort,
    apiPort: servers.apiPort,
    webhookPort: webhook?.port,
    ready: () => mgr.ready(),
    stop: () =>
      mgr
        .stop()
        .then(() => done)
        .catch(() => undefined),
  };
}

/** --shards N (N > 1): the engine's assignment by namespace, remembered per namespace, and the fair share. */
function shardingOf(shards: number, shardId: number | undefined): ShardingOptions {
  const known = new Map<string, number>();
  return {
    shards,
    ...(shardId !== undefined ? { shardId } : {}),
    assign: (namespace) => {
      if (namespace === undefined) return 0;
      let shard = known.get(namespace);
      if (shard === undefined) known.set(namespace, (shard = shardOf(namespace, shards)));
      return shard;
    },
    share: (members) => fairShare(shards, members),
  };
}

/** A numeric flag's value; text that is no number is an error naming the flag (exit 2). */
function numberFlag(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\s*[0-9]+(\.[0-9]+)?\s*$/.test(v))
    throw new CliError(`${flag}: must be a non-negative number, got ${JSON.stringify(v)}`, 2);
  return Number(v);
}

/** A Go-style boolean flag value (--flag, --flag=true, --flag=false); anything else is exit 2. */
function boolFlag(flag: string, v: string | boolean | undefined): boolean | undefined {
  if (v === undefined || typeof v === 'boolean') return v;
  const t = v.trim().toLowerCase();
  if (['true', '1', 't'].includes(t)) return true;
  if (['false', '0', 'f'].includes(t)) return false;
  throw new CliError(`${flag}: must be true or false, got ${JSON.stringify(v)}`, 2);
}

/** A duration flag ("15s", "1m", "500ms"); anything else is exit 2. */
function durationFlag(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const ms = durationMs(v);
  if (ms === undefined || ms <= 0)
    throw new CliError(`${flag}: must be a positive duration such as 15s, 1m or 500ms, got ${JSON.stringify(v)}`, 2);
  return ms;
}

/** An integer flag (--shards, --shard-id); anything else is exit 2. */
export function integerFlag(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\s*[0-9]+\s*$/.test(v))
    throw new CliError(`${flag}: must be a non-negative integer, got ${JSON.stringify(v)}`, 2);
  return Number(v);
}

function parseWorkers(v: string): number {
  if (!/^\d+$/.test(v.trim()))
    throw new CliError(`--workers: must be an integer from 1 to 1000, got ${JSON.stringify(v)}`, 2);
  return Number(v);
}

export function controllerCommand(): Command {
  const cmd = new Command('controller')
    .description('Run the Pacer Deployment controller against a cluster')
    .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG, else in-cluster, else ~/.kube/config)')
    .option('--namespace <ns>', 'watch and manage only this namespace (default: all)')
    .option(
      '--deployments <kinds>',
      'the Deployments to control: pacer (deployments.pacer.dev), or apps,pacer to control apps/v1 Deployments too (native mode: kube-controller-manager must run with --controllers=*,-deployment-controller; docs/native.md)',
      'pacer',
    )
    .option(
      '--workers <n>',
      "concurrent Deployment reconciles (kube-controller-manager's --concurrent-deployment-syncs)",
      String(DEFAULT_WORKERS),
    )
    .option('--metrics-bind-address <addr>', 'address of /metrics ("0" disables)', ':8443')
    .option(
      '--metrics-secure [bool]',
      'serve /metrics over HTTPS, only to callers the API server authenticates and authorises for GET /metrics (--metrics-secure=false: plain HTTP to anyone)',
      'true',
    )
    .option(
      '--metrics-cert-dir <dir>',
      'directory with tls.crt and tls.key for secure metrics (default: a self-signed certificate made at start)',
    )
    .option('--health-probe-bind-address <addr>', 'address of /healthz and /readyz ("0" disables)', ':8081')
    .option(
      '--api-bind-address <addr>',
      'address of the read-only views, GET /v2/deployments and /v1/service/NAMESPACE/NAME/plans ("0" disables)',
      ':8082',
    )
    .option(
      '--webhook-bind-address <addr>',
      'address of the validating admission webhook: the deployment lock, the analysis resources\' validation and native mode\'s annotations ("0" disables)',
      ':9443',
    )
    .option(
      '--webhook-cert-dir <dir>',
      'directory with tls.crt and tls.key; the webhook serves plain HTTP without them (a real API server needs HTTPS)',
    )
    .option(
      '--kube-api-qps <qps>',
      "client-side limit of requests per second to the API server (0: no limit); ten times kube-controller-manager's 20, the API server's priority and fairness doing the rest (docs/flow-control.md)",
      String(DEFAULT_KUBE_API_QPS),
    )
    .option('--kube-api-burst <n>', 'burst of that limit', String(DEFAULT_KUBE_API_BURST))
    .option(
      '--leader-elect [bool]',
      'run reconcile workers only while holding the leader election Lease (--leader-elect=false: always)',
      'true',
    )
    .option(
      '--leader-election-namespace <ns>',
      "namespace of the Lease (default: the pod's namespace in a cluster, else pacer-system)",
    )
    .option('--leader-election-id <name>', 'name of the Lease', DEFAULT_LEADER_ELECTION_ID)
    .option(
      '--leader-election-lease-duration <duration>',
      'how long standbys wait after the last renewal before taking the Lease',
      '15s',
    )
    .option(
      '--leader-election-renew-deadline <duration>',
      'how long the leader keeps trying to renew before it stops leading',
      '10s',
    )
    .option(
      '--leader-election-retry-period <duration>',
      'how often candidates try to take, and the leader to renew, the Lease',
      '2s',
    )
    .option(
      '--shards <n>',
      'split the objects into N shards by namespace, a Lease each (<leader-election-id>-shard-K); replicas share them out (docs/sharding.md)',
      '1',
    )
    .option(
      '--shard-id <k>',
      'hold shard K only (static membership; default: automatic, each replica takes up to its fair share)',
    )
    .option('--log-level <level>', 'error, warn, info or debug', 'info')
    .addOption(new Option('--log-format <format>', 'json or text').default('json'))
    .exitOverride((err) => {
      // commander already printed its message; bad usage is exit 2, help and version exit 0.
      process.exit(err.exitCode === 0 ? 0 : 2);
    })
    .action(async (o: Record<string, string | undefined>) => {
      let running: RunningController | undefined;
      try {
        running = await runController({
          kubeconfig: o.kubeconfig,
          namespace: o.namespace,
          workers: parseWorkers(o.workers ?? String(DEFAULT_WORKERS)),
          deployments: parseDeploymentKinds(o.deployments ?? 'pacer'),
          metricsBindAddress: o.metricsBindAddress,
          metricsSecure: boolFlag('--metrics-secure', o.metricsSecure),
          metricsCertDir: o.metricsCertDir,
          healthProbeBindAddress: o.healthProbeBindAddress,
          apiBindAddress: o.apiBindAddress,
          webhookBindAddress: o.webhookBindAddress,
          webhookCertDir: o.webhookCertDir,
          kubeApiQps: numberFlag('--kube-api-qps', o.kubeApiQps),
          kubeApiBurst: numberFlag('--kube-api-burst', o.kubeApiBurst),
          leaderElect: boolFlag('--leader-elect', o.leaderElect),
          leaderElectionNamespace: o.leaderElectionNamespace,
          leaderElectionId: o.leaderElectionId,
          leaseDurationMs: durationFlag('--leader-election-lease-duration', o.leaderElectionLeaseDuration),
          renewDeadlineMs: durationFlag('--leader-election-renew-deadline', o.leaderElectionRenewDeadline),
          retryPeriodMs: durationFlag('--leader-election-retry-period', o.leaderElectionRetryPeriod),
          shards: integerFlag('--shards', o.shards),
          shardId: integerFlag('--shard-id', o.shardId),
          logLevel: o.logLevel as LogLevel,
          logFormat: o.logFormat as LogFormat,
        });
      } catch (err) {
        process.stderr.write(`error: ${(err as Error).message}\n`);
        process.exit(err instanceof CliError ? err.exitCode : 1);
      }
      const r = running;
      stopOnSignals(() => r.stop());
      r.done.catch((err: unknown) => {
        // controller-runtime's behaviour: a replica that lost its Lease exits and is restarted.
        process.stderr.write(`error: ${(err as Error).message}\n`);
        process.exit(1);
      });
    });
  return cmd;
}
