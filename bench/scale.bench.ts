// Scale (issue "Scale"): N Deployments of 10 replicas on the simulated cluster with the controller
// as its own process, applied the way users do: one `kind: List` file through the real kubectl
// (hack/kube/build.sh builds it), then a second List giving every Deployment a new image. It
// records the time to create all (kubectl's apply, then every Deployment available) and to roll all
// (every Deployment complete on its new template), rollouts a minute, the controller's CPU
// seconds per rollout, its peak and steady RSS and heap (steady: after the caches are warm and
// the work is done, a full GC having had its chance), API writes per rollout by resource (from the
// simulated API server's audit log), and the latency from kubectl's write of a Deployment to the
// controller's first write about it (p50, p99, max).
// Latency is measured twice. In the fleet-wide phases every Deployment changes at once, so the
// figure is mostly the wait in the work queue behind the others (the last of 1,000 waits for the
// 999 before it). The paced phase, with the fleet created and at rest, changes one Deployment's
// image at a time at a steady rate (--paced-rate a second, default 17: 1,000 rollouts a minute,
// for --paced-seconds, default 30) through the API server, as a user or a CI pipeline would: the
// latency from each write to the controller's first write for it is the controller's own (watch
// delivery, handler, queue, sync), with the rollouts it started still running beside it.
// The controller's client is given --kube-api-qps/--kube-api-burst (default here 500/1000): at
// upstream's 20/30 the client's rate limiter, not the controller, sets the pace (about 270
// rollouts a minute at 4 writes each).
// Memory: peak RSS (the kernel's high-water mark), RSS and heap in use (from /metrics) after each
// phase once the process has idled, and at the end the live heap from a heap snapshot (taken after
// a full garbage collection, so what the controller really holds; bench/heapsummary.ts sums it up
// by kind).
//   node bench/scale.bench.ts [--deployments 1000] [--replicas 10] [--qps 500] [--burst 1000] [--rolls 2] [--workers N]
//     [--paced-rate 17] [--paced-seconds 30]   (--paced-seconds 0 skips the paced phase)
//     [--scrape-every-ms 30000]   (a Prometheus-like scrape by curl this often while the paced changes are sent, 0: none;
//     after each phase, at rest, the first scrape and three more: the controller's /metrics as Prometheus sees it)
//     [--prometheus-interval SECONDS]   (a real Prometheus, Debian's, scrapes the controller this often from the start
//     to the end, as a user's does; each phase's scrape_duration_seconds and failed scrapes are read back from it. 0: none)
//     [--controller-cpu-prof DIR]   (the controller runs under --cpu-prof, its profile written to DIR)
//     [--controller-max-old-space MiB]   (the controller's V8 heap limit, as a container's memory
//     limit sets it: without one V8 sizes the heap from the machine's memory and lets garbage
//     pile up far above the live heap)
//     [--controller-memory-limit MiB]   (the controller runs in a memory cgroup of this limit, as in a
//     container of that size: Node sizes its heap from it, the kernel kills it above it; needs root.
//     Its NODE_OPTIONS are then Node's own unless --controller-node-options says otherwise, as the
//     image sets none. Lifted before the closing heap snapshot, which is not the controller's work)
//     [--no-cache-probe]   (skips bench/cacheprobe.ts's live heap per cached object at the end: minutes at 10,000)
//     [--controller-memlog FILE]   (bench/memsampler.ts in the controller: a line a second of its RSS, heap
//     by space, external memory, GC pauses and event-loop delay, written to FILE)
//     [--controller-node-options "FLAGS" | none]   (the controller's NODE_OPTIONS: by default
//     those for outside a container, src/cli/nodeoptions.ts; none: Node's own defaults, as before 2026-11-27)
// (--workers: the controller's; without it, the controller's default).
// Prints one JSON line.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/fixtures/net.ts';
import {
  instantQuery,
  PROMETHEUS_HOW,
  type PrometheusServer,
  runPrometheus,
} from '../test/fixtures/prometheus-server.ts';
import { which } from '../test/fixtures/tools.ts';
import type { ResourceRef } from '../src/sim/types.ts';
import { startSimWithCrds } from '../test/integration/fixtures/cluster.ts';
import { parseExposition, samples } from '../test/fixtures/prometheus.ts';
import { summarizeHeap } from './heapsummary.ts';
import { flagGiven, numberFlag, stringFlag } from './flags.ts';
import { prometheusScrape } from './promscrape.ts';
import { memoryCgroup } from './cgroup.ts';
import { CONTROLLER_NODE_OPTIONS } from '../src/cli/nodeoptions.ts';

const arg = (name: string, fallback: number, min = 1) => numberFlag(name, fallback, { integer: true, min });
const N = arg('--deployments', 1000);
const REPLICAS = arg('--replicas', 10);
const QPS = arg('--qps', 500);
const BURST = arg('--burst', 1000);
const WORKERS = flagGiven('--workers') ? arg('--workers', 2) : undefined;
const MAX_OLD_SPACE = flagGiven('--controller-max-old-space') ? arg('--controller-max-old-space', 1024) : undefined;
const MEMORY_LIMIT = flagGiven('--controller-memory-limit') ? arg('--controller-memory-limit', 1024, 64) : undefined;
const MEMLOG = stringFlag('--controller-memlog');
const CACHE_PROBE = !flagGiven('--no-cache-probe');
// The controller's Node options: by default those for a controller outside a container
// (CONTROLLER_NODE_OPTIONS: an 8 MiB semi-space) or, under --controller-memory-limit, Node's own; "none" for Node's own defaults; or the flags given. Read here, not by
// stringFlag: the value is flags, which start with "--".
const NODE_OPTIONS = (() => {
  const i = process.argv.indexOf('--controller-node-options');
  if (i < 0) return MEMORY_LIMIT !== undefined ? '' : CONTROLLER_NODE_OPTIONS;
  const given = process.argv[i + 1];
  if (given === 'none') return '';
  const flags = (given ?? '').split(' ').filter((f) => f !== '');
  if (flags.length === 0 || flags.some((f) => !/^--[a-z]/.test(f))) {
    process.stderr.write(
      `error: --controller-node-options: expected "none" or Node flags such as "--max-semi-space-size=8", got ${JSON.stringify(given ?? null)}\n`,
    );
    process.exit(2);
  }
  return flags.join(' ');
})();
const PACED_RATE = arg('--paced-rate', 17);
const PACED_SECONDS = arg('--paced-seconds', 30, 0);
// While the paced changes are sent, a Prometheus-like scrape every this many ms: by default the
// shipped ServiceMonitor's interval (30 s). A scrape holds the controller's event loop for its
// render (about 0.2 s at 10,000 Deployments), so the changes that arrive meanwhile wait: the
// first-write latencies include that, as they would under Prometheus. 0: no scrapes.
const SCRAPE_EVERY_MS = arg('--scrape-every-ms', 30_000, 0);
const PROMETHEUS_INTERVAL = arg('--prometheus-interval', 0, 0);
const PROMETHEUS_BIN = PROMETHEUS_INTERVAL > 0 ? which('prometheus') : undefined;
if (PROMETHEUS_INTERVAL > 0 && PROMETHEUS_BIN === undefined) {
  process.stderr.write(
    `error: --prometheus-interval ${PROMETHEUS_INTERVAL}: prometheus is not installed (${PROMETHEUS_HOW})\n`,
  );
  process.exit(2);
}
const BENCH_AGENT = 'pacer-scale-bench';
const CPU_PROF_DIR = stringFlag('--controller-cpu-prof');
if (CPU_PROF_DIR !== undefined && !existsSync(CPU_PROF_DIR)) {
  process.stderr.write(
    `error: --controller-cpu-prof: expected an existing directory, got ${JSON.stringify(CPU_PROF_DIR)}\n`,
  );
  process.exit(2);
}
const ROLLS = numberFlag('--rolls', 2, { oneOf: [0, 1, 2] });
const NS = 'default';
const DEPLOYMENTS: ResourceRef = { group: 'pacer.dev', version: 'v1alpha1', resource: 'deployments' };
const FIXTURE = new URL('../test/integration/fixtures/pacer-controller.ts', import.meta.url).pathname;
const ROOT = new URL('../', import.meta.url).pathname;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);

const built = spawnSync(join(ROOT, 'hack/kube/build.sh'), ['kubectl'], { encoding: 'utf8' });
if (built.status !== 0) {
  process.stderr.write(`error: building kubectl failed: ${built.stderr}\n`);
  process.exit(1);
}
const KUBECTL = join(built.stdout.trim().split('\n').pop() ?? '', 'kubectl');

const percentile = (xs: number[], p: number) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** A List of N Deployments, as a user writes one file. */
const listFile = (image: string) =>
  [
    'apiVersion: v1',
    'kind: List',
    'items:',
    ...Array.from({ length: N }, (_, i) =>
      [
        '- apiVersion: pacer.dev/v1alpha1',
        '  kind: Deployment',
        `  metadata: {name: s${i}, namespace: ${NS}}`,
        '  spec:',
        `    replicas: ${REPLICAS}`,
        `    selector: {matchLabels: {app: s${i}}}`,
        '    template:',
        `      metadata: {labels: {app: s${i}}}`,
        `      spec: {containers: [{name: web, image: "${image}"}]}`,
      ].join('\n'),
    ),
  ].join('\n');

// Enough nodes for every Deployment's pods and its surge (25%, rounded up, as a rolling update
// takes it) at once, with 10% to spare: with fewer, a fleet-wide roll waits on capacity, and the
// figure is the cluster's size, not the controller's pace.
const SURGE = Math.ceil(REPLICAS * 0.25);
const { sim } = await startSimWithCrds({
  nodes: Math.ceil((N * (REPLICAS + SURGE)) / 100),
  podsPerNode: 110,
  podStartMs: 20,
  podReadyMs: 40,
});
const dir = mkdtempSync(join(tmpdir(), 'pacer-scale-'));
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(kubeconfig, sim.kubeconfig);
const port = await freePort();
const cgroup = (() => {
  if (MEMORY_LIMIT === undefined) return undefined;
  try {
    return memoryCgroup(`pacer-scale-bench-${process.pid}`, MEMORY_LIMIT);
  } catch (err) {
    process.stderr.write(`error: --controller-memory-limit ${MEMORY_LIMIT}: ${(err as Error).message}\n`);
    process.exit(2);
  }
})();
const controllerArgs = [
  '--heapsnapshot-signal=SIGUSR2',
  ...(MAX_OLD_SPACE ? [`--max-old-space-size=${MAX_OLD_SPACE}`] : []),
  ...(CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : []),
  ...(MEMLOG ? ['--import', join(ROOT, 'bench/memsampler.ts')] : []),
  FIXTURE,
  'controller',
  '--kubeconfig',
  kubeconfig,
  '--metrics-bind-address',
  `127.0.0.1:${port}`,
  '--metrics-secure=false',
  '--health-probe-bind-address',
  '0',
  '--api-bind-address',
  '0',
  '--webhook-bind-address',
  '0',
  '--leader-elect=false',
  '--kube-api-qps',
  String(QPS),
  '--kube-api-burst',
  String(BURST),
  ...(WORKERS !== undefined ? ['--workers', String(WORKERS)] : []),
];
const child = spawn(
  ...(cgroup ? cgroup.wrap(process.execPath, controllerArgs) : ([process.execPath, controllerArgs] as const)),
  {
    cwd: dir,
    stdio: ['ignore', 'ignore', process.env.PACER_DEBUG_CHILD ? 'inherit' : 'ignore'],
    env: { ...process.env, KUBECONFIG: '', NODE_OPTIONS, ...(MEMLOG ? { PACER_MEMLOG: MEMLOG } : {}) },
  },
);

// The controller's cgroup goes once it has exited (rmdir fails while a process is in it).
const removeCgroup = (): void => {
  try {
    cgroup?.remove();
  } catch (err) {
    log(`the controller's cgroup ${cgroup?.dir} was left: ${(err as Error).message}`);
  }
};
/** The bench is ending the controller itself: its exit is not a failure. */
let stopping = false;
// Stopped from outside, the bench takes its controller with it.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    stopping = true;
    const gone = (): never => {
      removeCgroup();
      process.exit(1);
    };
    if (child.exitCode !== null || child.signalCode !== null) gone();
    child.once('exit', gone);
    child.kill('SIGKILL');
  });
// A controller that dies before the bench stops it (killed for memory in its cgroup, a crash)
// ends the bench: its phases would otherwise wait for convergence that cannot come.
child.once('exit', (code, signal) => {
  if (stopping) return;
  log(
    `the controller exited before the end: code ${code}, signal ${signal}${cgroup?.oomKilled() ? ", killed for memory (its cgroup's oom_kill)" : ''}`,
  );
  void sim.stop().finally(() => {
    rmSync(dir, { recursive: true, force: true });
    removeCgroup();
    process.exit(1);
  });
});

// The controller's RSS, peak RSS and CPU time from /proc (reading them costs the controller
// nothing); its heap in use from /metrics at the steady points only, since a scrape's cost grows
// with the fleet (its per-Deployment series): the scrape's time and size are figures of their own.
interface Proc {
  rssMiB: number;
  peakRssMiB: number;
  cpuSeconds: number;
}
const proc = (): Proc | undefined => {
  try {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    // utime and stime, the 14th and 15th fields, in clock ticks (100 a second on Linux).
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return {
      rssMiB: kib('VmRSS') / 1024,
      peakRssMiB: kib('VmHWM') / 1024,
      cpuSeconds: (Number(stat[11]) + Number(stat[12])) / 100,
    };
  } catch {
    return undefined;
  }
};
const scrape = async () => {
  const t0 = Date.now();
  // Plain text (the controller gzips when asked): the heap figures need no decoding here.
  const text = await (
    await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { 'accept-encoding': 'identity' } })
  ).text();
  // Timed up to the body's last byte: parsing 17 MiB here (about a second at 10,000 Deployments,
  // in the process that also runs the simulated cluster) is the bench's cost, not the controller's.
  const scrapeMs = Date.now() - t0;
  const all = parseExposition(text);
  const mib = (name: string) => (samples(all, name)[0]?.value ?? NaN) / 2 ** 20;
  return {
    heapMiB: mib('nodejs_heap_size_used_bytes'),
    heapTotalMiB: mib('nodejs_heap_size_total_bytes'),
    externalMiB: mib('nodejs_external_memory_bytes'),
    scrapeMs,
    scrapeKiB: Math.round(Buffer.byteLength(text) / 1024),
  };
};

// The real Prometheus (--prometheus-interval), started with the controller, and each phase's window
// of time, to read its scrapes of that phase back at the end.
let prometheus: PrometheusServer | undefined;
const windows: Array<{ name: string; from: number; to: number }> = [];
/** `run()`, its time kept as the window `name`. */
async function windowed<T>(name: string, run: () => Promise<T>): Promise<T> {
  const from = Date.now();
  try {
    return await run();
  } finally {
    windows.push({ name, from, to: Date.now() });
  }
}
/**
 * What the real Prometheus recorded of its scrapes in each window.
 * * `controller`: the controller's own time to answer each of Prometheus' scrapes that began in the
 *   window (pacer_metrics_handler_duration_seconds, from the request to the answer's last byte):
 *   how many, the median, the longest, how many took over 0.5 s. An answer is timed into the next
 *   scrape's text, so between two of Prometheus' samples the histogram's count grows by one and its
 *   sum by the earlier scrape's time; where the bench's own scrapes came between (at each steady
 *   point) it grew by more, and those intervals are counted as `mixed`, not read.
 * * `prometheus`: Prometheus' scrape_duration_seconds (median, maximum), which also counts its own
 *   parsing and storing of the samples, and how many scrapes failed (`up` 0: a timeout or an error).
 */
async function prometheusScrapes(): Promise<Record<string, unknown> | undefined> {
  if (!prometheus || windows.length === 0) return undefined;
  const url = prometheus.url;
  /** Every sample of `metric` from `from` to `to` (ms), as [seconds, value], in time order. */
  const raw = async (metric: string, from: number, to: number): Promise<Array<[number, number]>> => {
    const range = Math.max(1, Math.ceil((to - from) / 1000));
    const { result } = await instantQuery({ url }, `${metric}{job="test"}[${range}s]`, to);
    const values = (result as Array<{ values: Array<[number, string]> }>)[0]?.values ?? [];
    return values.map(([t, v]) => [t, Number(v)]);
  };
  const first = windows[0].from;
  const last = windows[windows.length - 1].to + PROMETHEUS_INTERVAL * 1000;
  const count = await raw('pacer_metrics_handler_duration_seconds_count', first, last);
  const sum = await raw('pacer_metrics_handler_duration_seconds_sum', first, last);
  const sumAt = new Map(sum.map(([t, v]) => [t, v]));
  // Each scrape of Prometheus' (its start, seconds) whose answer alone lies between two samples: ms.
  const answers: Array<{ at: number; ms: number | undefined }> = [];
  for (let k = 1; k < count.length; k++) {
    const [t0, c0] = count[k - 1];
    const [t1, c1] = count[k];
    const s0 = sumAt.get(t0);
    const s1 = sumAt.get(t1);
    answers.push({
      at: t0,
      ms: c1 - c0 === 1 && s0 !== undefined && s1 !== undefined ? Math.round((s1 - s0) * 1000) : undefined,
    });
  }
  const out: Record<string, unknown> = {};
  for (const w of windows) {
    const mine = answers.filter((a) => a.at * 1000 >= w.from && a.at * 1000 < w.to);
    const ms = mine.flatMap((a) => (a.ms === undefined ? [] : [a.ms]));
    const seen = (await raw('scrape_duration_seconds', w.from, w.to)).map(([, v]) => Math.round(v * 1000));
    const up = await raw('up', w.from, w.to);
    out[w.name] = {
      controller: {
        scrapes: ms.length,
        mixed: mine.length - ms.length,
        p50Ms: percentile(ms, 50),
        maxMs: ms.length ? Math.max(...ms) : null,
        over500Ms: ms.filter((v) => v > 500).length,
      },
      prometheus: {
        scrapes: seen.length,
        failed: up.filter(([, v]) => v === 0).length,
        p50Ms: percentile(seen, 50),
        maxMs: seen.length ? Math.max(...seen) : null,
      },
    };
  }
  return { intervalSeconds: PROMETHEUS_INTERVAL, ...out };
}

/** A Prometheus-like scrape of the controller's /metrics (promscrape.ts). */
const promScrape = () => prometheusScrape(`http://127.0.0.1:${port}/metrics`);
/** Prometheus-like scrapes every `everyMs` until stop() is called; stop() gives their figures. */
const scraper = (everyMs: number) => {
  const ms: number[] = [];
  let bytes = 0;
  let gzip = false;
  let stopped = false;
  const running = (async () => {
    while (!stopped) {
      const t0 = Date.now();
      const s = await promScrape();
      ms.push(s.ms);
      bytes = s.bytes;
      gzip = s.gzip;
      const wait = everyMs - (Date.now() - t0);
      if (wait > 0 && !stopped) await sleep(wait);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await running;
      return { n: ms.length, p50Ms: percentile(ms, 50), maxMs: ms.length ? Math.max(...ms) : null, ms, bytes, gzip };
    },
  };
};

const kubectl = (...args: string[]) =>
  new Promise<number>((resolve, reject) => {
    const c = spawn(KUBECTL, ['--kubeconfig', kubeconfig, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
    c.on('error', reject);
    c.on('exit', (code) => resolve(code ?? 1));
  });

type Dep = {
  metadata: { generation?: number };
  spec: { replicas?: number; template?: { spec?: { containers?: Array<{ image?: string }> } } };
  status?: { observedGeneration?: number; updatedReplicas?: number; availableReplicas?: number; replicas?: number };
};
// The stored objects themselves (shared, read-only), not copies: checking every 250 ms stays cheap for the simulated cluster.
/** `d` runs `image` on every replica, its status current. */
const rolledOut = (d: Dep | undefined, image: string) =>
  !!d &&
  d.spec.template?.spec?.containers?.[0]?.image === image &&
  (d.status?.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) &&
  d.status?.updatedReplicas === REPLICAS &&
  d.status?.availableReplicas === REPLICAS &&
  d.status?.replicas === REPLICAS;
const done = (image: string) => {
  const all = sim.store.list(DEPLOYMENTS, NS, { shared: true }).items as unknown as Dep[];
  return all.length === N && all.every((d) => rolledOut(d, image));
};
const until = async (ok: () => boolean, what: string, timeoutMs: number) => {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
};

/** The audit log since the last call: controller writes by resource, and kubectl's write → the controller's first write per Deployment. */
const kubectlWrites = new Map<string, number>();
const latencies: number[] = [];
let writes: Record<string, number> = {};
const readAudit = () => {
  const entries = sim.audit.entries();
  sim.audit.clear();
  for (const e of entries) {
    if (['get', 'list', 'watch'].includes(e.verb)) continue;
    const t = Date.parse(e.time);
    if (
      (e.userAgent.startsWith('kubectl') || e.userAgent.startsWith(BENCH_AGENT)) &&
      e.resource === 'deployments' &&
      e.name
    )
      kubectlWrites.set(e.name, t);
    if (!e.userAgent.startsWith('pacer-controller')) continue;
    const key = `${e.resource}${e.subresource ? `/${e.subresource}` : ''}`;
    writes[key] = (writes[key] ?? 0) + 1;
    const name =
      e.resource === 'deployments'
        ? e.name
        : e.resource === 'replicasets'
          ? e.name?.replace(/-[a-z0-9]+$/, '')
          : undefined;
    const at = name ? kubectlWrites.get(name) : undefined;
    if (name && at !== undefined && t >= at) {
      latencies.push(t - at);
      kubectlWrites.delete(name);
    }
  }
};
const auditTimer = setInterval(readAudit, 1000);

/** Starts counting writes and first-write latencies afresh. */
const measureFromNow = () => {
  readAudit();
  sim.audit.clear();
  kubectlWrites.clear();
  writes = {};
  latencies.length = 0;
};
/** Writes per rollout by resource and in all, and the first-write latency, over `rollouts`. */
const measured = (rollouts: number) => ({
  writesPerRollout: Object.fromEntries(
    Object.entries(writes)
      .sort()
      .map(([k, v]) => [k, Math.round((v / rollouts) * 100) / 100]),
  ),
  writesPerRolloutTotal: Math.round((Object.values(writes).reduce((a, b) => a + b, 0) / rollouts) * 100) / 100,
  firstWriteLatencyMs: {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.length ? Math.max(...latencies) : null,
    n: latencies.length,
  },
});

/** Applies `image` to every Deployment as one List; the seconds kubectl took and until every one is done. */
async function phase(image: string, name: string) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, listFile(image));
  const cpu0 = proc()?.cpuSeconds ?? 0;
  measureFromNow();
  const t0 = Date.now();
  const code = await kubectl('apply', '-f', file);
  if (code !== 0) throw new Error(`kubectl apply -f ${name}.yaml exited ${code}`);
  const applied = (Date.now() - t0) / 1000;
  log(`${name}: kubectl applied ${N} Deployments in ${applied.toFixed(1)} s`);
  await until(() => done(image), `${name} to converge`, 60 * 60_000);
  const seconds = (Date.now() - t0) / 1000;
  await sleep(1500); // the last scrape and audit entries
  readAudit();
  const result = {
    kubectlApplySeconds: Math.round(applied * 10) / 10,
    convergedSeconds: Math.round(seconds * 10) / 10,
    rolloutsPerMinute: Math.round(N / (seconds / 60)),
    cpuSecondsPerRollout: Math.round((((proc()?.cpuSeconds ?? 0) - cpu0) / N) * 1000) / 1000,
    ...measured(N),
  };
  log(`${name}: converged in ${seconds.toFixed(1)} s: ${JSON.stringify(result)}`);
  return result;
}

/**
 * One Deployment at a time given a new image, PACED_RATE a second for PACED_SECONDS, each a merge
 * patch to the API server; then until every one is done. Deployments are taken in turn, so none
 * changes twice while PACED_RATE × PACED_SECONDS stays under N.
 */
async function paced() {
  const changes = Math.min(N, PACED_RATE * PACED_SECONDS);
  const cpu0 = proc()?.cpuSeconds ?? 0;
  measureFromNow();
  const t0 = Date.now();
  const images = new Map<string, string>();
  const scrapes = SCRAPE_EVERY_MS > 0 ? scraper(SCRAPE_EVERY_MS) : undefined;
  for (let i = 0; i < changes; i++) {
    const due = t0 + (i * 1000) / PACED_RATE;
    if (due > Date.now()) await sleep(due - Date.now());
    const name = `s${i}`;
    const image = `app:paced-${i}`;
    const res = await fetch(`${sim.url}/apis/pacer.dev/v1alpha1/namespaces/${NS}/deployments/${name}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json', 'user-agent': BENCH_AGENT },
      body: JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'web', image }] } } } }),
    });
    if (!res.ok) throw new Error(`patching deployment ${name}: ${res.status} ${await res.text()}`);
    images.set(name, image);
  }
  const sent = (Date.now() - t0) / 1000;
  const scrapesWhilePaced = await scrapes?.stop();
  await until(
    () =>
      [...images].every(([name, image]) =>
        rolledOut(sim.store.get(DEPLOYMENTS, NS, name) as unknown as Dep | undefined, image),
      ),
    'the paced changes to converge',
    30 * 60_000,
  );
  const seconds = (Date.now() - t0) / 1000;
  await sleep(1500);
  readAudit();
  const result = {
    changes,
    ratePerSecond: Math.round((changes / sent) * 10) / 10,
    sentSeconds: Math.round(sent * 10) / 10,
    convergedSeconds: Math.round(seconds * 10) / 10,
    cpuSecondsPerRollout: Math.round((((proc()?.cpuSeconds ?? 0) - cpu0) / changes) * 1000) / 1000,
    ...measured(changes),
    scrapesWhileChanging: scrapesWhilePaced,
  };
  log(`paced: ${JSON.stringify(result)}`);
  return result;
}

/** RSS and heap in use once the work is done and the process has idled. */
async function steady() {
  await sleep(15_000);
  const rss = proc()?.rssMiB;
  // The first scrape after the phase renders every Deployment that changed in it; the next ones,
  // nothing changed, are what Prometheus sees at every interval while the fleet rests.
  const first = await promScrape();
  const m = await scrape();
  const idle: number[] = [];
  for (let i = 0; i < 3; i++) idle.push((await promScrape()).ms);
  const result = {
    rssMiB: Math.round(rss ?? NaN),
    heapMiB: Math.round(m.heapMiB),
    heapTotalMiB: Math.round(m.heapTotalMiB),
    externalMiB: Math.round(m.externalMiB),
    scrapeMs: m.scrapeMs,
    scrapeKiB: m.scrapeKiB,
    prometheusScrape: { firstMs: first.ms, idleMs: idle, bytes: first.bytes, gzip: first.gzip },
  };
  log(`steady: ${JSON.stringify(result)} (peak RSS so far ${Math.round(proc()?.peakRssMiB ?? NaN)} MiB)`);
  return result;
}

/**
 * The live heap at the end, from a heap snapshot written into `dir` on SIGUSR2. Only at the end:
 * writing a snapshot takes memory of its own, which the process keeps (RSS and peak RSS after it
 * would not be the controller's).
 */
async function liveHeap() {
  const before = new Set(readdirSync(dir));
  child.kill('SIGUSR2');
  for (let i = 0; i < 1200; i++) {
    await sleep(500);
    const made = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (!made) continue;
    // Written once its size stops changing.
    const size = statSync(join(dir, made)).size;
    await sleep(2000);
    if (size === 0 || statSync(join(dir, made)).size !== size) continue;
    try {
      return summarizeHeap(join(dir, made));
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    } finally {
      rmSync(join(dir, made));
    }
  }
  return undefined;
}

/**
 * The live heap per cached object by kind (bench/cacheprobe.ts): the caches filled anew in a
 * process of their own from the cluster at rest (bench/cacheprobe.ts's --as).
 */
async function cacheProbe(as: 'kept' | 'slim' | 'sent'): Promise<unknown> {
  // Not spawnSync: the simulated cluster it lists from runs in this process.
  const probe = spawn(
    process.execPath,
    ['--expose-gc', join(ROOT, 'bench/cacheprobe.ts'), '--kubeconfig', kubeconfig, '--namespace', NS, '--as', as],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KUBECONFIG: '' } },
  );
  let out = '';
  let err = '';
  probe.stdout.on('data', (b: Buffer) => (out += b.toString()));
  probe.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const code = await new Promise<number | null>((r) => probe.once('exit', (c) => r(c)));
  if (code !== 0) return { error: `cacheprobe exited ${code}: ${err.trim().slice(-500)}` };
  return JSON.parse(out.trim().split('\n').pop() ?? 'null');
}

try {
  for (
    let i = 0;
    !(await scrape().then(
      () => true,
      () => false,
    ));
    i++
  ) {
    if (i > 100) throw new Error('the controller did not serve /metrics');
    await sleep(200);
  }
  if (PROMETHEUS_BIN !== undefined) {
    prometheus = await runPrometheus(PROMETHEUS_BIN, {
      targets: [`127.0.0.1:${port}`],
      scrapeIntervalSeconds: PROMETHEUS_INTERVAL,
      lifetimeSeconds: 4 * 3600,
    });
    await sleep(PROMETHEUS_INTERVAL * 1000 + 5000); // its first scrapes, before the fleet is created
  }
  const started = Date.now();
  const create = await windowed('create', () => phase('app:1', 'create'));
  const afterCreate = await windowed('steadyAfterCreate', steady);
  const pacedResult = PACED_SECONDS > 0 ? await windowed('paced', paced) : undefined;
  const roll = ROLLS >= 1 ? await windowed('roll', () => phase('app:2', 'roll')) : undefined;
  const afterRoll = ROLLS >= 1 ? await windowed('steadyAfterRoll', steady) : undefined;
  const roll2 = ROLLS >= 2 ? await windowed('rollAgain', () => phase('app:3', 'roll-again')) : undefined;
  const afterRoll2 = ROLLS >= 2 ? await windowed('steadyAfterSecondRoll', steady) : undefined;
  if (prometheus) await sleep(PROMETHEUS_INTERVAL * 1000 + 3000); // the last window's answers, timed into the next scrape
  const prometheusSaw = await prometheusScrapes();
  await prometheus?.stop();
  const peakRss = Math.round(proc()?.peakRssMiB ?? NaN);
  const cgroupPeak = cgroup?.peakMiB();
  const oomKilled = cgroup?.oomKilled();
  cgroup?.unlimit();
  const live = await liveHeap();
  const perObject: Record<string, unknown> = {};
  for (const as of CACHE_PROBE ? (['kept', 'slim', 'sent'] as const) : []) {
    perObject[as] = await cacheProbe(as);
    log(`cache per object, ${as}: ${JSON.stringify(perObject[as])}`);
  }
  process.stdout.write(
    `${JSON.stringify({
      bench: 'scale',
      deployments: N,
      replicas: REPLICAS,
      kubeApiQps: QPS,
      kubeApiBurst: BURST,
      workers: WORKERS ?? 'default (5)',
      maxOldSpaceMiB: MAX_OLD_SPACE ?? 'default',
      memoryLimitMiB: MEMORY_LIMIT ?? 'none',
      controllerNodeOptions: NODE_OPTIONS || 'none',
      pods: sim.store.list({ group: '', version: 'v1', resource: 'pods' }, NS, { shared: true }).items.length,
      create,
      paced: pacedResult,
      roll,
      rollAgain: roll2,
      prometheus: prometheusSaw,
      memoryMiB: {
        peakRss,
        ...(cgroup ? { cgroupPeak: Math.round(cgroupPeak ?? NaN), oomKilled } : {}),
        liveHeapAtEnd: live,
        cachePerObject: perObject,
        steadyAfterCreate: afterCreate,
        steadyAfterRoll: afterRoll,
        steadyAfterSecondRoll: afterRoll2,
      },
      wallSeconds: Math.round((Date.now() - started) / 1000),
    })}\n`,
  );
} finally {
  await prometheus?.stop();
  clearInterval(auditTimer);
  // Its exit, not just the signal: a CPU profile is written as the process exits.
  stopping = true;
  const exited = new Promise<void>((r) => (child.exitCode !== null ? r() : child.once('exit', () => r())));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(60_000)]);
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
  removeCgroup();
}
