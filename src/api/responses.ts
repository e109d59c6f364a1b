/**
 * Response schemas of the upstream service (spec sections 2 and 4), read leniently: each route
 * requires only what is essential to show anything (docs/upstream-assumptions.md, "What each
 * route needs"); everything else is optional and typed when present.
 *
 * - Unknown fields are kept and passed through unchanged (`looseObject`).
 * - An optional field of another type (or `null` where no null is expected) is dropped, as if
 *   it were missing (`optional`): a widget shows "—" for it, never a wrong type.
 * - A list or map entry that cannot be used is dropped (`entries`, `entryMap`), never the body.
 * - A body whose essential fields are missing or of another type is refused whole.
 *
 * `check-response.ts` reads bodies by the same rules in the browser, from the JSON Schema export
 * of these schemas (`drop` marks what is dropped when unusable, `addedBy` the query flag that
 * adds a field); a test holds the two to the same answers.
 */
import * as z from 'zod/mini';

/** Marks a dropped list or map entry until the list or map is filtered; JSON has no `undefined`. */
const DROPPED = undefined as never;

/** A field read when present: a value of another type is dropped, as if it were missing. */
function optional<T extends z.ZodMiniType>(schema: T) {
  return z.optional(z.catch(schema, DROPPED as z.output<T>));
}

/** A field only a query flag adds (spec: "1 adds …"): `doctor` does not miss it when the flag was not asked for. */
function addedBy<T extends z.ZodMiniType>(flag: string, schema: T) {
  const field = z.catch(schema, DROPPED as z.output<T>);
  z.globalRegistry.add(field, { addedBy: flag });
  return z.optional(field);
}

/** A list whose unusable entries are dropped; the list itself stays. */
function entries<T extends z.ZodMiniType>(item: T) {
  return z.pipe(
    z.array(z.catch(item, DROPPED as z.output<T>)),
    z.transform((items: z.output<T>[]) => items.filter((entry) => entry !== undefined)),
  );
}

/** A map (keys chosen by the data) whose unusable values are dropped. */
function entryMap<T extends z.ZodMiniType>(value: T) {
  return z.pipe(
    z.record(z.string(), z.catch(value, DROPPED as z.output<T>)),
    z.transform((map: Record<string, z.output<T>>) => {
      for (const key of Object.keys(map)) if (map[key] === undefined) delete map[key];
      return map;
    }),
  );
}

const count = z.number();
const countMap = entryMap(count);
/** Positional numbers (buckets, breaks, intervals): one bad number makes the whole list unusable. */
const numbers = z.array(z.number());

/**
 * Spec 2.1. `hist` holds one more bucket than `breaks` (the open last bucket). Older answers send
 * a histogram as its average alone (`{avg}`) or as a bare number (the average).
 */
export const histogramSchema = z.union([
  z.number(),
  z.looseObject({
    breaks: optional(numbers),
    num_values: optional(count),
    median: optional(z.number()),
    hist: optional(numbers),
    avg: optional(z.number()),
    sum: optional(z.number()),
  }),
]);

/** Platform letters a, e, d, g, f, i, m, r, t (spec 2.2); unknown letters are kept. */
export const platformSchema = countMap;

/** Added by `loyalty=1` (our reading of the spec: new, returning and loyal concurrents). */
export const loyaltySchema = z.looseObject({
  new: optional(count),
  returning: optional(count),
  loyal: optional(count),
});

/** A page and its visitors (`toppages`, `now_on`): the path is what makes an entry usable. */
const pathVisitors = entries(z.looseObject({ path: z.string(), visitors: optional(count) }));

/**
 * Spec 2.2: the stats object of a top page (`pages[].stats`) and of quickstats (`data.stats`);
 * each route adds a few fields of its own (below).
 */
const statsFields = {
  people: optional(count),
  engaged_visit: optional(histogramSchema),
  engaged_time: optional(histogramSchema),
  writing_visit: optional(histogramSchema),
  domload: optional(histogramSchema),
  scroll: optional(histogramSchema),
  visit: optional(histogramSchema),
  read: optional(count),
  visits: optional(count),
  performance_score: optional(z.nullable(z.number())),
  subscr: optional(count),
  platform: addedBy('all_platforms', platformSchema),
  platform_engaged: addedBy('all_platforms', platformSchema),
  loyalty: addedBy('loyalty', loyaltySchema),
  article: optional(count),
  recirc: optional(count),
  crowd: optional(count),
  write: optional(count),
  idle: optional(count),
  direct: optional(count),
  links: optional(count),
  search: optional(count),
  internal: optional(count),
  social: optional(count),
  new: optional(count),
  /** `now_on=1`: where the readers of an article page go next. */
  now_on: addedBy('now_on', pathVisitors),
};

/** The stats of a top page: with its referrers (`toprefs`, `num_refs`). */
export const pageStatsSchema = z.looseObject({
  ...statsFields,
  toprefs: optional(entries(z.looseObject({ domain: z.string(), visitors: optional(count) }))),
  num_refs: optional(count),
});

/** The stats of quickstats: with its busiest pages (`toppages`) and how many pages are read (`pages`). */
export const quickstatsStatsSchema = z.looseObject({
  ...statsFields,
  toppages: optional(pathVisitors),
  pages: optional(count),
});

/** `types=1`: the page type. */
export const pageTypeSchema = z.string();

/**
 * Custom metric values of a page (`metrics=`), keyed by metric key. Number metrics report
 * statistics, string metrics top values, enum metrics an unlabelled array of counts, and
 * `video_state` a map of player state to viewers (see docs/upstream-assumptions.md).
 */
export const customMetricValueSchema = z.union([
  numbers,
  entryMap(
    z.union([z.number(), z.null(), entries(z.looseObject({ value: z.string(), visitors: optional(count) }))]),
  ),
]);

/** Spec 2.3. `path` may be `/x`, `host/x` or `http://host/x`; a page without one cannot be shown or linked. */
export const topPageSchema = z.looseObject({
  path: z.string(),
  stats: optional(pageStatsSchema),
  title: optional(z.string()),
  host: optional(z.string()),
  authors: optional(entries(z.string())),
  sections: optional(entries(z.string())),
  type: addedBy('types', pageTypeSchema),
  metrics: addedBy('metrics', entryMap(customMetricValueSchema)),
});

/** Spec 4.1. */
export const toppagesResponseSchema = z.looseObject({ pages: entries(topPageSchema) });

/**
 * Spec 4.2: one member per requested key. Categorical keys map values to counts; numeric keys map
 * statistic names to numbers, in either spelling the service uses (`statistics.ts`).
 */
export const summaryMemberSchema = z.looseObject({ data: countMap, type: optional(z.string()) });
export const summaryResponseSchema = entryMap(summaryMemberSchema);

/** Spec 4.3. With `by_type=1` each traffic source maps to its own referrer counts. */
export const referrersResponseSchema = z.looseObject({
  referrers: entryMap(z.union([count, countMap])),
});

/** Spec 4.4. */
export const topGeoResponseSchema = z.looseObject({
  geo: z.looseObject({
    regions: optional(countMap),
    countries: optional(countMap),
    total: optional(count),
    cities: optional(countMap),
    metro_codes: optional(countMap),
  }),
});

/** Spec 4.5. No element reads `metrics` or `host_metadata`; quickstats v4 answers may lack both. */
export const quickstatsResponseSchema = z.looseObject({
  data: z.looseObject({
    stats: quickstatsStatsSchema,
    metrics: optional(z.record(z.string(), z.unknown())),
    host_metadata: optional(z.looseObject({ subdomain_handling: optional(z.boolean()) })),
    type: addedBy('types', pageTypeSchema),
  }),
});

const text = optional(z.string());
const nullableText = optional(z.nullable(z.string()));
const isoDateTime = nullableText;
const optionalNumber = optional(z.number());
const optionalNumbers = optional(numbers);

/** Spec 2.4: one row per experiment variant, carrying the experiment's fields too; the two ids place it. */
export const rawDataRecordSchema = z.looseObject({
  experiment_id: z.string(),
  variant_id: z.string(),
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
  variant_metadata: nullableText,
  /** Personal data: the cache endpoint strips it unless the operator opts in. */
  user_email: text,
  sections: optional(entries(z.string())),
  created_at: isoDateTime,
  archived_at: isoDateTime,
  activated_at: isoDateTime,
  completed_at: isoDateTime,
  total_outcomes: optionalNumber,
  total_failures: optionalNumber,
  outcome_last_received_at: optional(z.nullable(z.number())),
  num_outcomes: optionalNumber,
  num_variants: optionalNumber,
  strategy_last_updated_at: optional(z.nullable(z.number())),
  /** Personal data, as `user_email`. */
  user_id: optionalNumber,
  engagement_mean: optionalNumber,
  ctr_mean: optionalNumber,
  engaged_clicks_mean: optionalNumber,
  probability: optionalNumber,
  payout_coefficients: optionalNumbers,
  priors: optionalNumbers,
  engagement_intervals: optionalNumbers,
  ctr_intervals: optionalNumbers,
  engaged_click_intervals: optionalNumbers,
  outcome_counts: optionalNumbers,
});

/** Spec 2.4 envelope and 4.6. */
export const rawDataResponseSchema = z.looseObject({
  status: text,
  data: entries(rawDataRecordSchema),
});

export type Histogram = z.infer<typeof histogramSchema>;
/** A histogram as an object (a bare number is its average): every field typed when present. */
export type HistogramFields = Exclude<Histogram, number>;
/** A histogram as spec 2.1 shows it, every field present: what the simulator sends. */
export type FullHistogram = HistogramFields & {
  breaks: number[];
  num_values: number;
  median: number;
  hist: number[];
  avg: number;
  sum: number;
};
export type PageStats = z.infer<typeof pageStatsSchema>;
export type QuickstatsStats = z.infer<typeof quickstatsStatsSchema>;
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
