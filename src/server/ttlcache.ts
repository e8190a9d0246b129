// Answers kept for a while: the reviews behind Pacer's endpoints (the dashboard's gate, the secure
// /metrics), so that a caller asking again and again costs the API server a review per answer's
// lifetime, not one per request. Time is `now()`, in ms; the oldest entry goes first once `max` are
// kept.

export class TtlCache<V> {
  private readonly entries = new Map<string, { until: number; value: V }>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly max: number;
  constructor(ttlMs: number, now: () => number, max = 10_000) {
    this.ttlMs = ttlMs;
    this.now = now;
    this.max = max;
  }

  /** The answer of `key` while fresh; undefined once its time is up (then asked again). */
  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (this.now() >= e.until) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  /** Keeps `value` for `ttlMs` (the cache's own time unless given). */
  set(key: string, value: V, ttlMs = this.ttlMs): void {
    this.entries.delete(key);
    // The oldest answer goes first once the cache is full (Map keeps insertion order).
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { until: this.now() + ttlMs, value });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
