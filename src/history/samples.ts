/**
 * One minute of a host's audience as the recorder keeps it: the counts of HISTORY_METRICS read
 * from a quickstats answer, in that order; NaN where the answer had no such count.
 */
import { HISTORY_METRICS, type HistoryMetric, type PageStats } from '../api/index.ts';

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;
export const MINUTES_PER_DAY = 1440;
/** How long history is kept. */
export const KEEP_DAYS = 35;
export const METRIC_COUNT = HISTORY_METRICS.length;

const METRIC_INDEX = new Map<string, number>(HISTORY_METRICS.map((metric, index) => [metric, index]));

export function metricIndex(metric: HistoryMetric): number {
  return METRIC_INDEX.get(metric)!;
}

/** The minute holding `t`. */
export function minuteOf(t: number): number {
  return Math.floor(t / MINUTE_MS) * MINUTE_MS;
}

/** The values to record from a quickstats `stats` object. */
export function sampleOf(stats: PageStats): number[] {
  const counts = stats as Record<string, unknown>;
  const platform = (stats.platform ?? {}) as Record<string, unknown>;
  return HISTORY_METRICS.map((metric) => {
    const value = metric.startsWith('platform_')
      ? platform[metric.slice('platform_'.length)]
      : counts[metric];
    return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : Number.NaN;
  });
}
