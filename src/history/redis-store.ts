/**
 * History in the shared tier (PULSE_REDIS_URL): every instance reads and writes one history.
 *
 * - Samples: one hash per host per UTC day, `history:<host>:<YYYY-MM-DD>`, a field per minute of
 *   the day holding the JSON row; it expires 36 days after its day began, so Redis holds 35 days.
 * - One recorder per host per minute across instances: the minute's lease
 *   (`history-lease:<host>:<minute>`, `SET NX PX`), taken before sampling. The instance that
 *   wins samples; the others skip that minute. `HSETNX` keeps a second write of a minute out too.
 * - Finished days do not change: they are read once and kept in memory; today is read afresh.
 *
 * While Redis is unreachable, nothing is recorded (a gap, never invented) and reads give gaps.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { createClient } from 'redis';
import { runBounded } from '../runtime/bounded.ts';
import { closeClient } from '../runtime/redis-close.ts';
import { emptyDay, SampleBook, type DayBlock } from './sample-book.ts';
import { DAY_MS, KEEP_DAYS, METRIC_COUNT, MINUTE_MS, minuteOf } from './samples.ts';
import type { HistoryStore } from './store.ts';

export interface RedisStoreOptions {
  url: string;
  prefix: string;
  timeoutMs: number;
  logger: Logger;
  now: () => number;
}

/** A day is final once this long has passed since it ended (a late recorder's last write). */
const SETTLE_MS = 5 * MINUTE_MS;

export class RedisStore implements HistoryStore {
  readonly #prefix: string;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #client;
  readonly #commands;
  /** Finished days only. */
  readonly #finished = new SampleBook();
  #closed = false;

  constructor(options: RedisStoreOptions) {
    this.#prefix = options.prefix;
    this.#logger = options.logger;
    this.#now = options.now;
    this.#client = createClient({
      url: options.url,
      disableOfflineQueue: true,
      socket: {
        connectTimeout: Math.max(options.timeoutMs, 1000),
        reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1000),
      },
    });
    this.#commands = this.#client.withCommandOptions({ timeout: options.timeoutMs });
    this.#client.on('error', () => undefined);
    this.#client.connect().catch(() => undefined);
  }

  /** Whether Redis answers now. */
  get online(): boolean {
    return !this.#closed && this.#client.isReady;
  }

  async claim(host: string, t: number): Promise<boolean> {
    const minute = minuteOf(t);
    const reply = await this.#run(() =>
      this.#commands.set(this.#key('history-lease', `${host}:${minute}`), randomUUID(), {
        condition: 'NX',
        expiration: { type: 'PX', value: 2 * MINUTE_MS },
      }),
    );
    return reply === 'OK';
  }

  async record(host: string, t: number, values: readonly number[]): Promise<boolean> {
    const minute = minuteOf(t);
    const day = Math.floor(minute / DAY_MS);
    const key = this.#dayKey(host, day);
    const row = JSON.stringify(
      values.slice(0, METRIC_COUNT).map((value) => (Number.isNaN(value) ? null : value)),
    );
    const reply = await this.#run(() =>
      this.#client
        .multi()
        .hSetNX(key, String((minute - day * DAY_MS) / MINUTE_MS), row)
        .pExpireAt(key, (day + KEEP_DAYS + 1) * DAY_MS)
        .exec(),
    );
    return Array.isArray(reply) && Number(reply[0]) === 1;
  }

  async column(host: string, metric: number, from: number, minutes: number): Promise<Float64Array> {
    const book = new SampleBook();
    const now = this.#now();
    const last = Math.floor((from + (minutes - 1) * MINUTE_MS) / DAY_MS);
    const oldest = Math.floor(now / DAY_MS) - KEEP_DAYS;
    const reads: Promise<void>[] = [];
    for (let day = Math.max(oldest, Math.floor(from / DAY_MS)); day <= last; day++) {
      if (day * DAY_MS > now) break;
      const final = (day + 1) * DAY_MS + SETTLE_MS <= now;
      if (final && this.#finished.hasDay(host, day)) continue;
      reads.push(
        this.#readDay(host, day).then((block) => {
          if (!block) return;
          if (final) this.#finished.setDay(host, day, block);
          else book.setDay(host, day, block);
        }),
      );
    }
    await Promise.all(reads);
    this.#finished.prune(now);
    const column = this.#finished.column(host, metric, from, minutes);
    const recent = book.column(host, metric, from, minutes);
    for (let i = 0; i < minutes; i++) if (Number.isNaN(column[i]!)) column[i] = recent[i]!;
    return column;
  }

  async close(): Promise<void> {
    this.#closed = true;
    closeClient(this.#client);
  }

  async #readDay(host: string, day: number): Promise<DayBlock | undefined> {
    const fields = await this.#run(() => this.#commands.hGetAll(this.#dayKey(host, day)));
    if (!fields) return undefined;
    const block = emptyDay();
    for (const [field, row] of Object.entries(fields)) {
      const minute = Number(field);
      let values: unknown;
      try {
        values = JSON.parse(String(row));
      } catch {
        continue;
      }
      if (!Number.isInteger(minute) || minute < 0 || minute >= 1440 || !Array.isArray(values)) continue;
      block.recorded[minute] = 1;
      values.slice(0, METRIC_COUNT).forEach((value, metric) => {
        block.values[minute * METRIC_COUNT + metric] = typeof value === 'number' ? value : Number.NaN;
      });
    }
    return block;
  }

  #dayKey(host: string, day: number): string {
    return this.#key('history', `${host}:${new Date(day * DAY_MS).toISOString().slice(0, 10)}`);
  }

  #key(kind: string, name: string): string {
    return `${this.#prefix}${kind}:${name}`;
  }

  #run<T>(command: () => Promise<T>): Promise<T | undefined> {
    return runBounded(
      !this.#closed && this.#client.isReady,
      this.#logger,
      'history: Redis command failed',
      command,
    );
  }
}
