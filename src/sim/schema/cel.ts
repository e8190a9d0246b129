// CEL for x-kubernetes-validations, on @marcbachmann/cel-js. Programs are compiled once per
// expression string and cached: admission runs them on every write. Values are handed to CEL the way
// the apiserver types them from the schema: integers (and int-or-string ints) as int (BigInt),
// numbers as double, and only name/generateName of the root metadata.

import { Environment } from '@marcbachmann/cel-js';
import type { JSONSchemaProps } from './types.ts';
import { additionalPropertiesSchema, isPlainObject, itemsSchema } from './types.ts';

export type CelProgram = (ctx: Record<string, unknown>) => unknown;

export type Compiled = { ok: true; program: CelProgram } | { ok: false; error: string };

function listOrder(a: unknown, b: unknown): number {
  return a === b ? 0 : (a as number) < (b as number) ? -1 : 1;
}

// The Kubernetes CEL list/string libraries that cel-js lacks and CRD authors use most.
function kubernetesEnvironment(): Environment {
  const env = new Environment({
    unlistedVariablesAreDyn: true,
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: false,
  });
  env.registerVariable('self', 'dyn');
  env.registerVariable('oldSelf', 'dyn');
  env.registerFunction('list.isSorted(): bool', (l: unknown[]) =>
    l.every((x, i) => i === 0 || listOrder(l[i - 1], x) <= 0),
  );
  env.registerFunction('list.sum(): dyn', (l: unknown[]) =>
    l.length === 0 ? 0n : l.reduce((a, b) => (a as number) + (b as number)),
  );
  env.registerFunction('list.min(): dyn', (l: unknown[]) => [...l].sort(listOrder)[0]);
  env.registerFunction('list.max(): dyn', (l: unknown[]) => [...l].sort(listOrder)[l.length - 1]);
  env.registerFunction('list.indexOf(dyn): int', (l: unknown[], x: unknown) => BigInt(l.indexOf(x)));
  env.registerFunction('list.lastIndexOf(dyn): int', (l: unknown[], x: unknown) => BigInt(l.lastIndexOf(x)));
  env.registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) =>
    s.split(a).join(b),
  );
  env.registerFunction('string.format(list<dyn>): string', celFormat);
  return env;
}

/** A value as CEL's string() prints it (lists and maps as the strings library's %s does). */
function celString(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(celString).join(', ')}]`;
  if (isPlainObject(v))
    return `{${Object.keys(v)
      .map((k) => `${celString(k)}: ${celString(v[k])}`)
      .join(', ')}}`;
  if (v === null || v === undefined) return 'null';
  return String(v);
}

/**
 * The strings library's `format` (Kubernetes CEL): %s any value, %d an integer, %f and %.Nf a
 * number (6 decimals by default), %% a percent sign. Other verbs are an error, as a bad verb is
 * upstream.
 */
function celFormat(format: string, args: unknown[]): string {
  let next = 0;
  const arg = (verb: string): unknown => {
    if (next >= args.length) throw new Error(`index ${next} out of range for format verb %${verb}`);
    return args[next++];
  };
  return format.replace(/%(?:\.(\d+))?([a-zA-Z%])/g, (_, precision: string | undefined, verb: string) => {
    switch (verb) {
      case '%':
        return '%';
      case 's':
        return celString(arg(verb));
      case 'd': {
        const v = arg(verb);
        if (typeof v !== 'bigint')
          throw new Error(
            `error during formatting: decimal clause can only be used on integers, was given ${typeof v}`,
          );
        return String(v);
      }
      case 'f':
        return Number(arg(verb)).toFixed(precision === undefined ? 6 : Number(precision));
      default:
        throw new Error(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
    }
  });
}

const env = kubernetesEnvironment();
const cache = new Map<string, Compiled>();

function firstLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.split('\n')[0] ?? msg;
}

/** Compile (and cache) one CEL expression. */
export function compileCel(expr: string): Compiled {
  let c = cache.get(expr);
  if (c) return c;
  try {
    const check = env.check(expr) as { valid: boolean; error?: unknown };
    if (!check.valid) c = { ok: false, error: firstLine(check.error) };
    else c = { ok: true, program: env.parse(expr) as unknown as CelProgram };
  } catch (e) {
    c = { ok: false, error: firstLine(e) };
  }
  cache.set(expr, c);
  return c;
}

/** Run a compiled program; errors come back as their first line. */
export function runCel(p: CelProgram, ctx: Record<string, unknown>): { value?: unknown; error?: string } {
  try {
    return { value: p(ctx) };
  } catch (e) {
    return { error: firstLine(e) };
  }
}

/** Rules that read oldSelf are transition rules: they run only on update, where the old value exists. */
export function isTransitionRule(rule: string): boolean {
  return /\boldSelf\b/.test(rule);
}

function toCelUntyped(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(toCelUntyped);
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = toCelUntyped(v[k]);
    return out;
  }
  return v;
}

/** A JSON value as CEL sees it under schema `s` (see the header comment). */
export function toCel(v: unknown, s: JSONSchemaProps | undefined, root = false): unknown {
  if (v === null || v === undefined || !s) return v === undefined ? v : s ? v : toCelUntyped(v);
  if (typeof v === 'number') {
    if (s.type === 'number') return v;
    return Number.isInteger(v) ? BigInt(v) : v;
  }
  if (Array.isArray(v)) {
    const items = itemsSchema(s);
    return v.map((x) => (items ? toCel(x, items) : toCelUntyped(x)));
  }
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    const add = additionalPropertiesSchema(s);
    for (const k of Object.keys(v)) {
      if (root && k === 'metadata' && isPlainObject(v[k])) {
        const m = v[k] as Record<string, unknown>;
        const meta: Record<string, unknown> = {};
        if (m.name !== undefined) meta.name = m.name;
        if (m.generateName !== undefined) meta.generateName = m.generateName;
        out[k] = meta;
        continue;
      }
      const ps = s.properties?.[k] ?? add;
      out[k] = ps ? toCel(v[k], ps) : toCelUntyped(v[k]);
    }
    return out;
  }
  return v;
}
