// Where a process's memory and its pauses go, second by second: loaded into the controller by
// scale.bench.ts's --controller-memlog (`node --import bench/memsampler.ts ...`), it appends one
// JSON line a second to $PACER_MEMLOG: RSS; V8's heap committed (heapTotal) and in use (heapUsed);
// memory outside the heap (external, of it arrayBuffers: Buffers, undici's and the watch streams');
// each heap space's committed and used size (v8.getHeapSpaceStatistics(): new, old, code, large
// objects ...); the second's garbage collections (count and pause time by kind, from
// PerformanceObserver) and the event loop's longest delay (monitorEventLoopDelay), which tells a GC
// pause from a long synchronous task. RSS is sampled every 50 ms so the line carries the second's
// highest, with the heap's figures at that moment. On Linux the line also splits RSS as the kernel
// does (/proc/self/status): anonymous memory (the heap, malloc's arenas, stacks) and file pages
// (the node binary's code and data, mapped as it runs), so that what lies outside the heap can be
// told apart.

import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { PerformanceObserver, monitorEventLoopDelay } from 'node:perf_hooks';
import { constants } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';

const file = process.env.PACER_MEMLOG;
if (!file) throw new Error('bench/memsampler.ts: set PACER_MEMLOG to the file to write, got nothing');
writeFileSync(file, '');

const MiB = 2 ** 20;
const round = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;
const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

let gc: Record<string, { n: number; ms: number; maxMs: number }> = {};
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = KINDS[(e as unknown as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other';
    const g = (gc[kind] ??= { n: 0, ms: 0, maxMs: 0 });
    g.n++;
    g.ms += e.duration;
    g.maxMs = Math.max(g.maxMs, e.duration);
  }
}).observe({ entryTypes: ['gc'] });

const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();

/** RssAnon and RssFile of /proc/self/status in MiB, or nothing where there is no /proc. */
const kernelRss = (): { anon: number; file: number } | undefined => {
  let status: string;
  try {
    status = readFileSync('/proc/self/status', 'utf8');
  } catch {
    return undefined;
  }
  const kiB = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { anon: round(kiB('RssAnon') * 1024), file: round(kiB('RssFile') * 1024) };
};

const snapshot = () => {
  const m = process.memoryUsage();
  const k = kernelRss();
  return {
    rss: round(m.rss),
    ...(k ? { rssAnon: k.anon, rssFile: k.file } : {}),
    heapTotal: round(m.heapTotal),
    heapUsed: round(m.heapUsed),
    external: round(m.external),
    arrayBuffers: round(m.arrayBuffers),
    spaces: Object.fromEntries(
      getHeapSpaceStatistics().map((s) => [
        s.space_name.replace(/_space$/, ''),
        [round(s.space_size), round(s.space_used_size)],
      ]),
    ),
  };
};

let top = snapshot();
const t0 = Date.now();
setInterval(() => {
  const rss = process.memoryUsage.rss();
  if (rss / MiB > top.rss) top = snapshot();
}, 50).unref();
setInterval(() => {
  const line = {
    t: Math.round((Date.now() - t0) / 100) / 10,
    at: new Date().toISOString(),
    ...top,
    gc: Object.fromEntries(
      Object.entries(gc).map(([k, g]) => [k, { n: g.n, ms: Math.round(g.ms), maxMs: Math.round(g.maxMs) }]),
    ),
    loopMaxMs: Math.round(loop.max / 1e6),
  };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
  gc = {};
  loop.reset();
  top = snapshot();
}, 1000).unref();
