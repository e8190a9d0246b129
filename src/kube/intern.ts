// Interning for the caches (kube/slim.ts): equal strings and equal parts of cached objects held
// once. A watch or list response is parsed anew, so each cached object owns a copy of every string
// in it ("default", "apps/v1", the image, each label, its owner's uid ...) and of every part, even
// when the ten pods of a ReplicaSet have the same labels, owner and containers. An Interner hands
// out one string for equal strings, and one deep-frozen object for equal parts (labels, owners,
// templates): frozen, because it is shared, so a reader that wrote into a cached object would fail
// loudly instead of changing its neighbours (nothing does: caches are read-only, and the engine's
// tests freeze their inputs).
//
// An object that replaces one already cached (a new version from the watch) can be kept with the
// parts it has in common with that version: compact() is given the cached version, and where a
// part is deep-equal to the cached one, the cached one is kept instead of a copy, without being
// stringified to be looked up in the table. A status write then leaves a Deployment's spec and
// template the same objects as before, so what is remembered per object (the template's hash, its
// defaulted pod spec) is not computed again (kube/slim.ts says for which kinds; bench/RESULTS.md,
// "ReplicaSets and Deployments kept beside their cached version").
//
// The tables grow with the distinct values seen. At `limit` entries a table starts afresh: what
// the caches hold stays shared, values seen after are shared anew, and values no object holds any
// more (the owners of deleted ReplicaSets, old timestamps) are let go.

import { jsonEqual } from './jsonequal.ts';

// A copy is made through a constructor of its own for each number of properties (up to 32), whose
// prototype is Object.prototype: a plain object to every reader (JSON, isDeepStrictEqual, spreads),
// but V8 sizes a constructor's objects to the properties they were given (slack tracking), where
// one made from `{}` has room for 4 in the object and keeps the rest in a separate array: a
// cached pod's parts take about 160 bytes less (bench/RESULTS.md).
type Maker = new () => Record<string, unknown>;
const makers: Maker[] = [];
function plainObject(properties: number): Record<string, unknown> {
  if (properties === 0 || properties > 32) return {};
  let make = makers[properties];
  if (!make) {
    make = function PlainObject() {} as unknown as Maker;
    make.prototype = Object.prototype;
    makers[properties] = make;
  }
  return new make();
}

/**
 * How a part of an object is kept: its strings interned (the default), shared whole, as it is, each
 * member as its own shape says (an object), or each element as the one shape says (an array).
 */
export type Shape = 'share' | 'keep' | { readonly [key: string]: Shape } | readonly [Shape];

export class Interner {
  private strings = new Map<string, string>();
  private values = new Map<string, unknown>();
  readonly limit: number;

  constructor(limit = 1 << 18) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new Error(`Interner: limit must be a positive integer, got ${JSON.stringify(limit)}`);
    this.limit = limit;
  }

  /** The one string equal to `s`. */
  str(s: string): string {
    const had = this.strings.get(s);
    if (had !== undefined) return had;
    if (this.strings.size >= this.limit) this.strings = new Map();
    this.strings.set(s, s);
    return s;
  }

  /** The one deep-frozen value equal to `v` (a JSON value: what a watch delivers). */
  shared<T>(v: T): T {
    if (v === null || typeof v !== 'object') return this.strs(v);
    const key = JSON.stringify(v);
    const had = this.values.get(key);
    if (had !== undefined) return had as T;
    if (this.values.size >= this.limit) this.values = new Map();
    const made = freeze(this.strs(v));
    this.values.set(key, made);
    return made;
  }

  /** A copy of `v` whose strings (values and keys) are interned; nothing in it is shared. */
  strs<T>(v: T): T {
    if (typeof v === 'string') return this.str(v) as T;
    if (v === null || typeof v !== 'object') return v;
    if (Object.isFrozen(v)) return v; // already shared
    if (Array.isArray(v)) return v.map((x) => this.strs(x)) as T;
    const entries = Object.entries(v);
    const out = plainObject(entries.length);
    for (const [k, x] of entries) out[this.str(k)] = this.strs(x);
    return out as T;
  }

  /**
   * A copy of `v` kept as `shape` says: each key's part shared, kept as it is, or its strings
   * interned. Where `prev` (the version of the object kept before, made by compact with the same
   * shape) has a part deep-equal to `v`'s, that part of `prev` is kept instead, and `prev` itself
   * when all of it is.
   */
  compact<T>(v: T, shape: Shape, prev?: unknown): T {
    return this.kept(v, shape, prev) as T;
  }

  private kept(v: unknown, shape: Shape | undefined, prev: unknown): unknown {
    if (shape === 'keep') return prev !== undefined && jsonEqual(v, prev) ? prev : v;
    if (shape === 'share') return prev !== undefined && jsonEqual(v, prev) ? prev : this.shared(v);
    if (typeof v === 'string') return v === prev ? prev : this.str(v);
    if (v === null || typeof v !== 'object') return v;
    if (Object.isFrozen(v)) return v; // already shared
    if (Array.isArray(v)) {
      const each = Array.isArray(shape) ? (shape as readonly [Shape])[0] : undefined;
      // Element by element: a list grown at its end still lends its first elements.
      const before = Array.isArray(prev) ? (prev as unknown[]) : undefined;
      let same = before?.length === v.length;
      const out = v.map((x, i) => {
        const k = this.kept(x, each, before?.[i]);
        if (k !== before?.[i]) same = false;
        return k;
      });
      return same ? before : out;
    }
    const members =
      shape !== undefined && !Array.isArray(shape) ? (shape as { readonly [key: string]: Shape }) : undefined;
    const before = isRecord(prev) ? prev : undefined;
    const entries = Object.entries(v);
    const out = plainObject(entries.length);
    let same = before !== undefined && countKeys(before) === entries.length;
    for (const [k, x] of entries) {
      const was = before !== undefined && Object.hasOwn(before, k) ? before[k] : undefined;
      const kx = this.kept(x, members?.[k], was);
      out[this.str(k)] = kx;
      if (kx !== was || was === undefined) same = false;
    }
    return same ? before : out;
  }

  /** Entries in the string and value tables (for tests and figures). */
  sizes(): { strings: number; values: number } {
    return { strings: this.strings.size, values: this.values.size };
  }
}

function freeze<T>(v: T): T {
  if (v === null || typeof v !== 'object' || Object.isFrozen(v)) return v;
  for (const x of Object.values(v)) freeze(x);
  return Object.freeze(v);
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function countKeys(o: object): number {
  let n = 0;
  for (const _ in o) n++;
  return n;
}
