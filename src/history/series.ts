/**
 * The answer of `/history/v1/`, computed from a store: a metric over `today` (1-minute points
 * from local midnight), `24h` or `7d` (5-minute points), against its typical band.
 *
 * The typical band of a point is the median and the 10th–90th percentile of the samples at the
 * same local weekday and time in each of the last 4 weeks. Per week a point pools the minutes
 * around it (its own five minutes, or two on either side of a 1-minute point), so a band of four
 * weeks stands on up to twenty samples rather than four, and the percentiles mean something.
 * Weeks with no sample in the range are left out, and `typical.weeks` says how many counted.
 */
import type { HistoryMetric, HistoryRange, HistoryResponse } from '../api/index.ts';
import { metricIndex, MINUTE_MS, minuteOf } from './samples.ts';
import type { HistoryStore } from './store.ts';
import { startOfLocalDay, weeksEarlier } from './time-zone.ts';

export const TYPICAL_WEEKS = 4;
const HOUR_MS = 3_600_000;

export interface HistoryRequest {
  host: string;
  metric: HistoryMetric;
  range: HistoryRange;
}

/** Percentile `p` (0–1) of sorted values, interpolating between neighbours (R's type 7). */
export function percentile(sorted: readonly number[], p: number): number {
  const position = (sorted.length - 1) * p;
  const below = Math.floor(position);
  const above = Math.min(sorted.length - 1, below + 1);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (position - below);
}

/** Rounded to a tenth: sample counts are whole, means and percentiles need no more. */
function tenth(value: number): number {
  return Math.round(value * 10) / 10;
}

/** The points of a range: first point, step, how many in all, and how many up to now. */
export function rangePoints(
  range: HistoryRange,
  timeZone: string,
  now: number,
): { start: number; stepMinutes: number; total: number; elapsed: number } {
  if (range === 'today') {
    const start = startOfLocalDay(timeZone, now);
    // 25 h after a midnight is always in the next day, whatever daylight saving does to its length.
    const end = startOfLocalDay(timeZone, start + 25 * HOUR_MS);
    return {
      start,
      stepMinutes: 1,
      total: (end - start) / MINUTE_MS,
      elapsed: (minuteOf(now) - start) / MINUTE_MS + 1,
    };
  }
  const step = 5 * MINUTE_MS;
  const end = Math.floor(now / step) * step + step;
  const total = ((range === '24h' ? 24 : 7 * 24) * HOUR_MS) / step;
  return { start: end - total * step, stepMinutes: 5, total, elapsed: total };
}

export async function buildHistory(
  store: HistoryStore,
  request: HistoryRequest,
  timeZone: string,
  now: number,
): Promise<HistoryResponse> {
  const { start, stepMinutes, total, elapsed } = rangePoints(request.range, timeZone, now);
  const metric = metricIndex(request.metric);
  const step = stepMinutes * MINUTE_MS;

  const recent = await store.column(request.host, metric, start, elapsed * stepMinutes);
  const values: (number | null)[] = [];
  for (let point = 0; point < elapsed; point++) {
    let sum = 0;
    let count = 0;
    for (let m = point * stepMinutes; m < (point + 1) * stepMinutes; m++) {
      const value = recent[m]!;
      if (!Number.isNaN(value)) {
        sum += value;
        count++;
      }
    }
    values.push(count === 0 ? null : tenth(sum / count));
  }

  // The minutes each point pools, relative to the point's first minute.
  const [poolFrom, poolTo] = stepMinutes === 1 ? [-2, 3] : [0, stepMinutes];
  // Read each week with an hour of margin: a daylight-saving change moves later points by an hour.
  const margin = 60 - poolFrom;
  const pools: number[][] = Array.from({ length: total }, () => []);
  let weeks = 0;
  for (let week = 1; week <= TYPICAL_WEEKS; week++) {
    const base = weeksEarlier(timeZone, start, week) - margin * MINUTE_MS;
    const column = await store.column(request.host, metric, base, total * stepMinutes + 2 * margin + poolTo);
    const shifts = new Map<number, number>();
    let any = false;
    for (let point = 0; point < total; point++) {
      const t = start + point * step;
      const hour = Math.floor(t / HOUR_MS);
      let shifted = shifts.get(hour);
      if (shifted === undefined)
        shifts.set(hour, (shifted = weeksEarlier(timeZone, hour * HOUR_MS, week) - hour * HOUR_MS));
      const first = (t + shifted - base) / MINUTE_MS;
      for (let m = first + poolFrom; m < first + poolTo; m++) {
        const value = column[m];
        if (value !== undefined && !Number.isNaN(value)) {
          pools[point]!.push(value);
          any = true;
        }
      }
    }
    if (any) weeks++;
  }

  const median: (number | null)[] = [];
  const low: (number | null)[] = [];
  const high: (number | null)[] = [];
  for (const pool of pools) {
    if (pool.length === 0) {
      median.push(null);
      low.push(null);
      high.push(null);
      continue;
    }
    pool.sort((a, b) => a - b);
    median.push(tenth(percentile(pool, 0.5)));
    low.push(tenth(percentile(pool, 0.1)));
    high.push(tenth(percentile(pool, 0.9)));
  }

  return {
    host: request.host,
    metric: request.metric,
    range: request.range,
    timeZone,
    start,
    stepSeconds: step / 1000,
    values,
    typical: { weeks, median, low, high },
    generatedAt: now,
  };
}
