/**
 * Samples each served host's quickstats once a minute into the history store. The sample goes
 * through the fill cache like any request, so when widgets poll the same key a fresh fill is
 * reused and nothing extra reaches the upstream; otherwise it costs one call of the host's 183
 * a minute. A minute whose answer cannot be had fresh (upstream down, budget spent) is left a
 * gap: an old answer is never recorded as a new minute.
 */
import type { Logger } from 'pino';
import type { PageStats } from '../api/index.ts';
import type { Clock, TimerHandle } from '../runtime/clock.ts';
import { MINUTE_MS, minuteOf, sampleOf } from './samples.ts';
import type { HistoryStore } from './store.ts';

/** A host's quickstats as the cache holds it, and when it was fetched upstream. */
export interface CachedStats {
  stats: PageStats;
  fetchedAt: number;
}

export interface RecorderParts {
  hosts: readonly string[];
  store: HistoryStore;
  /** Looks the host's quickstats up through the fill cache; `undefined` when it has none. */
  quickstats(host: string): Promise<CachedStats | undefined>;
  clock: Clock;
  logger: Logger;
  /** Wait between tries for a fresh answer (the live TTL, 3000). */
  retryMs?: number;
  /** Told of each host's minute (for /metrics). */
  onMinute?: (host: string, outcome: MinuteOutcome) => void;
}

/** What became of a host's minute: recorded here, left a gap, or not this instance's (recorded already, or leased elsewhere). */
export type MinuteOutcome = 'recorded' | 'gap' | 'elsewhere';

/** An answer fetched this long before its minute began still describes the minute. */
const FRESH_ENOUGH_MS = 5000;
const TRIES = 3;

export class Recorder {
  readonly #parts: RecorderParts;
  readonly #retryMs: number;
  #timer: TimerHandle | undefined;
  #running: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(parts: RecorderParts) {
    this.#parts = parts;
    this.#retryMs = parts.retryMs ?? 3000;
  }

  /** Samples at the start of every minute from now on. */
  start(): void {
    if (this.#closed || this.#timer) return;
    const { clock } = this.#parts;
    const now = clock.now();
    // A second into the minute, so the sample belongs to the minute it is filed under.
    this.#timer = clock.setTimeout(
      () => {
        this.#timer = undefined;
        this.#running = this.recordMinute();
        this.start();
      },
      minuteOf(now) + MINUTE_MS + 1000 - now,
    );
  }

  /** Samples every host for the current minute (unless recorded); answers how many were recorded. */
  async recordMinute(): Promise<number> {
    const minute = minuteOf(this.#parts.clock.now());
    const recorded = await Promise.all(this.#parts.hosts.map((host) => this.#recordHost(host, minute)));
    return recorded.filter(Boolean).length;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#parts.clock.clearTimeout(this.#timer);
    await this.#running.catch(() => undefined);
  }

  async #recordHost(host: string, minute: number): Promise<boolean> {
    const outcome = await this.#sample(host, minute);
    this.#parts.onMinute?.(host, outcome);
    return outcome === 'recorded';
  }

  async #sample(host: string, minute: number): Promise<MinuteOutcome> {
    const { store, logger } = this.#parts;
    try {
      if (!(await store.claim(host, minute))) return 'elsewhere';
      for (let attempt = 0; attempt < TRIES && !this.#closed; attempt++) {
        const cached = await this.#parts.quickstats(host);
        if (
          cached &&
          cached.fetchedAt >= minute - FRESH_ENOUGH_MS &&
          minuteOf(this.#parts.clock.now()) === minute
        ) {
          return (await store.record(host, minute, sampleOf(cached.stats))) ? 'recorded' : 'elsewhere';
        }
        if (minuteOf(this.#parts.clock.now()) !== minute) break;
        await this.#parts.clock.sleep(this.#retryMs);
      }
      logger.warn(
        { site: host, minute: new Date(minute).toISOString() },
        'history: no fresh quickstats this minute; left as a gap',
      );
    } catch (error) {
      logger.error(
        { site: host, err: (error as Error).message },
        'history: recording failed; minute left as a gap',
      );
    }
    return 'gap';
  }
}
