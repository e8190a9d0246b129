// The web provider (docs/semantics/analysis.md#providers): one HTTP call (GET unless told otherwise,
// with the metric's headers and body) whose 2xx answer is JSON; the metric's `jsonPath` picks one
// value of it, or without one the whole body is the result. A status outside 2xx, a body that is not
// JSON and a path that finds nothing are each a ProviderError naming the URL and the reason.

import type { WebMetric } from '../../../api/analysis.ts';
import { call, excerpt, redact } from './http.ts';
import { parseJsonPath, walk } from './jsonpath.ts';
import { type MeasureInput, ProviderError, type ProviderResult } from './types.ts';

export const DEFAULT_WEB_TIMEOUT_SECONDS = 10;

/** The measurement's `value` for a result: a string as itself, anything else as JSON. */
function valueText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * Takes one measurement of a web metric. A header read from a Secret must already carry its `value`
 * (the run controller resolves it); one without is an error rather than a header sent empty.
 */
export async function measureWeb(metric: WebMetric, input: Pick<MeasureInput, 'signal'>): Promise<ProviderResult> {
  const who = `web at ${redact(metric.url)}`;
  const method = metric.method ?? 'GET';
  const headers: Array<[string, string]> = [];
  for (const h of metric.headers ?? []) {
    if (h.value === undefined) throw new ProviderError(`${who}: header ${JSON.stringify(h.key)} has no value`);
    headers.push([h.key, h.value]);
  }
  if (metric.body !== undefined && method === 'GET')
    throw new ProviderError(`${who}: a body is sent with POST or PUT, not with GET`);
  const steps = metric.jsonPath === undefined ? [] : parseJsonPath(metric.jsonPath);
  if (steps instanceof Error) throw new ProviderError(`${who}: jsonPath ${steps.message}`);
  const timeout =
    typeof metric.timeoutSeconds === 'number' && metric.timeoutSeconds > 0
      ? metric.timeoutSeconds
      : DEFAULT_WEB_TIMEOUT_SECONDS;
  const answer = await call(
    who,
    metric.url,
    { method, headers, ...(metric.body !== undefined ? { body: metric.body } : {}) },
    timeout,
    input.signal,
  );
  if (answer.status < 200 || answer.status > 299)
    throw new ProviderError(`${who}: ${method} answered HTTP ${answer.status}: ${excerpt(answer.text)}`);
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    throw new ProviderError(`${who}: the body is not JSON: ${excerpt(answer.text) || '(empty)'}`);
  }
  const found = walk(body, steps);
  if ('missing' in found)
    throw new ProviderError(
      `${who}: jsonPath ${JSON.stringify(metric.jsonPath)} finds nothing in the body (no ${found.missing}): ${excerpt(answer.text)}`,
    );
  return { result: found.value, value: valueText(found.value) };
}
