// The kubectl plugin's connection (plugin/options.ts connect → kube/httpconnection.ts, or
// client-node for what needs it): each kubeconfig credential reaches a local API server as the
// header or client certificate it stands for, failures read as kubectl's, and watches stream.

import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient, PODS } from '../../../src/kube/client.ts';
import { KubeError } from '../../../src/kube/errors.ts';
import { HttpConnection } from '../../../src/kube/httpconnection.ts';
import { connect } from '../../../src/plugin/options.ts';
import { opensslSelfSigned } from '../../fixtures/openssl.ts';
import { requireTool } from '../../fixtures/tools.ts';

interface Seen {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  body: string;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as AddressInfo).port;
}

function stop(server: Server): void {
  server.closeAllConnections();
  server.close();
}

const io = { stdout: { write: () => true }, stderr: { write: () => true } };

/** A kubeconfig file in `dir` for `server` and the user fields `user`, as JSON (which is YAML). */
function kubeconfig(dir: string, server: string, user: Record<string, unknown>, cluster: Record<string, unknown> = {}) {
  const file = join(dir, 'config');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server, ...cluster } }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: 'prod' } }],
      'current-context': 'x',
    }),
  );
  return file;
}

describe('kube/httpconnection: the plugin over node:http and node:https', () => {
  let dir: string;
  let server: Server;
  let port: number;
  const seen: Seen[] = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pacer-httpconn-'));
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        if (req.url?.includes('watch=true')) {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"MODI');
          res.end('FIED","object":{"metadata":{"name":"b"}}}\n');
          return;
        }
        if (req.url === '/api/v1/namespaces/prod/pods/missing') {
          res.writeHead(404, { 'Content-Type': 'application/json' });
          res.end('{"kind":"Status","reason":"NotFound","message":"pods \\"missing\\" not found","code":404}');
          return;
        }
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"gitVersion":"v1.36.4"}');
      });
    });
    port = await listen(server);
  });
  after(() => {
    stop(server);
    rmSync(dir, { recursive: true, force: true });
  });

  const exec = {
    apiVersion: 'client.authentication.k8s.io/v1',
    command: '/bin/sh',
    args: [
      '-c',
      'echo \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-exec"}}\'',
    ],
    interactiveMode: 'Never',
  };
  const rows: Array<[string, Record<string, unknown>, Record<string, string | undefined>]> = [
    ['a token', { token: 't0k' }, { authorization: 'Bearer t0k' }],
    ['a token file, relative to the kubeconfig, trimmed', { tokenFile: 'tok' }, { authorization: 'Bearer from-file' }],
    ['basic auth', { username: 'bob', password: 's3' }, { authorization: `Basic ${btoa('bob:s3')}` }],
    ['impersonation', { token: 't', as: 'alice' }, { authorization: 'Bearer t', 'impersonate-user': 'alice' }],
    ['no credentials', {}, { authorization: undefined }],
    ['an exec credential plugin (through client-node)', { exec }, { authorization: 'Bearer from-exec' }],
  ];
  for (const [name, user, headers] of rows) {
    it(`${name}: ${JSON.stringify(headers)}`, async () => {
      writeFileSync(join(dir, 'tok'), 'from-file\n');
      // client-node sends over plain http only with insecure-skip-tls-verify (Pacer's own connection needs none).
      const cluster = user.exec ? { 'insecure-skip-tls-verify': true } : {};
      const s = connect({ kubeconfig: kubeconfig(dir, `http://127.0.0.1:${port}`, user, cluster) }, io);
      seen.length = 0;
      expect((await s.client.version()).gitVersion).to.equal('v1.36.4');
      expect(s.namespace).to.equal('prod');
      expect(seen).to.have.length(1);
      expect(seen[0].headers['user-agent']).to.equal('kubectl-pacer/0.1.0');
      for (const [k, v] of Object.entries(headers)) expect(seen[0].headers[k], k).to.equal(v);
    });
  }

  it('a patch carries its content type and body, a delete its options; a 404 is the server Status', async () => {
    const s = connect({ kubeconfig: kubeconfig(dir, `http://127.0.0.1:${port}/`, { token: 't' }) }, io);
    seen.length = 0;
    await s.client.patch(PODS, 'prod', 'web-1', { metadata: { labels: { a: 'b' } } }, 'merge');
    expect(seen[0]).to.deep.include({
      method: 'PATCH',
      url: '/api/v1/namespaces/prod/pods/web-1',
      body: '{"metadata":{"labels":{"a":"b"}}}',
    });
    expect(seen[0].headers['content-type']).to.equal('application/merge-patch+json');
    // A DELETE carries its DeleteOptions, sized (Node sends a DELETE's body unframed otherwise).
    seen.length = 0;
    await s.client.delete(PODS, 'prod', 'web-1', { preconditions: { resourceVersion: '7' } });
    expect(seen[0]).to.deep.include({
      method: 'DELETE',
      body: '{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"resourceVersion":"7"}}',
    });
    expect(seen[0].headers['content-length']).to.equal(String(seen[0].body.length));
    const err = await s.client.get(PODS, 'prod', 'missing').catch((e: unknown) => e);
    expect(err).to.be.instanceOf(KubeError).and.to.include({ kind: 'NotFound', code: 404 });
    expect((err as Error).message).to.equal('get Pod prod/missing: pods "missing" not found');
  });

  it('a watch streams its events, lines split across chunks included', async () => {
    const s = connect({ kubeconfig: kubeconfig(dir, `http://127.0.0.1:${port}`, { token: 't' }) }, io);
    const events: string[] = [];
    await s.client.watch<{ metadata: { name: string } }>(PODS, 'prod', { resourceVersion: '1' }, (e) =>
      events.push(`${e.type} ${e.object.metadata.name}`),
    );
    expect(events).to.deep.equal(['ADDED a', 'MODIFIED b']);
  });

  it('an idle kept connection is closed by the client; a watch quiet for longer than that is not', async () => {
    // The server would keep connections for a minute; the client's idle limit here is 50 ms.
    const quiet = createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (!req.url?.includes('watch=true')) return void res.end('{"gitVersion":"v1.36.4"}');
      res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n');
      setTimeout(() => res.end('{"type":"ADDED","object":{"metadata":{"name":"b"}}}\n'), 300);
    });
    quiet.keepAliveTimeout = 60_000;
    const closed: Promise<void>[] = [];
    quiet.on('connection', (socket) => closed.push(new Promise((r) => socket.once('close', () => r()))));
    const p = await listen(quiet);
    try {
      const c = new HttpConnection({ name: 'c', server: `http://127.0.0.1:${p}`, skipTLSVerify: false }, undefined, {
        idleConnectionMs: 50,
      });
      const client = new KubeClient(c);
      const events: string[] = [];
      await client.watch<{ metadata: { name: string } }>(PODS, 'prod', { resourceVersion: '1' }, (e) =>
        events.push(e.object.metadata.name),
      );
      expect(events).to.deep.equal(['a', 'b']);
      expect((await client.version()).gitVersion).to.equal('v1.36.4');
      // Every connection the client opened is closed, by the client (the server would wait a minute).
      expect(closed.length).to.be.greaterThan(0);
      await Promise.all(closed);
    } finally {
      stop(quiet);
    }
  });

  it("stopped on an answer's last event (an informer on a watch's ERROR): the signal's reason, nothing uncaught", async () => {
    const c = new HttpConnection({ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: false }, undefined);
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.prependListener('uncaughtException', onUncaught);
    try {
      for (let i = 0; i < 5; i++) {
        const ac = new AbortController();
        const resp = await c.send({ method: 'GET', path: '/api/v1/pods?watch=true', headers: {}, signal: ac.signal });
        let err: unknown;
        try {
          for await (const _ of resp.stream()) ac.abort(new Error(`stopped ${i}`));
        } catch (e) {
          err = e;
        }
        expect((err as Error | undefined)?.message).to.equal(`stopped ${i}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(uncaught).to.deep.equal([]);
    } finally {
      process.removeListener('uncaughtException', onUncaught);
    }
  });

  it('a closed port: connect ECONNREFUSED, named as kubectl names it', async () => {
    const closed = createServer();
    const p = await listen(closed);
    stop(closed);
    const s = connect({ kubeconfig: kubeconfig(dir, `http://127.0.0.1:${p}`, { token: 't' }) }, io);
    const err = await s.client.version().catch((e: unknown) => e);
    expect(err).to.be.instanceOf(KubeError).and.to.include({ kind: 'Unreachable', reason: 'ECONNREFUSED' });
    expect((err as Error).message).to.equal(
      `GET http://127.0.0.1:${p}/version: dial tcp 127.0.0.1:${p}: connect: connection refused`,
    );
  });

  it("port 1, which Node's fetch refuses to dial, is dialled: connection refused", async () => {
    const s = connect({ kubeconfig: kubeconfig(dir, 'http://127.0.0.1:1', { token: 't' }) }, io);
    const err = await s.client.version().catch((e: unknown) => e);
    expect((err as Error).message).to.equal(
      'GET http://127.0.0.1:1/version: dial tcp 127.0.0.1:1: connect: connection refused',
    );
  });

  it("a server that never answers: the request's timeout, as with fetch", async () => {
    const silent = createServer(() => {});
    const p = await listen(silent);
    try {
      const client = new KubeClient(
        new HttpConnection({ name: 'c', server: `http://127.0.0.1:${p}`, skipTLSVerify: false }, undefined),
        { requestTimeoutMs: 200 },
      );
      const err = await client.version().catch((e: unknown) => e);
      expect(err).to.be.instanceOf(KubeError).and.to.include({ kind: 'Unreachable', reason: 'ETIMEDOUT' });
      expect((err as Error).message).to.equal(
        `GET http://127.0.0.1:${p}/version: 127.0.0.1:${p}: no answer within the request's timeout`,
      );
    } finally {
      stop(silent);
    }
  });

  it('bad input is named with its value: a server that is no URL, a scheme other than http(s), a missing CA file', () => {
    expect(() => connect({ kubeconfig: kubeconfig(dir, 'not a url', {}) }, io)).to.throw(
      'cluster "c": server "not a url" is not a URL',
    );
    expect(() => connect({ kubeconfig: kubeconfig(dir, 'ftp://h', {}) }, io)).to.throw(
      'cluster "c": server "ftp://h": only http and https are supported',
    );
    expect(() =>
      connect({ kubeconfig: kubeconfig(dir, 'https://h', {}, { 'certificate-authority': 'nope.crt' }) }, io),
    ).to.throw(`certificate-authority ${join(dir, 'nope.crt')}: no such file`);
  });

  it('https: the CA checks the server, the client certificate identifies the user, connections are kept', async function () {
    requireTool(this, 'openssl', "Debian's openssl; make test installs it when run as root");
    opensslSelfSigned(dir, 'server', '127.0.0.1', { ip: '127.0.0.1' });
    opensslSelfSigned(dir, 'client', 'jane');
    let handshakes = 0;
    const tls = createTlsServer(
      {
        key: readFileSync(join(dir, 'server.key')),
        cert: readFileSync(join(dir, 'server.crt')),
        ca: readFileSync(join(dir, 'client.crt')),
        requestCert: true,
        rejectUnauthorized: true,
      },
      (req, res) => {
        const who = (req.socket as TLSSocket).getPeerCertificate().subject?.CN;
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ gitVersion: who }));
      },
    );
    tls.on('secureConnection', () => handshakes++);
    const p = await listen(tls);
    try {
      const server = `https://127.0.0.1:${p}`;
      const user = {
        'client-certificate': 'client.crt',
        'client-key-data': readFileSync(join(dir, 'client.key')).toString('base64'),
      };
      const s = connect(
        { kubeconfig: kubeconfig(dir, server, user, { 'certificate-authority': join(dir, 'server.crt') }) },
        io,
      );
      for (let i = 0; i < 5; i++) expect((await s.client.version()).gitVersion).to.equal('jane');
      expect(handshakes).to.equal(1);
      // Without the CA the server's certificate is refused, unless the kubeconfig says to skip the check.
      const noCa = connect({ kubeconfig: kubeconfig(dir, server, user) }, io);
      const err = await noCa.client.version().catch((e: unknown) => e);
      expect(err).to.be.instanceOf(KubeError).and.to.include({ kind: 'Unreachable' });
      expect((err as Error).message).to.match(/self[- ]signed certificate/);
      const skip = connect({ kubeconfig: kubeconfig(dir, server, user, { 'insecure-skip-tls-verify': true }) }, io);
      expect((await skip.client.version()).gitVersion).to.equal('jane');
    } finally {
      stop(tls as unknown as Server);
    }
  });
});
