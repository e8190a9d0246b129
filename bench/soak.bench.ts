// The soak (issue "Reliability and security", item 4): the controller, its own process, under
// continuous churn on the simulated cluster for an hour (by default): N Deployments given a new
// image at a steady rate. Every sample period it records, from the controller's own /metrics
// (plain HTTP on 127.0.0.1 here), its resident memory, heap in use, event-loop delay (p99) and
// work-queue depth, and from the simulated API server's audit log the latency from each change to
// the controller's first write about it (p50, p99, max). Memory must be flat once the caches are
// warm: the summary gives the growth per hour over the second half of the run.
//   node bench/soak.bench.ts [--minutes 60] [--deployments 100] [--rate 2] [--sample-seconds 60]
// Prints one JSON line per sample and a summary line.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/fixtures/net.ts';
import type { KubeObject, ResourceRef } from '../src/sim/types.ts';
import { REF } from '../src/sim/resources.ts';
import { deploymentManifest, podTemplate, startSimWithCrds } from '../test/integration/fixtures/cluster.ts';
import { parseExposition, samples } from '../test/fixtures/prometheus.ts';
import { numberFlag } from './flags.ts';

const MINUTES = numberFlag('--minutes', 60, { min: 1 });
const N = numberFlag('--deployments', 100, { integer: true, min: 1 });
const RATE = numberFlag('--rate', 2, { min: 0.01 });
const SAMPLE_S = numberFlag('--sample-seconds', 60, { min: 1 });
const DEPLOYMENTS: ResourceRef = { group: 'pacer.dev', version: 'v1alpha1', resource: 'deployments' };
const FIXTURE = new URL('../test/integration/fixtures/pacer-controller.ts', import.meta.url).pathname;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const percentile = (xs: number[], p: number) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

const { sim } = await startSimWithCrds({
  nodes: Math.max(3, Math.ceil((N * 4) / 100)),
  podStartMs: 20,
  podReadyMs: 40,
});
const dir = mkdtempSync(join(tmpdir(), 'pacer-soak-'));
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(kubeconfig, sim.kubeconfig);
const port = await freePort();
const child = spawn(
  process.execPath,
  [
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
  ],
  { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, KUBECONFIG: '' } },
);

const scrape = async () => {
  const all = parseExposition(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
  const one = (name: string) => samples(all, name)[0]?.value ?? NaN;
  return {
    rssMiB: one('process_resident_memory_bytes') / 2 ** 20,
    heapMiB: one('nodejs_heap_size_used_bytes') / 2 ** 20,
    lagP99Ms: one('nodejs_eventloop_lag_p99_seconds') * 1000,
    queueDepth: samples(all, 'workqueue_depth').reduce((n, s) => n + s.value, 0),
  };
};

try {
  for (let i = 0; i < N; i++)
    sim.store.create(
      DEPLOYMENTS,
      'default',
      deploymentManifest('default', `s${i}`, { replicas: 3, image: 'app:1' }) as unknown as KubeObject,
    );
  // Warm: every Deployment complete once.
  for (;;) {
    const done = sim.store
      .list(DEPLOYMENTS, 'default')
      .items.filter((d) => (d.status as { availableReplicas?: number } | undefined)?.availableReplicas === 3).length;
    if (done === N) break;
    await sleep(500);
  }
  sim.audit.clear();
  const pending = new Map<string, number>(); // Deployment → when its latest change was made (ms)
  let latencies: number[] = [];
  const match = () => {
    const entries = sim.audit.entries();
    sim.audit.clear();
    for (const e of entries) {
      if (!e.userAgent.startsWith('pacer-controller') || ['get', 'list', 'watch'].includes(e.verb)) continue;
      const name =
        e.resource === 'deployments'
          ? e.name
          : e.resource === 'replicasets'
            ? e.name?.replace(/-[a-z0-9]+$/, '')
            : undefined;
      const at = name ? pending.get(name) : undefined;
      const t = Date.parse(e.time);
      if (name && at !== undefined && t >= at) {
        latencies.push(t - at);
        pending.delete(name);
      }
    }
  };
  const start = Date.now();
  const end = start + MINUTES * 60_000;
  let version = 1;
  let nextChange = start;
  let nextSample = start + SAMPLE_S * 1000;
  const series: Array<Record<string, number | null>> = [];
  while (Date.now() < end) {
    const now = Date.now();
    while (nextChange <= now) {
      const name = `s${Math.floor(Math.random() * N)}`;
      version++;
      sim.store.mutate(
        DEPLOYMENTS,
        'default',
        name,
        (x) => ({ ...x, spec: { ...(x.spec as object), template: podTemplate(name, `app:${version}`) } }) as KubeObject,
      );
      pending.set(name, Date.now());
      nextChange += 1000 / RATE;
    }
    match();
    if (now >= nextSample) {
      const m = await scrape();
      const row = {
        minute: Math.round(((now - start) / 60_000) * 10) / 10,
        ...Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Math.round(v * 10) / 10])),
        changes: latencies.length,
        latencyP50Ms: percentile(latencies, 50),
        latencyP99Ms: percentile(latencies, 99),
        latencyMaxMs: latencies.length ? Math.max(...latencies) : null,
        pods: sim.store.list(REF.pods, 'default').items.length,
      };
      series.push(row);
      process.stdout.write(`${JSON.stringify({ bench: 'soak', ...row })}\n`);
      latencies = [];
      nextSample += SAMPLE_S * 1000;
    }
    await sleep(20);
  }
  const second = series.slice(Math.floor(series.length / 2));
  const first = second[0];
  const last = second[second.length - 1];
  const hours = ((last?.minute ?? 0) - (first?.minute ?? 0)) / 60;
  const growth = (k: string) => (hours > 0 ? Math.round((((last[k] ?? 0) - (first[k] ?? 0)) / hours) * 10) / 10 : null);
  process.stdout.write(
    `${JSON.stringify({
      bench: 'soak',
      summary: true,
      minutes: MINUTES,
      deployments: N,
      changesPerSecond: RATE,
      rssMiB: {
        min: Math.min(...series.map((r) => r.rssMiB ?? Infinity)),
        max: Math.max(...series.map((r) => r.rssMiB ?? 0)),
      },
      rssGrowthMiBPerHourSecondHalf: growth('rssMiB'),
      heapGrowthMiBPerHourSecondHalf: growth('heapMiB'),
      latencyP99MsWorstSample: Math.max(...series.map((r) => r.latencyP99Ms ?? 0)),
      lagP99MsWorstSample: Math.max(...series.map((r) => r.lagP99Ms ?? 0)),
    })}\n`,
  );
} finally {
  child.kill('SIGTERM');
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
}
