// A request the API server answers "ask again later" (kube/client.ts): a 429 from API Priority and
// Fairness, or a 5xx carrying Retry-After, is sent again after that many seconds, as client-go's rest
// client does (checkWait; maxRetries 10): requests, watches and followed logs alike, through either
// connection (node:http, the controller's and the plugin's; client-node's fetch, for a kubeconfig
// that needs it). Any other answer is final, at once.

import { HttpMethod } from '@kubernetes/client-node';
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeClient, MAX_ATTEMPTS, REPLICASETS, retryAfter } from '../../../src/kube/client.ts';
import type { KubeClientOptions } from '../../../src/kube/client.ts';
import { loadKubeConfig } from '../../../src/kube/clientnode.ts';
import { KubeError } from '../../../src/kube/errors.ts';
import { HttpConnection } from '../../../src/kube/httpconnection.ts';

describe('kube/client: Retry-After, as client-go honours it', () => {
  describe('retryAfter: which answers ask to be asked again, and after how long', () => {
    const rows: Array<[number, string | undefined, number | undefined]> = [
      [429, '1', 1],
      [429, '0', 0],
      [503, '3', 3],
      [500, '2', 2],
      [429, undefined, undefined],
      [503, undefined, undefined],
      [409, '1', undefined],
      [404, '1', undefined],
      [200, '1', undefined],
      [429, 'Wed, 21 Oct 2026 07:28:00 GMT', undefined],
      [429, '-1', undefined],
      [429, '1.5', undefined],
    ];
    for (const [status, header, want] of rows)
      it(`${status} with Retry-After ${header === undefined ? '(none)' : JSON.stringify(header)} → ${want === undefined ? 'final' : `again after ${want} s`}`, () =>
        expect(
          retryAfter({ status, header: (name) => (name.toLowerCase() === 'retry-after' ? header : undefined) }),
        ).to.equal(want));
  });

  describe('a request answered 429 Retry-After: 0 is sent again', () => {
    let server: http.Server;
    let port: number;
    /** Per path: how many times to answer 429 before 200, and the requests seen. */
    const busy = new Map<string, number>();
    const seen: string[] = [];
    before(async () => {
      server = http.createServer((req, res) => {
        seen.push(`${req.method} ${req.url}`);
        const left = busy.get(req.url ?? '') ?? 0;
        if (req.url?.startsWith('/apis/apps/v1/namespaces/default/replicasets/') && left > 0) {
          busy.set(req.url, left - 1);
          res
            .writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '0' })
            .end(
              '{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","message":"Too many requests, please try again later.","code":429}',
            );
          return;
        }
        // A watch (or a followed log) whose first `left` openings are turned away, then one event.
        const stream = req.url?.includes('watch=true') ? 'watch' : req.url?.includes('follow=true') ? 'log' : undefined;
        if (stream !== undefined) {
          const turnAway = busy.get(stream) ?? 0;
          if (turnAway > 0) {
            busy.set(stream, turnAway - 1);
            res
              .writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '0' })
              .end('{"kind":"Status","code":429}');
          } else if (stream === 'watch')
            res
              .writeHead(200, { 'Content-Type': 'application/json' })
              .end('{"type":"ADDED","object":{"kind":"ReplicaSet","metadata":{"name":"web-1"}}}\n');
          else res.writeHead(200, { 'Content-Type': 'text/plain' }).end('started\n');
          return;
        }
        if (req.url?.endsWith('/gone'))
          res
            .writeHead(503, { 'Content-Type': 'application/json' })
            .end('{"kind":"Status","apiVersion":"v1","status":"Failure","message":"unavailable","code":503}');
        else
          res
            .writeHead(200, { 'Content-Type': 'application/json' })
            .end('{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-1"}}');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
    });
    after(() => {
      server.closeAllConnections();
      server.close();
    });

    const clients: Array<[string, (o?: KubeClientOptions) => KubeClient]> = [
      [
        "client-node's fetch (a kubeconfig that needs it)",
        (o) =>
          new KubeClient(
            loadKubeConfig({
              kubeconfigText: `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
            }),
            o,
          ),
      ],
      [
        "node:http (the controller's and the plugin's)",
        (o) =>
          new KubeClient(
            new HttpConnection({ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: false }, undefined),
            o,
          ),
      ],
    ];
    for (const [name, make] of clients) {
      it(`${name}: twice 429, then 200: three requests, the object returned; retries counted`, async () => {
        const retried: string[] = [];
        const path = `/apis/apps/v1/namespaces/default/replicasets/web-${name.length}`;
        busy.set(path, 2);
        seen.length = 0;
        const c = make({
          metrics: { observe: () => undefined, retried: (r) => retried.push(`${r.method} ${r.code}`) },
        });
        const rs = await c.getReplicaSet('default', `web-${name.length}`);
        expect(rs.metadata.name).to.equal('web-1');
        expect(seen).to.deep.equal([`GET ${path}`, `GET ${path}`, `GET ${path}`]);
        expect(retried).to.deep.equal(['GET 429', 'GET 429']);
      });

      it(`${name}: 429 at every attempt: ${MAX_ATTEMPTS} requests, then the 429 as a Transient error`, async () => {
        const path = `/apis/apps/v1/namespaces/default/replicasets/busy-${name.length}`;
        busy.set(path, 1000);
        seen.length = 0;
        const err = await make()
          .getReplicaSet('default', `busy-${name.length}`)
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        expect(err).to.be.instanceOf(KubeError);
        expect((err as KubeError).code).to.equal(429);
        expect((err as KubeError).kind).to.equal('Transient');
        expect(seen).to.have.length(MAX_ATTEMPTS);
      });

      it(`${name}: a write sent again asks the write gate again: leadership lost meanwhile, it is not sent`, async () => {
        const path = `/apis/apps/v1/namespaces/default/replicasets/fenced-${name.length}`;
        busy.set(path, 1);
        seen.length = 0;
        let leading = true;
        const c = make({
          writeGate: () => (leading ? undefined : 'not the leader'),
          metrics: { observe: () => (leading = false) },
        });
        const err = await c
          .request(HttpMethod.PUT, path, { body: { metadata: { name: `fenced-${name.length}` } } })
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        expect((err as KubeError).kind).to.equal('NotLeader');
        expect(seen).to.deep.equal([`PUT ${path}`]);
      });

      it(`${name}: a watch turned away twice is opened again and delivers its events; retries counted`, async () => {
        busy.set('watch', 2);
        seen.length = 0;
        const retried: string[] = [];
        const events: string[] = [];
        const c = make({
          metrics: { observe: () => undefined, retried: (r) => retried.push(`${r.method} ${r.code}`) },
        });
        await c.watch<{ metadata: { name: string } }>(REPLICASETS, 'default', { resourceVersion: '7' }, (e) =>
          events.push(`${e.type} ${e.object.metadata.name}`),
        );
        expect(events).to.deep.equal(['ADDED web-1']);
        expect(seen.filter((r) => r.includes('watch=true'))).to.have.length(3);
        expect(retried).to.deep.equal(['GET 429', 'GET 429']);
      });

      it(`${name}: a watch turned away at every attempt fails after ${MAX_ATTEMPTS} openings with the 429`, async () => {
        busy.set('watch', 1000);
        seen.length = 0;
        const err = await make()
          .watch(REPLICASETS, 'default', { resourceVersion: '7' }, () => undefined)
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        busy.set('watch', 0);
        expect((err as KubeError).code).to.equal(429);
        expect(seen).to.have.length(MAX_ATTEMPTS);
      });

      it(`${name}: a followed log turned away once is opened again and its text read`, async () => {
        busy.set('log', 1);
        seen.length = 0;
        let text = '';
        await make().streamText(
          '/api/v1/namespaces/default/pods/web-1/log?follow=true',
          'logs web-1',
          (t) => (text += t),
          new AbortController().signal,
        );
        expect(text).to.equal('started\n');
        expect(seen).to.have.length(2);
      });

      it(`${name}: a 503 without Retry-After is final at once`, async () => {
        seen.length = 0;
        const err = await make()
          .request(HttpMethod.GET, '/apis/apps/v1/namespaces/default/replicasets/gone')
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        expect((err as KubeError).code).to.equal(503);
        expect(seen).to.have.length(1);
      });
    }
  });
});
