// The web provider against a test HTTP server on 127.0.0.1 that records what it was sent and answers
// what the test says: the request as the metric describes it, the result a jsonPath picks (or the whole
// body), and a ProviderError naming the URL for a status outside 2xx, a body that is not JSON, a path
// that finds nothing, and no answer in time.

import { expect } from 'chai';
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebMetric } from '../../../../../src/api/analysis.ts';
import { measure, ProviderError } from '../../../../../src/controllers/analysis/providers/index.ts';
import type { ProviderResult } from '../../../../../src/controllers/analysis/providers/types.ts';
import { freePort } from '../../../../fixtures/net.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

function web(w: WebMetric, signal = new AbortController().signal): Promise<ProviderResult> {
  return measure({ metric: { name: 'w', provider: { web: w } }, namespace: 'default', signal });
}

async function providerError(p: Promise<unknown>): Promise<ProviderError> {
  let got: unknown;
  try {
    got = await p;
  } catch (err) {
    expect(err, String(err)).to.be.instanceOf(ProviderError);
    return err as ProviderError;
  }
  expect.fail(`expected a ProviderError, got a result: ${JSON.stringify(got)}`);
}

describe('analysis provider: web', () => {
  let server: Server;
  let base = '';
  let seen: Seen[] = [];
  let answer: { status: number; body: string; type?: string; delayMs?: number } = { status: 200, body: '{}' };

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        const send = () =>
          res.writeHead(answer.status, { 'Content-Type': answer.type ?? 'application/json' }).end(answer.body);
        if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
        else send();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    seen = [];
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const BODY = JSON.stringify({
    data: { ok: true, ratio: 0.02, name: 'web', items: [{ v: 1 }, { v: 2 }, { v: 3 }], nothing: null },
    'app.kubernetes.io/name': 'web',
  });

  it('GET by default, with the headers given and no body; no jsonPath: the whole body as JSON', async () => {
    answer = { status: 200, body: BODY };
    const got = await web({
      url: `${base}/health?app=web`,
      headers: [
        { key: 'Authorization', value: 'Bearer t0ken' },
        { key: 'X-Scope', value: 'prod' },
      ],
    });
    expect(seen).to.have.length(1);
    expect(seen[0]).to.include({ method: 'GET', url: '/health?app=web', body: '' });
    expect(seen[0].headers).to.include({ authorization: 'Bearer t0ken', 'x-scope': 'prod' });
    expect(got.result).to.deep.equal(JSON.parse(BODY));
    expect(got.value).to.equal(BODY);
  });

  it('POST and PUT send the body and the headers', async () => {
    answer = { status: 201, body: '{"accepted":true}' };
    for (const method of ['POST', 'PUT'] as const) {
      const got = await web({
        url: `${base}/query`,
        method,
        headers: [{ key: 'Content-Type', value: 'application/json' }],
        body: '{"q":"errors"}',
        jsonPath: '{$.accepted}',
      });
      expect(got).to.deep.equal({ result: true, value: 'true' });
    }
    expect(seen.map((s) => [s.method, s.body, s.headers['content-type']])).to.deep.equal([
      ['POST', '{"q":"errors"}', 'application/json'],
      ['PUT', '{"q":"errors"}', 'application/json'],
    ]);
  });

  const hits: Array<[string, unknown, string]> = [
    ['{.data.ok}', true, 'true'],
    ['{$.data.ok}', true, 'true'],
    ['$.data.ok', true, 'true'],
    ['.data.ratio', 0.02, '0.02'],
    ['{.data.name}', 'web', 'web'],
    ['{.data.items[1].v}', 2, '2'],
    ['{.data.items[-1].v}', 3, '3'],
    ['{.data.items}', [{ v: 1 }, { v: 2 }, { v: 3 }], '[{"v":1},{"v":2},{"v":3}]'],
    ["{['app.kubernetes.io/name']}", 'web', 'web'],
    ["$.data['ratio']", 0.02, '0.02'],
    ['{.data.nothing}', null, 'null'],
  ];
  for (const [path, result, value] of hits) {
    it(`jsonPath ${path}: ${value}`, async () => {
      answer = { status: 200, body: BODY };
      expect(await web({ url: `${base}/`, jsonPath: path })).to.deep.equal({ result, value });
    });
  }

  const misses: Array<[string, string]> = [
    ['{.data.missing}', '$.data.missing'],
    ['{.data.items[3].v}', '$.data.items[3]'],
    ['{.data.ok.deeper}', '$.data.ok.deeper'],
    ['{.data[0]}', '$.data[0]'],
  ];
  for (const [path, missing] of misses) {
    it(`jsonPath ${path} finds nothing: a ProviderError naming the path`, async () => {
      answer = { status: 200, body: BODY };
      const err = await providerError(web({ url: `${base}/`, jsonPath: path }));
      expect(err.message).to.include(
        `web at ${base}/: jsonPath ${JSON.stringify(path)} finds nothing in the body (no ${missing})`,
      );
    });
  }

  it('a jsonPath that cannot be read: a ProviderError, nothing sent', async () => {
    const err = await providerError(web({ url: `${base}/`, jsonPath: '{.items[?(@.ok)]}' }));
    expect(err.message).to.include('jsonPath cannot read');
    expect(seen).to.have.length(0);
  });

  for (const status of [301, 404, 500, 503]) {
    it(`HTTP ${status}: a ProviderError naming the URL, the status and the start of the body`, async () => {
      answer = { status, body: `{"error":"nope"}${' pad'.repeat(100)}`, type: 'application/json' };
      const err = await providerError(web({ url: `${base}/status`, jsonPath: '{.error}' }));
      expect(err.message).to.match(
        new RegExp(`^web at ${base}/status: GET answered HTTP ${status}: \\{"error":"nope"\\}( pad)+\\.\\.\\.$`),
      );
      expect(err.message.length).to.be.below(300);
    });
  }

  it('a 2xx body that is not JSON: a ProviderError, with a jsonPath and without', async () => {
    answer = { status: 200, body: '<html>ok</html>', type: 'text/html' };
    for (const jsonPath of ['{.ok}', undefined]) {
      const err = await providerError(web({ url: `${base}/`, ...(jsonPath ? { jsonPath } : {}) }));
      expect(err.message).to.equal(`web at ${base}/: the body is not JSON: <html>ok</html>`);
    }
    answer = { status: 204, body: '' };
    expect((await providerError(web({ url: `${base}/` }))).message).to.equal(
      `web at ${base}/: the body is not JSON: (empty)`,
    );
  });

  it('no answer within timeoutSeconds: a ProviderError saying so, in about that time', async () => {
    answer = { status: 200, body: '{}', delayMs: 5000 };
    const t0 = Date.now();
    const err = await providerError(web({ url: `${base}/slow`, timeoutSeconds: 0.2 }));
    expect(err.message).to.equal(`web at ${base}/slow: no answer within 0.2 s`);
    expect(Date.now() - t0).to.be.within(150, 2000);
  });

  it('the run stopping cancels the call: a ProviderError', async () => {
    answer = { status: 200, body: '{}', delayMs: 5000 };
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const err = await providerError(web({ url: `${base}/slow` }, ac.signal));
    expect(err.message).to.equal(`web at ${base}/slow: the measurement was cancelled`);
  });

  it('nothing listening: a ProviderError naming the URL and the refused connection', async () => {
    const port = await freePort();
    const err = await providerError(web({ url: `http://127.0.0.1:${port}/x` }));
    expect(err.message).to.equal(`web at http://127.0.0.1:${port}/x: connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('credentials in the URL are sent as Basic auth and kept out of messages', async () => {
    answer = { status: 500, body: 'down' };
    const url = `${base.replace('http://', 'http://ops:s3cret@')}/x`;
    const err = await providerError(web({ url }));
    expect(seen[0].headers.authorization).to.equal(`Basic ${Buffer.from('ops:s3cret').toString('base64')}`);
    expect(err.message).to.equal(`web at ${base}/x: GET answered HTTP 500: down`);
  });

  it('a header whose Secret was not resolved, and a body with GET: ProviderErrors, nothing sent', async () => {
    const noValue = await providerError(
      web({
        url: `${base}/`,
        headers: [{ key: 'Authorization', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
      }),
    );
    expect(noValue.message).to.equal(`web at ${base}/: header "Authorization" has no value`);
    const getBody = await providerError(web({ url: `${base}/`, body: '{}' }));
    expect(getBody.message).to.include('a body is sent with POST or PUT, not with GET');
    expect(seen).to.have.length(0);
  });

  it('a URL that is not one: a ProviderError', async () => {
    expect((await providerError(web({ url: 'health' }))).message).to.equal('web at health: not a URL');
  });
});
