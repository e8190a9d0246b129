// The simulated cluster at scale: what the sim reaches on this machine.
//   npx node bench/sim.bench.ts            # everything, about 1.5 minutes
//   npx node bench/sim.bench.ts load fanout ramp list control   # a subset (the load always runs)
// Prints one JSON line per figure set:
//   load     10,000 pacer.dev Deployments (CRD admission) and 100,000 pods through the Store,
//            control plane off: time, rate, heap after a full GC.
//   fanout   N real HTTP watch connections over 127.0.0.1 (all-namespace, label-selected and
//            single-namespace pods watches) while a driver patches pod status through the Store at
//            1,000 writes/s for 10 s: achieved write rate, delivered events/s, delivery lag
//            (commit → line received by the watcher), whether every watcher got every event.
//   ramp     the same with 50 watchers at rising rates: the highest rate whose p99 lag stays < 1 s.
//   list     listing the 100,000 pods over HTTP: whole, in pages of 500 (kubectl), by label.
//   control  the simulated control plane: 40 ReplicaSets × 100 pods on 40 nodes, time until all
//            4,000 pods are Ready (the run where per-listener copies used to dominate).
// One process: the store, the HTTP server and the driver share the main thread (the "one core");
// the watchers run in a worker thread of the same process so that their JSON handling does not
// delay the server they measure. Commit times reach the worker through a SharedArrayBuffer.
// The bench re-executes itself with --expose-gc and a larger heap when started without them.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { parseAllDocuments } from 'yaml';

const here = fileURLToPath(import.meta.url);
const ROOT = join(dirname(here), '..');

/** Epoch milliseconds with sub-millisecond resolution, comparable between threads. */
function clock(): number {
  return performance.timeOrigin + performance.now();
}

const NAMESPACES = 100;
const PODS = 100_000;
const CUSTOM_RESOURCES = 10_000;
const APPS = 10; // label app=app-0 … app-9 over the pods of every namespace
/** Commit times (µs after T0) by resourceVersion − RV0, shared with the watcher thread. */
const SLOTS = 1 << 22;

interface WatchSpec {
  path: string;
  /** Which pods it sees, for the expected event count. */
  namespace?: string;
  app?: string;
}

interface WatcherResult {
  path: string;
  received: number;
  lags: number[];
}

// ---------------------------------------------------------------------------------------------
// The watcher thread: opens the watches, counts lines and measures each line's lag.

interface WorkerInit {
  url: string;
  specs: WatchSpec[];
  times: SharedArrayBuffer;
  t0: number;
  rv0: number;
}

function runWatchers(init: WorkerInit): void {
  const times = new Int32Array(init.times);
  const state = init.specs.map((s) => ({
    path: s.path,
    received: 0,
    lags: [] as number[],
    req: undefined as http.ClientRequest | undefined,
  }));
  let open = 0;
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  for (const w of state) {
    const req = http.get(`${init.url}${w.path}`, { agent }, (res) => {
      open++;
      if (open === state.length) parentPort!.postMessage({ kind: 'open' });
      res.setEncoding('utf8');
      let tail = '';
      res.on('data', (chunk: string) => {
        const now = clock();
        const text = tail + chunk;
        let start = 0;
        for (;;) {
          const nl = text.indexOf('\n', start);
          if (nl < 0) break;
          // Only the resourceVersion is read: the watcher's cost must stay small next to the server's.
          const at = text.indexOf('"resourceVersion":"', start);
          if (at >= 0 && at < nl && !text.startsWith('{"type":"BOOKMARK"', start)) {
            const rv = Number.parseInt(text.slice(at + 19, text.indexOf('"', at + 19)), 10);
            const slot = rv - init.rv0;
            if (slot > 0 && slot < SLOTS) {
              const committed = Atomics.load(times, slot);
              if (committed > 0) w.lags.push(now - (init.t0 + committed / 1000));
            }
            w.received++;
          }
          start = nl + 1;
        }
        tail = text.slice(start);
      });
      res.on('error', () => {});
    });
    req.on('error', (e) => parentPort!.postMessage({ kind: 'error', message: `${w.path}: ${e.message}` }));
    w.req = req;
  }
  parentPort!.on('message', (m: { kind: string }) => {
    if (m.kind === 'report') {
      parentPort!.postMessage({
        kind: 'report',
        results: state.map((w) => ({ path: w.path, received: w.received, lags: w.lags })),
      });
    } else if (m.kind === 'close') {
      for (const w of state) w.req?.destroy();
      agent.destroy();
      parentPort!.postMessage({ kind: 'closed' });
    }
  });
}

if (!isMainThread) {
  runWatchers(workerData as WorkerInit);
} else if (!process.execArgv.includes('--expose-gc')) {
  // Re-run with a full GC available (heap figures) and room for 100,000 pods.
  const r = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', here, ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(r.status ?? 1);
} else {
  await main();
}

// ---------------------------------------------------------------------------------------------
// The main thread: the simulated cluster and the driver.

async function main(): Promise<void> {
  const { Store } = await import('../src/sim/store.ts');
  const { REF } = await import('../src/sim/resources.ts');
  const { SimServer } = await import('../src/sim/server.ts');
  const { AuditLog } = await import('../src/sim/audit.ts');
  const { Faults } = await import('../src/sim/faults.ts');
  type KubeObject = import('../src/sim/types.ts').KubeObject;

  const wanted = process.argv.slice(2);
  const want = (s: string) => wanted.length === 0 || wanted.includes(s);
  const gc = (globalThis as { gc?: () => void }).gc!;
  const mb = (n: number) => Math.round(n / 1024 / 1024);
  const emit = (o: object) => process.stdout.write(`${JSON.stringify({ bench: 'sim', ...o })}\n`);
  const heap = () => {
    gc();
    gc();
    return process.memoryUsage();
  };
  const store = new Store();
  const nsName = (i: number) => `bench-${String(i).padStart(2, '0')}`;
  for (const name of ['default', ...Array.from({ length: NAMESPACES }, (_, i) => nsName(i))]) {
    store.create(REF.namespaces, undefined, { metadata: { name } });
  }
  const crd = parseAllDocuments(
    readFileSync(join(ROOT, 'crds/deployments.pacer.dev.yaml'), 'utf8'),
  )[0].toJSON() as KubeObject;
  store.create(REF.customresourcedefinitions, undefined, crd);
  const PDEPLOY = { group: 'pacer.dev', version: 'v1alpha1', resource: 'deployments' };

  const deployment = (i: number): KubeObject => ({
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Deployment',
    metadata: {
      name: `web-${i}`,
      labels: { app: `web-${i}` },
      annotations: { 'kubernetes.io/change-cause': `release ${i}` },
    },
    spec: {
      replicas: 10,
      selector: { matchLabels: { app: `web-${i}` } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      minReadySeconds: 5,
      template: {
        metadata: { labels: { app: `web-${i}` } },
        spec: {
          containers: [
            {
              name: 'nginx',
              image: 'nginx:1.27',
              ports: [{ name: 'http', containerPort: 80 }],
              readinessProbe: { httpGet: { path: '/', port: 'http' } },
              resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '128Mi' } },
            },
          ],
        },
      },
    },
  });
  // A pod as a ReplicaSet would create it: labels, an owner, one container with the usual fields.
  const podName = (i: number) => `pod-${i}`;
  const podNs = (i: number) => nsName(i % NAMESPACES);
  const podApp = (i: number) => `app-${Math.floor(i / NAMESPACES) % APPS}`;
  const pod = (i: number): KubeObject => ({
    metadata: {
      name: podName(i),
      labels: { app: podApp(i), 'pod-template-hash': '5d8f7c9b6' },
      annotations: { 'prometheus.io/scrape': 'true' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `${podApp(i)}-5d8f7c9b6`,
          uid: `rs-${podApp(i)}`,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      nodeName: `node-${i % 1000}`,
      containers: [
        {
          name: 'web',
          image: 'registry.example/web:1.4.2',
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          env: [
            { name: 'MODE', value: 'production' },
            { name: 'LOG_LEVEL', value: 'info' },
          ],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5 },
        },
      ],
    },
  });

  // ---- (1) load ------------------------------------------------------------------------------
  const base = heap();
  let t = performance.now();
  for (let i = 0; i < CUSTOM_RESOURCES; i++) store.create(PDEPLOY, nsName(i % NAMESPACES), deployment(i));
  const crMs = performance.now() - t;
  const afterCrs = heap();
  t = performance.now();
  for (let i = 0; i < PODS; i++) store.create(REF.pods, podNs(i), pod(i));
  const podMs = performance.now() - t;
  const afterPods = heap();
  if (want('load')) {
    emit({
      figure: 'load',
      customResources: CUSTOM_RESOURCES,
      pods: PODS,
      namespaces: NAMESPACES,
      customResourcesMs: Math.round(crMs),
      customResourcesPerSec: Math.round((CUSTOM_RESOURCES / crMs) * 1000),
      podsMs: Math.round(podMs),
      podsPerSec: Math.round((PODS / podMs) * 1000),
      heapUsedMB: mb(afterPods.heapUsed),
      rssMB: mb(afterPods.rss),
      heapPerCustomResourceKB: Math.round((afterCrs.heapUsed - base.heapUsed) / CUSTOM_RESOURCES / 102.4) / 10,
      heapPerPodKB: Math.round((afterPods.heapUsed - afterCrs.heapUsed) / PODS / 102.4) / 10,
      note: 'heap includes the watch history (last 50,000 changes)',
    });
  }

  // ---- (2, 3) watch fan-out ------------------------------------------------------------------
  const server = new SimServer({ store, audit: new AuditLog(), faults: new Faults('') });
  const port = await server.listen(0);
  const url = `http://127.0.0.1:${port}`;
  let writeSeq = 0;

  /** Watchers: 40% all pods, 30% one app label across namespaces, 30% one namespace. */
  function watchSpecs(n: number, rv: number): WatchSpec[] {
    const out: WatchSpec[] = [];
    for (let i = 0; i < n; i++) {
      const kind = i % 10 < 4 ? 'all' : i % 10 < 7 ? 'app' : 'ns';
      const q = `watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`;
      if (kind === 'all') out.push({ path: `/api/v1/pods?${q}` });
      else if (kind === 'app') {
        const app = `app-${i % APPS}`;
        out.push({ path: `/api/v1/pods?${q}&labelSelector=${encodeURIComponent(`app=${app}`)}`, app });
      } else {
        const namespace = nsName((i * 7) % NAMESPACES);
        out.push({ path: `/api/v1/namespaces/${namespace}/pods?${q}`, namespace });
      }
    }
    return out;
  }

  interface RunResult {
    watchers: number;
    targetRate: number;
    seconds: number;
    writes: number;
    achievedRate: number;
    deliveredPerSec: number;
    expected: number;
    delivered: number;
    complete: boolean;
    lagP50Ms: number;
    lagP99Ms: number;
    lagMaxMs: number;
    keptUp: boolean;
    eventLoopDelayP99Ms: number;
  }

  /** One run: open the watches, write at `rate` for `seconds`, drain, report. */
  async function fanout(watchers: number, rate: number, seconds: number): Promise<RunResult> {
    const times = new SharedArrayBuffer(SLOTS * 4);
    const slots = new Int32Array(times);
    const rv0 = store.currentResourceVersion();
    const t0 = clock();
    const specs = watchSpecs(watchers, rv0);
    const worker = new Worker(here, { workerData: { url, specs, times, t0, rv0 } satisfies WorkerInit });
    const ask = <T>(kind: string, reply: string) =>
      new Promise<T>((resolve) => {
        const on = (m: { kind: string }) => {
          if (m.kind === reply) {
            worker.off('message', on);
            resolve(m as T);
          }
        };
        worker.on('message', on);
        if (kind) worker.postMessage({ kind });
      });
    worker.on('message', (m: { kind: string; message?: string }) => {
      if (m.kind === 'error') process.stderr.write(`watch error: ${m.message}\n`);
    });
    await ask('', 'open');
    await new Promise((r) => setTimeout(r, 200));

    const { monitorEventLoopDelay } = await import('node:perf_hooks');
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const expected = new Array<number>(watchers).fill(0);
    let writes = 0;
    const start = performance.now();
    const endAt = start + seconds * 1000;
    await new Promise<void>((resolve) => {
      const tick = (): void => {
        const now = performance.now();
        const due = Math.min(Math.floor(((Math.min(now, endAt) - start) / 1000) * rate), Math.ceil(rate * seconds));
        // A burst never exceeds 50 ms worth of writes, so a stalled loop shows as a lower rate.
        const burst = Math.min(due - writes, Math.max(1, Math.ceil(rate / 20)));
        for (let k = 0; k < burst; k++) {
          const i = (writeSeq++ * 7919) % PODS; // spread over namespaces and apps
          const ready = writeSeq % 2 === 0 ? 'True' : 'False';
          const o = store.patch(
            REF.pods,
            podNs(i),
            podName(i),
            'merge',
            {
              status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready, lastProbeTime: null }] },
            },
            { subresource: 'status', actor: 'bench' },
          );
          const slot = Number(o.metadata.resourceVersion) - rv0;
          if (slot > 0 && slot < SLOTS) Atomics.store(slots, slot, Math.max(1, Math.round((clock() - t0) * 1000)));
          writes++;
          for (let w = 0; w < watchers; w++) {
            const s = specs[w];
            if ((s.namespace === undefined || s.namespace === podNs(i)) && (s.app === undefined || s.app === podApp(i)))
              expected[w]++;
          }
        }
        if (now >= endAt && writes >= due) resolve();
        else setTimeout(tick, 1);
      };
      tick();
    });
    const writeMs = performance.now() - start;
    // Drain: wait until every watcher has every event, or 5 s.
    let results: WatcherResult[] = [];
    const drainUntil = performance.now() + 5000;
    for (;;) {
      results = (await ask<{ results: WatcherResult[] }>('report', 'report')).results;
      if (results.every((r, w) => r.received >= expected[w]) || performance.now() > drainUntil) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const deliverMs = performance.now() - start;
    loop.disable();
    await ask('close', 'closed');
    await worker.terminate();
    server.endWatches();
    const lags = results.flatMap((r) => r.lags).sort((a, b) => a - b);
    const pct = (p: number) => (lags.length ? lags[Math.min(lags.length - 1, Math.floor(lags.length * p))] : NaN);
    const delivered = results.reduce((a, r) => a + r.received, 0);
    const expectedTotal = expected.reduce((a, b) => a + b, 0);
    const complete = results.every((r, w) => r.received >= expected[w]);
    const r1 = (x: number) => Math.round(x * 10) / 10;
    return {
      watchers,
      targetRate: rate,
      seconds,
      writes,
      achievedRate: Math.round((writes / writeMs) * 1000),
      deliveredPerSec: Math.round((delivered / deliverMs) * 1000),
      expected: expectedTotal,
      delivered,
      complete,
      lagP50Ms: r1(pct(0.5)),
      lagP99Ms: r1(pct(0.99)),
      lagMaxMs: r1(lags[lags.length - 1] ?? NaN),
      keptUp: complete && pct(0.99) < 1000 && (writes / writeMs) * 1000 >= rate * 0.95,
      eventLoopDelayP99Ms: r1(loop.percentile(99) / 1e6),
    };
  }

  if (want('fanout')) {
    for (const n of [10, 50])
      emit({
        figure: 'fanout',
        ...(await fanout(n, 1000, 10)),
        note: 'sim and watchers in one process (watchers in a worker thread)',
      });
  }
  if (want('ramp')) {
    let best: RunResult | undefined;
    for (const rate of [1000, 2000, 4000, 6000, 8000, 12000, 16000]) {
      const r = await fanout(50, rate, 3);
      if (!r.keptUp) {
        emit({ figure: 'ramp-step', ...r });
        break;
      }
      best = r;
      emit({ figure: 'ramp-step', ...r });
    }
    emit({
      figure: 'ramp',
      watchers: 50,
      maxSustainedRate: best?.achievedRate ?? 0,
      lagP99Ms: best?.lagP99Ms,
      lagMaxMs: best?.lagMaxMs,
      criterion: 'p99 lag < 1 s, every event delivered, achieved ≥ 95% of target',
    });
  }
  // ---- list: what `kubectl get pods -A` (pages of 500) and an informer (one list) cost --------
  if (want('list')) {
    const getJson = (path: string) =>
      new Promise<{ items: unknown[]; metadata: { continue?: string }; bytes: number }>((resolve, reject) => {
        http
          .get(`${url}${path}`, (res) => {
            const parts: Buffer[] = [];
            res.on('data', (b: Buffer) => parts.push(b));
            res.on('end', () => {
              const body = Buffer.concat(parts);
              resolve({
                ...(JSON.parse(body.toString('utf8')) as { items: unknown[]; metadata: { continue?: string } }),
                bytes: body.length,
              });
            });
          })
          .on('error', reject);
      });
    let t = performance.now();
    const whole = await getJson('/api/v1/pods');
    const wholeMs = performance.now() - t;
    t = performance.now();
    let pages = 0;
    let items = 0;
    let cont: string | undefined;
    do {
      const page = await getJson(`/api/v1/pods?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
      pages++;
      items += page.items.length;
      cont = page.metadata.continue;
    } while (cont);
    const pagedMs = performance.now() - t;
    t = performance.now();
    const selected = await getJson(`/api/v1/pods?labelSelector=${encodeURIComponent('app=app-3')}`);
    const selectedMs = performance.now() - t;
    emit({
      figure: 'list',
      pods: whole.items.length,
      fullListMs: Math.round(wholeMs),
      fullListMB: mb(whole.bytes),
      pages,
      pagedItems: items,
      pagedListMs: Math.round(pagedMs),
      labelSelectedItems: selected.items.length,
      labelSelectedMs: Math.round(selectedMs),
      note: 'over HTTP, client in the same thread (JSON.parse included)',
    });
  }
  await server.close();

  // ---- (4) the control plane -----------------------------------------------------------------
  if (want('control')) {
    const { startSim } = await import('../src/sim/index.ts');
    const sim = await startSim({ port: 0, nodes: 40, podsPerNode: 110, podStartMs: 50, podReadyMs: 50 });
    const rsCount = 40;
    const replicas = 100;
    const started = performance.now();
    for (let i = 0; i < rsCount; i++) {
      const labels = { app: `svc-${i}` };
      sim.store.create(REF.replicasets, 'default', {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: `svc-${i}` },
        spec: {
          replicas,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
        },
      });
    }
    let ready = 0;
    for (;;) {
      ready = 0;
      for (let i = 0; i < rsCount; i++) {
        const rs = sim.store.peek(REF.replicasets, 'default', `svc-${i}`);
        ready += (rs?.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0;
      }
      if (ready >= rsCount * replicas || performance.now() - started > 60_000) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const ms = performance.now() - started;
    emit({
      figure: 'control',
      replicaSets: rsCount,
      pods: rsCount * replicas,
      nodes: 40,
      readyPods: ready,
      timeToAllReadyMs: Math.round(ms),
      writes: sim.store.currentResourceVersion(),
      note: 'podStartMs=50, podReadyMs=50; writes = the final resourceVersion',
    });
    await sim.stop();
  }
}
