// Client-side rate limiting, as client-go's rest.Config QPS and Burst: a token bucket that holds
// up to `burst` tokens and refills at `qps` per second; every request takes one, and waits for it
// when the bucket is empty. kube-controller-manager runs each controller's client at 20 QPS with a
// burst of 30 (--kube-api-qps, --kube-api-burst); Pacer's controller defaults to 200 and 400, a
// ceiling rather than a pace (docs/flow-control.md).
//
// A taker reserves the next token at once (the count may go below zero) and sleeps until its
// token has been refilled: callers are served in the order they asked, as with golang.org/x/time/rate.
// A background taker (Pacer's Events) reserves nothing ahead: it takes a token only when one is
// spare, after every reservation made before it and while it waited, so the controller's own writes
// never queue behind its Events (client-go's recorder shares the limiter first come, first served).

import { realClock } from './clock.ts';
import type { Clock } from './clock.ts';

/** What the bucket needs of a clock (src/kube/clock.ts). */
export type BucketClock = Pick<Clock, 'elapsed' | 'sleep'>;

export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: BucketClock;

  /** `qps` > 0 and `burst` >= 1; the bucket starts full. */
  constructor(qps: number, burst: number, clock: BucketClock = realClock) {
    if (!(qps > 0)) throw new Error(`qps must be greater than 0, got ${qps}`);
    if (!Number.isInteger(burst) || burst < 1) throw new Error(`burst must be an integer of at least 1, got ${burst}`);
    this.qps = qps;
    this.burst = burst;
    this.clock = clock;
    this.tokens = burst;
    this.last = clock.elapsed();
  }

  /** Adds the tokens refilled since the last look, up to burst. */
  private refill(): void {
    const now = this.clock.elapsed();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
  }

  /** How long the caller waits for its token, in ms (0 when one was there). */
  reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  /** Takes a token, waiting for it; the wait is returned (ms). */
  async take(signal?: AbortSignal): Promise<number> {
    const wait = this.reserve();
    if (wait > 0) await this.clock.sleep(wait, signal);
    return wait;
  }

  /**
   * Takes a token only when a whole one is spare (nobody has reserved it), else sleeps until one
   * would be and looks again: any take() meanwhile goes first. The wait is returned (ms).
   */
  async takeSpare(signal?: AbortSignal): Promise<number> {
    let waited = 0;
    for (;;) {
      this.refill();
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return waited;
      }
      const wait = ((1 - this.tokens) / this.qps) * 1000;
      await this.clock.sleep(wait, signal);
      waited += wait;
    }
  }
}
