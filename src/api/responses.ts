/**
 * Response schemas of the upstream service (spec sections 2 and 4).
 *
 * Tolerant on purpose: every object keeps fields we do not know (`looseObject`), counts may be
 * floats, blocks that only appear with a flag are optional, and `performance_score` may be null.
 * What must hold for the widgets to render safely (types of the fields they read) is checked.
 */
import * as z from 'zod/mini';

const count = z.number();
const countMap = z.record(z.string(), count);

/** Spec 2.1. `hist` holds one more bucket than `breaks` (the open last bucket). */
export const histogramSchema = z.looseObject({
  breaks: z.array(z.number()),
  num_values: count,
  median: z.number(),
  hist: z.array(count),
  avg: z.number(),
  sum: z.number(),
});

/** Platform letters a, e, d, g, f, i, m, r, t (spec 2.2); unknown letters are kept. */
export const platformSchema = countMap;

/** Added by `loyalty=1` (our reading of the spec: new, returning and loyal concurrents). */
export const loyaltySchema = z.looseObject({
  new: count,
  returning: count,
  loyal: count,
});

const pathVisitors = z.looseObject({ path: z.string(), visitors: count });

/** Spec 2.2: the stats object of a top page (`pages[].stats`) and of quickstats (`data.stats`). */
export const pageStatsSchema = z.looseObject({
  people: count,
  engaged_visit: z.optional(histogramSchema),
  engaged_time: z.optional(histogramSchema),
  writing_visit: z.optional(histogramSchema),
  domload: z.optional(histogramSchema),
  scroll: z.optional(histogramSchema),
  visit: z.optional(histogramSchema),
  read: z.optional(count),
  visits: z.optional(count),
  performance_score: z.optional(z.nullable(z.number())),
  subscr: z.optional(count),
  platform: z.optional(platformSchema),
  platform_engaged: z.optional(platformSchema),
  loyalty: z.optional(loyaltySchema),
  article: z.optional(count),
  toprefs: z.optional(z.array(z.looseObject({ visitors: count, domain: z.string() }))),
  recirc: z.optional(count),
  crowd: z.optional(count),
  write: z.optional(count),
  num_refs: z.optional(count),
  idle: z.optional(count),
  direct: z.optional(count),
  links: z.optional(count),
  search: z.optional(count),
  internal: z.optional(count),
  social: z.optional(count),
  new: z.optional(count),
  toppages: z.optional(z.array(pathVisitors)),
  pages: z.optional(count),
  /** `now_on=1`: where the readers of an article page go next. */
  now_on: z.optional(z.array(pathVisitors)),
});

/** `types=1`: the page type. */
export const pageTypeSchema = z.string();

/**
 * Custom metric values of a page (`metrics=`), keyed by metric key. Number metrics report
 * statistics, string metrics top values, enum metrics an unlabelled array of counts, and
 * `video_state` a map of player state to viewers (see docs/upstream-assumptions.md).
 */
export const customMetricValueSchema = z.union([
  z.array(count),
  z.record(z.string(), z.union([z.number(), z.null(), z.array(z.looseObject({ value: z.string(), visitors: count }))])),
]);

/** Spec 2.3. `path` may be `/x`, `host/x` or `http://host/x`. */
export const topPageSchema = z.looseObject({
  stats: pageStatsSchema,
  title: z.string(),
  host: z.optional(z.string()),
  authors: z.optional(z.array(z.string())),
  path: z.string(),
  sections: z.optional(z.array(z.string())),
  type: z.optional(pageTypeSchema),
  metrics: z.optional(z.record(z.string(), customMetricValueSchema)),
});

/** Spec 4.1. */
export const toppagesResponseSchema = z.looseObject({ pages: z.array(topPageSchema) });

/**
 * Spec 4.2: one member per requested key. Categorical keys map values to counts; numeric keys map
 * statistic names (min, max, sum, nonzero, observations, sum_squares) to numbers.
 */
export const summaryMemberSchema = z.looseObject({ data: countMap, type: z.string() });
export const summaryResponseSchema = z.record(z.string(), summaryMemberSchema);

/** Spec 4.3. With `by_type=1` each traffic source maps to its own referrer counts. */
export const referrersResponseSchema = z.looseObject({
  referrers: z.record(z.string(), z.union([count, countMap])),
});

/** Spec 4.4. */
export const topGeoResponseSchema = z.looseObject({
  geo: z.looseObject({
    regions: countMap,
    countries: countMap,
    total: count,
    cities: countMap,
    metro_codes: countMap,
  }),
});

/** Spec 4.5. */
export const quickstatsResponseSchema = z.looseObject({
  data: z.looseObject({
    metrics: z.record(z.string(), z.unknown()),
    host_metadata: z.looseObject({ subdomain_handling: z.boolean() }),
    stats: pageStatsSchema,
    type: z.optional(pageTypeSchema),
  }),
});

const text = z.string();
const nullableText = z.nullable(z.string());
const isoDateTime = z.nullable(z.string());
const numbers = z.array(z.number());

/** Spec 2.4: one row per experiment variant, carrying the experiment's fields too. */
export const rawDataRecordSchema = z.looseObject({
  experiment_id: text,
  status: text,
  type: text,
  model: text,
  host: text,
  domain: text,
  path: text,
  location: nullableText,
  specific_location: nullableText,
  exp_metadata: nullableText,
  winning_variant: nullableText,
  convergence_type: nullableText,
  value_remaining: nullableText,
  valid: text,
  content_type: text,
  content: text,
  variant_id: text,
  variant_metadata: nullableText,
  /** Personal data: the cache endpoint strips it unless the operator opts in. */
  user_email: z.optional(text),
  sections: z.array(text),
  created_at: isoDateTime,
  archived_at: isoDateTime,
  activated_at: isoDateTime,
  completed_at: isoDateTime,
  total_outcomes: z.number(),
  total_failures: z.number(),
  outcome_last_received_at: z.nullable(z.number()),
  num_outcomes: z.number(),
  num_variants: z.number(),
  strategy_last_updated_at: z.nullable(z.number()),
  /** Personal data, as `user_email`. */
  user_id: z.optional(z.number()),
  engagement_mean: z.number(),
  ctr_mean: z.number(),
  engaged_clicks_mean: z.number(),
  probability: z.number(),
  payout_coefficients: numbers,
  priors: numbers,
  engagement_intervals: numbers,
  ctr_intervals: numbers,
  engaged_click_intervals: numbers,
  outcome_counts: numbers,
});

/** Spec 2.4 envelope and 4.6. */
export const rawDataResponseSchema = z.looseObject({
  status: z.string(),
  data: z.array(rawDataRecordSchema),
});

export type Histogram = z.infer<typeof histogramSchema>;
export type PageStats = z.infer<typeof pageStatsSchema>;
export type Loyalty = z.infer<typeof loyaltySchema>;
export type TopPage = z.infer<typeof topPageSchema>;
export type CustomMetricValue = z.infer<typeof customMetricValueSchema>;
export type ToppagesResponse = z.infer<typeof toppagesResponseSchema>;
export type SummaryMember = z.infer<typeof summaryMemberSchema>;
export type SummaryResponse = z.infer<typeof summaryResponseSchema>;
export type ReferrersResponse = z.infer<typeof referrersResponseSchema>;
export type TopGeoResponse = z.infer<typeof topGeoResponseSchema>;
export type QuickstatsResponse = z.infer<typeof quickstatsResponseSchema>;
export type RawDataRecord = z.infer<typeof rawDataRecordSchema>;
export type RawDataResponse = z.infer<typeof rawDataResponseSchema>;
