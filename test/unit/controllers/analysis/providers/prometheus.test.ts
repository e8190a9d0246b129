// The prometheus provider against a real Prometheus (Debian's) scraping a metrics endpoint the test
// controls: what each answer type becomes as `result` and `value`, and that every way a Prometheus can
// fail or answer garbage is a ProviderError that names the address, never a number.

import { expect } from 'chai';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metric } from '../../../../../src/api/analysis.ts';
import { evaluateCondition } from '../../../../../src/api/conditions.ts';
import { measure, ProviderError, substituteArgs } from '../../../../../src/controllers/analysis/providers/index.ts';
import { queryURL, sampleValue } from '../../../../../src/controllers/analysis/providers/prometheus.ts';
import type { ProviderResult } from '../../../../../src/controllers/analysis/providers/types.ts';
import { freePort } from '../../../../fixtures/net.ts';
import {
  type MetricsEndpoint,
  type PrometheusServer,
  startMetricsEndpoint,
  startPrometheus,
  waitForValue,
} from '../../../../fixtures/prometheus-server.ts';

function metric(address: string, query: string, timeout?: number): Metric {
  return { name: 'm', provider: { prometheus: { address, query, ...(timeout ? { timeout } : {}) } } };
}

function run(address: string, query: string, timeout?: number): Promise<ProviderResult> {
  return measure({
    metric: metric(address, query, timeout),
    namespace: 'default',
    signal: new AbortController().signal,
  });
}

/** The ProviderError `p` rejects with (fails the test when it resolves, or rejects with anything else). */
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

describe('analysis provider: prometheus, read strictly', () => {
  it('sample values as Prometheus writes them', () => {
    expect(sampleValue('0.5')).to.equal(0.5);
    expect(sampleValue('-3e-7')).to.equal(-3e-7);
    expect(sampleValue('42')).to.equal(42);
    expect(sampleValue('NaN')).to.be.NaN;
    expect(sampleValue('+Inf')).to.equal(Number.POSITIVE_INFINITY);
    expect(sampleValue('-Inf')).to.equal(Number.NEGATIVE_INFINITY);
    for (const bad of ['', ' ', 'abc', '0x10', '1,5', 'Infinity', null, 3])
      expect(sampleValue(bad), String(bad)).to.be.undefined;
  });

  it('the query URL keeps the address path prefix and encodes the query', () => {
    expect(queryURL('http://p:9090', 'sum(x{a="b"})')).to.equal(
      'http://p:9090/api/v1/query?query=sum%28x%7Ba%3D%22b%22%7D%29',
    );
    expect(queryURL('http://p/prom/', 'up')).to.equal('http://p/prom/api/v1/query?query=up');
    expect(queryURL('http://p/prom', 'up')).to.equal('http://p/prom/api/v1/query?query=up');
  });
});

describe('analysis provider: prometheus against a real Prometheus', function () {
  this.timeout(60_000);
  let endpoint: MetricsEndpoint;
  let prom: PrometheusServer;

  before(async function () {
    endpoint = await startMetricsEndpoint();
    endpoint.setGauge('pacer_test_errors_ratio', { app: 'web' }, 0.25);
    endpoint.setGauge('pacer_test_errors_ratio', { app: 'api' }, 0.5);
    endpoint.incCounter('pacer_test_requests_total', { app: 'web' }, 0);
    endpoint.incCounter('pacer_test_request_errors_total', { app: 'web' }, 0);
    prom = await startPrometheus(this, { targets: [endpoint.target] });
    await waitForValue(prom, 'pacer_test_errors_ratio', (r) => r.length === 2);
  });
  after(async () => {
    await prom?.stop();
    await endpoint?.close();
  });

  it('a scalar: a number, its text as the value, the query in the metadata', async () => {
    const q = 'scalar(sum(pacer_test_errors_ratio))';
    const got = await run(prom.url, q);
    expect(got).to.deep.equal({ result: 0.75, value: '0.75', metadata: { query: q } });
  });

  it('an instant vector of two series: their values in the order Prometheus gives them', async () => {
    expect(await run(prom.url, 'sort(pacer_test_errors_ratio)')).to.deep.include({
      result: [0.25, 0.5],
      value: '[0.25,0.5]',
    });
    expect(await run(prom.url, 'sort_desc(pacer_test_errors_ratio)')).to.deep.include({
      result: [0.5, 0.25],
      value: '[0.5,0.25]',
    });
  });

  it('an empty vector: an empty list', async () => {
    expect(await run(prom.url, 'pacer_test_errors_ratio{app="nobody"}')).to.deep.include({ result: [], value: '[]' });
  });

  it('NaN from 0/0 (no requests yet) and the infinities: JS numbers, the value text as Prometheus wrote it', async () => {
    const ratio = 'sum(pacer_test_request_errors_total) / sum(pacer_test_requests_total)';
    const vec = await run(prom.url, ratio);
    expect(vec.value).to.equal('[NaN]');
    expect(vec.result).to.have.length(1);
    expect((vec.result as number[])[0]).to.be.NaN;
    const sc = await run(prom.url, `scalar(${ratio})`);
    expect(sc.result).to.be.NaN;
    expect(sc.value).to.equal('NaN');
    expect(await run(prom.url, '1/0')).to.deep.include({ result: Number.POSITIVE_INFINITY, value: '+Inf' });
    expect(await run(prom.url, '-1/0')).to.deep.include({ result: Number.NEGATIVE_INFINITY, value: '-Inf' });
  });

  it('a value the endpoint turns bad is what the next measurement reads', async () => {
    const m = substituteArgs(metric(prom.url, 'scalar(pacer_test_errors_ratio{app="{{ args.app }}"})'), { app: 'web' });
    expect((await measure({ metric: m, namespace: 'default', signal: new AbortController().signal })).result).to.equal(
      0.25,
    );
    endpoint.setGauge('pacer_test_errors_ratio', { app: 'web' }, 0.9);
    await waitForValue(prom, 'pacer_test_errors_ratio{app="web"}', (r) => r[0]?.value[1] === '0.9');
    const got = await measure({ metric: m, namespace: 'default', signal: new AbortController().signal });
    expect(got).to.deep.equal({
      result: 0.9,
      value: '0.9',
      metadata: { query: 'scalar(pacer_test_errors_ratio{app="web"})' },
    });
    endpoint.setGauge('pacer_test_errors_ratio', { app: 'web' }, 0.25);
    await waitForValue(prom, 'pacer_test_errors_ratio{app="web"}', (r) => r[0]?.value[1] === '0.25');
  });

  it('what the conditions see: the results read by CEL conditions as the run controller will', async () => {
    const scalar = (await run(prom.url, 'scalar(sum(pacer_test_errors_ratio))')).result;
    expect(evaluateCondition('result < 0.8', scalar)).to.equal(true);
    expect(evaluateCondition('result < 0.5', scalar)).to.equal(false);
    const vec = (await run(prom.url, 'sort_desc(pacer_test_errors_ratio)')).result;
    expect(evaluateCondition('result[0] >= 0.5 && result[1] < 0.3', vec)).to.equal(true);
    const empty = (await run(prom.url, 'pacer_test_errors_ratio{app="nobody"}')).result;
    expect(evaluateCondition('size(result) == 0', empty)).to.equal(true);
    expect(() => evaluateCondition('result[0] < 0.05', empty)).to.throw('could not be evaluated');
    const nan = (await run(prom.url, 'sum(pacer_test_request_errors_total) / sum(pacer_test_requests_total)')).result;
    expect(evaluateCondition('isNaN(result[0]) || result[0] < 0.05', nan)).to.equal(true);
  });

  it("a PromQL syntax error: a ProviderError with Prometheus' error type and message", async () => {
    const err = await providerError(run(prom.url, 'sum(pacer_test_errors_ratio'));
    expect(err.message).to.match(new RegExp(`^prometheus at ${prom.url}: bad_data: .*parse error`));
  });

  it('a range vector (matrix) and a string are not measurements: ProviderErrors naming the type', async () => {
    expect((await providerError(run(prom.url, 'pacer_test_errors_ratio[5s]'))).message).to.include('answered a matrix');
    expect((await providerError(run(prom.url, '"hello"'))).message).to.include('answered a string');
  });

  it('a cancelled measurement: a ProviderError, no result', async () => {
    const ac = new AbortController();
    ac.abort();
    const err = await providerError(
      measure({ metric: metric(prom.url, 'up'), namespace: 'default', signal: ac.signal }),
    );
    expect(err.message).to.equal(`prometheus at ${prom.url}: the measurement was cancelled`);
  });
});

describe('analysis provider: prometheus stopped', function () {
  this.timeout(60_000);
  let prom: PrometheusServer | undefined;
  after(() => prom?.stop());

  it('answers while it runs; once stopped, a ProviderError naming the address and the refused connection', async function () {
    prom = await startPrometheus(this, { targets: [] });
    expect(await run(prom.url, 'vector(1)')).to.deep.include({ result: [1], value: '[1]' });
    await prom.stop();
    // The first call may still go out on the connection kept alive to the Prometheus that is gone.
    const first = await providerError(run(prom.url, 'vector(1)'));
    expect(first.message).to.match(
      new RegExp(`^prometheus at ${prom.url}: (read ECONNRESET|other side closed|connect ECONNREFUSED)`),
    );
    const err = await providerError(run(prom.url, 'vector(1)'));
    const port = new URL(prom.url).port;
    expect(err.message).to.equal(`prometheus at ${prom.url}: connect ECONNREFUSED 127.0.0.1:${port}`);
  });
});

describe('analysis provider: prometheus, a server that is not a Prometheus', () => {
  let server: Server;
  let url = '';
  let answer: { status: number; type: string; body: string; delayMs?: number } = { status: 200, type: '', body: '' };

  before(async () => {
    server = createServer((_req, res) => {
      const send = () => res.writeHead(answer.status, { 'Content-Type': answer.type }).end(answer.body);
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const json = 'application/json';
  const rows: Array<[string, number, string, string, string]> = [
    [
      'HTML with 200',
      200,
      'text/html',
      '<html><body>Grafana</body></html>',
      'not a Prometheus API response (not a JSON object): <html>',
    ],
    ['plain garbage with 200', 200, 'text/plain', 'ok', 'not a Prometheus API response (not a JSON object): ok'],
    ['a JSON number', 200, json, '0.01', 'not a Prometheus API response (not a JSON object): 0.01'],
    ['JSON without a status', 200, json, '{"data":{"resultType":"scalar","result":[1,"1"]}}', 'no "status": "success"'],
    ['success without data', 200, json, '{"status":"success"}', 'no data.resultType'],
    [
      'a scalar whose value is not a number',
      200,
      json,
      '{"status":"success","data":{"resultType":"scalar","result":[1,"low"]}}',
      'a scalar that is not [time, "number"]',
    ],
    [
      'a scalar given as a JSON number',
      200,
      json,
      '{"status":"success","data":{"resultType":"scalar","result":[1,0.5]}}',
      'a scalar that is not [time, "number"]',
    ],
    [
      'a vector that is an object',
      200,
      json,
      '{"status":"success","data":{"resultType":"vector","result":{}}}',
      'a vector that is not a list',
    ],
    [
      'a vector sample without a value',
      200,
      json,
      '{"status":"success","data":{"resultType":"vector","result":[{"metric":{}}]}}',
      'a vector sample without',
    ],
    [
      'a vector sample with an empty value',
      200,
      json,
      '{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,""]}]}}',
      'a vector sample without',
    ],
    [
      'a native histogram sample',
      200,
      json,
      '{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"histogram":[1,{"count":"1","sum":"1"}]}]}}',
      'a native histogram sample, not a number',
    ],
    [
      'an unknown result type',
      200,
      json,
      '{"status":"success","data":{"resultType":"streams","result":[]}}',
      'answered a streams, not a scalar or an instant vector',
    ],
    ['HTTP 503 with a text body', 503, 'text/plain', 'Service Unavailable', 'HTTP 503: Service Unavailable'],
    [
      'HTTP 404 with an HTML body',
      404,
      'text/html',
      `<html>${'x'.repeat(500)}</html>`,
      `HTTP 404: <html>${'x'.repeat(194)}...`,
    ],
    [
      'an error status',
      422,
      json,
      '{"status":"error","errorType":"execution","error":"query timed out"}',
      ': execution: query timed out',
    ],
  ];
  for (const [what, status, type, body, want] of rows) {
    it(`${what}: a ProviderError`, async () => {
      answer = { status, type, body };
      const err = await providerError(run(url, 'up'));
      expect(err.message).to.match(new RegExp(`^prometheus at ${url}`));
      expect(err.message).to.include(want);
    });
  }

  it('no answer within the timeout: a ProviderError saying so', async () => {
    answer = { status: 200, type: json, body: '{}', delayMs: 5000 };
    const t0 = Date.now();
    const err = await providerError(run(url, 'up', 0.2));
    expect(err.message).to.equal(`prometheus at ${url}: no answer within 0.2 s`);
    expect(Date.now() - t0).to.be.below(2000);
  });

  it('nothing listening: a ProviderError naming the address and the reason', async () => {
    const port = await freePort();
    const err = await providerError(run(`http://127.0.0.1:${port}/`, 'up'));
    expect(err.message).to.equal(`prometheus at http://127.0.0.1:${port}/: connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('an address that is not a URL, and credentials kept out of the message', async () => {
    expect((await providerError(run('prometheus:9090', 'up'))).message).to.equal(
      'prometheus at prometheus:9090: not a URL',
    );
    expect((await providerError(run('ftp://p/', 'up'))).message).to.equal(
      'prometheus at ftp://p/: not an http or https URL',
    );
    expect((await providerError(run('not a url', 'up'))).message).to.equal('prometheus at not a url: not a URL');
    answer = { status: 503, type: 'text/plain', body: 'down' };
    const withUser = url.replace('http://', 'http://admin:s3cret@');
    const err = await providerError(run(withUser, 'up'));
    expect(err.message).to.not.include('s3cret');
    expect(err.message).to.include('HTTP 503: down');
  });
});
