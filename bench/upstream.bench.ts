// Side by side on a real control plane (hack/kube's kube-bed: kube-apiserver, etcd, kube-scheduler,
// kwok nodes, kube-controller-manager): the same workload rolled out by kube-controller-manager's
// Deployment controller (apps/v1 Deployments) and then by Pacer (pacer.dev Deployments, Pacer as its
// own process, as its shipped ServiceAccount), one after the other in one run (upstream's namespace
// deleted before Pacer starts, since Pacer caches the cluster's pods and ReplicaSets); then Pacer alone on
// the simulated cluster (`pacer sim` as its own process), to say how far that bed is from the real one.
//
// For each size N: N Deployments of 10 replicas (RollingUpdate 25%/25%, minReadySeconds 0) are
// created, then all given a new image. Reported for each controller and phase:
//   * seconds until every rollout is complete (observedGeneration, updated = ready = available = 10,
//     no old pods), polled every second;
//   * the controller's API requests by verb and resource, from the API server's audit log (the
//     deployment-controller's ServiceAccount for upstream, Pacer's for Pacer; on the simulated
//     cluster its own audit log by User-Agent), and the ReplicaSet controller's, which does the
//     same pod work for both;
//   * CPU seconds and peak RSS of the controller's process (/proc): kube-controller-manager hosts
//     the ReplicaSet and garbage collector controllers too, so its figure is an upper bound of the
//     Deployment controller's own;
//   * the rollout decisions of one sample Deployment: the sizes of its ReplicaSets after each change,
//     as (new, old) spec.replicas pairs, to compare the two controllers' steps;
//   * the whole fleet's steps (`steps`, bench/steps.ts): scale-ups of new ReplicaSets, scale-downs
//     of old ones, and the scale-downs that took fewer replicas than the ReplicaSets' availability
//     allowed when the bench's watch saw them (`shortScaleDowns`, `replicasLeft`);
//   * from each change (a Deployment's create or patch answered) to the controller's first write
//     about that Deployment (its ReplicaSets, Events or itself), p50 and p99, from the audit log
//     (real bed);
//   * the API server's own time for each kind of write (audit stageTimestamp minus
//     requestReceivedTimestamp), p50/p99 by verb and resource (real bed): what a write costs the
//     server, apart from what it costs the client and the wait before it.
// Both controllers use upstream's client limits (20 QPS, burst 30) unless --qps/--burst give others,
// which then hold for kube-controller-manager (so for the ReplicaSet controller both share too) and
// for Pacer alike. kwok starts and readies pods at once (0 ms), so the figures are the controllers'
// and the shared ReplicaSet controller's.
//
//   npm run bench -- upstream                       # sizes 100 and 1000
//   node bench/upstream.bench.ts --qps 200 --burst 400    # the race without the shared 20 QPS
//   node bench/upstream.bench.ts --sizes 100        # one size
//   node bench/upstream.bench.ts --sizes 100 --only sim   # Pacer on the simulated cluster only (--only upstream,pacer: the real bed only)
//   ... --pacer-cpu-prof DIR      # Pacer runs with node's --cpu-prof (a .cpuprofile in DIR when it stops)
//   ... --pacer-metrics PORT      # Pacer's /metrics on 127.0.0.1:PORT (plain HTTP); after each phase its
//                                 # workqueue, client latency and event-loop lag lines (cumulative)
//   ... --kcm-metrics             # kube-controller-manager's Deployment and ReplicaSet workqueue lines
//                                 # after each phase (cumulative since the bed started), and
//                                 # kube-scheduler's client waits and scheduling times
//   ... --namespace-writes        # after each phase, the writes in its namespace by user, verb and
//                                 # resource (the users the bed's audit policy records)
//   ... --pacer-qps Q --pacer-burst B   # Pacer's client limits alone (0: none), kube-controller-manager's
//                                 # staying at --qps/--burst: the flow-control decision (issue 30, item 6)
//   ... --apf                     # after each phase on the real bed, the API server's API Priority and
//                                 # Fairness figures for the controller's flow (its FlowSchema and priority
//                                 # level: dispatched, rejected, wait, most requests queued) and the
//                                 # controller's writes a second; with --pacer-metrics, Pacer's own
//                                 # client-side rate-limiter waits
//   ... --pacer-nice N            # the Pacer process at nice N (a diagnosis of CPU contention)
//   ... --timeline DIR            # keeps what a rollout's timeline is built from (bench/timeline.ts):
//                                 # the audit log (real bed) and every ReplicaSet watch event of each
//                                 # phase as the bench saw it, with the time it arrived
// Prints one JSON line per (bed, controller, size, phase), then a summary table.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { KubeClient, DEPLOYMENTS, REPLICASETS } from '../src/kube/client.ts';
import { loadKubeConfig } from '../src/kube/clientnode.ts';
import type { ResourceType } from '../src/kube/client.ts';
import '../test/setup.ts'; // kube-bed and kubectl from hack/kube first on PATH
import { startRealBed, PACER_USER } from '../test/fixtures/realbed.ts';
import type { AuditEvent, RealBed } from '../test/fixtures/realbed.ts';
import { sleep } from '../test/integration/fixtures/cluster.ts';
import { StepCounter } from './steps.ts';
import type { ReplicaSetView, StepTally } from './steps.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const APPS_DEPLOYMENTS: ResourceType = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  kind: 'Deployment',
  namespaced: true,
};
const NAMESPACES: ResourceType = {
  group: '',
  version: 'v1',
  plural: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
};
const UPSTREAM_USER = 'system:serviceaccount:kube-system:deployment-controller';
const RS_USER = 'system:serviceaccount:kube-system:replicaset-controller';
const REPLICAS = 10;
const CLK_TCK = 100;

const { values: flags } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100,1000' },
    only: { type: 'string' },
    trace: { type: 'string', default: '0' },
    qps: { type: 'string', default: '20' },
    burst: { type: 'string', default: '30' },
    'pacer-cpu-prof': { type: 'string' },
    'pacer-metrics': { type: 'string' },
    'kcm-metrics': { type: 'boolean', default: false },
    'namespace-writes': { type: 'boolean', default: false },
    'pacer-qps': { type: 'string' },
    'pacer-burst': { type: 'string' },
    apf: { type: 'boolean', default: false },
    timeline: { type: 'string' },
    'pacer-nice': { type: 'string' },
  },
});
const SIZES = flags.sizes!.split(',').map(Number);
/** --qps/--burst: every controller's client limits, kube-controller-manager's and Pacer's alike. */
const QPS = Number(flags.qps);
const BURST = Number(flags.burst);
if (!(Number.isFinite(QPS) && QPS > 0) || !(Number.isInteger(BURST) && BURST >= 1)) {
  process.stderr.write(
    `--qps must be a number above 0 and --burst an integer of at least 1, got --qps ${JSON.stringify(flags.qps)} --burst ${JSON.stringify(flags.burst)}\n`,
  );
  process.exit(2);
}
/** --pacer-qps/--pacer-burst: Pacer's client limits alone (default: --qps/--burst); --pacer-qps 0 is no limit. */
const PACER_QPS = flags['pacer-qps'] === undefined ? QPS : Number(flags['pacer-qps']);
const PACER_BURST = flags['pacer-burst'] === undefined ? BURST : Number(flags['pacer-burst']);
if (!(Number.isFinite(PACER_QPS) && PACER_QPS >= 0) || !(Number.isInteger(PACER_BURST) && PACER_BURST >= 1)) {
  process.stderr.write(
    `--pacer-qps must be a number of at least 0 (0: no limit) and --pacer-burst an integer of at least 1, got --pacer-qps ${JSON.stringify(flags['pacer-qps'])} --pacer-burst ${JSON.stringify(flags['pacer-burst'])}\n`,
  );
  process.exit(2);
}
/**
 * --timeline DIR: the audit log (copied to DIR/audit.log before the bed stops) and each phase's
 * ReplicaSet watch events (DIR/rs-CONTROLLER-SIZE-PHASE.jsonl), for bench/timeline.ts.
 */
const TIMELINE = flags.timeline;
if (TIMELINE !== undefined) mkdirSync(TIMELINE, { recursive: true });
/** --apf: the API server's API Priority and Fairness figures for each phase (real bed). */
const APF = flags.apf === true;
/**
 * --pacer-nice N: the Pacer process's scheduling priority (os.setPriority, -20..19), a diagnosis: does
 * Pacer's CPU slow the control plane it shares the machine with?
 */
const PACER_NICE = flags['pacer-nice'] === undefined ? undefined : Number(flags['pacer-nice']);
if (PACER_NICE !== undefined && !(Number.isInteger(PACER_NICE) && PACER_NICE >= -20 && PACER_NICE <= 19)) {
  process.stderr.write(
    `--pacer-nice: must be a whole number from -20 to 19, got ${JSON.stringify(flags['pacer-nice'])}\n`,
  );
  process.exit(2);
}
/** --only: which of upstream, pacer and sim run, comma-separated (all three by default). */
const ONLY = flags.only?.split(',');
for (const o of ONLY ?? []) {
  if (!['upstream', 'pacer', 'sim'].includes(o)) {
    process.stderr.write(
      `--only: each of its comma-separated parts must be upstream, pacer or sim, got ${JSON.stringify(o)}\n`,
    );
    process.exit(2);
  }
}
/** --trace K: also print, for Deployments d-0 .. d-(K-1), the controller's writes in order (real bed). */
const TRACE = Number(flags.trace);
if (!Number.isInteger(TRACE) || TRACE < 0) {
  process.stderr.write(
    `--trace: must be a whole number of Deployments (0 or more), got ${JSON.stringify(flags.trace)}\n`,
  );
  process.exit(2);
}

/** --pacer-cpu-prof DIR: the Pacer controller runs with node's --cpu-prof, its profile written to DIR on exit. */
const CPU_PROF = flags['pacer-cpu-prof'];
/**
 * --pacer-metrics PORT: Pacer's /metrics on 127.0.0.1:PORT; after each phase its workqueue families
 * (queue and work duration, adds, retries) are printed as `# metrics` lines.
 */
const METRICS_PORT = flags['pacer-metrics'] === undefined ? undefined : Number(flags['pacer-metrics']);
if (METRICS_PORT !== undefined && !(Number.isInteger(METRICS_PORT) && METRICS_PORT > 0 && METRICS_PORT < 65536)) {
  process.stderr.write(
    `--pacer-metrics: must be a TCP port (1-65535), got ${JSON.stringify(flags['pacer-metrics'])}\n`,
  );
  process.exit(2);
}

/**
 * --kcm-metrics: after each phase on the real bed, kube-controller-manager's workqueue lines of its
 * Deployment and ReplicaSet controllers (cumulative since the bed started) as `# kcm` lines.
 */
const KCM_METRICS = flags['kcm-metrics'] === true;
/** --namespace-writes: after each phase on the real bed, every user's writes in its namespace by verb and resource. */
const NAMESPACE_WRITES = flags['namespace-writes'] === true;
const KCM_PRINTED =
  /^workqueue_(queue_duration_seconds_(sum|count)|work_duration_seconds_(sum|count)|adds_total)\{.*name="(deployment|replicaset)"/;

/**
 * kube-scheduler's lines that --kcm-metrics prints too (cumulative): its client's rate-limiter waits
 * (kube-scheduler's own --kube-api-qps, 50 by default, which kube-bed leaves) and its pods' time to
 * schedule: the pods both Deployment controllers wait on to become available.
 */
const SCHED_PRINTED =
  /^(rest_client_rate_limiter_duration_seconds_(sum|count)|scheduler_pod_scheduling_sli_duration_seconds_(sum|count)|scheduler_e2e_scheduling_duration_seconds_(sum|count)|scheduler_schedule_attempts_total)/;

/** One GET of kube-controller-manager's /metrics URL (its serving certificate is self-signed). */
function kcmMetrics(url: string): Promise<string> {
  const https = process.getBuiltinModule('node:https');
  return new Promise((resolve, reject) => {
    https
      .get(url, { rejectUnauthorized: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve(text));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** The lines of Pacer's /metrics that --pacer-metrics prints. */
const PRINTED_METRICS =
  /^(workqueue_(queue_duration_seconds|work_duration_seconds|adds_total|retries_total)|rest_client_(request|rate_limiter)_duration_seconds_(sum|count)|nodejs_eventloop_lag_(p50|p99|max)_seconds)/;

// ---- API Priority and Fairness (--apf) ----------------------------------------------------------

/** One sample line of the Prometheus text format: its name, its labels, its value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of `text` whose name starts with one of `prefixes`. */
function samplesOf(text: string, prefixes: string[]): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !prefixes.some((p) => line.startsWith(p))) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

const APF_PREFIXES = ['apiserver_flowcontrol_'];

/** The sum of the samples named `name` whose labels include `match`. */
function sumOf(samples: Sample[], name: string, match: Record<string, string>): number {
  let sum = 0;
  for (const s of samples)
    if (s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v)) sum += s.value;
  return sum;
}

/** A phase's APF figures for one flow schema (the differences of the counters between two reads). */
interface ApfFigures {
  flowSchema: string;
  priorityLevel: string;
  dispatched: number;
  rejected: number;
  /** The mean time a request of this flow schema waited in its priority level's queue (ms). */
  waitMeanMs: number;
  /** The most requests of this flow schema queued at once, among the reads made during the phase. */
  inqueueMax: number;
  /** The priority level's nominal concurrency (seats) at the end. */
  nominalSeats: number;
}

/**
 * The API server's /metrics read through the admin client, every 2 s during a phase: the most
 * requests queued per flow schema, and the counters at the start and the end.
 */
function apfWatcher(client: KubeClient): {
  stop(): Promise<{ first: Sample[]; last: Sample[]; inqueueMax: Map<string, number> }>;
} {
  const read = async (): Promise<Sample[]> => {
    let text = '';
    await client.streamText(
      '/metrics',
      'GET /metrics',
      (t) => {
        text += t;
      },
      AbortSignal.timeout(30_000),
    );
    return samplesOf(text, APF_PREFIXES);
  };
  const inqueueMax = new Map<string, number>();
  const note = (samples: Sample[]): void => {
    for (const s of samples)
      if (s.name === 'apiserver_flowcontrol_current_inqueue_requests' && s.labels.flow_schema)
        inqueueMax.set(s.labels.flow_schema, Math.max(inqueueMax.get(s.labels.flow_schema) ?? 0, s.value));
  };
  const first = read().then((s) => {
    note(s);
    return s;
  });
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    read()
      .then(note, () => undefined)
      .finally(() => {
        busy = false;
      });
  }, 2000);
  return {
    stop: async () => {
      clearInterval(timer);
      const last = await read();
      note(last);
      return { first: await first, last, inqueueMax };
    },
  };
}

/** The figures of each flow schema that dispatched requests during the phase, busiest first. */
function apfFigures(first: Sample[], last: Sample[], inqueueMax: Map<string, number>): ApfFigures[] {
  const schemas = new Map<string, string>();
  for (const s of last)
    if (s.name === 'apiserver_flowcontrol_dispatched_requests_total' && s.labels.flow_schema)
      schemas.set(s.labels.flow_schema, s.labels.priority_level);
  const diff = (name: string, match: Record<string, string>): number =>
    sumOf(last, name, match) - sumOf(first, name, match);
  const out: ApfFigures[] = [];
  for (const [fs, pl] of schemas) {
    const dispatched = diff('apiserver_flowcontrol_dispatched_requests_total', { flow_schema: fs });
    if (dispatched <= 0) continue;
    const waitCount = diff('apiserver_flowcontrol_request_wait_duration_seconds_count', { flow_schema: fs });
    const waitSum = diff('apiserver_flowcontrol_request_wait_duration_seconds_sum', { flow_schema: fs });
    out.push({
      flowSchema: fs,
      priorityLevel: pl,
      dispatched,
      rejected: diff('apiserver_flowcontrol_rejected_requests_total', { flow_schema: fs }),
      waitMeanMs: waitCount > 0 ? Math.round((waitSum / waitCount) * 10000) / 10 : 0,
      inqueueMax: inqueueMax.get(fs) ?? 0,
      nominalSeats: sumOf(last, 'apiserver_flowcontrol_nominal_limit_seats', { priority_level: pl }),
    });
  }
  return out.sort((a, b) => b.dispatched - a.dispatched);
}

// ---- processes ------------------------------------------------------------------------------------

/** CPU seconds (user + system) of a process so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/** Samples a process's RSS every 500 ms; `stop()` gives the peak seen. */
function rssSampler(pid: number): { stop(): number } {
  let peak = rssMiB(pid);
  const t = setInterval(() => {
    try {
      peak = Math.max(peak, rssMiB(pid));
    } catch {
      /* exited */
    }
  }, 500);
  return {
    stop: () => {
      clearInterval(t);
      return Math.round(peak);
    },
  };
}

function spawnQuiet(cmd: string, args: string[]): ChildProcess {
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err = (err + d.toString()).slice(-4000);
  });
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal === null) process.stderr.write(`${cmd} ${args[0] ?? ''} exited ${code}: ${err}\n`);
  });
  return child;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(10_000)]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

// ---- the workload ---------------------------------------------------------------------------------

function deployment(apiVersion: string, name: string, image: string): Record<string, unknown> {
  return {
    apiVersion,
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: REPLICAS,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image }] } },
    },
  };
}

/** Runs `fn` over 0..n-1 with at most `width` at a time. */
async function parallel(n: number, width: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

interface DeploymentLike {
  metadata: { generation?: number };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
  };
}

function complete(d: DeploymentLike): boolean {
  const s = d.status;
  return (
    !!s &&
    (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) &&
    s.updatedReplicas === REPLICAS &&
    s.replicas === REPLICAS &&
    s.availableReplicas === REPLICAS
  );
}

/** Seconds from `since` until every Deployment in `ns` is complete (polled every second). */
async function allComplete(
  client: KubeClient,
  t: ResourceType,
  ns: string,
  n: number,
  since: number,
  limitMs: number,
): Promise<number> {
  for (;;) {
    const list = await client.list<DeploymentLike>(t, ns);
    const done = list.items.filter(complete).length;
    if (list.items.length === n && done === n) return (Date.now() - since) / 1000;
    if (Date.now() - since > limitMs)
      throw new Error(`${ns}: ${done} of ${n} complete after ${Math.round(limitMs / 1000)} s`);
    await sleep(1000);
  }
}

/**
 * Watches the ReplicaSets of namespace `ns` (those labelled `labelSelector`, if given) until
 * stopped, from where the last watch ended, handing each added, changed or deleted one to `onEvent`.
 */
function watchReplicaSets<T extends { metadata: { resourceVersion: string } }>(
  client: KubeClient,
  ns: string,
  labelSelector: string | undefined,
  onEvent: (type: 'ADDED' | 'MODIFIED' | 'DELETED', rs: T) => void,
): AbortController {
  const abort = new AbortController();
  void (async () => {
    let rv = '';
    while (!abort.signal.aborted) {
      try {
        await client.watch<T>(
          REPLICASETS,
          ns,
          { resourceVersion: rv, ...(labelSelector ? { labelSelector } : {}), timeoutSeconds: 600 },
          (e) => {
            if (!e.object?.metadata) return;
            rv = e.object.metadata.resourceVersion;
            if (e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED') onEvent(e.type, e.object);
          },
          abort.signal,
        );
      } catch {
        await sleep(200);
      }
    }
  })();
  return abort;
}

/** The ReplicaSet sizes of Deployment `name` after each change, as "new/old" spec.replicas. */
function followSizes(client: KubeClient, ns: string, name: string): { stop(): string[] } {
  const sizes = new Map<string, { replicas: number; created: string }>();
  const steps: string[] = [];
  const record = (): void => {
    const rs = [...sizes.values()].sort((a, b) => b.created.localeCompare(a.created));
    if (rs.length === 0) return;
    const step = `${rs[0].replicas}/${rs.slice(1).reduce((a, r) => a + r.replicas, 0)}`;
    if (steps.at(-1) !== step) steps.push(step);
  };
  const abort = watchReplicaSets<{
    metadata: { name: string; resourceVersion: string; creationTimestamp: string };
    spec: { replicas?: number };
  }>(client, ns, `app=${name}`, (type, rs) => {
    if (type === 'DELETED') sizes.delete(rs.metadata.name);
    else sizes.set(rs.metadata.name, { replicas: rs.spec.replicas ?? 0, created: rs.metadata.creationTimestamp });
    record();
  });
  return {
    stop: () => {
      abort.abort();
      return steps;
    },
  };
}

/**
 * Every ReplicaSet of namespace `ns` through a watch, tallied by StepCounter (steps.ts): the fleet's
 * scale-ups, scale-downs and scale-downs short of what the availability then allowed.
 */
function followSteps(client: KubeClient, ns: string, timelineFile?: string): { stop(): StepTally } {
  // RollingUpdate 25%/25% of 10 replicas keeps 10 - floor(2.5) = 8 available.
  const counter = new StepCounter(REPLICAS - Math.floor(REPLICAS / 4));
  const seen: string[] = [];
  const abort = watchReplicaSets<
    ReplicaSetView & {
      metadata: { resourceVersion: string };
      status?: { replicas?: number; readyReplicas?: number; observedGeneration?: number };
    }
  >(client, ns, undefined, (type, rs) => {
    counter.observe(type, rs);
    if (timelineFile !== undefined)
      seen.push(
        JSON.stringify({
          at: Date.now(),
          type,
          name: rs.metadata.name,
          owner: rs.metadata.ownerReferences?.find((r) => r.controller)?.name,
          created: rs.metadata.creationTimestamp,
          spec: rs.spec?.replicas ?? 0,
          replicas: rs.status?.replicas ?? 0,
          ready: rs.status?.readyReplicas ?? 0,
          available: rs.status?.availableReplicas ?? 0,
        }),
      );
  });
  return {
    stop: () => {
      abort.abort();
      if (timelineFile !== undefined) writeFileSync(timelineFile, seen.map((l) => `${l}\n`).join(''));
      return { ...counter.tally };
    },
  };
}

/** The requests of `user` received between two times (ms since the epoch), with that time. */
function* requestsIn(
  events: AuditEvent[],
  user: string,
  from: number,
  to: number,
): Generator<{ e: AuditEvent; at: number; key: string }> {
  for (const e of events) {
    if (e.user.username !== user || !e.objectRef?.resource) continue;
    const at = Date.parse((e as unknown as { requestReceivedTimestamp: string }).requestReceivedTimestamp);
    if (at < from || at > to) continue;
    yield {
      e,
      at,
      key: `${e.verb} ${e.objectRef.resource}${e.objectRef.subresource ? `/${e.objectRef.subresource}` : ''}`,
    };
  }
}

/** The writes of `user` about Deployment `name` (its ReplicaSets, Events and itself), in order. */
function traceOf(events: AuditEvent[], user: string, from: number, to: number, name: string): string[] {
  const own = new RegExp(`^${name}($|[-.][0-9a-z]+$)`);
  const out: string[] = [];
  for (const { e, at, key } of requestsIn(events, user, from, to)) {
    if (WRITES.includes(e.verb) && own.test(e.objectRef?.name ?? ''))
      out.push(`${((at - from) / 1000).toFixed(1)}s ${key} ${e.objectRef?.name}`);
  }
  return out;
}

/**
 * For each Deployment changed at `changedAt` (name → ms), the ms from its change to `user`'s first
 * write about it (its ReplicaSets `NAME-HASH`, its Events `NAME.ID` or `NAME-HASH.ID`, itself), sorted.
 */
function firstWritesOf(
  events: AuditEvent[],
  user: string,
  from: number,
  to: number,
  changedAt: Map<string, number>,
): number[] {
  const first = new Map<string, number>();
  for (const { e, at } of requestsIn(events, user, from, to)) {
    if (!WRITES.includes(e.verb)) continue;
    const name = /^(d-\d+)(?:$|[-.])/.exec(e.objectRef?.name ?? '')?.[1];
    const changed = name === undefined ? undefined : changedAt.get(name);
    if (changed === undefined || at < changed) continue;
    const prior = first.get(name!);
    if (prior === undefined || at < prior) first.set(name!, at);
  }
  return [...first].map(([name, at]) => at - changedAt.get(name)!).sort((a, b) => a - b);
}

/**
 * The API server's own time for each of `user`'s writes (audit stageTimestamp of ResponseComplete
 * minus requestReceivedTimestamp), by "verb resource": "p50/p99 ms".
 */
function serverTimesOf(events: AuditEvent[], user: string, from: number, to: number): Record<string, string> {
  const by = new Map<string, number[]>();
  for (const { e, at, key } of requestsIn(events, user, from, to)) {
    if (!WRITES.includes(e.verb) || e.stage !== 'ResponseComplete') continue;
    const done = Date.parse((e as unknown as { stageTimestamp: string }).stageTimestamp);
    if (!Number.isFinite(done)) continue;
    by.set(key, [...(by.get(key) ?? []), done - at]);
  }
  const out: Record<string, string> = {};
  for (const [key, ms] of [...by].sort()) {
    ms.sort((a, b) => a - b);
    out[key] = `${quantile(ms, 0.5)}/${quantile(ms, 0.99)}`;
  }
  return out;
}

/**
 * Every user's writes to objects of namespace `ns` between two times, by "user verb resource":
 * what woke the ReplicaSet controller (pod and ReplicaSet changes by whom) beside each controller.
 */
function namespaceWritesOf(events: AuditEvent[], ns: string, from: number, to: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of events) {
    if (!WRITES.includes(e.verb) || e.objectRef?.namespace !== ns || !e.objectRef.resource) continue;
    const at = Date.parse((e as unknown as { requestReceivedTimestamp: string }).requestReceivedTimestamp);
    if (at < from || at > to) continue;
    const who = e.user.username.replace(/^system:(serviceaccount:kube-system:)?/, '');
    const key = `${who} ${e.verb} ${e.objectRef.resource}${e.objectRef.subresource ? `/${e.objectRef.subresource}` : ''}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(out).sort());
}

const quantile = (sorted: number[], q: number): number | undefined =>
  sorted.length === 0 ? undefined : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

/** Requests by "verb resource[/subresource]" of `user` between two times (ms since the epoch). */
function requestsOf(events: AuditEvent[], user: string, from: number, to: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { key } of requestsIn(events, user, from, to)) out[key] = (out[key] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort());
}

const total = (r: Record<string, number>, verbs?: string[]) =>
  Object.entries(r)
    .filter(([k]) => !verbs || verbs.includes(k.split(' ')[0]))
    .reduce((a, [, v]) => a + v, 0);
const WRITES = ['create', 'update', 'patch', 'delete'];

interface PhaseResult {
  bed: string;
  controller: string;
  size: number;
  phase: string;
  seconds: number;
  cpuSeconds: number;
  peakRssMiB: number;
  requests: Record<string, number>;
  writes: number;
  writesPerRollout: number;
  replicaSetControllerRequests?: number;
  /** The API server's time for the controller's writes, by verb and resource: "p50/p99" ms (real bed). */
  serverMs?: Record<string, string>;
  /** ms from a Deployment's change to the controller's first write about it (real bed). */
  firstWriteMs?: { p50: number; p99: number; max: number; of: number };
  sampleSizes: string[];
  /** The fleet's scaling steps and the scale-downs short of what the availability allowed (steps.ts). */
  steps: StepTally;
  /** The controller's writes a second over the phase. */
  writesPerSecond: number;
  /** The API server's API Priority and Fairness figures of the phase, by flow schema (--apf, real bed). */
  apf?: ApfFigures[];
  /** Pacer's client-side rate limiter over the phase: requests that passed it, seconds waited in all (--pacer-metrics). */
  pacerThrottle?: { requests: number; waitedSeconds: number; meanMs: number };
}

/** Pacer's rest_client_rate_limiter_duration_seconds sum and count (--pacer-metrics). */
async function pacerLimiter(): Promise<{ sum: number; count: number } | undefined> {
  if (METRICS_PORT === undefined) return undefined;
  let text: string;
  try {
    text = await fetch(`http://127.0.0.1:${METRICS_PORT}/metrics`).then((r) => r.text());
  } catch (err) {
    process.stderr.write(`pacer's /metrics on 127.0.0.1:${METRICS_PORT}: ${String(err)}\n`);
    return undefined;
  }
  const samples = samplesOf(text, ['rest_client_rate_limiter_duration_seconds_']);
  return {
    sum: sumOf(samples, 'rest_client_rate_limiter_duration_seconds_sum', {}),
    count: sumOf(samples, 'rest_client_rate_limiter_duration_seconds_count', {}),
  };
}

interface Target {
  bed: 'real' | 'sim';
  controller: 'upstream' | 'pacer';
  client: KubeClient;
  type: ResourceType;
  apiVersion: string;
  pid: number;
  /** The controller's requests and the ReplicaSet controller's between two times. */
  requests(from: number, to: number): Promise<{ own: Record<string, number>; rs?: number }>;
  /** The controller's writes about one Deployment between two times (--trace; real bed). */
  trace?(from: number, to: number, name: string): Promise<string[]>;
  /** kube-controller-manager's /metrics URL (real bed). */
  kcmMetricsUrl?: string;
  /** kube-scheduler's /metrics URL (real bed). */
  schedMetricsUrl?: string;
  /** Every user's writes in a namespace between two times (real bed, --namespace-writes). */
  namespaceWrites?(ns: string, from: number, to: number): Promise<Record<string, number>>;
  /** The API server's time for the controller's writes (real bed). */
  serverTimes?(from: number, to: number): Promise<Record<string, string>>;
  /** From each change (name → ms) to the controller's first write about it, sorted (real bed). */
  firstWrites?(from: number, to: number, changedAt: Map<string, number>): Promise<number[]>;
}

async function runPhases(t: Target, size: number): Promise<PhaseResult[]> {
  const ns = `bench-${t.controller}-${size}`;
  await t.client.create(NAMESPACES, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  // The default ServiceAccount must exist before pods can be created (on the real bed).
  await sleep(2000);
  const results: PhaseResult[] = [];
  for (const phase of ['create', 'update'] as const) {
    const sampler = rssSampler(t.pid);
    const cpu0 = cpuSeconds(t.pid);
    const sizes = followSizes(t.client, ns, 'd-0');
    const steps = followSteps(
      t.client,
      ns,
      TIMELINE === undefined ? undefined : join(TIMELINE, `rs-${t.bed}-${t.controller}-${size}-${phase}.jsonl`),
    );
    const apf = APF && t.bed === 'real' ? apfWatcher(t.client) : undefined;
    const limiter0 = t.controller === 'pacer' ? await pacerLimiter() : undefined;
    const started = Date.now();
    const changedAt = new Map<string, number>();
    if (phase === 'create') {
      await parallel(size, 16, async (i) => {
        await t.client.create(t.type, ns, deployment(t.apiVersion, `d-${i}`, 'nginx:1'));
        changedAt.set(`d-${i}`, Date.now());
      });
    } else {
      await parallel(size, 16, async (i) => {
        await t.client.patch(
          t.type,
          ns,
          `d-${i}`,
          { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:2' }] } } } },
          'merge',
        );
        changedAt.set(`d-${i}`, Date.now());
      });
    }
    const seconds = await allComplete(t.client, t.type, ns, size, started, 3 * 3600_000);
    const ended = Date.now();
    const apfRead = apf ? await apf.stop() : undefined;
    const limiter1 = limiter0 ? await pacerLimiter() : undefined;
    await sleep(3000); // the audit log's last lines, and the controller's last status writes
    const cpu = cpuSeconds(t.pid) - cpu0;
    const { own, rs } = await t.requests(started, ended + 3000);
    const writes = total(own, WRITES);
    const serverMs = t.serverTimes ? await t.serverTimes(started, ended + 3000) : undefined;
    if (NAMESPACE_WRITES && t.namespaceWrites)
      process.stdout.write(
        `# writes in ${ns} ${phase}: ${JSON.stringify(await t.namespaceWrites(ns, started, ended + 3000))}\n`,
      );
    const firsts = t.firstWrites ? await t.firstWrites(started, ended + 3000, changedAt) : undefined;
    const r: PhaseResult = {
      bed: t.bed,
      controller: t.controller,
      size,
      phase,
      seconds: Math.round(seconds * 10) / 10,
      cpuSeconds: Math.round(cpu * 10) / 10,
      peakRssMiB: sampler.stop(),
      requests: own,
      writes,
      writesPerRollout: Math.round((writes / size) * 10) / 10,
      ...(rs !== undefined ? { replicaSetControllerRequests: rs } : {}),
      ...(serverMs ? { serverMs } : {}),
      ...(firsts && firsts.length > 0
        ? {
            firstWriteMs: {
              p50: quantile(firsts, 0.5)!,
              p99: quantile(firsts, 0.99)!,
              max: firsts.at(-1)!,
              of: firsts.length,
            },
          }
        : {}),
      sampleSizes: sizes.stop(),
      steps: steps.stop(),
      writesPerSecond: Math.round((writes / seconds) * 10) / 10,
      ...(apfRead ? { apf: apfFigures(apfRead.first, apfRead.last, apfRead.inqueueMax) } : {}),
      ...(limiter0 && limiter1
        ? {
            pacerThrottle: {
              requests: limiter1.count - limiter0.count,
              waitedSeconds: Math.round((limiter1.sum - limiter0.sum) * 10) / 10,
              meanMs:
                limiter1.count > limiter0.count
                  ? Math.round(((limiter1.sum - limiter0.sum) / (limiter1.count - limiter0.count)) * 10000) / 10
                  : 0,
            },
          }
        : {}),
    };
    process.stdout.write(`${JSON.stringify(r)}\n`);
    if (TIMELINE !== undefined)
      appendFileSync(
        join(TIMELINE, 'phases.jsonl'),
        `${JSON.stringify({ bed: t.bed, controller: t.controller, size, phase, ns, started, ended, changedAt: Object.fromEntries(changedAt) })}\n`,
      );
    if (KCM_METRICS && t.schedMetricsUrl) {
      for (const line of (await kcmMetrics(t.schedMetricsUrl)).split('\n')) {
        if (SCHED_PRINTED.test(line)) process.stdout.write(`# sched ${t.controller} ${phase} ${line}\n`);
      }
    }
    if (KCM_METRICS && t.kcmMetricsUrl) {
      for (const line of (await kcmMetrics(t.kcmMetricsUrl)).split('\n')) {
        if (KCM_PRINTED.test(line)) process.stdout.write(`# kcm ${t.controller} ${phase} ${line}\n`);
      }
    }
    if (t.controller === 'pacer' && t.bed === 'real' && METRICS_PORT !== undefined) {
      const text = await fetch(`http://127.0.0.1:${METRICS_PORT}/metrics`).then((r) => r.text());
      for (const line of text.split('\n')) {
        if (PRINTED_METRICS.test(line)) process.stdout.write(`# metrics ${phase} ${line}\n`);
      }
    }
    for (let i = 0; t.trace && i < Math.min(TRACE, size); i++) {
      process.stdout.write(
        `# ${t.controller} ${phase} d-${i}\n${(await t.trace(started, ended + 3000, `d-${i}`)).map((l) => `#   ${l}`).join('\n')}\n`,
      );
    }
    results.push(r);
  }
  return results;
}

// ---- the beds ------------------------------------------------------------------------------------

/**
 * One Pacer process, without leader election: kube-controller-manager's Lease renewals are made by
 * its own user, not the deployment controller's ServiceAccount, so neither side counts them.
 */
async function pacerController(kubeconfig: string): Promise<ChildProcess> {
  const child = spawnQuiet(process.execPath, [
    ...(CPU_PROF !== undefined ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF] : []),
    join(ROOT, 'bin', 'pacer.js'),
    'controller',
    '--kubeconfig',
    kubeconfig,
    '--leader-elect=false',
    '--metrics-bind-address',
    METRICS_PORT !== undefined ? `127.0.0.1:${METRICS_PORT}` : '0',
    ...(METRICS_PORT !== undefined ? ['--metrics-secure=false'] : []),
    '--health-probe-bind-address',
    '0',
    '--api-bind-address',
    '0',
    '--webhook-bind-address',
    '0',
    '--log-level',
    'error',
    '--kube-api-qps',
    String(PACER_QPS),
    '--kube-api-burst',
    String(PACER_BURST),
  ]);
  if (PACER_NICE !== undefined) setPriority(child.pid!, PACER_NICE);
  await sleep(3000);
  if (child.exitCode !== null) throw new Error(`pacer controller exited ${child.exitCode}`);
  return child;
}

async function realBed(size: number): Promise<PhaseResult[]> {
  // Room for both workloads and the surge: 10 nodes.
  const bed: RealBed = await startRealBed({
    nodes: 10,
    podsPerNode: Math.ceil((size * REPLICAS * 2.6) / 10) + 10,
    podStartMs: 0,
    podReadyMs: 0,
    lifetime: '4h',
    kcmKubeApiQps: QPS,
    kcmKubeApiBurst: BURST,
  });
  const results: PhaseResult[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'pacer-bench-'));
  try {
    const client = new KubeClient(loadKubeConfig({ kubeconfig: bed.info.kubeconfig }), { userAgent: 'pacer-bench' });
    const kcm = bed.info.pids['kube-controller-manager'];
    const rsRequests = async (from: number, to: number) => total(requestsOf(await bed.audit(), RS_USER, from, to));
    if (!ONLY || ONLY.includes('upstream')) {
      results.push(
        ...(await runPhases(
          {
            bed: 'real',
            controller: 'upstream',
            client,
            type: APPS_DEPLOYMENTS,
            apiVersion: 'apps/v1',
            pid: kcm,
            requests: async (from, to) => ({
              own: requestsOf(await bed.audit(), UPSTREAM_USER, from, to),
              rs: await rsRequests(from, to),
            }),
            trace: async (from, to, name) => traceOf(await bed.audit(), UPSTREAM_USER, from, to, name),
            serverTimes: async (from, to) => serverTimesOf(await bed.audit(), UPSTREAM_USER, from, to),
            kcmMetricsUrl: bed.info.controllerManagerMetrics,
            schedMetricsUrl: bed.info.schedulerMetrics,
            namespaceWrites: async (ns, from, to) => namespaceWritesOf(await bed.audit(), ns, from, to),
            firstWrites: async (from, to, changedAt) =>
              firstWritesOf(await bed.audit(), UPSTREAM_USER, from, to, changedAt),
          },
          size,
        )),
      );
      if (!ONLY || ONLY.includes('pacer')) {
        // Pacer's informers cache every ReplicaSet and pod of the cluster: upstream's fleet goes
        // first, so that Pacer's memory and CPU are those of its own fleet, as upstream's were.
        const ns = `bench-upstream-${size}`;
        const del = await bed.kubectl(['delete', 'namespace', ns, '--wait=true', '--timeout=20m']);
        if (del.code !== 0) throw new Error(`deleting namespace ${ns} before Pacer's run: ${del.stderr}`);
      }
    }
    if (!ONLY || ONLY.includes('pacer')) {
      const crd = await bed.kubectl(['apply', '-f', join(ROOT, 'crds')]);
      if (crd.code !== 0) throw new Error(crd.stderr);
      await bed.kubectl(['wait', '--for=condition=Established', 'crd/deployments.pacer.dev']);
      const kubeconfig = join(dir, 'pacer.kubeconfig');
      await writeFile(kubeconfig, await bed.controllerKubeconfig());
      const pacer = await pacerController(kubeconfig);
      try {
        results.push(
          ...(await runPhases(
            {
              bed: 'real',
              controller: 'pacer',
              client,
              type: DEPLOYMENTS,
              apiVersion: 'pacer.dev/v1alpha1',
              pid: pacer.pid!,
              requests: async (from, to) => ({
                own: requestsOf(await bed.audit(), PACER_USER, from, to),
                rs: await rsRequests(from, to),
              }),
              trace: async (from, to, name) => traceOf(await bed.audit(), PACER_USER, from, to, name),
              serverTimes: async (from, to) => serverTimesOf(await bed.audit(), PACER_USER, from, to),
              kcmMetricsUrl: bed.info.controllerManagerMetrics,
              schedMetricsUrl: bed.info.schedulerMetrics,
              namespaceWrites: async (ns, from, to) => namespaceWritesOf(await bed.audit(), ns, from, to),
              firstWrites: async (from, to, changedAt) =>
                firstWritesOf(await bed.audit(), PACER_USER, from, to, changedAt),
            },
            size,
          )),
        );
      } finally {
        await stopChild(pacer);
      }
    }
  } finally {
    if (TIMELINE !== undefined && bed.info.auditLog) await copyFile(bed.info.auditLog, join(TIMELINE, 'audit.log'));
    await bed.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return results;
}

async function simBed(size: number): Promise<PhaseResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'pacer-bench-sim-'));
  const kubeconfig = join(dir, 'sim.kubeconfig');
  const sim = spawnQuiet(process.execPath, [
    join(ROOT, 'bin', 'pacer.js'),
    'sim',
    '--port',
    '0',
    '--kubeconfig',
    kubeconfig,
    '--nodes',
    '10',
    '--pods-per-node',
    String(Math.ceil((size * REPLICAS * 1.3) / 10) + 10),
    '--pod-start-ms',
    '0',
    '--pod-ready-ms',
    '0',
  ]);
  try {
    for (let i = 0; i < 100; i++) {
      try {
        readFileSync(kubeconfig);
        break;
      } catch {
        await sleep(100);
      }
    }
    const kc = loadKubeConfig({ kubeconfig });
    const client = new KubeClient(kc, { userAgent: 'pacer-bench' });
    const server = kc.getCurrentCluster()!.server;
    await new Promise<void>((resolve, reject) => {
      const k = spawn('kubectl', ['--kubeconfig', kubeconfig, 'apply', '-f', join(ROOT, 'crds')], { stdio: 'ignore' });
      k.on('exit', (c) => (c === 0 ? resolve() : reject(new Error(`kubectl apply -f crds: exit ${c}`))));
    });
    await sleep(500);
    const pacer = await pacerController(kubeconfig);
    try {
      // The simulated cluster's audit log: the controller's requests by its User-Agent.
      const audit = async () =>
        (
          (await (await fetch(`${server}/sim/audit`)).json()) as {
            items: Array<{ time: string; userAgent: string; verb: string; resource: string; subresource?: string }>;
          }
        ).items;
      return await runPhases(
        {
          bed: 'sim',
          controller: 'pacer',
          client,
          type: DEPLOYMENTS,
          apiVersion: 'pacer.dev/v1alpha1',
          pid: pacer.pid!,
          requests: async (from, to) => {
            const own: Record<string, number> = {};
            for (const e of await audit()) {
              const at = Date.parse(e.time);
              if (!e.userAgent.startsWith('pacer-controller') || at < from || at > to) continue;
              const key = `${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ''}`;
              own[key] = (own[key] ?? 0) + 1;
            }
            return { own: Object.fromEntries(Object.entries(own).sort()) };
          },
        },
        size,
      );
    } finally {
      await stopChild(pacer);
    }
  } finally {
    await stopChild(sim);
    await rm(dir, { recursive: true, force: true });
  }
}

const all: PhaseResult[] = [];
for (const size of SIZES) {
  if (!ONLY || ONLY.includes('upstream') || ONLY.includes('pacer')) all.push(...(await realBed(size)));
  if (!ONLY || ONLY.includes('sim')) all.push(...(await simBed(size)));
}
process.stderr.write(
  `\nclient limits: kube-controller-manager ${QPS} QPS, burst ${BURST}; Pacer ${PACER_QPS === 0 ? 'none' : `${PACER_QPS} QPS, burst ${PACER_BURST}`}\nbed   controller  size    phase   seconds  cpu s  peak RSS MiB  writes/rollout  writes/s  first write p50/p99 ms  requests (all verbs)\n`,
);
for (const r of all) {
  process.stderr.write(
    `${r.bed.padEnd(6)}${r.controller.padEnd(12)}${String(r.size).padEnd(8)}${r.phase.padEnd(8)}${String(r.seconds).padStart(7)}${String(r.cpuSeconds).padStart(7)}${String(r.peakRssMiB).padStart(14)}${String(r.writesPerRollout).padStart(16)}${String(r.writesPerSecond).padStart(10)}${(r.firstWriteMs ? `${r.firstWriteMs.p50}/${r.firstWriteMs.p99}` : '-').padStart(24)}  ${total(r.requests)}\n`,
  );
}
