// Scale (issue "Scale"): N Deployments of 10 replicas on the simulated cluster with the controller
// as its own process, applied the way users do: one `kind: List` file through the real kubectl
// (hack/kube/build.sh builds it), then a second List giving every Deployment a new image. It
// records the time to create all (kubectl's apply, then every Deployment available) and to roll all
// (every Deployment complete on its new template), rollouts a minute, the controller's CPU
// seconds per rollout, its peak and steady RSS and heap (steady: after the caches are warm and
// the work is done, a full GC having had its chance), API writes per rollout by resource (from the
// simulated API server's audit log), and the latency from kubectl's write of a Deployment to the
// controller's first write about it (p50, p99, max).
// The controller's client is given --kube-api-qps/--kube-api-burst (default here 500/1000): at
// upstream's 20/30 the client's rate limiter, not the controller, sets the pace (about 270
// rollouts a minute at 4 writes each).
//   node bench/scale.bench.ts [--deployments 1000] [--replicas 10] [--qps 500] [--burst 1000]
// Prints one JSON line.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/fixtures/net.ts';
import type { ResourceRef } from '../src/sim/types.ts';
import { startSimWithCrds } from '../test/integration/fixtures/cluster.ts';
import { parseExposition, samples } from '../test/fixtures/prometheus.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v <= 0) {
    process.stderr.write(`error: ${name}: expected a positive integer, got ${JSON.stringify(process.argv[i + 1])}\n`);
    process.exit(2);
  }
  return v;
};
const N = arg('--deployments', 1000);
const REPLICAS = arg('--replicas', 10);
const QPS = arg('--qps', 500);
const BURST = arg('--burst', 1000);
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
const listFile = (image: string) => [
  'apiVersion: v1', 'kind: List', 'items:',
  ...Array.from({ length: N }, (_, i) => [
    '- apiVersion: pacer.dev/v1alpha1', '  kind: Deployment', `  metadata: {name: s${i}, namespace: ${NS}}`, '  spec:', `    replicas: ${REPLICAS}`,
    `    selector: {matchLabels: {app: s${i}}}`, '    template:', `      metadata: {labels: {app: s${i}}}`, `      spec: {containers: [{name: web, image: "${image}"}]}`,
  ].join('\n')),
].join('\n');

const { sim } = await startSimWithCrds({ nodes: Math.ceil((N * REPLICAS) / 100), podsPerNode: 110, podStartMs: 20, podReadyMs: 40 });
const dir = mkdtempSync(join(tmpdir(), 'pacer-scale-'));
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(kubeconfig, sim.kubeconfig);
const port = await freePort();
const child = spawn(process.execPath, [FIXTURE, 'controller', '--kubeconfig', kubeconfig, '--metrics-bind-address', `127.0.0.1:${port}`, '--metrics-secure=false',
  '--health-probe-bind-address', '0', '--api-bind-address', '0', '--webhook-bind-address', '0', '--leader-elect=false',
  '--kube-api-qps', String(QPS), '--kube-api-burst', String(BURST)],
{ stdio: ['ignore', 'ignore', process.env.PACER_DEBUG_CHILD ? 'inherit' : 'ignore'], env: { ...process.env, KUBECONFIG: '' } });

interface Scrape { rssMiB: number; heapMiB: number; cpuSeconds: number }
const scrape = async (): Promise<Scrape | undefined> => {
  try {
    const all = parseExposition(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
    const one = (name: string) => samples(all, name)[0]?.value ?? NaN;
    return { rssMiB: one('process_resident_memory_bytes') / 2 ** 20, heapMiB: one('nodejs_heap_size_used_bytes') / 2 ** 20, cpuSeconds: one('process_cpu_seconds_total') };
  } catch {
    return undefined;
  }
};
let peak = { rssMiB: 0, heapMiB: 0 };
let last: Scrape | undefined;
const sampler = setInterval(() => {
  void scrape().then((m) => {
    if (!m) return;
    last = m;
    peak = { rssMiB: Math.max(peak.rssMiB, m.rssMiB), heapMiB: Math.max(peak.heapMiB, m.heapMiB) };
  });
}, 500);

const kubectl = (...args: string[]) => new Promise<number>((resolve, reject) => {
  const c = spawn(KUBECTL, ['--kubeconfig', kubeconfig, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  c.on('error', reject);
  c.on('exit', (code) => resolve(code ?? 1));
});

type Dep = { metadata: { generation?: number }; spec: { replicas?: number; template?: { spec?: { containers?: Array<{ image?: string }> } } }; status?: { observedGeneration?: number; updatedReplicas?: number; availableReplicas?: number; replicas?: number } };
const done = (image: string) => {
  const all = sim.store.list(DEPLOYMENTS, NS).items as unknown as Dep[];
  return all.length === N && all.every((d) => d.spec.template?.spec?.containers?.[0]?.image === image && (d.status?.observedGeneration ?? 0) >= (d.metadata.generation ?? 0)
    && d.status?.updatedReplicas === REPLICAS && d.status?.availableReplicas === REPLICAS && d.status?.replicas === REPLICAS);
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
    if (e.userAgent.startsWith('kubectl') && e.resource === 'deployments' && e.name) kubectlWrites.set(e.name, t);
    if (!e.userAgent.startsWith('pacer-controller')) continue;
    const key = `${e.resource}${e.subresource ? `/${e.subresource}` : ''}`;
    writes[key] = (writes[key] ?? 0) + 1;
    const name = e.resource === 'deployments' ? e.name : e.resource === 'replicasets' ? e.name?.replace(/-[a-z0-9]+$/, '') : undefined;
    const at = name ? kubectlWrites.get(name) : undefined;
    if (name && at !== undefined && t >= at) {
      latencies.push(t - at);
      kubectlWrites.delete(name);
    }
  }
};
const auditTimer = setInterval(readAudit, 1000);

/** Applies `image` to every Deployment as one List; the seconds kubectl took and until every one is done. */
async function phase(image: string, name: string) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, listFile(image));
  const cpu0 = last?.cpuSeconds ?? 0;
  sim.audit.clear();
  writes = {};
  latencies.length = 0;
  const t0 = Date.now();
  const code = await kubectl('apply', '-f', file);
  if (code !== 0) throw new Error(`kubectl apply -f ${name}.yaml exited ${code}`);
  const applied = (Date.now() - t0) / 1000;
  log(`${name}: kubectl applied ${N} Deployments in ${applied.toFixed(1)} s`);
  await until(() => done(image), `${name} to converge`, 60 * 60_000);
  const seconds = (Date.now() - t0) / 1000;
  await sleep(1500); // the last scrape and audit entries
  readAudit();
  const perRollout = Object.fromEntries(Object.entries(writes).sort().map(([k, v]) => [k, Math.round((v / N) * 100) / 100]));
  const result = {
    kubectlApplySeconds: Math.round(applied * 10) / 10, convergedSeconds: Math.round(seconds * 10) / 10,
    rolloutsPerMinute: Math.round(N / (seconds / 60)), cpuSecondsPerRollout: Math.round((((last?.cpuSeconds ?? 0) - cpu0) / N) * 1000) / 1000,
    writesPerRollout: perRollout, writesPerRolloutTotal: Math.round((Object.values(writes).reduce((a, b) => a + b, 0) / N) * 100) / 100,
    firstWriteLatencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.length ? Math.max(...latencies) : null, n: latencies.length },
  };
  log(`${name}: converged in ${seconds.toFixed(1)} s: ${JSON.stringify(result)}`);
  return result;
}

/** RSS and heap once the work is done and the process has idled (V8 collects when idle). */
async function steady() {
  await sleep(15_000);
  const m = await scrape();
  return { rssMiB: Math.round(m?.rssMiB ?? NaN), heapMiB: Math.round(m?.heapMiB ?? NaN) };
}

try {
  for (let i = 0; !(await scrape()); i++) {
    if (i > 100) throw new Error('the controller did not serve /metrics');
    await sleep(200);
  }
  const started = Date.now();
  const create = await phase('app:1', 'create');
  const afterCreate = await steady();
  const roll = await phase('app:2', 'roll');
  const afterRoll = await steady();
  const roll2 = await phase('app:3', 'roll-again');
  const afterRoll2 = await steady();
  process.stdout.write(`${JSON.stringify({
    bench: 'scale', deployments: N, replicas: REPLICAS, kubeApiQps: QPS, kubeApiBurst: BURST, pods: sim.store.list({ group: '', version: 'v1', resource: 'pods' }, NS).items.length,
    create, roll, rollAgain: roll2,
    memoryMiB: { peakRss: Math.round(peak.rssMiB), peakHeap: Math.round(peak.heapMiB), steadyAfterCreate: afterCreate, steadyAfterRoll: afterRoll, steadyAfterSecondRoll: afterRoll2 },
    wallSeconds: Math.round((Date.now() - started) / 1000),
  })}\n`);
} finally {
  clearInterval(sampler);
  clearInterval(auditTimer);
  child.kill('SIGTERM');
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
}
