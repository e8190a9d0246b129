// One HTTP call of a provider, given up after its timeout or when the run stops, with every way it can
// go wrong turned into a ProviderError that names the provider, the address and the reason (a refused
// connection, a name that does not resolve, no answer in time), in words a person reads in the run's
// status.

import { ProviderError } from './types.ts';

export interface HttpAnswer {
  status: number;
  /** The body as text. */
  text: string;
}

/** `url` without a user name or password, fit for a message. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}

/** The first `n` characters of a body, on one line, for a message. */
export function excerpt(text: string, n = 200): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n)}...` : one;
}

/** Why a fetch failed, in words: the system's reason (connect ECONNREFUSED ...). */
function reason(err: unknown): string {
  let e: unknown = err;
  // undici wraps the system error: TypeError("fetch failed", { cause }), the cause perhaps an
  // AggregateError of one error per address tried.
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  if (e instanceof AggregateError && e.errors[0] instanceof Error) e = e.errors[0];
  if (e instanceof Error) return e.message || (e as NodeJS.ErrnoException).code || e.name;
  return String(e);
}

/**
 * Calls `url` and reads the whole answer, whatever its status. Throws a ProviderError starting with
 * `who` (e.g. `prometheus at http://...`) when no answer could be had.
 */
export async function call(
  who: string,
  url: string,
  init: { method?: string; headers?: Record<string, string> | Array<[string, string]>; body?: string },
  timeoutSeconds: number,
  signal: AbortSignal,
): Promise<HttpAnswer> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ProviderError(`${who}: not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ProviderError(`${who}: not an http or https URL`);
  // fetch refuses a URL with credentials: they become a Basic Authorization header, as curl sends them.
  const headers = new Headers(init.headers);
  if (parsed.username || parsed.password) {
    if (!headers.has('authorization')) {
      const user = decodeURIComponent(parsed.username);
      const pass = decodeURIComponent(parsed.password);
      headers.set('authorization', `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`);
    }
    parsed.username = '';
    parsed.password = '';
  }
  if (signal.aborted) throw new ProviderError(`${who}: the measurement was cancelled`);
  const both = AbortSignal.any([signal, AbortSignal.timeout(Math.round(timeoutSeconds * 1000))]);
  try {
    const res = await fetch(parsed, { ...init, headers, signal: both, redirect: 'follow' });
    return { status: res.status, text: await res.text() };
  } catch (err) {
    // fetch refuses a URL with credentials: they become a Basic Authorization header, as curl sends them.
    const headers = new Headers(init.headers);
    if (parsed.username || parsed.password) {
      if (!headers.has('authorization')) {
        const user = decodeURIComponent(parsed.username);
        const pass = decodeURIComponent(parsed.password);
        headers.set('authorization', `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`);
      }
      parsed.username = '';
      parsed.password = '';
    }
    if (signal.aborted) throw new ProviderError(`${who}: the measurement was cancelled`);
    if (both.aborted) throw new ProviderError(`${who}: no answer within ${timeoutSeconds} s`);
    throw new ProviderError(`${who}: ${reason(err)}`);
  }
}
