// Prometheus metrics (prom-client) with controller-runtime's and client-go's names, label sets and
// buckets, so existing controller dashboards work unchanged; object state in kube-state-metrics'
// shape under a pacer_ prefix; rollout outcomes. The work queue and the API client report through
// small interfaces (QueueMetricsProvider, RequestObserver) and stay usable without any metrics.
//
// Object metrics are computed at scrape time from the informer cache (collect callbacks): no
// per-event bookkeeping, and a deleted Deployment's series are simply gone at the next scrape.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Deployment } from '../api/types.ts';
import { strategyTypeOf } from '../api/strategies/index.ts';
import type { QueueMetrics, QueueMetricsProvider, QueueState, ResultLabel } from '../manager/workqueue.ts';
import type { RequestObserver } from '../kube/client.ts';
import { type Clock, realClock, type Timer, TimeSlice } from '../kube/clock.ts';

/** controller-runtime's controller_runtime_reconcile_time_seconds buckets. */
export const RECONCILE_TIME_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
  2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
/** client-go's workqueue buckets: ExponentialBuckets(10e-9, 10, 12), 10 ns to 1000 s. */
export const WORKQUEUE_BUCKETS = Array.from({ length: 12 }, (_, i) => Number((1e-8 * 10 ** i).toPrecision(1)));
/** client-go's rest_client_request_duration_seconds buckets (k8s.io/component-base restclient metrics). */
export const REST_CLIENT_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0];
/** Rollouts take seconds to hours. */
export const ROLLOUT_DURATION_BUCKETS = [1, 5, 10, 30, 60, 120, 300, 600, 900, 1200, 1800, 3600, 7200, 14400];

export const RECONCILE_RESULTS: readonly ResultLabel[] = ['success', 'error', 'requeue', 'requeue_after'];
export const ROLLOUT_RESULTS = ['complete', 'deadline_exceeded', 'superseded'] as const;
export type RolloutResult = (typeof ROLLOUT_RESULTS)[number];

/**
 * Reasons exported as they are on pacer_deployment_status_condition; anything else becomes
 * "unknown" (kube-state-metrics' allow-list for Deployments, plus Pacer's InvalidSpec, plan, freeze and analysis reasons), which keeps
 * the label's cardinality bounded whatever a condition says.
 */
export const CONDITION_REASONS = new Set([
  'ReplicaSetUpdated',
  'ReplicaSetCreateError',
  'NewReplicaSetCreated',
  'FoundNewReplicaSet',
  'NewReplicaSetAvailable',
  'ProgressDeadlineExceeded',
  'DeploymentPaused',
  'DeploymentResumed',
  'MinimumReplicasAvailable',
  'MinimumReplicasUnavailable',
  'InvalidSpec',
  'PlanWaiting',
  'PlanPending',
  'PlanContinued',
  'Frozen',
  'FreezeLifted',
  'OutsideWindow',
  'WindowOpened',
  // Analysis (docs/semantics/analysis.md): the PacerAnalysisFailed alert reads AnalysisFailed.
  'AnalysisFailed',
  'AnalysisPaused',
  'AnalysisInconclusive',
  'AnalysisInvalid',
  'AnalysisRunning',
  'AnalysisContinued',
  '',
]);
/** kube-state-metrics writes one series per possible status, valued 1 for the current one. */
const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;

export interface ControllerMetrics {
  registry: Registry;
  reconcileTotal: Counter<'controller' | 'result'>;
  reconcileErrors: Counter<'controller'>;
  reconcileTime: Histogram<'controller'>;
  maxConcurrentReconciles: Gauge<'controller'>;
  activeWorkers: Gauge<'controller'>;
  rolloutsTotal: Counter<'result'>;
  rolloutDuration: Histogram<'strategy' | 'result'>;
  /** Events not written because the recorder's queue was full (client-go drops them the same way). */
  eventsDropped: Counter;
  /** client-go's leader_election_master_status{name}: 1 while this replica leads, else 0. */
  leaderElection: Gauge<'name'>;
  /** Sharded (--shards N > 1): 1 for each shard this replica holds, 0 for those it campaigns for. */
  shardHeld: Gauge<'shard'>;
  /** For WorkQueue's `metrics` option: workqueue_* labelled {name, controller}. */
  queues: QueueMetricsProvider;
  /** For KubeClient's `metrics` option: rest_client_*. */
  restClient: RequestObserver;
  /** Zeroes a controller's series and sets its worker count, as controller-runtime does at start. */
  initController(controller: string, workers: number): void;
  /** Computes the pacer_deployment_* series from `list()` at every scrape. */
  trackDeployments(list: () => Iterable<Deployment>): void;
  /**
   * Computes the pacer_plan_phase_* series from `list()` at every scrape. A sample is taken as
   * unchanging: its lines are rendered once per sample object, so a changed phase is a new object.
   */
  trackPlanPhases(list: () => Iterable<PlanPhaseSample>): void;
  /** Computes the pacer_noderoll_* series from `list()` at every scrape. */
  trackNodeRolls(list: () => Iterable<NodeRollSample>): void;
  /** Computes pacer_frozen from `frozen()` at every scrape: whether the freeze switch is on, and why. */
  trackFreeze(frozen: () => { reason: string } | undefined): void;
  /** A rollout ended. */
  observeRollout(result: RolloutResult, strategy: string, seconds: number | undefined): void;
  /** Computes pacer_analysis_runs, pacer_analysis_run_phase, pacer_analysis_metric_phase and pacer_analysis_metric_value from `list()` at every scrape. */
  trackAnalysisRuns(list: () => Iterable<AnalysisRunSample>): void;
  /** A measurement was taken and stored (pacer_analysis_measurements_total). */
  observeMeasurement(m: { namespace: string; run: string; metric: string; phase: string }): void;
}

/** One AnalysisRun, as the pacer_analysis_* series show it. */
export interface AnalysisRunSample {
  namespace: string;
  name: string;
  /** The Deployment it judges (its label), or "". */
  deployment: string;
  phase: string;
  metrics: ReadonlyArray<{ name: string; phase: string; value?: number }>;
}

/** One NodeRoll, as the pacer_noderoll_* series show it. */
export interface NodeRollSample {
  name: string;
  /** Rolling, Paused, Frozen, Complete or Invalid. */
  phase: string;
  /** Set while paused for a human: the wait that timed out (scaleUp, drain, deregister, healthy) or analysis, and the node. */
  paused?: { wait: string; node?: string };
  /** Original nodes by step. */
  steps: Readonly<Record<string, number>>;
}

/** One Deployment's phase of its service's plan, as the pacer_plan_phase_* series show it. */
export interface PlanPhaseSample {
  namespace: string;
  /** The Deployment (the phase). */
  name: string;
  plan: string;
  strategy: string;
  status: string;
  /** Steps by status (statuses without steps may be left out). */
  steps: Readonly<Record<string, number>>;
}

/** One pacer_deployment_* sample. */
export interface DeploymentSeries {
  name: string;
  labels: Record<string, string>;
  value: number;
}

type Labels = Record<string, string>;

/** The pacer_deployment_* families: name, help, extra labels and the samples of one Deployment. */
const DEPLOYMENT_FAMILIES: Array<{
  name: string;
  help: string;
  labels: string[];
  samples(d: Deployment, base: Labels): Array<[Labels, number]>;
}> = [
  {
    name: 'pacer_deployment_spec_replicas',
    help: 'Number of desired pods for a deployment.',
    labels: [],
    samples: (d, base) => [[base, d.spec?.replicas ?? 1]],
  },
  {
    name: 'pacer_deployment_status_replicas',
    help: 'The number of replicas per deployment.',
    labels: [],
    samples: (d, base) => [[base, d.status?.replicas ?? 0]],
  },
  {
    name: 'pacer_deployment_status_replicas_updated',
    help: 'The number of updated replicas per deployment.',
    labels: [],
    samples: (d, base) => [[base, d.status?.updatedReplicas ?? 0]],
  },
  {
    name: 'pacer_deployment_status_replicas_ready',
    help: 'The number of ready replicas per deployment.',
    labels: [],
    samples: (d, base) => [[base, d.status?.readyReplicas ?? 0]],
  },
  {
    name: 'pacer_deployment_status_replicas_available',
    help: 'The number of available replicas per deployment.',
    labels: [],
    samples: (d, base) => [[base, d.status?.availableReplicas ?? 0]],
  },
  {
    name: 'pacer_deployment_status_replicas_unavailable',
    help: 'The number of unavailable replicas per deployment.',
    labels: [],
    samples: (d, base) => [[base, d.status?.unavailableReplicas ?? 0]],
  },
  {
    name: 'pacer_deployment_metadata_generation',
    help: 'Sequence number representing a specific generation of the desired state.',
    labels: [],
    samples: (d, base) => [[base, d.metadata.generation ?? 0]],
  },
  {
    name: 'pacer_deployment_status_observed_generation',
    help: 'The generation observed by the deployment controller.',
    labels: [],
    samples: (d, base) => [[base, d.status?.observedGeneration ?? 0]],
  },
  {
    name: 'pacer_deployment_spec_paused',
    help: 'Whether the deployment is paused and will not be processed by the deployment controller.',
    labels: [],
    samples: (d, base) => [[base, d.spec?.paused ? 1 : 0]],
  },
  {
    name: 'pacer_deployment_info',
    help: 'Information about a deployment.',
    labels: ['strategy'],
    samples: (d, base) => [[{ ...base, strategy: strategyTypeOf(d) }, 1]],
  },
  {
    name: 'pacer_deployment_status_condition',
    help: 'The current status conditions of a deployment.',
    labels: ['condition', 'status', 'reason'],
    samples: (d, base) => {
      const out: Array<[Labels, number]> = [];
      for (const c of d.status?.conditions ?? []) {
        const reason = CONDITION_REASONS.has(c.reason ?? '') ? (c.reason ?? '') : 'unknown';
        for (const st of CONDITION_STATUSES)
          out.push([{ ...base, condition: c.type, status: st.toLowerCase(), reason }, c.status === st ? 1 : 0]);
      }
      return out;
    },
  },
];

/**
 * A gauge whose samples are computed whole from the caches at each scrape, as kube-state-metrics
 * renders object state: what is no longer cached is no longer exported, and no sample goes through
 * Gauge.set(), which hashes every label set.
 */
class ComputedGauge extends Gauge<string> {
  private readonly compute: () => Array<{ labels: Labels; value: number }>;

  constructor(
    config: ConstructorParameters<typeof Gauge<string>>[0],
    compute: () => Array<{ labels: Labels; value: number }>,
  ) {
    super(config);
    this.compute = compute;
  }

  override async get(): ReturnType<Gauge<string>['get']> {
    const values = this.compute(); // before any await: see oncePerScrape
    return { ...(await super.get()), values };
  }
}

/**
 * A ComputedGauge whose sample lines also come ready-made (`lines()`, one string per object, '' for
 * none), which TextRegistry writes as they are instead of formatting each sample again: at 10,000
 * Deployments a scrape is 210,000 samples, and an object's lines are rendered once per version of
 * it (`renderedOf` in createMetrics), not once per scrape. get() still gives the samples
 * (getMetricsAsJSON).
 */
class RenderedGauge extends ComputedGauge {
  readonly lines: () => string[];

  constructor(
    config: ConstructorParameters<typeof Gauge<string>>[0],
    compute: () => Array<{ labels: Labels; value: number }>,
    lines: () => string[],
  ) {
    super(config, compute);
    this.lines = lines;
  }
}

/** prom-client's text escapes: help and label values escape backslash and newline, label values also '"'. */
function escapeText(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}
function escapeLabelValue(s: string): string {
  return escapeText(s).replace(/"/g, '\\"');
}
/** A sample's value as prom-client writes it (its "Nan" spelling included). */
function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'Nan';
  if (!Number.isFinite(v)) return v < 0 ? '-Inf' : '+Inf';
  return `${v}`;
}
/** One sample line in the text exposition format, labels in their given order. */
export function sampleLine(name: string, labels: Labels, value: number): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(labels)) parts.push(`${k}="${escapeLabelValue(v)}"`);
  return `${name}${parts.length ? `{${parts.join(',')}}` : ''} ${formatValue(value)}`;
}

type MetricLike = Parameters<Registry['registerMetric']>[0];

/** A rendered family's HELP and TYPE lines, as prom-client writes them (without the last newline). */
function renderedHeader(metric: RenderedGauge): string {
  const { name, help } = metric as unknown as { name: string; help: string };
  return `# HELP ${name} ${escapeText(help)}\n# TYPE ${name} gauge`;
}
const formatWithPromClient = (
  Registry.prototype as unknown as { getMetricsAsString(this: Registry, m: MetricLike): Promise<string> }
).getMetricsAsString;

/**
 * prom-client's Registry, with two differences in how a scrape runs; the text is the same.
 * * A RenderedGauge's family is written from its ready-made lines. getMetricsAsString is what both
 *   metrics() and getSingleMetricAsString() call for each family; it is not in prom-client's type
 *   declarations, so the unit tests compare this registry's text for the rendered families with
 *   prom-client's own formatting of the same samples.
 * * metrics() gives the event loop back as it goes. prom-client's asks every family at once and
 *   formats them in one run of microtasks, so a scrape held the event loop from its first family to
 *   its last: about 0.25 s at 10,000 Deployments, and every watch event or paced change that arrived
 *   meanwhile waited for it (docs/metrics.md#a-scrape-and-the-event-loop). Here the families are
 *   asked one after another, with a macrotask turn each time they have worked SLICE_MS, and the
 *   `warmers` (the work a first scrape after many changes does, such as rendering each changed
 *   Deployment's lines) run first, in slices of their own, or ahead of the scrape (warm). The
 *   families of one scrape still share their listings (oncePerScrape); that a later family may see
 *   objects an event changed since an earlier one is the same as with kube-state-metrics, whose
 *   families are not one snapshot either.
 */
class TextRegistry extends Registry {
  /** The scrape whose family is being asked for its samples, while it is asked (oncePerScrape). */
  scrape: object | undefined;
  /** Work done at the start of each scrape, giving the event loop back as it goes (see createMetrics). */
  readonly warmers: Array<() => Promise<void>> = [];
  private readonly clock: Clock;
  /** When the last scrape started (clock.now()), to learn the scrapers' interval. */
  private lastScrape: number | undefined;
  /** The warm-up due before the next scrape, while one is scheduled (see ahead). */
  private aheadTimer: Timer | undefined;
  /** The warm-up running now: a scrape waits for it rather than run the warmers beside it. */
  private warming: Promise<void> | undefined;

  constructor(clock: Clock) {
    super();
    this.clock = clock;
  }

  /**
   * Runs the warmers ahead of the next scrape, three quarters of the way through the interval the
   * scrapers keep (from the last two scrapes' starts, when that lies between AHEAD_MIN_INTERVAL_MS
   * and AHEAD_MAX_INTERVAL_MS), so that the next scrape renders only what changed in the last
   * quarter. At 10,000 Deployments a scrape that found every Deployment changed (a fleet-wide roll
   * between two scrapes) took 1.0-1.6 s in the running controller; kube-state-metrics renders an
   * object's lines as its informer delivers it, for the same reason. Without a scraper nothing is
   * scheduled, and at most one warm-up runs per interval: each changed Deployment is rendered at
   * most twice an interval instead of once. Called as a scrape starts; a scrape too close to the
   * one before (a second scraper, a person's curl) leaves a warm-up already due as it is.
   */
  private ahead(now: number): void {
    const interval = this.lastScrape === undefined ? undefined : now - this.lastScrape;
    this.lastScrape = now;
    if (interval === undefined || interval < AHEAD_MIN_INTERVAL_MS || interval > AHEAD_MAX_INTERVAL_MS) return;
    this.clock.clearTimer(this.aheadTimer);
    this.aheadTimer = this.clock.setTimer(() => {
      this.aheadTimer = undefined;
      void this.warm();
    }, interval * AHEAD_AT);
  }

  /**
   * The warmers run once, as a scrape would run them, with a token of its own; one at a time. An
   * error is left for the scrape, which meets it again and answers it.
   */
  warm(): Promise<void> {
    this.warming ??= (async () => {
      try {
        const token = {};
        for (const warm of this.warmers) await this.within(token, warm);
      } catch {
        // the scrape that follows runs the same warmer and reports it
      } finally {
        this.warming = undefined;
      }
    })();
    return this.warming;
  }

  async getMetricsAsString(metric: MetricLike): Promise<string> {
    if (!(metric instanceof RenderedGauge)) return formatWithPromClient.call(this, metric);
    const out = [renderedHeader(metric)];
    for (const l of metric.lines()) if (l) out.push(l);
    return out.join('\n');
  }

  override async metrics(): Promise<string> {
    let text = '';
    for await (const piece of this.textPieces()) text += piece;
    return text;
  }

  /**
   * A scrape's text in pieces of whole lines, each piece at least `pieceChars` characters but the
   * last, for a server to send or compress as they come (server/http.ts): at 10,000 Deployments
   * the text is 18 MiB, and held whole, then joined, then encoded, a scrape kept three copies of it
   * at once. A rendered family is cut between its objects' lines: pacer_deployment_status_condition
   * alone is 8.6 million characters there, and a piece of whole families was 11.8 million.
   * metrics() is their concatenation.
   */
  async *textPieces(pieceChars: number = SCRAPE_PIECE_CHARS): AsyncGenerator<string> {
    // Pacer's registry is never OpenMetrics; prom-client's own path stays for it all the same.
    if (this.contentType !== Registry.PROMETHEUS_CONTENT_TYPE) {
      yield await super.metrics();
      return;
    }
    this.ahead(this.clock.now());
    if (this.warming) await this.warming;
    const scrape = {};
    for (const warm of this.warmers) await this.within(scrape, warm);
    let held: string[] = [];
    let chars = 0;
    const add = (text: string): void => {
      held.push(text);
      chars += text.length;
    };
    // Called only just after a newline, so that every piece ends with one.
    const full = (): string | undefined => {
      if (chars < pieceChars) return undefined;
      const piece = held.join('');
      held = [];
      chars = 0;
      return piece;
    };
    let first = true;
    // The loop is given back once the families have worked SLICE_MS since the last turn, not after
    // each: a turn is whatever else the controller has waiting. While 10,000 Deployments rolled, the
    // scrapes that turned after each of the 74 families took a median of 1.56 s, and 0.68 s with
    // this and the warm-up ahead (bench/RESULTS.md, "/metrics under a real Prometheus").
    const slice = new TimeSlice();
    // getMetricsAsArray() gives the registered metrics themselves (its declared type is narrower).
    for (const metric of this.getMetricsAsArray() as unknown as MetricLike[]) {
      if (!first) {
        add('\n\n'); // families are separated by an empty line
        const piece = full();
        if (piece !== undefined) yield piece;
      }
      first = false;
      if (metric instanceof RenderedGauge) {
        // Its listing read in this scrape's turn, as getMetricsAsString would (oncePerScrape).
        const lines = this.within(scrape, () => metric.lines());
        add(renderedHeader(metric));
        for (const l of lines) {
          if (!l) continue;
          add('\n');
          const piece = full();
          if (piece !== undefined) yield piece;
          add(l);
        }
      } else {
        add(await this.within(scrape, () => this.getMetricsAsString(metric)));
      }
      if (slice.over()) await slice.next();
    }
    add('\n');
    yield held.join('');
  }

  /**
   * `step()` with `scrape` as the scrape being run for its synchronous part: a family reads its
   * samples before its first await (ComputedGauge.get, a Gauge's collect), a warmer its listing.
   */
  private within<T>(scrape: object, step: () => T): T {
    this.scrape = scrape;
    try {
      return step();
    } finally {
      this.scrape = undefined;
    }
  }
}

/** Where between two scrapes the warmers run ahead of the next (TextRegistry.ahead): at three quarters. */
export const AHEAD_AT = 0.75;
/** Scrapers closer together than this get no warm-up between (each scrape renders little anyway). */
export const AHEAD_MIN_INTERVAL_MS = 5_000;
/** Nor do scrapes further apart than this: a person's curl, not a Prometheus keeping an interval. */
export const AHEAD_MAX_INTERVAL_MS = 10 * 60_000;

/**
 * The family server/http.ts's /metrics handler times each answer into. Prometheus' own
 * scrape_duration_seconds also counts its parsing and storing of the samples, which at 10,000
 * Deployments is most of it on a small machine: this one is the controller's part alone.
 */
export const METRICS_HANDLER_DURATION = 'pacer_metrics_handler_duration_seconds';
/** Its buckets, around issue 30's half a second for a scrape at 10,000 Deployments. */
export const METRICS_HANDLER_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** How much text a scrape gathers before it hands a piece on (TextRegistry.textPieces): 4 MiB of whole lines. */
export const SCRAPE_PIECE_CHARS = 4 << 20;

/**
 * `fn`'s result, shared by the families of one scrape that read the same objects: the next scrape
 * lists again. Within TextRegistry.metrics() a scrape is its token (kept in a WeakMap, so a
 * listing goes with its scrape); a family asked outside it (getMetricsAsJSON, a family's own get())
 * shares the listing with the calls of the same synchronous run.
 */
function oncePerScrape<T>(registry: TextRegistry, fn: () => T): () => T {
  const byScrape = new WeakMap<object, { value: T }>();
  let outside: { value: T } | undefined;
  return () => {
    const scrape = registry.scrape;
    if (scrape) {
      let kept = byScrape.get(scrape);
      if (!kept) {
        kept = { value: fn() };
        byScrape.set(scrape, kept);
      }
      return kept.value;
    }
    if (!outside) {
      const kept = { value: fn() };
      outside = kept;
      queueMicrotask(() => {
        if (outside === kept) outside = undefined;
      });
    }
    return outside.value;
  };
}

/**
 * What `list()` gives, taken at the start of each scrape by a warmer that gives the event loop back
 * every few milliseconds (so a source that computes its items as they are taken is computed in
 * slices), and shared by the scrape's families; outside a scrape, listed at once as oncePerScrape.
 */
function listedPerScrape<T>(registry: TextRegistry, list: () => Iterable<T>): () => T[] {
  const byScrape = new WeakMap<object, T[]>();
  registry.warmers.push(async () => {
    const scrape = registry.scrape; // set while the warmer's synchronous start runs
    const out: T[] = [];
    const slice = new TimeSlice();
    for (const x of list()) {
      out.push(x);
      if (slice.over()) await slice.next();
    }
    if (scrape) byScrape.set(scrape, out);
  });
  return oncePerScrape(registry, () => (registry.scrape && byScrape.get(registry.scrape)) ?? [...list()]);
}

function baseLabels(d: Deployment): Labels {
  return { namespace: d.metadata.namespace ?? '', name: d.metadata.name ?? '' };
}

/** Every pacer_deployment_* sample of one Deployment (what a scrape shows for it). */
export function deploymentSeries(d: Deployment): DeploymentSeries[] {
  const base = baseLabels(d);
  return DEPLOYMENT_FAMILIES.flatMap((f) =>
    f.samples(d, base).map(([labels, value]) => ({ name: f.name, labels, value })),
  );
}

export function createMetrics(opts: { defaultMetrics?: boolean; clock?: Clock } = {}): ControllerMetrics {
  const registry = new TextRegistry(opts.clock ?? realClock);
  if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  // ---- controller-runtime: pkg/internal/controller/metrics --------------------------------------
  const reconcileTotal = new Counter({
    name: 'controller_runtime_reconcile_total',
    help: 'Total number of reconciliations per controller',
    labelNames: ['controller', 'result'] as const,
    registers,
  });
  const reconcileErrors = new Counter({
    name: 'controller_runtime_reconcile_errors_total',
    help: 'Total number of reconciliation errors per controller',
    labelNames: ['controller'] as const,
    registers,
  });
  const reconcileTime = new Histogram({
    name: 'controller_runtime_reconcile_time_seconds',
    help: 'Length of time per reconciliation per controller',
    labelNames: ['controller'] as const,
    buckets: RECONCILE_TIME_BUCKETS,
    registers,
  });
  const maxConcurrentReconciles = new Gauge({
    name: 'controller_runtime_max_concurrent_reconciles',
    help: 'Maximum number of concurrent reconciles per controller',
    labelNames: ['controller'] as const,
    registers,
  });
  const activeWorkers = new Gauge({
    name: 'controller_runtime_active_workers',
    help: 'Number of currently used workers per controller',
    labelNames: ['controller'] as const,
    registers,
  });

  // ---- client-go workqueue, as controller-runtime registers it ({name, controller}) -------------
  const states: Array<{ labels: { name: string; controller: string }; state: QueueState }> = [];
  const queueLabels = ['name', 'controller'] as const;
  new Gauge({
    name: 'workqueue_depth',
    help: 'Current depth of workqueue',
    labelNames: queueLabels,
    registers,
    collect() {
      for (const q of states) this.set(q.labels, q.state.depth());
    },
  });
  const adds = new Counter({
    name: 'workqueue_adds_total',
    help: 'Total number of adds handled by workqueue',
    labelNames: queueLabels,
    registers,
  });
  const latency = new Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'How long in seconds an item stays in workqueue before being requested',
    labelNames: queueLabels,
    buckets: WORKQUEUE_BUCKETS,
    registers,
  });
  const workDuration = new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long in seconds processing an item from workqueue takes.',
    labelNames: queueLabels,
    buckets: WORKQUEUE_BUCKETS,
    registers,
  });
  new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help:
      "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. " +
      'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.',
    labelNames: queueLabels,
    registers,
    collect() {
      for (const q of states)
        this.set(
          q.labels,
          q.state.processingSeconds().reduce((a, b) => a + b, 0),
        );
    },
  });
  new Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds has the longest running processor for workqueue been running.',
    labelNames: queueLabels,
    registers,
    collect() {
      for (const q of states) this.set(q.labels, Math.max(0, ...q.state.processingSeconds()));
    },
  });
  const retries = new Counter({
    name: 'workqueue_retries_total',
    help: 'Total number of retries handled by workqueue',
    labelNames: queueLabels,
    registers,
  });
  const queues: QueueMetricsProvider = {
    // controller-runtime names each queue after its controller and sets both labels to that name.
    forQueue(name: string, state: QueueState): QueueMetrics {
      const labels = { name, controller: name };
      states.push({ labels, state });
      adds.inc(labels, 0);
      retries.inc(labels, 0);
      const lat = latency.labels(labels);
      const work = workDuration.labels(labels);
      return {
        add: () => adds.inc(labels),
        get: (waited) => lat.observe(waited),
        done: (worked) => work.observe(worked),
        retry: () => retries.inc(labels),
      };
    },
  };

  // ---- client-go rest client -------------------------------------------------------------------
  const requests = new Counter({
    name: 'rest_client_requests_total',
    help: 'Number of HTTP requests, partitioned by status code, method, and host.',
    labelNames: ['code', 'method', 'host'] as const,
    registers,
  });
  const requestDuration = new Histogram({
    name: 'rest_client_request_duration_seconds',
    help: 'Request latency in seconds. Broken down by verb, and host.',
    labelNames: ['verb', 'host'] as const,
    buckets: REST_CLIENT_BUCKETS,
    registers,
  });
  const rateLimiterDuration = new Histogram({
    name: 'rest_client_rate_limiter_duration_seconds',
    help: 'Client side rate limiter latency in seconds. Broken down by verb, and host.',
    labelNames: ['verb', 'host'] as const,
    buckets: REST_CLIENT_BUCKETS,
    registers,
  });
  const requestRetries = new Counter({
    name: 'rest_client_request_retries_total',
    help: 'Number of request retries, partitioned by status code, verb, and host.',
    labelNames: ['code', 'verb', 'host'] as const,
    registers,
  });
  const restClient: RequestObserver = {
    observe({ method, host, code, seconds }) {
      requests.inc({ code, method, host });
      if (seconds !== undefined) requestDuration.observe({ verb: method, host }, seconds);
    },
    throttled({ method, host, seconds }) {
      rateLimiterDuration.observe({ verb: method, host }, seconds);
    },
    retried({ method, host, code }) {
      requestRetries.inc({ code, verb: method, host });
    },
  };

  // ---- Pacer: object state (kube-state-metrics' shape) and rollout outcomes ---------------------
  // Each family's compute runs at every scrape; the objects they read are listed once a scrape.
  const sources: Array<() => Iterable<Deployment>> = [];
  const deployments = oncePerScrape(registry, () => sources.flatMap((list) => [...list()]));
  // Each cached Deployment's lines, rendered once per version of it: kept while the cache holds the
  // same object at the same resourceVersion (an informer replaces the object on every change), so
  // a scrape renders only what changed since the last one. They are kept as one flat string per
  // Deployment, with the offset where each family's lines start (a string per family would keep
  // V8's pieces of each: 47 against 19 MiB at 10,000 Deployments), and cut per family at the scrape.
  const rendered = new WeakMap<Deployment, { resourceVersion: string; text: string; starts: number[] }>();
  const render = (d: Deployment): { text: string; starts: number[] } => {
    const base = baseLabels(d);
    const parts: string[] = [];
    const starts: number[] = [];
    let at = 0;
    for (const f of DEPLOYMENT_FAMILIES) {
      starts.push(at);
      for (const [labels, value] of f.samples(d, base)) {
        const line = sampleLine(f.name, labels, value);
        parts.push(line, '\n');
        at += line.length + 1;
      }
    }
    starts.push(at);
    return { text: parts.join(''), starts };
  };
  const renderedOf = (d: Deployment): { text: string; starts: number[] } => {
    const resourceVersion = d.metadata.resourceVersion;
    const had = rendered.get(d);
    if (had && resourceVersion !== undefined && had.resourceVersion === resourceVersion) return had;
    const r = render(d);
    if (resourceVersion !== undefined) rendered.set(d, { resourceVersion, ...r });
    return r;
  };
  // Taken by a warmer, the event loop given back every few milliseconds, so that the scrape after a
  // mass create or a fleet-wide change, which renders every changed Deployment, does not hold it for
  // the whole render (0.5-1 s at 10,000 Deployments).
  const deploymentLines = listedPerScrape(registry, function* () {
    for (const d of deployments()) yield renderedOf(d);
  });
  DEPLOYMENT_FAMILIES.forEach((f, i) => {
    new RenderedGauge(
      { name: f.name, help: f.help, labelNames: ['namespace', 'name', ...f.labels], registers },
      () => {
        const values: Array<{ labels: Labels; value: number }> = [];
        for (const d of deployments())
          for (const [labels, value] of f.samples(d, baseLabels(d))) values.push({ labels, value });
        return values;
      },
      () => deploymentLines().map(({ text, starts }) => text.slice(starts[i], Math.max(starts[i], starts[i + 1] - 1))),
    );
  });
  const planSources: Array<() => Iterable<PlanPhaseSample>> = [];
  // Taken by a warmer, a few milliseconds at a time: the Deployment controller's sampler computes
  // each changed phase as it is taken (controllers/deployment/planmetrics.ts).
  // Their lines are rendered as they are taken, so that a warm-up ahead of a scrape does that too.
  const planPhases = listedPerScrape(registry, function* () {
    for (const list of planSources)
      for (const p of list()) {
        phaseLines(p);
        yield p;
      }
  });
  const phaseStatusLabels = (p: PlanPhaseSample): Labels => ({
    namespace: p.namespace,
    name: p.name,
    plan: p.plan,
    strategy: p.strategy,
    status: p.status,
  });
  const phaseStepLabels = (p: PlanPhaseSample, status: string): Labels => ({
    namespace: p.namespace,
    name: p.name,
    plan: p.plan,
    status,
  });
  // Each sample's lines, rendered once per sample object: the Deployment controller's sampler hands
  // back the same object while a phase's objects stay the same (controllers/deployment/planmetrics.ts).
  // Kept as one flat string (status line, then the step lines) and where the steps start, as the
  // Deployments' lines are.
  const renderedPhases = new WeakMap<PlanPhaseSample, { text: string; steps: number }>();
  const phaseLines = (p: PlanPhaseSample): { text: string; steps: number } => {
    let r = renderedPhases.get(p);
    if (!r) {
      const status = sampleLine('pacer_plan_phase_status', phaseStatusLabels(p), 1);
      const steps = Object.entries(p.steps).map(([st, n]) =>
        sampleLine('pacer_plan_phase_steps', phaseStepLabels(p, st), n),
      );
      r = { text: [status, ...steps].join('\n'), steps: status.length + 1 };
      renderedPhases.set(p, r);
    }
    return r;
  };
  new RenderedGauge(
    {
      name: 'pacer_plan_phase_status',
      help: "The status of a Deployment's phase of its service's plan (1 for the current one).",
      labelNames: ['namespace', 'name', 'plan', 'strategy', 'status'],
      registers,
    },
    () => planPhases().map((p) => ({ labels: phaseStatusLabels(p), value: 1 })),
    () =>
      planPhases().map((p) => {
        const { text, steps } = phaseLines(p);
        return text.slice(0, steps - 1);
      }),
  );
  new RenderedGauge(
    {
      name: 'pacer_plan_phase_steps',
      help: "The steps of a Deployment's phase of its service's plan, by status.",
      labelNames: ['namespace', 'name', 'plan', 'status'],
      registers,
    },
    () =>
      planPhases().flatMap((p) =>
        Object.entries(p.steps).map(([status, n]) => ({ labels: phaseStepLabels(p, status), value: n })),
      ),
    () =>
      planPhases().map((p) => {
        const { text, steps } = phaseLines(p);
        return text.slice(steps);
      }),
  );
  const rollSources: Array<() => Iterable<NodeRollSample>> = [];
  new Gauge({
    name: 'pacer_noderoll_phase',
    help: 'The phase of a NodeRoll (1 for the current one).',
    labelNames: ['name', 'phase'],
    registers,
    collect() {
      this.reset();
      for (const list of rollSources) for (const r of list()) this.set({ name: r.name, phase: r.phase }, 1);
    },
  });
  new Gauge({
    name: 'pacer_noderoll_paused',
    help: 'A NodeRoll paused for a human (1), with the wait that timed out (or analysis: a run after the node ended badly) and the node; 0 otherwise.',
    labelNames: ['name', 'wait', 'node'],
    registers,
    collect() {
      this.reset();
      for (const list of rollSources)
        for (const r of list())
          this.set({ name: r.name, wait: r.paused?.wait ?? '', node: r.paused?.node ?? '' }, r.paused ? 1 : 0);
    },
  });
  new Gauge({
    name: 'pacer_noderoll_nodes',
    help: 'The original nodes of a NodeRoll, by step.',
    labelNames: ['name', 'step'],
    registers,
    collect() {
      this.reset();
      for (const list of rollSources)
        for (const r of list()) for (const [step, n] of Object.entries(r.steps)) this.set({ name: r.name, step }, n);
    },
  });
  const runSources: Array<() => Iterable<AnalysisRunSample>> = [];
  new Gauge({
    name: 'pacer_analysis_run_phase',
    help: 'The phase of an AnalysisRun (1 for the current one), with the Deployment it judges.',
    labelNames: ['namespace', 'analysisrun', 'deployment', 'phase'],
    registers,
    collect() {
      this.reset();
      for (const list of runSources)
        for (const r of list())
          this.set({ namespace: r.namespace, analysisrun: r.name, deployment: r.deployment, phase: r.phase }, 1);
    },
  });
  new Gauge({
    name: 'pacer_analysis_metric_phase',
    help: "The phase of an AnalysisRun's metric (1 for the current one).",
    labelNames: ['namespace', 'analysisrun', 'metric', 'phase'],
    registers,
    collect() {
      this.reset();
      for (const list of runSources)
        for (const r of list())
          for (const m of r.metrics)
            this.set({ namespace: r.namespace, analysisrun: r.name, metric: m.name, phase: m.phase }, 1);
    },
  });
  new Gauge({
    name: 'pacer_analysis_metric_value',
    help: "The value of an AnalysisRun metric's latest measurement (a list: its first element); absent while it has none, or none that is a number.",
    labelNames: ['namespace', 'analysisrun', 'metric'],
    registers,
    collect() {
      this.reset();
      for (const list of runSources)
        for (const r of list())
          for (const m of r.metrics)
            if (m.value !== undefined)
              this.set({ namespace: r.namespace, analysisrun: r.name, metric: m.name }, m.value);
    },
  });
  new Gauge({
    name: 'pacer_analysis_runs',
    help: 'AnalysisRuns by namespace and phase.',
    labelNames: ['namespace', 'phase'],
    registers,
    collect() {
      this.reset();
      const n = new Map<string, { namespace: string; phase: string; count: number }>();
      for (const list of runSources)
        for (const r of list()) {
          const k = `${r.namespace}/${r.phase}`;
          const e = n.get(k) ?? { namespace: r.namespace, phase: r.phase, count: 0 };
          e.count++;
          n.set(k, e);
        }
      for (const e of n.values()) this.set({ namespace: e.namespace, phase: e.phase }, e.count);
    },
  });
  const measurementsTotal = new Counter({
    name: 'pacer_analysis_measurements_total',
    help: 'Measurements taken and stored, by outcome (Successful, Failed, Inconclusive, Error).',
    labelNames: ['namespace', 'analysisrun', 'metric', 'phase'] as const,
    registers,
  });
  const freezeSources: Array<() => { reason: string } | undefined> = [];
  new Gauge({
    name: 'pacer_frozen',
    help: 'The freeze switch (kubectl pacer freeze): 1 while on, with its reason; 0 while off.',
    labelNames: ['reason'],
    registers,
    collect() {
      this.reset();
      for (const frozen of freezeSources) {
        const f = frozen();
        this.set({ reason: f?.reason ?? '' }, f ? 1 : 0);
      }
    },
  });
  const rolloutsTotal = new Counter({
    name: 'pacer_rollouts_total',
    help: 'Rollouts that ended, by result (complete, deadline_exceeded, superseded).',
    labelNames: ['result'] as const,
    registers,
  });
  for (const result of ROLLOUT_RESULTS) rolloutsTotal.inc({ result }, 0);
  const rolloutDuration = new Histogram({
    name: 'pacer_rollout_duration_seconds',
    help: 'How long rollouts took from the new revision to their end, by strategy and result.',
    labelNames: ['strategy', 'result'] as const,
    buckets: ROLLOUT_DURATION_BUCKETS,
    registers,
  });

  new Histogram({
    name: METRICS_HANDLER_DURATION,
    help: "Seconds from a /metrics request to the last byte of its answer (this process's part of a scrape).",
    buckets: METRICS_HANDLER_BUCKETS,
    registers,
  });

  const eventsDropped = new Counter({
    name: 'pacer_events_dropped_total',
    registers,
    help: "Kubernetes Events not written because 1,000 were already waiting to be (client-go's maxQueuedEvents).",
  });

  // ---- client-go leader election -----------------------------------------------------------------
  const leaderElection = new Gauge({
    name: 'leader_election_master_status',
    help: '1 while this replica holds the lease named by the name label (it leads), 0 while it stands by.',
    labelNames: ['name'] as const,
    registers,
  });

  const shardHeld = new Gauge({
    name: 'pacer_shard_held',
    help: "1 while this replica holds the shard's Lease and reconciles its namespaces' objects, 0 while another replica does or none (--shards above 1; docs/sharding.md).",
    labelNames: ['shard'] as const,
    registers,
  });

  return {
    registry,
    leaderElection,
    shardHeld,
    reconcileTotal,
    reconcileErrors,
    reconcileTime,
    maxConcurrentReconciles,
    activeWorkers,
    rolloutsTotal,
    rolloutDuration,
    eventsDropped,
    queues,
    restClient,
    initController(controller, workers) {
      for (const result of RECONCILE_RESULTS) reconcileTotal.inc({ controller, result }, 0);
      reconcileErrors.inc({ controller }, 0);
      maxConcurrentReconciles.set({ controller }, workers);
      activeWorkers.set({ controller }, 0);
    },
    trackDeployments(list) {
      sources.push(list);
    },
    trackPlanPhases(list) {
      planSources.push(list);
    },
    trackNodeRolls(list) {
      rollSources.push(list);
    },
    trackFreeze(frozen) {
      freezeSources.push(frozen);
    },
    trackAnalysisRuns(list) {
      runSources.push(list);
    },
    observeMeasurement(m) {
      measurementsTotal.inc({ namespace: m.namespace, analysisrun: m.run, metric: m.metric, phase: m.phase });
    },
    observeRollout(result, strategy, seconds) {
      rolloutsTotal.inc({ result });
      if (seconds !== undefined && Number.isFinite(seconds) && seconds >= 0)
        rolloutDuration.observe({ strategy, result }, seconds);
    },
  };
}
