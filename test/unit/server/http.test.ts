import { expect } from 'chai';
import { Registry, Counter } from 'prom-client';
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { acceptsGzip, parseBindAddress, startServers } from '../../../src/server/http.ts';
import type { RunningServers } from '../../../src/server/http.ts';
import { createMetrics } from '../../../src/observe/metrics.ts';

describe('server/http', () => {
  describe('bind addresses as controller-runtime flags take them', () => {
    const ok: Array<[string, object | null]> = [
      [':8080', { host: undefined, port: 8080 }],
      ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
      ['0.0.0.0:9443', { host: '0.0.0.0', port: 9443 }],
      ['localhost:8081', { host: 'localhost', port: 8081 }],
      ['[::1]:8080', { host: '::1', port: 8080 }],
      ['[::]:80', { host: '::', port: 80 }],
      ['0', null],
      [' :8080 ', { host: undefined, port: 8080 }],
    ];
    for (const [input, want] of ok) {
      it(`"${input}" → ${JSON.stringify(want)}`, () => expect(parseBindAddress(input)).to.deep.equal(want));
    }
    const bad: Array<[string, RegExp]> = [
      ['8080', /not a bind address/],
      ['', /not a bind address/],
      [':http', /not a bind address/],
      [':70000', /out of range/],
      ['::1:8080', /not a bind address/],
      ['host:', /not a bind address/],
    ];
    for (const [input, msg] of bad) {
      it(`"${input}" is refused`, () => expect(() => parseBindAddress(input)).to.throw(msg));
    }
  });

  describe('Accept-Encoding: does the scraper take gzip', () => {
    const rows: Array<[string | undefined, boolean]> = [
      // What Prometheus sends.
      ['gzip', true],
      ['gzip, deflate, br', true],
      ['deflate, GZIP;q=0.5', true],
      ['gzip;q=0', false],
      ['gzip; q=0.000', false],
      ['identity', false],
      ['*', true],
      ['*, gzip;q=0', false],
      ['*;q=0', false],
      ['', false],
      [undefined, false],
    ];
    for (const [header, want] of rows)
      it(`${JSON.stringify(header)} → ${want}`, () => expect(acceptsGzip(header)).to.equal(want));
  });

  describe('servers', () => {
    let servers: RunningServers | undefined;
    let ready = false;
    before(async () => {
      const registry = new Registry();
      new Counter({
        name: 'controller_runtime_reconcile_total',
        help: 'h',
        labelNames: ['controller', 'result'],
        registers: [registry],
      }).inc({ controller: 'deployment', result: 'success' });
      servers = await startServers({
        metrics: { host: '127.0.0.1', port: 0 },
        health: { host: '127.0.0.1', port: 0 },
        registry,
        ready: () => ready,
      });
    });
    after(async () => {
      await servers?.close();
    });

    it('serves /metrics in the Prometheus text format', async () => {
      const res = await fetch(`http://127.0.0.1:${servers!.metricsPort}/metrics`);
      expect(res.status).to.equal(200);
      expect(await res.text()).to.contain(
        'controller_runtime_reconcile_total{controller="deployment",result="success"} 1',
      );
    });

    /** GET /metrics with `acceptEncoding`, the body as sent (not decoded). */
    const raw = (acceptEncoding?: string) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const req = http.get(
          {
            host: '127.0.0.1',
            port: servers!.metricsPort,
            path: '/metrics',
            headers: acceptEncoding === undefined ? {} : { 'Accept-Encoding': acceptEncoding },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
      });

    it('/metrics is gzipped for a scraper that takes gzip (as Prometheus asks), plain otherwise', async () => {
      const line = 'controller_runtime_reconcile_total{controller="deployment",result="success"} 1';
      const zipped = await raw('gzip');
      expect(zipped.headers['content-encoding']).to.equal('gzip');
      expect(zipped.headers.vary).to.equal('Accept-Encoding');
      expect(gunzipSync(zipped.body).toString()).to.contain(line);
      for (const header of [undefined, 'gzip;q=0', 'identity']) {
        const plain = await raw(header);
        expect(plain.headers['content-encoding'], String(header)).to.equal(undefined);
        expect(plain.body.toString(), String(header)).to.contain(line);
      }
    });

    it('/healthz is 200; /readyz is 503 until the caches sync, then 200', async () => {
      const base = `http://127.0.0.1:${servers!.healthPort}`;
      expect((await fetch(`${base}/healthz`)).status).to.equal(200);
      ready = false;
      expect((await fetch(`${base}/readyz`)).status).to.equal(503);
      ready = true;
      expect((await fetch(`${base}/readyz`)).status).to.equal(200);
      expect((await fetch(`${base}/nope`)).status).to.equal(404);
    });

    describe("a registry that gives its text in pieces (the controller's) is sent piece by piece", () => {
      /** A registry whose scrape yields `pieces` in order; an Error is thrown where it stands. */
      class Pieces extends Registry {
        readonly pieces: Array<string | Error>;
        constructor(pieces: Array<string | Error>) {
          super();
          this.pieces = pieces;
        }
        async *textPieces(): AsyncGenerator<string> {
          for (const p of this.pieces) {
            await new Promise((r) => setImmediate(r));
            if (p instanceof Error) throw p;
            yield p;
          }
        }
      }
      /** A metrics server alone, on `registry`. */
      const serve = (registry: Registry) =>
        startServers({ metrics: { host: '127.0.0.1', port: 0 }, health: null, registry, ready: () => true });
      /** GET /metrics on `port`, taking gzip or not as `acceptEncoding` says. */
      const scrape = (
        port: number | undefined,
        acceptEncoding: string | undefined,
        onResponse: (res: http.IncomingMessage) => void,
      ) =>
        http.get(
          {
            host: '127.0.0.1',
            port,
            path: '/metrics',
            headers: acceptEncoding === undefined ? {} : { 'Accept-Encoding': acceptEncoding },
          },
          onResponse,
        );
      /** GET /metrics of a server on `registry`: status, headers, body as sent, and whether it arrived whole. */
      const get = async (registry: Registry, acceptEncoding?: string) => {
        const s = await serve(registry);
        try {
          return await new Promise<{
            status?: number;
            headers: http.IncomingHttpHeaders;
            body: Buffer;
            complete: boolean;
          }>((resolve) => {
            const req = scrape(s.metricsPort, acceptEncoding, (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('error', () => {});
              res.on('close', () =>
                resolve({
                  status: res.statusCode,
                  headers: res.headers,
                  body: Buffer.concat(chunks),
                  complete: res.complete,
                }),
              );
            });
            req.on('error', () => resolve({ headers: {}, body: Buffer.alloc(0), complete: false }));
          });
        } finally {
          await s.close();
        }
      };

      it('plain and gzipped, the pieces in order, whole', async () => {
        const plain = await get(new Pieces(['# HELP a h\n', '\n\n# HELP b h\n']));
        expect([plain.status, plain.complete, plain.body.toString()]).to.deep.equal([
          200,
          true,
          '# HELP a h\n\n\n# HELP b h\n',
        ]);
        const zipped = await get(new Pieces(['# HELP a h\n', '\n\n# HELP b h\n']), 'gzip');
        expect(zipped.headers['content-encoding']).to.equal('gzip');
        expect([zipped.status, zipped.complete]).to.deep.equal([200, true]);
        expect(gunzipSync(zipped.body).toString()).to.equal('# HELP a h\n\n\n# HELP b h\n');
      });

      it('a failure before the first piece is a 500 naming it; after it, the response ends unfinished', async () => {
        const before = await get(new Pieces([new Error('listing the Deployments: boom')]));
        expect([before.status, before.body.toString()]).to.deep.equal([500, 'listing the Deployments: boom\n']);
        for (const encoding of [undefined, 'gzip']) {
          const after = await get(new Pieces(['# HELP a h\n', new Error('boom')]), encoding);
          expect(after.complete, `${encoding}: a scraper must not take a partial text as the whole`).to.equal(false);
        }
      });

      it('a scraper that goes away mid-scrape ends it: no more pieces are made, and the server goes on', async () => {
        for (const encoding of [undefined, 'gzip']) {
          let made = 0;
          let finished = false;
          // Pieces of 1 MiB, more than a socket takes before it waits for the reader: the server
          // must wait for the scraper between pieces, and see it go.
          const registry = new (class extends Registry {
            async *textPieces(): AsyncGenerator<string> {
              try {
                for (let i = 0; i < 1_000; i++) {
                  made++;
                  yield `# HELP f${i} ${'x'.repeat(1 << 20)}\n`;
                  await new Promise((r) => setImmediate(r));
                }
              } finally {
                finished = true;
              }
            }
          })();
          const s = await serve(registry);
          try {
            await new Promise<void>((resolve, reject) => {
              const req = scrape(s.metricsPort, encoding, (res) => {
                res.once('data', () => {
                  req.destroy(); // gone after the first bytes
                  resolve();
                });
              });
              req.on('error', () => {});
              setTimeout(() => reject(new Error('no bytes')), 5_000).unref();
            });
            for (let i = 0; i < 200 && !finished; i++) await new Promise((r) => setTimeout(r, 10));
            expect(finished, `${encoding}: the scrape was ended`).to.equal(true);
            expect(made, `${encoding}: pieces made`).to.be.below(1_000);
            const again = await fetch(`http://127.0.0.1:${s.metricsPort}/nope`);
            expect(again.status).to.equal(404);
          } finally {
            await s.close();
          }
        }
      });
    });

    it("each answer of the controller's registry is timed into pacer_metrics_handler_duration_seconds; other paths are not", async () => {
      const m = createMetrics({ defaultMetrics: false });
      const own = await startServers({
        metrics: { host: '127.0.0.1', port: 0 },
        health: { host: '127.0.0.1', port: 0 },
        registry: m.registry,
        ready: () => true,
      });
      try {
        const url = `http://127.0.0.1:${own.metricsPort}`;
        const count = (text: string) =>
          Number(/^pacer_metrics_handler_duration_seconds_count (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
        expect(count(await (await fetch(`${url}/metrics`)).text()), 'none before the first').to.equal(0);
        expect((await fetch(`${url}/nothing`)).status).to.equal(404);
        const second = await (await fetch(`${url}/metrics`, { headers: { 'Accept-Encoding': 'gzip' } })).text();
        expect(count(second), 'the first answer, not the 404').to.equal(1);
        const third = await (await fetch(`${url}/metrics`)).text();
        expect(count(third)).to.equal(2);
        const sum = Number(/^pacer_metrics_handler_duration_seconds_sum (\S+)$/m.exec(third)?.[1]);
        expect(sum).to.be.greaterThan(0);
        expect(third).to.contain('pacer_metrics_handler_duration_seconds_bucket{le="0.5"}');
      } finally {
        await own.close();
      }
    });

    it('a disabled server is not started', async () => {
      const s = await startServers({ metrics: null, health: null, registry: new Registry(), ready: () => true });
      expect([s.metricsPort, s.healthPort]).to.deep.equal([undefined, undefined]);
      await s.close();
    });
  });
});
