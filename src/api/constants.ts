/** Enumerations, bounds and lifetimes of the contract, free of zod so browser code can read them. */

/** Real-time data is refreshed and cached upstream every 3 s (spec 1 and 8). */
export const LIVE_TTL_MS = 3000;
/** Headline-test raw data changes slowly and is large: never on the 3 s clock. */
export const RAW_DATA_TTL_MS = 60_000;

export const SORT_BY = [
  'engaged_time',
  'new',
  'returning',
  'social',
  'links',
  'internal',
  'direct',
  'search',
] as const;
export const SUMMARY_KEYS = [
  'pagetimer',
  'time_spent',
  'domain',
  'uid',
  'host',
  'title',
  'new',
  'path',
  'referrer',
  'token',
  'user',
  'window_height',
  'scroll_top',
  'page_height',
  'read',
  'write',
  'idle',
] as const;
export const RAW_DATA_STATUS = ['active', 'archived', 'all'] as const;

/** Bounds that are ours, not the spec's (docs/upstream-assumptions.md). */
export const LIMITS = {
  listLimit: 100,
  rawDataLimit: 5000,
  rawDataRangeDays: 366,
  listItems: 20,
  itemLength: 200,
  pathLength: 1024,
} as const;
