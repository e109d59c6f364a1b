/**
 * A host's samples in memory: one block per UTC day, a row of METRIC_COUNT counts per minute
 * (Float32: counts stay exact up to 16 million), and which minutes were recorded. 35 days of
 * one host hold about 4 MB. Shared by every store: the file store keeps its log's contents here,
 * the Redis store its cache of finished days.
 */
import { DAY_MS, KEEP_DAYS, METRIC_COUNT, MINUTE_MS, MINUTES_PER_DAY } from './samples.ts';

export interface DayBlock {
  values: Float32Array;
  recorded: Uint8Array;
}

export function emptyDay(): DayBlock {
  return {
    values: new Float32Array(MINUTES_PER_DAY * METRIC_COUNT).fill(Number.NaN),
    recorded: new Uint8Array(MINUTES_PER_DAY),
  };
}

export class SampleBook {
  readonly #hosts = new Map<string, Map<number, DayBlock>>();

  /** Records minute `t` unless it is recorded; whether it was. */
  put(host: string, t: number, values: readonly number[]): boolean {
    const day = Math.floor(t / DAY_MS);
    let days = this.#hosts.get(host);
    if (!days) this.#hosts.set(host, (days = new Map()));
    let block = days.get(day);
    if (!block) days.set(day, (block = emptyDay()));
    const minute = Math.floor((t - day * DAY_MS) / MINUTE_MS);
    if (block.recorded[minute]) return false;
    block.recorded[minute] = 1;
    for (let metric = 0; metric < METRIC_COUNT; metric++)
      block.values[minute * METRIC_COUNT + metric] = values[metric] ?? Number.NaN;
    return true;
  }

  has(host: string, t: number): boolean {
    const day = Math.floor(t / DAY_MS);
    return this.#hosts.get(host)?.get(day)?.recorded[Math.floor((t - day * DAY_MS) / MINUTE_MS)] === 1;
  }

  /** Replaces a whole day (a finished day read back from a shared store). */
  setDay(host: string, day: number, block: DayBlock): void {
    let days = this.#hosts.get(host);
    if (!days) this.#hosts.set(host, (days = new Map()));
    days.set(day, block);
  }

  hasDay(host: string, day: number): boolean {
    return this.#hosts.get(host)?.has(day) === true;
  }

  /** One metric per minute from `from` (a minute) for `minutes` minutes; NaN where nothing was recorded. */
  column(host: string, metric: number, from: number, minutes: number): Float64Array {
    const column = new Float64Array(minutes).fill(Number.NaN);
    const days = this.#hosts.get(host);
    if (!days) return column;
    for (let i = 0; i < minutes; ) {
      const t = from + i * MINUTE_MS;
      const day = Math.floor(t / DAY_MS);
      const first = Math.floor((t - day * DAY_MS) / MINUTE_MS);
      const count = Math.min(MINUTES_PER_DAY - first, minutes - i);
      const block = days.get(day);
      if (block)
        for (let m = 0; m < count; m++) column[i + m] = block.values[(first + m) * METRIC_COUNT + metric]!;
      i += count;
    }
    return column;
  }

  /** Forgets days that ended more than KEEP_DAYS before `now`; answers them per host. */
  prune(now: number): { host: string; day: number }[] {
    const oldest = Math.floor(now / DAY_MS) - KEEP_DAYS;
    const dropped: { host: string; day: number }[] = [];
    for (const [host, days] of this.#hosts) {
      for (const day of days.keys()) {
        if (day < oldest) {
          days.delete(day);
          dropped.push({ host, day });
        }
      }
    }
    return dropped;
  }
}
