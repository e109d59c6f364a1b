/**
 * Our own route, not the upstream's: `/history/v1/`, a host's audience over the day against the
 * typical band (docs/cache-endpoint.md). The cache endpoint records the samples; this file is
 * the contract: which metrics are kept, the strict query schema and the response schema.
 */
import * as z from 'zod/mini';
import { hostParam } from './params.ts';
import { HISTORY_METRICS, HISTORY_RANGES } from './history-paths.ts';

export {
  HISTORY_METRICS,
  HISTORY_PATH,
  HISTORY_RANGES,
  isHistoryPath,
  type HistoryMetric,
  type HistoryRange,
} from './history-paths.ts';

export const historyParamsSchema = z.strictObject({
  host: hostParam,
  metric: z._default(z.enum(HISTORY_METRICS, `must be one of ${HISTORY_METRICS.join(', ')}`), 'people'),
  range: z._default(z.enum(HISTORY_RANGES, `must be one of ${HISTORY_RANGES.join(', ')}`), 'today'),
});

const series = z.array(z.nullable(z.number()));

/**
 * Points are implicit: point `i` is the minute (or five minutes) starting at
 * `start + i × stepSeconds`. `values` stop at the current point; `typical` covers the whole range
 * (for `today`, up to the next local midnight), so the band shows where the day is heading.
 * `null` is a gap: nothing was recorded then, and nothing is invented.
 */
export const historyResponseSchema = z.looseObject({
  host: z.string(),
  metric: z.string(),
  range: z.string(),
  /** The host's time zone: where "today" starts, and the weekday of the typical band. */
  timeZone: z.string(),
  /** First point, ms since the epoch. */
  start: z.number(),
  stepSeconds: z.number(),
  values: series,
  typical: z.looseObject({
    /** How many of the last 4 weeks had any sample for this range: the band's footing. */
    weeks: z.number(),
    median: series,
    /** 10th percentile. */
    low: series,
    /** 90th percentile. */
    high: series,
  }),
  /** When this answer was computed, ms since the epoch. */
  generatedAt: z.number(),
});

export type HistoryParams = z.infer<typeof historyParamsSchema>;
export type HistoryResponse = z.infer<typeof historyResponseSchema>;
