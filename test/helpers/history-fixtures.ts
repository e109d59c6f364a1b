/** `/history/v1/` bodies for the browser tests: a UTC day around the fake clock's start (a Wednesday, 12:00). */
import type { HistoryResponse } from '../../src/api/index.ts';
import { START_TIME } from './browser-fakes.ts';

const DAY_START = Date.UTC(2025, 0, 1);
const MINUTE_MS = 60_000;

export interface DayOptions {
  /** `values[i]` for the minutes up to now; default 800. */
  value?: (minute: number) => number | null;
  median?: number | null;
  spread?: number;
  weeks?: number;
  now?: number;
}

/** Today in UTC, 1-minute points up to `now`, a flat typical band around `median`. */
export function historyDay(options: DayOptions = {}): HistoryResponse {
  const now = options.now ?? START_TIME;
  const elapsed = Math.floor((now - DAY_START) / MINUTE_MS) + 1;
  const median = options.median === undefined ? 1000 : options.median;
  const spread = options.spread ?? 100;
  const band = (offset: number) =>
    Array.from({ length: 1440 }, () => (median === null ? null : median + offset));
  return {
    host: 'example.com',
    metric: 'people',
    range: 'today',
    timeZone: 'UTC',
    start: DAY_START,
    stepSeconds: 60,
    values: Array.from({ length: elapsed }, (_, minute) => (options.value ? options.value(minute) : 800)),
    typical: { weeks: options.weeks ?? 4, median: band(0), low: band(-spread), high: band(spread) },
    generatedAt: now,
  };
}

/** The history body for history URLs, `undefined` for others (CommonCase.alongside). */
export function historyAlongside(body: HistoryResponse = historyDay()): (url: string) => unknown {
  return (url) => (url.includes('/history/v1/') ? body : undefined);
}
