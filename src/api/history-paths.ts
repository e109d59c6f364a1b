/** The history route's path and vocabulary, free of zod so browser code can read them. */
export const HISTORY_PATH = '/history/v1/';

/**
 * What the recorder keeps per minute from quickstats: the activity counts, the traffic sources
 * and the platforms (spec 2.2 letters, with `all_platforms=1`).
 */
export const HISTORY_METRICS = [
  'people',
  'read',
  'write',
  'idle',
  'new',
  'direct',
  'links',
  'search',
  'social',
  'internal',
  'subscr',
  'platform_a',
  'platform_e',
  'platform_d',
  'platform_g',
  'platform_f',
  'platform_i',
  'platform_m',
  'platform_r',
  'platform_t',
] as const;

export const HISTORY_RANGES = ['today', '24h', '7d'] as const;

export type HistoryMetric = (typeof HISTORY_METRICS)[number];
export type HistoryRange = (typeof HISTORY_RANGES)[number];

/** Whether `pathname` is the history route, the trailing slash being optional. */
export function isHistoryPath(pathname: string): boolean {
  return (pathname.endsWith('/') ? pathname : `${pathname}/`) === HISTORY_PATH;
}
