/**
 * Sliding-window request limit (spec 8: 200 requests per minute per host). A request is allowed
 * when fewer than `limit` requests were allowed in the `windowMs` before it. Memory per key is at
 * most `limit` timestamps.
 */
export interface RateDecision {
  allowed: boolean;
  /** Requests still allowed in the current window after this one. */
  remaining: number;
  /** When refused: how long until a request would be allowed again, in ms. */
  retryAfterMs: number;
}

export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Timestamps of the requests allowed within the window ending at `now`, oldest first. */
  private recent(key: string, now: number): number[] {
    const list = this.hits.get(key) ?? [];
    let expired = 0;
    while (expired < list.length && list[expired]! <= now - this.windowMs) expired++;
    if (expired > 0) list.splice(0, expired);
    if (list.length === 0) this.hits.delete(key);
    return list;
  }

  /** Requests left for `key` at `now`, without counting one. */
  remaining(key: string, now: number): number {
    return Math.max(0, this.limit - this.recent(key, now).length);
  }

  /** Counts one request for `key` at `now` if the limit allows it. */
  take(key: string, now: number): RateDecision {
    const list = this.recent(key, now);
    if (list.length >= this.limit) {
      return { allowed: false, remaining: 0, retryAfterMs: Math.max(1, list[0]! + this.windowMs - now) };
    }
    list.push(now);
    this.hits.set(key, list);
    return { allowed: true, remaining: this.limit - list.length, retryAfterMs: 0 };
  }
}
