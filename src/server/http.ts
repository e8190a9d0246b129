// Small HTTP servers: /metrics on the metrics address, /healthz and /readyz on the health probe
// address (readyz answers 200 once the caches have synced, 503 before), the read-only views
// (GET /v2/deployments, planviews.ts) on the API address. Secure metrics (`metricsSecurity`) are
// served as controller-runtime's SecureServing with its authentication and authorization filter
// serves them: HTTPS (TLS 1.2 or later), every request authenticated and authorised for its path
// (auth.ts). Bind addresses are written
// as controller-runtime's flags take them: ":8443" (every interface), "127.0.0.1:8443",
// "[::1]:8443", port 0 for any free port, and "0" to switch the server off.

import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream';
import type { Writable } from 'node:stream';
import zlib from 'node:zlib';
import { Histogram, type Registry } from 'prom-client';
import { METRICS_HANDLER_DURATION } from '../observe/metrics.ts';
import { apiHandler } from './planviews.ts';
import type { ApiViews } from './planviews.ts';
import { guarded } from './auth.ts';
import type { Reviews } from './auth.ts';
import type { ServingCertificate } from './certs.ts';

export interface BindAddress {
  /** undefined = every interface. */
  host?: string;
  port: number;
}

/** Parses a bind address; null means disabled ("0"). Throws with a message naming the problem. */
export function parseBindAddress(s: string): BindAddress | null {
  const v = s.trim();
  if (v === '0') return null;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(v);
  if (!m)
    throw new Error(
      `"${s}" is not a bind address (expected [host]:port, e.g. ":8443" or "127.0.0.1:8443", or "0" to disable)`,
    );
  const port = Number(m[3]);
  if (port > 65535) throw new Error(`"${s}": port ${port} is out of range (0-65535)`);
  const host = m[1] ?? m[2];
  return { host: host === '' ? undefined : host, port };
}

export interface ServersOptions {
  metrics: BindAddress | null;
  /** Serve /metrics over HTTPS with this certificate, to callers the reviews let in; absent: plain HTTP to anyone. */
  metricsSecurity?: { reviews: Reviews; certificate: ServingCertificate };
  health: BindAddress | null;
  registry: Registry;
  ready: () => boolean;
  /** Why not ready, for /readyz's body (default: "caches not synced"). */
  notReady?: () => string | undefined;
  /** The views' address (null or absent: off) and what they read. */
  api?: BindAddress | null;
  views?: ApiViews;
}

export interface RunningServers {
  metricsPort?: number;
  /** Whether /metrics is served over HTTPS behind the reviews. */
  metricsSecure?: boolean;
  healthPort?: number;
  apiPort?: number;
  close(): Promise<void>;
}

function listen(server: http.Server | https.Server, addr: BindAddress): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(addr.port, addr.host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function close(server: http.Server | https.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * Whether an Accept-Encoding header takes gzip: named with a q above 0, or `*` with a q above 0 and
 * gzip not refused by name (RFC 9110, section 12.5.3).
 */
export function acceptsGzip(header: string | undefined): boolean {
  let star = false;
  for (const part of (header ?? '').split(',')) {
    const [coding, ...params] = part.split(';').map((x) => x.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (coding === 'gzip' || coding === 'x-gzip') return weight > 0;
    if (coding === '*') star = weight > 0;
  }
  return star;
}

/**
 * /metrics: the registry's text, gzipped when the scraper takes gzip (Prometheus asks for it at every
 * scrape). At 10,000 Deployments the text is 18 MiB and gzips to under 1 MiB in about 40 ms at level
 * 1, on libuv's thread pool, not the event loop (docs/metrics.md#compression). It is sent in the
 * pieces a TextRegistry makes (observe/metrics.ts: whole lines, 4 MiB or so each) as they come,
 * so a scrape does not hold the whole text, its bytes and its compression at once. A failure before
 * the first piece is a 500; one after it ends the response unfinished, which a scraper takes as a
 * failed scrape.
 */
export function metricsHandler(registry: Registry): http.RequestListener {
  // Each answer sent whole is timed into the registry's handler family, when it has one.
  const timed = registry.getSingleMetric(METRICS_HANDLER_DURATION);
  const duration = timed instanceof Histogram ? timed : undefined;
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    if (duration) {
      const start = performance.now();
      res.once('finish', () => duration.observe((performance.now() - start) / 1000));
    }
    void sendMetrics(registry, acceptsGzip(req.headers['accept-encoding']), res);
  };
}

/** A registry that gives its text in pieces (observe/metrics.ts's TextRegistry). */
interface Piecewise {
  textPieces(): AsyncIterable<string>;
}

async function* piecesOf(registry: Registry): AsyncGenerator<string> {
  if ('textPieces' in registry) yield* (registry as unknown as Piecewise).textPieces();
  else yield await registry.metrics();
}

async function sendMetrics(registry: Registry, gzip: boolean, res: http.ServerResponse): Promise<void> {
  const pieces = piecesOf(registry);
  let next: IteratorResult<string>;
  try {
    next = await pieces.next();
  } catch (err) {
    res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`${err instanceof Error ? err.message : String(err)}\n`);
    return;
  }
  res.writeHead(200, {
    'Content-Type': registry.contentType,
    ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
    Vary: 'Accept-Encoding',
  });
  // One output chunk of up to 1 MiB, more than a piece compresses to: with zlib's 16 KiB, the
  // 0.75 MiB took some 50 trips between the pool and the event loop, each waiting its turn behind
  // the controller's work (0.6-0.9 s a scrape at 10,000 while paced, against 0.25 s plain).
  let out: Writable = res;
  if (gzip) {
    const zipped = zlib.createGzip({ level: 1, chunkSize: 1 << 20 });
    pipeline(zipped, res, () => {}); // a failure on either side destroys both; the scraper sees it
    out = zipped;
  }
  try {
    for (; !next.done; next = await pieces.next()) {
      if (res.destroyed) break; // the scraper went away
      if (!out.write(next.value)) await drainedOrClosed(out);
    }
    if (res.destroyed) await pieces.return(undefined);
    else out.end();
  } catch (err) {
    res.destroy(err instanceof Error ? err : new Error(String(err)));
  }
}

function drainedOrClosed(w: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      w.off('drain', done);
      w.off('close', done);
      resolve();
    };
    w.on('drain', done);
    w.on('close', done);
  });
}

export function healthHandler(ready: () => boolean, notReady?: () => string | undefined): http.RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz' || path === '/livez') {
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok\n');
    } else if (path === '/readyz') {
      if (ready()) res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok\n');
      else res.writeHead(503, { 'Content-Type': 'text/plain' }).end(`${notReady?.() ?? 'caches not synced'}\n`);
    } else {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
    }
  };
}

/** Starts the enabled servers; on failure to listen, closes what started and rethrows. */
export async function startServers(opts: ServersOptions): Promise<RunningServers> {
  const started: Array<http.Server | https.Server> = [];
  const out: RunningServers = { close: () => Promise.all(started.map(close)).then(() => undefined) };
  try {
    if (opts.metrics) {
      const sec = opts.metricsSecurity;
      const s = sec
        ? https.createServer(
            { ...sec.certificate, minVersion: 'TLSv1.2' },
            guarded(sec.reviews, metricsHandler(opts.registry)),
          )
        : http.createServer(metricsHandler(opts.registry));
      out.metricsPort = await listen(s, opts.metrics);
      out.metricsSecure = sec !== undefined;
      started.push(s);
    }
    if (opts.health) {
      const s = http.createServer(healthHandler(opts.ready, opts.notReady));
      out.healthPort = await listen(s, opts.health);
      started.push(s);
    }
    if (opts.api && opts.views) {
      const s = http.createServer(apiHandler(opts.views));
      out.apiPort = await listen(s, opts.api);
      started.push(s);
    }
  } catch (err) {
    await out.close();
    throw err;
  }
  return out;
}
