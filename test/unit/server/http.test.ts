import { expect } from 'chai';
import { Registry, Counter } from 'prom-client';
import { parseBindAddress, startServers } from '../../../src/server/http.ts';
import type { RunningServers } from '../../../src/server/http.ts';

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

    it('/healthz is 200; /readyz is 503 until the caches sync, then 200', async () => {
      const base = `http://127.0.0.1:${servers!.healthPort}`;
      expect((await fetch(`${base}/healthz`)).status).to.equal(200);
      ready = false;
      expect((await fetch(`${base}/readyz`)).status).to.equal(503);
      ready = true;
      expect((await fetch(`${base}/readyz`)).status).to.equal(200);
      expect((await fetch(`${base}/nope`)).status).to.equal(404);
    });

    it('a disabled server is not started', async () => {
      const s = await startServers({ metrics: null, health: null, registry: new Registry(), ready: () => true });
      expect([s.metricsPort, s.healthPort]).to.deep.equal([undefined, undefined]);
      await s.close();
    });
  });
});
