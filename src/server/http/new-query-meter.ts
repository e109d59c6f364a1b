/**
 * Upstream calls a client address may start for queries nobody polls (issue 27). A script
 * asking a new valid query every 200 ms spent the site's shared budget; the per-address request
 * limit does not notice five requests a second. This meters what is expensive, a miss that
 * needs an upstream call, not requests: hits, and queries someone already polls, stay unlimited.
 *
 * A token bucket per address on the injected clock: `burst` calls at once (a dashboard opening on
 * a cold cache asks all its queries together), then `perMinute`. Addresses are kept in an LRU:
 * one that has not asked for a while has a full bucket again anyway.
 */
import { LRUCache } from 'lru-cache';
import { lruTime, type Clock } from '../../runtime/clock.ts';

export interface Bucket {
  tokens: number;
  at: number;
}

/**
 * One more call from a bucket last seen as `bucket` (undefined: a full one): the bucket after it
 * and no wait, or the bucket as it is now and how long until a token is back.
 */
export function takeToken(
  bucket: Bucket | undefined,
  now: number,
  perMinute: number,
  burst: number,
): { bucket: Bucket; waitMs?: number } {
  const refilled =
    bucket === undefined ? burst : Math.min(burst, bucket.tokens + ((now - bucket.at) * perMinute) / 60_000);
  if (refilled >= 1) return { bucket: { tokens: refilled - 1, at: now } };
  return { bucket: { tokens: refilled, at: now }, waitMs: Math.ceil(((1 - refilled) * 60_000) / perMinute) };
}

const ADDRESSES = 10_000;

export class NewQueryMeter {
  readonly #perMinute: number;
  readonly #burst: number;
  readonly #clock: Clock;
  readonly #buckets: LRUCache<string, Bucket>;

  constructor(perMinute: number, burst: number, clock: Clock) {
    this.#perMinute = perMinute;
    this.#burst = Math.max(1, burst);
    this.#clock = clock;
    this.#buckets = new LRUCache<string, Bucket>({ max: ADDRESSES, ...lruTime(clock) });
  }

  /** `undefined` when `address` may start one more call (it is counted), else how long it should wait. */
  refusal(address: string): number | undefined {
    const taken = takeToken(this.#buckets.get(address), this.#clock.now(), this.#perMinute, this.#burst);
    this.#buckets.set(address, taken.bucket);
    return taken.waitMs;
  }
}
