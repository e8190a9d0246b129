// One /metrics scrape at N Deployments (default 10,000), with what the controller's registry holds
// at that size: Node's default metrics, the pacer_deployment_* families (11, in kube-state-metrics'
// shape, 21 samples a Deployment with two conditions) rendered from the cache, and the
// pacer_plan_phase_* families computed from each Deployment's ReplicaSet and 10 pods, through the
// Deployment controller's own sampler (controllers/deployment/planmetrics.ts). Figures: the first
// scrape (everything rendered), a scrape with nothing changed, one after 1% of the Deployments
// changed (a new Deployment object and a new version of one of its pods, as informers replace
// cached objects), each through the registry; the same two over HTTP, served by the controller's
// /metrics handler on 127.0.0.1 and fetched by curl as Prometheus asks (its Accept header and
// gzip); how long the event loop was held at most during a scrape (the first, and the longest of the
// others); and the heap the kept lines and phases hold between scrapes (after a full GC, against the
// same heap before the first scrape). `--deployments-only` leaves out the plan phases and the
// default metrics (the registry as this bench measured it before 2026-11-27's second look).
// Prints one JSON line.
//   npx node bench/metrics.bench.ts [deployments] [rounds] [--deployments-only]

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Deployment, Pod, ReplicaSet } from '../src/api/types.ts';
import { planPhaseSampler } from '../src/controllers/deployment/planmetrics.ts';
import { createMetrics } from '../src/observe/metrics.ts';
import { metricsHandler } from '../src/server/http.ts';
import { prometheusScrape } from './promscrape.ts';

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const N = Number(positional[0] ?? 10_000);
const ROUNDS = Number(positional[1] ?? 5);
const DEPLOYMENTS_ONLY = process.argv.includes('--deployments-only');
for (const [what, v] of [
  ['deployments', N],
  ['rounds', ROUNDS],
] as const)
  if (!Number.isInteger(v) || v < 1) {
    process.stderr.write(`error: ${what}: expected a whole number of at least 1, got ${JSON.stringify(v)}\n`);
    process.exit(2);
  }
const REPLICAS = 10;
const NOW = Date.now();

function deployment(i: number, rv: number, available: number): Deployment {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Deployment',
    metadata: {
      name: `app-${i}`,
      namespace: `team-${i % 50}`,
      uid: `uid-app-${i}`,
      generation: 2,
      resourceVersion: String(rv),
    },
    spec: {
      replicas: REPLICAS,
      selector: { matchLabels: { app: `app-${i}` } },
      template: { metadata: { labels: { app: `app-${i}` } }, spec: { containers: [{ name: 'web', image: 'app:1' }] } },
    },
    status: {
      observedGeneration: 2,
      replicas: REPLICAS,
      updatedReplicas: REPLICAS,
      readyReplicas: available,
      availableReplicas: available,
      unavailableReplicas: REPLICAS - available,
      conditions: [
        { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' },
        { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
      ],
    },
  };
}

function replicaSet(i: number): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `app-${i}-5d8f7c`,
      namespace: `team-${i % 50}`,
      uid: `uid-rs-${i}`,
      resourceVersion: `rs-${i}`,
      creationTimestamp: new Date(NOW - 3_600_000).toISOString(),
      labels: { app: `app-${i}`, 'pod-template-hash': '5d8f7c' },
      ownerReferences: [
        {
          apiVersion: 'pacer.dev/v1alpha1',
          kind: 'Deployment',
          name: `app-${i}`,
          uid: `uid-app-${i}`,
          controller: true,
        },
      ],
    },
    spec: {
      replicas: REPLICAS,
      selector: { matchLabels: { app: `app-${i}`, 'pod-template-hash': '5d8f7c' } },
      template: {
        metadata: { labels: { app: `app-${i}`, 'pod-template-hash': '5d8f7c' } },
        spec: { containers: [{ name: 'web', image: 'app:1' }] },
      },
    },
    status: { replicas: REPLICAS, readyReplicas: REPLICAS, availableReplicas: REPLICAS },
  };
}

function pod(i: number, k: number, rv: string, ready: boolean): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `app-${i}-5d8f7c-${k}`,
      namespace: `team-${i % 50}`,
      uid: `uid-pod-${i}-${k}`,
      resourceVersion: rv,
      creationTimestamp: new Date(NOW - 3_000_000 + k).toISOString(),
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `app-${i}-5d8f7c`, uid: `uid-rs-${i}`, controller: true },
      ],
    },
    spec: { nodeName: `node-${(i * REPLICAS + k) % 1000}`, containers: [{ name: 'web', image: 'app:1' }] },
    status: {
      phase: 'Running',
      conditions: [
        {
          type: 'Ready',
          status: ready ? 'True' : 'False',
          lastTransitionTime: new Date(NOW - 2_000_000).toISOString(),
        },
      ],
    },
  };
}

const cache: Deployment[] = Array.from({ length: N }, (_, i) => deployment(i, i + 1, REPLICAS));
const replicaSets: ReplicaSet[] = Array.from({ length: N }, (_, i) => replicaSet(i));
const pods: Pod[] = Array.from({ length: N * REPLICAS }, (_, j) =>
  pod(Math.floor(j / REPLICAS), j % REPLICAS, `pod-${j}`, true),
);
const m = createMetrics({ defaultMetrics: !DEPLOYMENTS_ONLY });
m.trackDeployments(() => cache);
// The plan phases as the controller keeps them: told of every pod replaced (change(), below), as
// its pod informer's handler tells it.
const phases = DEPLOYMENTS_ONLY ? undefined : planPhaseSampler();
if (phases)
  m.trackPlanPhases(() =>
    phases.sample(
      cache,
      () => replicaSets,
      () => pods,
      Date.now(),
    ),
  );

/**
 * One scrape through the registry: ms to the text, bytes, and the longest the event loop was held
 * while it ran (the longest gap in a chain of setImmediate callbacks, the last one after the text is
 * back): how long a watch event or a paced change arriving during the scrape could have waited.
 */
async function scrape(): Promise<{ ms: number; bytes: number; blockedMs: number }> {
  let last = performance.now();
  let blockedMs = 0;
  let running = true;
  const tick = () => {
    const now = performance.now();
    blockedMs = Math.max(blockedMs, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const t = performance.now();
  const text = await m.registry.metrics();
  const ms = performance.now() - t;
  await new Promise((r) => setImmediate(r));
  running = false;
  return { ms, bytes: Buffer.byteLength(text), blockedMs };
}

// The controller's /metrics handler on a free port of 127.0.0.1, closed at the end.
const server = http.createServer(metricsHandler(m.registry));
await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
/** One scrape by curl as Prometheus makes it (promscrape.ts): ms to the last byte, bytes as sent. */
const overHttp = () => prometheusScrape(url);

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMiB = () => {
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};
const heapBefore = heapMiB();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** 1% of the Deployments replaced by new versions, each with one pod replaced by a new version. */
let rv = N + 1;
const change = () => {
  for (let k = 0; k < N / 100; k++) {
    const i = Math.floor(Math.random() * N);
    cache[i] = deployment(i, rv++, REPLICAS - 1);
    const was = pods[i * REPLICAS];
    pods[i * REPLICAS] = pod(i, 0, `pod-v${rv}`, false);
    phases?.pod(pods[i * REPLICAS], was);
  }
};
try {
  const first = await scrape();
  const retainedMiB = heapMiB() - heapBefore;
  const unchanged: number[] = [];
  const changed: number[] = [];
  const blocked: number[] = [];
  const httpUnchanged: number[] = [];
  const httpChanged: number[] = [];
  let httpBytes = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const u = await scrape();
    unchanged.push(u.ms);
    change();
    const c = await scrape();
    changed.push(c.ms);
    blocked.push(u.blockedMs, c.blockedMs);
    const h = await overHttp();
    httpUnchanged.push(h.ms);
    httpBytes = h.bytes;
    change();
    httpChanged.push((await overHttp()).ms);
  }
  console.log(
    JSON.stringify({
      bench: 'metrics',
      deployments: N,
      families: DEPLOYMENTS_ONLY ? 'pacer_deployment_* only' : 'default, pacer_deployment_*, pacer_plan_phase_*',
      bytes: first.bytes,
      firstScrapeMs: Math.round(first.ms),
      firstScrapeLongestBlockMs: Math.round(first.blockedMs),
      unchangedScrapeMsMedian: Math.round(median(unchanged)),
      onePercentChangedScrapeMsMedian: Math.round(median(changed)),
      laterScrapesLongestBlockMs: Math.round(Math.max(...blocked)),
      httpUnchangedMsMedian: Math.round(median(httpUnchanged)),
      httpOnePercentChangedMsMedian: Math.round(median(httpChanged)),
      httpBytes,
      retainedHeapMiB: Number(retainedMiB.toFixed(1)),
      rounds: ROUNDS,
    }),
  );
} finally {
  server.close();
  server.closeAllConnections();
}
