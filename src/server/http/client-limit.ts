/**
 * The per-client-IP request limit, with rate-limiter-flexible's in-memory fixed windows. The
 * default is generous on purpose: a newsroom of 500 viewers behind one office NAT, each polling
 * up to 4 distinct URLs on the same 3 s tick, makes 2,000 requests a tick and at most 21 ticks
 * fall in one minute window: 42,000 per minute, under the default 60,000.
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export class ClientLimit {
  readonly #limiter: RateLimiterMemory;

  constructor(requests: number, windowMs: number) {
    this.#limiter = new RateLimiterMemory({ points: requests, duration: windowMs / 1000 });
  }

  /** `undefined` when the request may go ahead, else how long the client should wait. */
  async refusal(ip: string): Promise<number | undefined> {
    try {
      await this.#limiter.consume(ip);
      return undefined;
    } catch (error) {
      if (error instanceof RateLimiterRes) return error.msBeforeNext;
      throw error;
    }
  }
}
