/**
 * The history part of the cache endpoint: the store (memory, file or Redis), the recorder, and
 * `/history/v1/` answers, each computed once per key per minute and served like every route
 * (ETag and 304, stored gzip and brotli, Cache-Control to the next minute).
 */
import type { Logger } from 'pino';
import type { HistoryParams } from '../api/index.ts';
import { canonicalQuery } from '../api/index.ts';
import type { Clock } from '../runtime/clock.ts';
import { respondStored, storeBody, type StoredResponse } from '../runtime/stored-response.ts';
import { FileStore } from './file-store.ts';
import { Recorder, type CachedStats, type MinuteOutcome } from './recorder.ts';
import { RedisStore } from './redis-store.ts';
import { MINUTE_MS, minuteOf } from './samples.ts';
import { buildHistory } from './series.ts';
import { MemoryStore, withBaseline, type Baseline, type HistoryStore } from './store.ts';

export interface HistoryOptions {
  /**
   * Where samples are kept: a directory (the file store, kept across restarts) or `memory`.
   * Ignored with a shared tier: history then lives in Redis. Default `memory`.
   */
  dataDir?: string;
  /** A store of your own (tests, other databases); wins over `dataDir`. */
  store?: HistoryStore;
  /** Time zone per host, for "today" and the weekday of the typical band; `*` for the others (default UTC). */
  timeZones?: Readonly<Record<string, string>>;
  /** Demo mode: what minutes before the start that have no sample read (the simulator's model). */
  baseline?: Baseline;
  /** Sample every minute (default true once `history` is given); tests drive `recordMinute()` themselves. */
  record?: boolean;
}

export interface HistoryParts {
  options: HistoryOptions;
  hosts: readonly string[];
  quickstats(host: string): Promise<CachedStats | undefined>;
  clock: Clock;
  logger: Logger;
  redis?: { url: string; prefix: string; timeoutMs: number };
  retryMs?: number;
  onMinute?: (host: string, outcome: MinuteOutcome) => void;
}

/** Answers are recomputed this long after the minute turns, once the recorder has written it. */
const AFTER_RECORDING_MS = 2000;

export class HistoryService {
  readonly #parts: HistoryParts;
  readonly #store: Promise<HistoryStore>;
  readonly #answers = new Map<string, Promise<StoredResponse>>();
  #recorder: Recorder | undefined;

  constructor(parts: HistoryParts) {
    this.#parts = parts;
    this.#store = this.#openStore();
    this.#store.then(
      (store) => {
        this.#recorder = new Recorder({
          hosts: parts.hosts,
          store,
          quickstats: parts.quickstats,
          clock: parts.clock,
          logger: parts.logger,
          retryMs: parts.retryMs,
          onMinute: parts.onMinute,
        });
        if (parts.options.record !== false) this.#recorder.start();
      },
      (error: Error) =>
        parts.logger.error(
          { err: error.message },
          'history: store cannot be opened; /history/v1/ answers 503',
        ),
    );
  }

  timeZoneOf(host: string): string {
    const zones = this.#parts.options.timeZones ?? {};
    return zones[host] ?? zones['*'] ?? 'UTC';
  }

  /** Whether the store is open and reachable (Redis may not be). */
  async online(): Promise<boolean> {
    return (await this.#store.catch(() => undefined))?.online !== false;
  }

  /** Samples every host for the current minute now; answers how many were recorded. */
  async recordMinute(): Promise<number> {
    await this.#store;
    return this.#recorder!.recordMinute();
  }

  /** The answer for validated parameters of an allowed host. */
  async respond(request: Request, params: HistoryParams, headers: Headers): Promise<Response> {
    const key = canonicalQuery(params);
    const now = this.#parts.clock.now();
    let answer = this.#answers.get(key);
    const cached = answer && (await answer.catch(() => undefined));
    const fresh = cached !== undefined && now < cached.freshUntil;
    if (!fresh) {
      answer = this.#compute(params, now);
      this.#answers.set(key, answer);
      answer.catch(() => this.#answers.delete(key));
    }
    const stored = await answer!;
    return respondStored(request, stored, { kind: fresh ? 'hit' : 'miss' }, now, headers);
  }

  async close(): Promise<void> {
    await this.#recorder?.close();
    await (await this.#store.catch(() => undefined))?.close();
  }

  async #compute(params: HistoryParams, now: number): Promise<StoredResponse> {
    const body = await buildHistory(await this.#store, params, this.timeZoneOf(params.host), now);
    return storeBody(JSON.stringify(body), {
      startedAt: now,
      fetchedAt: now,
      freshUntil: minuteOf(now) + MINUTE_MS + AFTER_RECORDING_MS,
    });
  }

  async #openStore(): Promise<HistoryStore> {
    const { options, redis, logger, clock } = this.#parts;
    const now = clock.now;
    let store: HistoryStore;
    if (options.store) store = options.store;
    else if (redis) store = new RedisStore({ ...redis, logger, now });
    else if (options.dataDir && options.dataDir !== 'memory') {
      const opened = await FileStore.open(options.dataDir, now());
      logger.info(
        {
          dataDir: options.dataDir,
          samples: opened.report.samples,
          repaired: opened.report.repaired,
          deleted: opened.report.deleted,
        },
        'history: log opened',
      );
      store = opened.store;
    } else store = new MemoryStore();
    return options.baseline ? withBaseline(store, options.baseline, now()) : store;
  }
}
