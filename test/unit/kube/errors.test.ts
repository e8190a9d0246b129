import { expect } from 'chai';
import { ApiException } from '@kubernetes/client-node';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BAD_PORT, KubeError, fromResponse, kindOf, toKubeError, isRetryable } from '../../../src/kube/errors.ts';

function status(code: number, reason: string, message: string): string {
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, reason, message });
}

describe('kube/errors', () => {
  describe('HTTP answers map to one kind each', () => {
    const rows: Array<[number, string | undefined, string]> = [
      [404, 'NotFound', 'NotFound'],
      [409, 'AlreadyExists', 'AlreadyExists'],
      [409, 'Conflict', 'Conflict'],
      [409, undefined, 'Conflict'],
      [422, 'Invalid', 'Invalid'],
      [410, 'Expired', 'Gone'],
      [410, 'Gone', 'Gone'],
      [500, 'Expired', 'Gone'], // an expired continue token is Gone whatever the code
      [401, 'Unauthorized', 'Forbidden'],
      [403, 'Forbidden', 'Forbidden'],
      [429, 'TooManyRequests', 'Transient'],
      [500, 'InternalError', 'Transient'],
      [503, 'ServiceUnavailable', 'Transient'],
      [504, 'Timeout', 'Transient'],
      [400, 'BadRequest', 'Other'],
      [415, 'UnsupportedMediaType', 'Other'],
    ];
    for (const [code, reason, kind] of rows) {
      it(`${code} ${reason ?? '(no reason)'} → ${kind}`, () => {
        expect(kindOf(code, reason)).to.equal(kind);
        const err = fromResponse(code, status(code, reason ?? '', 'server says no'));
        expect(err.kind).to.equal(kind);
        expect(err.code).to.equal(code);
        expect(err.message).to.equal('server says no');
      });
    }
  });

  it('keeps the Status message and reason from an ApiException', () => {
    const ex = new ApiException(
      409,
      'HTTP-Code: 409',
      status(409, 'AlreadyExists', 'replicasets.apps "web-abc" already exists'),
      {},
    );
    const err = toKubeError(ex, 'create ReplicaSet default/web-abc');
    expect(err.kind).to.equal('AlreadyExists');
    expect(err.reason).to.equal('AlreadyExists');
    expect(err.message).to.equal('create ReplicaSet default/web-abc: replicasets.apps "web-abc" already exists');
  });

  it('accepts a parsed Status object and a non-JSON body', () => {
    expect(fromResponse(404, { reason: 'NotFound', message: 'gone', code: 404 }).message).to.equal('gone');
    const plain = fromResponse(502, 'Bad Gateway\n');
    expect(plain.kind).to.equal('Transient');
    expect(plain.message).to.equal('Bad Gateway');
    expect(fromResponse(500, '').message).to.equal('HTTP 500');
  });

  describe('network failures', () => {
    function fetchFailed(code: string): Error {
      const cause = Object.assign(new Error(`connect ${code} 127.0.0.1:1`), {
        code,
        syscall: 'connect',
        address: '127.0.0.1',
        port: 1,
      });
      return new TypeError('fetch failed', { cause });
    }
    const rows: Array<[string, unknown, string]> = [
      ['connection refused', fetchFailed('ECONNREFUSED'), 'Unreachable'],
      ['DNS failure', fetchFailed('ENOTFOUND'), 'Unreachable'],
      ['connect timeout (undici)', fetchFailed('UND_ERR_CONNECT_TIMEOUT'), 'Unreachable'],
      [
        'refused inside an AggregateError',
        new TypeError('fetch failed', {
          cause: new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]),
        }),
        'Unreachable',
      ],
      [
        'abort by timeout signal',
        new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
        'Unreachable',
      ],
      ['connection reset', fetchFailed('ECONNRESET'), 'Transient'],
      ['socket closed (undici)', fetchFailed('UND_ERR_SOCKET'), 'Transient'],
      ['anything else', new Error('boom'), 'Other'],
    ];
    for (const [name, err, kind] of rows) {
      it(`${name} → ${kind}`, () => {
        expect(toKubeError(err).kind).to.equal(kind);
      });
    }
    it("names the address and the reason in kubectl's shape, not fetch's bare `fetch failed`", () => {
      expect(toKubeError(fetchFailed('ECONNREFUSED'), 'GET /version').message).to.equal(
        'GET /version: dial tcp 127.0.0.1:1: connect: connection refused',
      );
    });

    /** A socket error as Node reports it (the fields of a SystemError). */
    const sys = (code: string, fields: object) =>
      new TypeError('fetch failed', {
        cause: Object.assign(new Error(`${code} (as Node words it)`), { code, ...fields }),
      });
    const shapes: Array<[string, unknown, string | undefined, string, string]> = [
      [
        'refused (IPv4)',
        sys('ECONNREFUSED', { syscall: 'connect', address: '127.0.0.1', port: 6443 }),
        undefined,
        'dial tcp 127.0.0.1:6443: connect: connection refused',
        'Unreachable',
      ],
      [
        'refused (IPv6: the address in brackets)',
        sys('ECONNREFUSED', { syscall: 'connect', address: '::1', port: 6443 }),
        undefined,
        'dial tcp [::1]:6443: connect: connection refused',
        'Unreachable',
      ],
      [
        'no route to host',
        sys('EHOSTUNREACH', { syscall: 'connect', address: '10.0.0.9', port: 443 }),
        undefined,
        'dial tcp 10.0.0.9:443: connect: no route to host',
        'Unreachable',
      ],
      [
        'no such host (DNS)',
        sys('ENOTFOUND', { syscall: 'getaddrinfo', hostname: 'k8s.example.invalid' }),
        'https://k8s.example.invalid:6443',
        'dial tcp: lookup k8s.example.invalid: no such host',
        'Unreachable',
      ],
      [
        "connect timeout (undici's, no address: the server's)",
        sys('UND_ERR_CONNECT_TIMEOUT', {}),
        'https://k8s.example.com',
        'dial tcp k8s.example.com:443: i/o timeout',
        'Unreachable',
      ],
      [
        "the request's own timeout",
        new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
        'http://127.0.0.1:8001',
        "127.0.0.1:8001: no answer within the request's timeout",
        'Unreachable',
      ],
      [
        'a port fetch blocks (no connection tried)',
        new TypeError('fetch failed', { cause: new Error('bad port') }),
        'http://127.0.0.1:1',
        'dial tcp 127.0.0.1:1: not dialled: Node\'s fetch refuses this port (a "bad port" of the Fetch standard, https://fetch.spec.whatwg.org/#bad-port)',
        'Unreachable',
      ],
      [
        "a reset outside connect (a TLS handshake) keeps Node's words",
        sys('ECONNRESET', {}),
        'https://127.0.0.1:6443',
        'ECONNRESET (as Node words it)',
        'Transient',
      ],
    ];
    for (const [name, err, server, message, kind] of shapes) {
      it(`${name}: ${message}`, () => {
        const e = toKubeError(err, 'get Deployment default/web', server);
        expect(e.message).to.equal(`get Deployment default/web: ${message}`);
        expect(e.kind).to.equal(kind);
      });
    }

    it('what fetch really throws: a closed port and port 1 (a fetch "bad port")', async () => {
      const srv = createServer();
      await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
      const port = (srv.address() as AddressInfo).port;
      await new Promise<void>((r) => srv.close(() => r()));
      const refused = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
      expect(toKubeError(refused, 'GET /version').message).to.equal(
        `GET /version: dial tcp 127.0.0.1:${port}: connect: connection refused`,
      );
      expect(toKubeError(refused).reason).to.equal('ECONNREFUSED');
      const blocked = await fetch('http://127.0.0.1:1/').catch((e: unknown) => e);
      const e = toKubeError(blocked, 'GET /version', 'http://127.0.0.1:1');
      expect(e.kind).to.equal('Unreachable');
      expect(e.reason).to.equal(BAD_PORT);
      expect(e.message).to.match(
        /^GET \/version: dial tcp 127\.0\.0\.1:1: not dialled: Node's fetch refuses this port/,
      );
    });
  });

  it('a watch failure with statusCode maps by code', () => {
    expect(toKubeError(Object.assign(new Error('Gone'), { statusCode: 410 })).kind).to.equal('Gone');
  });

  it('returns a KubeError unchanged and says which kinds are retryable', () => {
    const e = new KubeError('Conflict', 'x');
    expect(toKubeError(e)).to.equal(e);
    expect(isRetryable(e)).to.equal(true);
    expect(isRetryable(new KubeError('Invalid', 'x'))).to.equal(false);
    expect(isRetryable(new Error('x'))).to.equal(false);
  });
});
