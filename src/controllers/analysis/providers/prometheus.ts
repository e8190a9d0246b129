// The prometheus provider (docs/semantics/analysis.md#providers): one instant query through
// Prometheus' HTTP API (GET {address}/api/v1/query?query=..., evaluated at the server's present time),
// read strictly. A scalar is a number; an instant vector is the list of its samples' values in the
// order Prometheus gave them. Anything else (another result type, an error status, a body that is not
// the API's envelope, a sample value that is not a number) is a ProviderError: a Prometheus that
// answers garbage must never make a measurement Successful.

import type { PrometheusMetric } from '../../../api/analysis.ts';
import { call, excerpt, redact } from './http.ts';
import { type MeasureInput, ProviderError, type ProviderResult } from './types.ts';

export const DEFAULT_PROMETHEUS_TIMEOUT_SECONDS = 30;

/** A sample value as Prometheus writes it: a decimal float, or NaN, +Inf, -Inf. */
const FLOAT = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/** A sample's value ("0.5", "NaN", "+Inf") as a number, or undefined when it is not one. */
export function sampleValue(s: unknown): number | undefined {
  if (typeof s !== 'string') return undefined;
  if (s === 'NaN') return Number.NaN;
  if (s === '+Inf' || s === 'Inf') return Number.POSITIVE_INFINITY;
  if (s === '-Inf') return Number.NEGATIVE_INFINITY;
  return FLOAT.test(s) ? Number(s) : undefined;
}

/** `[<unix time>, "<value>"]`: the value's text, or undefined when the pair is not that shape. */
function pairValue(pair: unknown): string | undefined {
  if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'number') return undefined;
  return sampleValue(pair[1]) === undefined ? undefined : (pair[1] as string);
}

/** The URL of an instant query of `query` against the server at `address` (which may have a path prefix). */
export function queryURL(address: string, query: string): string {
  const base = address.endsWith('/') ? address : `${address}/`;
  const u = new URL('api/v1/query', base);
  u.searchParams.set('query', query);
  return u.toString();
}

/** Reads an API answer (any HTTP status) into a result, or throws a ProviderError saying what is wrong with it. */
export function readAnswer(who: string, status: number, text: string): Omit<ProviderResult, 'metadata'> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const envelope = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
  // An error the API reports itself (400 bad_data for a syntax error, 422 execution, 503 timeout).
  if (envelope?.status === 'error' && typeof envelope.error === 'string')
    throw new ProviderError(
      `${who}: ${typeof envelope.errorType === 'string' ? `${envelope.errorType}: ` : ''}${envelope.error}`,
    );
  if (status < 200 || status > 299) throw new ProviderError(`${who}: HTTP ${status}: ${excerpt(text)}`);
  const notAPI = (why: string) =>
    new ProviderError(`${who} answered something that is not a Prometheus API response (${why}): ${excerpt(text)}`);
  if (!envelope) throw notAPI('not a JSON object');
  if (envelope.status !== 'success') throw notAPI('no "status": "success"');
  const data = envelope.data as Record<string, unknown> | undefined;
  if (data === null || typeof data !== 'object' || typeof data.resultType !== 'string')
    throw notAPI('no data.resultType');
  switch (data.resultType) {
    case 'scalar': {
      const v = pairValue(data.result);
      if (v === undefined) throw notAPI('a scalar that is not [time, "number"]');
      return { result: sampleValue(v)!, value: v };
    }
    case 'vector': {
      if (!Array.isArray(data.result)) throw notAPI('a vector that is not a list');
      const texts: string[] = [];
      for (const sample of data.result as unknown[]) {
        const s = sample as Record<string, unknown> | null;
        if (s !== null && typeof s === 'object' && s.histogram !== undefined && s.value === undefined)
          throw new ProviderError(`${who}: the query answered a native histogram sample, not a number`);
        const v = s !== null && typeof s === 'object' ? pairValue(s.value) : undefined;
        if (v === undefined) throw notAPI('a vector sample without a [time, "number"] value');
        texts.push(v);
      }
      return { result: texts.map((t) => sampleValue(t)!), value: `[${texts.join(',')}]` };
    }
    default:
      throw new ProviderError(
        `${who}: the query answered a ${data.resultType}, not a scalar or an instant vector (a range selector or a string is not a measurement)`,
      );
  }
}

/** Takes one measurement of a prometheus metric. */
export async function measurePrometheus(
  metric: PrometheusMetric,
  input: Pick<MeasureInput, 'signal'>,
): Promise<ProviderResult> {
  const who = `prometheus at ${redact(metric.address)}`;
  let url: string;
  try {
    url = queryURL(metric.address, metric.query);
  } catch {
    throw new ProviderError(`${who}: not a URL`);
  }
  const timeout =
    typeof metric.timeout === 'number' && metric.timeout > 0 ? metric.timeout : DEFAULT_PROMETHEUS_TIMEOUT_SECONDS;
  const answer = await call(
    who,
    url,
    { method: 'GET', headers: { Accept: 'application/json' } },
    timeout,
    input.signal,
  );
  return { ...readAnswer(who, answer.status, answer.text), metadata: { query: metric.query } };
}
