// The dashboard at N Deployments (default 1,000, one replica each) on the simulated cluster: the
// controller and the dashboard's server in this process (the server as `kubectl pacer dashboard -A`
// serves it, through the simulated cluster's kubeconfig), the page in Debian's chromium through
// playwright-core (headless). Figures:
//   * load: from navigation until the home page shows "N of N" (the snapshot drawn);
//   * while every Deployment rolls to a new image (patched through the API server as fast as the
//     client goes): the page's long tasks (over 50 ms, the browser's PerformanceObserver: how long
//     the page could not answer a click), and an interaction every 500 ms, a click on the pager's
//     next/previous whose latency is until the page number shown changes (on the page's clock,
//     the next animation frame that shows it);
//   * until the page shows every Deployment complete on the new revision, from the first patch.
// Prints one JSON line.
//   node bench/dashboard.bench.ts [--deployments 1000]

import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { DEPLOYMENTS, KubeClient } from '../src/kube/client.ts';
import { loadKubeConfig } from '../src/kube/clientnode.ts';
import { serveDashboard } from '../src/plugin/dashboard.ts';
import {
  createNamespace,
  deploymentManifest,
  startSimWithCrds,
  startTestController,
} from '../test/integration/fixtures/cluster.ts';
import { numberFlag } from './flags.ts';

const N = numberFlag('--deployments', 1000, { integer: true, min: 1 });
const NAMESPACES = 10;

let chrome: string;
try {
  chrome = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
} catch {
  process.stderr.write("error: Debian's chromium is not installed (scripts/ensure-tools.sh installs it)\n");
  process.exit(2);
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const at = (xs: number[], q: number) =>
  xs.length === 0 ? 0 : sorted(xs)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

const { sim, client } = await startSimWithCrds({ nodes: 20, podStartMs: 100, podReadyMs: 200 });
const controller = await startTestController(sim.kubeconfig, { workers: 5, kubeApiQps: 500, kubeApiBurst: 1000 });
// The dashboard's client as the plugin makes it (no client-side limit: a list and its watches).
const dashboardClient = new KubeClient(loadKubeConfig({ kubeconfigText: sim.kubeconfig }), {
  userAgent: 'pacer-dashboard-bench',
});
const quiet = { write: () => true } as unknown as NodeJS.WritableStream;
const dashboard = await serveDashboard(
  dashboardClient,
  { stdout: quiet, stderr: quiet },
  { address: '127.0.0.1', port: 0, namespace: undefined, readOnly: false },
);
const browser = await chromium.launch({ executablePath: chrome, headless: true });
try {
  for (let ns = 0; ns < NAMESPACES; ns++) createNamespace(sim, `team-${ns}`);
  const names = Array.from({ length: N }, (_, i) => ({ ns: `team-${i % NAMESPACES}`, name: `app-${i}` }));
  const inBatches = async (fn: (x: { ns: string; name: string }) => Promise<unknown>) => {
    for (let i = 0; i < names.length; i += 50) await Promise.all(names.slice(i, i + 50).map(fn));
  };
  await inBatches(({ ns, name }) => client.create(DEPLOYMENTS, ns, deploymentManifest(ns, name, { replicas: 1 })));

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  // Functions the browser runs (this file is type-checked without the DOM's types: `page` is what
  // the page's globals are seen as). Not strings: the page's Content-Security-Policy forbids eval.
  type PageGlobals = {
    document: { querySelector(s: string): { textContent: string | null; click(): void } | null };
    performance: { now(): number };
    requestAnimationFrame(cb: () => void): void;
    __longTasks: number[];
    PerformanceObserver: new (
      cb: (l: { getEntries(): Array<{ duration: number }> }) => void,
    ) => { observe(o: { type: string; buffered: boolean }): void };
  };
  await page.addInitScript(() => {
    const g = globalThis as unknown as PageGlobals;
    g.__longTasks = [];
    new g.PerformanceObserver((l) => {
      for (const e of l.getEntries()) g.__longTasks.push(e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  const takeLongTasks = () => page.evaluate(() => (globalThis as unknown as PageGlobals).__longTasks.splice(0));
  const textIs = (selector: string, text: string) =>
    page.waitForFunction(
      ([sel, want]) => (globalThis as unknown as PageGlobals).document.querySelector(sel)?.textContent === want,
      [selector, text] as const,
      { timeout: 900_000, polling: 100 },
    );
  const loadStart = Date.now();
  await page.goto(dashboard.server.url);
  await textIs('.shown', `${N} of ${N}`);
  const loadMs = Date.now() - loadStart;
  const loadLongTasks = await takeLongTasks();

  // Roll every Deployment; meanwhile click the pager every 500 ms and time the answer.
  const rollStart = Date.now();
  let rolling = true;
  const clicks: number[] = [];
  // A click on the pager inside the page and the time until the page number shown has changed,
  // on the page's own clock (Playwright's own waits for a button to be clickable left out).
  const clickOnce = (selector: string) =>
    page.evaluate(
      (sel) =>
        new Promise<number>((resolve) => {
          const g = globalThis as unknown as PageGlobals;
          const label = () => g.document.querySelector('.pager .page')?.textContent;
          const before = label();
          const t = g.performance.now();
          g.document.querySelector(sel)?.click();
          const check = () => (label() !== before ? resolve(g.performance.now() - t) : g.requestAnimationFrame(check));
          g.requestAnimationFrame(check);
        }),
      selector,
    );
  // (A page without a pager, an older build measured for comparison, gets no clicks.)
  const pager = (await page.$('.pager')) !== null;
  const clicking = (async () => {
    let forward = true;
    while (rolling && pager) {
      clicks.push(await clickOnce(forward ? 'button[data-page="next"]' : 'button[data-page="previous"]'));
      forward = !forward;
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  await inBatches(({ ns, name }) =>
    client.patch(
      DEPLOYMENTS,
      ns,
      name,
      { spec: { template: { spec: { containers: [{ name, image: 'nginx:2' }] } } } },
      'merge',
    ),
  );
  const patchedMs = Date.now() - rollStart;
  await textIs('[data-count="complete"] .n', String(N));
  const rolledMs = Date.now() - rollStart;
  rolling = false;
  await clicking;
  const rollLongTasks = await takeLongTasks();
  process.stdout.write(
    `${JSON.stringify({
      bench: 'dashboard',
      deployments: N,
      loadMs,
      loadLongTasks: { count: loadLongTasks.length, maxMs: Math.round(Math.max(0, ...loadLongTasks)) },
      patchAllMs: patchedMs,
      allCompleteOnPageMs: rolledMs,
      rollLongTasks: {
        count: rollLongTasks.length,
        totalMs: Math.round(rollLongTasks.reduce((a, b) => a + b, 0)),
        p99Ms: Math.round(at(rollLongTasks, 0.99)),
        maxMs: Math.round(Math.max(0, ...rollLongTasks)),
      },
      clickMs: {
        count: clicks.length,
        p50: Math.round(at(clicks, 0.5)),
        p99: Math.round(at(clicks, 0.99)),
        max: Math.round(Math.max(0, ...clicks)),
      },
    })}\n`,
  );
} finally {
  await browser.close();
  await dashboard.stop();
  await controller.stop();
  await sim.stop();
}
