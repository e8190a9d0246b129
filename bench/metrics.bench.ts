// One /metrics scrape at N Deployments (default 10,000): the pacer_deployment_* families (11, in
// kube-state-metrics' shape, 21 samples a Deployment with two conditions) rendered from the cache,
// as the controller's /metrics handler renders them. Three figures: the first scrape (every
// Deployment rendered), a scrape with nothing changed, and one after 1% of the Deployments changed
// (new objects, as an informer replaces a cached object on each event); and the heap the rendered
// lines keep between scrapes (after a full GC, against the same heap before the first scrape).
// Prints one JSON line.
//   npx node bench/metrics.bench.ts [deployments] [rounds]

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Deployment } from '../src/api/types.ts';
import { createMetrics } from '../src/observe/metrics.ts';

const N = Number(process.argv[2] ?? 10_000);
const ROUNDS = Number(process.argv[3] ?? 5);

function deployment(i: number, rv: number, available: number): Deployment {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name: `app-${i}`, namespace: `team-${i % 50}`, generation: 2, resourceVersion: String(rv) },
    spec: { replicas: 10, selector: { matchLabels: { app: `app-${i}` } }, template: {} },
    status: {
      observedGeneration: 2,
      replicas: 10,
      updatedReplicas: 10,
      readyReplicas: available,
      availableReplicas: available,
      unavailableReplicas: 10 - available,
      conditions: [
        { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' },
        { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
      ],
    },
  };
}

const cache: Deployment[] = Array.from({ length: N }, (_, i) => deployment(i, i + 1, 10));
const m = createMetrics({ defaultMetrics: false });
m.trackDeployments(() => cache);

async function scrape(): Promise<{ ms: number; bytes: number }> {
  const t = performance.now();
  const text = await m.registry.metrics();
  return { ms: performance.now() - t, bytes: Buffer.byteLength(text) };
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMiB = () => {
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};
const heapBefore = heapMiB();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const first = await scrape();
const retainedMiB = heapMiB() - heapBefore;
const unchanged: number[] = [];
const changed: number[] = [];
let rv = N + 1;
for (let r = 0; r < ROUNDS; r++) {
  unchanged.push((await scrape()).ms);
  for (let k = 0; k < N / 100; k++) {
    const i = Math.floor(Math.random() * N);
    cache[i] = deployment(i, rv++, 9);
  }
  changed.push((await scrape()).ms);
}
console.log(
  JSON.stringify({
    bench: 'metrics',
    deployments: N,
    bytes: first.bytes,
    firstScrapeMs: Math.round(first.ms),
    unchangedScrapeMsMedian: Math.round(median(unchanged)),
    onePercentChangedScrapeMsMedian: Math.round(median(changed)),
    retainedHeapMiB: Number(retainedMiB.toFixed(1)),
    rounds: ROUNDS,
  }),
);
