// Faults for reliability tests: request latency, injected errors (500, 429 with Retry-After, 409,
// 503) per verb and resource, dropped watches and expired resourceVersions. Configured from a spec
// string (`pacer sim --faults`) or at run time through /sim/faults. The grammar is documented in
// src/sim/README.md; randomness is seeded so that a run can be repeated.

import { ApiError } from './types.ts';

export interface FaultFilter {
  verbs?: string[];
  resources?: string[];
}

export type FaultRule =
  | { kind: 'latency'; minMs: number; maxMs: number; filter: FaultFilter }
  | { kind: 'error'; code: number; rate: number; filter: FaultFilter }
  | { kind: 'drop-watches'; everyMs: number }
  | { kind: 'expire'; everyMs: number };

export interface FaultRequest {
  verb: string;
  resource: string;
  name?: string;
  group?: string;
}

const ERROR_CODES = [409, 429, 500, 503, 504];

function badSpec(message: string): Error {
  return new Error(`invalid faults spec: ${message}`);
}

/** `20ms`, `1.5s`, `2m`, or a bare number of milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!m) throw badSpec(`bad duration "${text}" (use e.g. 20ms, 1s, 2m)`);
  const n = Number(m[1]);
  return m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n;
}

function parseFilter(text: string | undefined): FaultFilter {
  const f: FaultFilter = {};
  if (!text) return f;
  for (const part of text.split(',')) {
    const [k, v] = part.split('=');
    if (v === undefined || v === '') throw badSpec(`bad filter "${part}" (use verb=a|b or resource=x|y)`);
    const values = v
      .split('|')
      .map((s) => s.trim())
      .filter(Boolean);
    if (k.trim() === 'verb') f.verbs = values;
    else if (k.trim() === 'resource') f.resources = values;
    else throw badSpec(`unknown filter "${k}" (verb or resource)`);
  }
  return f;
}

/** Parses a SPEC such as `latency=20ms;error=500@0.1:verb=patch,resource=replicasets;drop-watches=30s`. */
export function parseFaults(spec: string): { rules: FaultRule[]; seed?: number } {
  const rules: FaultRule[] = [];
  let seed: number | undefined;
  for (const raw of spec.split(';')) {
    const item = raw.trim();
    if (item === '') continue;
    const colon = item.indexOf(':');
    const head = colon >= 0 ? item.slice(0, colon) : item;
    const filter = parseFilter(colon >= 0 ? item.slice(colon + 1) : undefined);
    const eq = head.indexOf('=');
    const key = (eq >= 0 ? head.slice(0, eq) : head).trim();
    const value = eq >= 0 ? head.slice(eq + 1).trim() : '';
    switch (key) {
      case 'latency': {
        const [a, b] = value.split('-');
        const minMs = parseDuration(a);
        const maxMs = b === undefined ? minMs : parseDuration(b);
        if (maxMs < minMs) throw badSpec(`latency range "${value}" is reversed`);
        rules.push({ kind: 'latency', minMs, maxMs, filter });
        break;
      }
      case 'error': {
        const m = /^(\d{3})@(\d*\.?\d+)$/.exec(value);
        if (!m) throw badSpec(`bad error "${value}" (use CODE@RATE, e.g. 500@0.1)`);
        const code = Number(m[1]);
        const rate = Number(m[2]);
        if (!ERROR_CODES.includes(code)) throw badSpec(`error code ${code} not supported (${ERROR_CODES.join(', ')})`);
        if (rate < 0 || rate > 1) throw badSpec(`error rate ${rate} must be between 0 and 1`);
        rules.push({ kind: 'error', code, rate, filter });
        break;
      }
      case 'drop-watches':
        rules.push({ kind: 'drop-watches', everyMs: parseDuration(value) });
        break;
      case 'expire':
        rules.push({ kind: 'expire', everyMs: parseDuration(value) });
        break;
      case 'seed':
        if (!/^\d+$/.test(value)) throw badSpec(`bad seed "${value}"`);
        seed = Number(value);
        break;
      default:
        throw badSpec(`unknown fault "${key}" (latency, error, drop-watches, expire, seed)`);
    }
  }
  return { rules, seed };
}

/** mulberry32: small, fast, seedable (the chaos run draws its choices from it too). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function applies(f: FaultFilter, r: FaultRequest): boolean {
  return (!f.verbs || f.verbs.includes(r.verb)) && (!f.resources || f.resources.includes(r.resource));
}

export function injectedError(code: number, r: FaultRequest): ApiError {
  const res = r.group ? `${r.resource}.${r.group}` : r.resource;
  switch (code) {
    case 409:
      return new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${res} "${r.name ?? ''}": the object has been modified; please apply your changes to the latest version and try again`,
        {
          name: r.name ?? '',
          ...(r.group ? { group: r.group } : {}),
          kind: r.resource,
        },
      );
    case 429:
      return new ApiError(
        429,
        'TooManyRequests',
        'the server has received too many requests and has asked us to try again later',
        { retryAfterSeconds: 1 },
      );
    case 503:
      return new ApiError(503, 'ServiceUnavailable', 'the server is currently unable to handle the request');
    case 504:
      return new ApiError(
        504,
        'Timeout',
        'the server was unable to return a response in the time allotted, but may still be processing the request',
      );
    default:
      return new ApiError(500, 'InternalError', 'Internal error occurred: injected fault', {
        causes: [{ message: 'injected fault' }],
      });
  }
}

export class Faults {
  private ruleList: FaultRule[] = [];
  private specText = '';
  private random: () => number;
  private readonly seed: number;
  private timers: NodeJS.Timeout[] = [];
  private readonly dropListeners = new Set<() => void>();
  private readonly counts = { errors: {} as Record<number, number>, watchDrops: 0, expiries: 0 };
  private readonly expireListeners = new Set<() => void>();

  constructor(spec = '', seed = 1) {
    this.seed = seed;
    this.random = rng(seed);
    this.set(spec);
  }

  /** Replaces every rule (throws on a bad spec, leaving the old rules in place). */
  set(spec: string): void {
    const parsed = parseFaults(spec);
    this.stopTimers();
    this.ruleList = parsed.rules;
    this.specText = spec;
    this.random = rng(parsed.seed ?? this.seed);
    for (const r of this.ruleList) {
      if (r.kind === 'drop-watches' && r.everyMs > 0)
        this.timers.push(setInterval(() => this.dropWatches(), r.everyMs).unref());
      if (r.kind === 'expire' && r.everyMs > 0)
        this.timers.push(setInterval(() => this.expireResourceVersions(), r.everyMs).unref());
    }
  }

  clear(): void {
    this.set('');
  }

  spec(): string {
    return this.specText;
  }

  rules(): FaultRule[] {
    return this.ruleList.map((r) => structuredClone(r));
  }

  /** Waits out the latency that applies, then returns an injected error, if one fires. */
  async apply(r: FaultRequest): Promise<ApiError | undefined> {
    let delay = 0;
    let error: ApiError | undefined;
    for (const rule of this.ruleList) {
      if (rule.kind === 'latency' && applies(rule.filter, r)) {
        delay += rule.minMs + (rule.maxMs - rule.minMs) * this.random();
      } else if (rule.kind === 'error' && !error && applies(rule.filter, r) && this.random() < rule.rate) {
        error = injectedError(rule.code, r);
        this.counts.errors[rule.code] = (this.counts.errors[rule.code] ?? 0) + 1;
      }
    }
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    return error;
  }

  /** What was injected so far: errors by code, watch drops, resourceVersion expiries (for a test's figures). */
  stats(): { errors: Record<number, number>; watchDrops: number; expiries: number } {
    return { errors: { ...this.counts.errors }, watchDrops: this.counts.watchDrops, expiries: this.counts.expiries };
  }

  /** Ends every open watch now (clients see a clean close and re-watch). */
  dropWatches(): void {
    this.counts.watchDrops++;
    for (const l of this.dropListeners) l();
  }

  /** Makes every resourceVersion seen so far too old: the next watch from one gets 410. */
  expireResourceVersions(): void {
    this.counts.expiries++;
    for (const l of this.expireListeners) l();
  }

  onDropWatches(l: () => void): () => void {
    this.dropListeners.add(l);
    return () => this.dropListeners.delete(l);
  }

  onExpire(l: () => void): () => void {
    this.expireListeners.add(l);
    return () => this.expireListeners.delete(l);
  }

  private stopTimers(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
  }

  stop(): void {
    this.stopTimers();
    this.dropListeners.clear();
    this.expireListeners.clear();
  }
}
