import { expect } from 'chai';
import { ApiException } from '@kubernetes/client-node';
import { KubeError, fromResponse, kindOf, toKubeError, isRetryable } from '../../../src/kube/errors.ts';

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
      const cause = Object.assign(new Error(`connect ${code} 127.0.0.1:1`), { code });
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
    it('names the socket error code in the message', () => {
      expect(toKubeError(fetchFailed('ECONNREFUSED'), 'GET /version').message).to.equal(
        'GET /version: fetch failed (ECONNREFUSED)',
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
