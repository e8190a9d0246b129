// Interning for the caches (kube/slim.ts): equal strings and equal parts of cached objects held
// once. A watch or list response is parsed anew, so each cached object owns a copy of every string
// in it ("default", "apps/v1", the image, each label, its owner's uid ...) and of every part, even
// when the ten pods of a ReplicaSet have the same labels, owner and containers. An Interner hands
// out one string for equal strings, and one deep-frozen object for equal parts (labels, owners,
// templates): frozen, because it is shared, so a reader that wrote into a cached object would fail
// loudly instead of changing its neighbours (nothing does: caches are read-only, and the engine's
// tests freeze their inputs).
//
// The tables grow with the distinct values seen. At `limit` entries a table starts afresh: what
// the caches hold stays shared, values seen after are shared anew, and values no object holds any
// more (the owners of deleted ReplicaSets, old timestamps) are let go.

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

/** How a part of an object is kept: its strings interned (the default), shared whole, or as it is. */
export type Shape = 'share' | 'keep' | { readonly [key: string]: Shape };

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

  /** A copy of `v` kept as `shape` says: each key's part shared, kept as it is, or its strings interned. */
  compact<T>(v: T, shape: Shape): T {
    if (shape === 'keep') return v;
    if (shape === 'share') return this.shared(v);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return this.strs(v);
    const entries = Object.entries(v);
    const out = plainObject(entries.length);
    for (const [k, x] of entries) {
      const sub = shape[k];
      out[this.str(k)] = sub === undefined ? this.strs(x) : this.compact(x, sub);
    }
    return out as T;
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
