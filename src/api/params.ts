/**
 * Query-parameter schemas of the six routes (spec section 4), strict on purpose: the cache
 * endpoint forwards only what passes here, and the simulator answers only what passes here.
 * Input is the raw query (`name -> string`); output is typed and normalised.
 *
 * `apikey` and `jsonp` are transport concerns, not data parameters: the simulator reads them
 * itself, the cache endpoint refuses them. They are therefore absent from these schemas.
 */
import * as z from 'zod/mini';
import { LIMITS, RAW_DATA_STATUS, SORT_BY, SUMMARY_KEYS } from './constants.ts';

const HOST_PATTERN =
  /^(?:video@)?[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds, to refuse them.
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/** Site ID, lower-cased; `video@` prefix for video customers (spec 5.4). */
export const hostParam = z.pipe(
  z.string().check(z.maxLength(253, 'must be at most 253 characters')),
  z.pipe(
    z.transform((value: string) => value.toLowerCase()),
    z.string().check(z.regex(HOST_PATTERN, 'must be a site ID such as example.com (or video@example.com)')),
  ),
);

/**
 * The site a host belongs to: `video@example.com` is example.com's video data, one site ID with a
 * prefix (spec 5.4), and counts against example.com's 200 calls a minute.
 */
export function siteOf(host: string): string {
  return host.startsWith('video@') ? host.slice('video@'.length) : host;
}

/** Non-negative integer written in base-10 digits only, within [min, max]. */
function digits(min: number, max: number) {
  return z.pipe(
    z.string().check(z.regex(/^\d{1,9}$/, 'must be a whole number written in digits')),
    z.pipe(
      z.transform((value: string) => Number(value)),
      z.number().check(z.minimum(min, `must be at least ${min}`), z.maximum(max, `must be at most ${max}`)),
    ),
  );
}

/** `1` adds a block, `0` (the default) does not. */
const flag = z.pipe(
  z.enum(['0', '1'], 'must be 0 or 1'),
  z.transform((value: '0' | '1') => (value === '1' ? 1 : 0) as 0 | 1),
);

/** Comma-separated list, items trimmed, de-duplicated and sorted (order carries no meaning). */
function commaList<T extends string>(item: z.ZodMiniType<T, string>, what: string) {
  return z.pipe(
    z.string(),
    z.pipe(
      z.transform((value: string) => [...new Set(value.split(',').map((part) => part.trim()))].sort()),
      z
        .array(item)
        .check(
          z.minLength(1, `must name at least one ${what}`),
          z.maxLength(LIMITS.listItems, `must name at most ${LIMITS.listItems} ${what}s`),
        ),
    ),
  );
}

const freeText = (what: string) =>
  z.string().check(
    z.minLength(1, `must not contain an empty ${what}`),
    z.maxLength(LIMITS.itemLength, `${what} names must be at most ${LIMITS.itemLength} characters`),
    z.refine((value) => !CONTROL_CHARS.test(value), `${what} names must not contain control characters`),
  );

/** A custom metric key (spec 4.1: begins with an underscore) or `video_state`. */
const metricName = z
  .string()
  .check(
    z.regex(
      /^(?:video_state|_[A-Za-z0-9_]{1,63})$/,
      'must only list video_state or custom metric keys that start with _',
    ),
  );

/** One page path: `/x` or `host/x`; no traversal, no encoded separators, no control characters. */
export const pathParam = z.string().check(
  z.maxLength(LIMITS.pathLength, `must be at most ${LIMITS.pathLength} characters`),
  z.regex(
    /^(?:[A-Za-z0-9.-]+)?\/(?!\/)[^\s\\]*$/,
    'must be a page path such as /news/story or example.com/news/story',
  ),
  z.refine((value) => !CONTROL_CHARS.test(value), 'must not contain control characters'),
  z.refine((value) => !/(^|\/)\.\.?(\/|$)/.test(value), 'must not contain . or .. segments'),
  z.refine((value) => !/%(2e|2f|5c|00)/i.test(value), 'must not contain encoded dots, slashes or NUL'),
);

function isCalendarDate(value: string): boolean {
  const [year, month, day] = value.split('-').map(Number);
  const date = new Date(Date.UTC(year!, month! - 1, day!));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month! - 1 && date.getUTCDate() === day;
}

/** `YYYY-MM-DD`, a real calendar day. */
export const dateParam = z
  .string()
  .check(
    z.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written YYYY-MM-DD'),
    z.refine(isCalendarDate, 'must be a real calendar date'),
  );

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** Olson (IANA) time zone name such as Europe/Paris, or UTC. */
export const timeZoneParam = z
  .string()
  .check(
    z.regex(
      /^(?:UTC|[A-Za-z]+(?:\/[A-Za-z0-9_+-]+){1,2})$/,
      'must be an Olson time zone such as Europe/Paris',
    ),
    z.refine(isTimeZone, 'is not a time zone this runtime knows'),
  );

const sortBy = z.enum(SORT_BY, `must be one of ${SORT_BY.join(', ')}`);
const summaryKey = z.enum(SUMMARY_KEYS, `must only list keys among ${SUMMARY_KEYS.join(', ')}`);
const listLimit = digits(1, LIMITS.listLimit);

export const toppagesParamsSchema = z.strictObject({
  host: hostParam,
  metrics: z.optional(commaList(metricName, 'metric')),
  limit: z._default(listLimit, 10),
  section: z.optional(commaList(freeText('section'), 'section')),
  author: z.optional(commaList(freeText('author'), 'author')),
  exclude_people: z.optional(digits(0, 1_000_000)),
  sort_by: z.optional(sortBy),
  now_on: z.optional(flag),
  all_platforms: z.optional(flag),
  loyalty: z.optional(flag),
  types: z.optional(flag),
});

export const summaryParamsSchema = z.strictObject({
  host: hostParam,
  keys: commaList(summaryKey, 'key'),
  path: z.optional(pathParam),
});

export const referrersParamsSchema = z.strictObject({
  host: hostParam,
  limit: z.optional(listLimit),
  path: z.optional(pathParam),
  by_type: z.optional(flag),
});

export const topGeoParamsSchema = z.strictObject({
  host: hostParam,
  limit: z.optional(listLimit),
});

export const quickstatsParamsSchema = z.strictObject({
  host: hostParam,
  path: z.optional(pathParam),
  now_on: z.optional(flag),
  all_platforms: z.optional(flag),
  loyalty: z.optional(flag),
  types: z.optional(flag),
  section: z.optional(commaList(freeText('section'), 'section')),
});

const DAY_MS = 86_400_000;

export const rawDataParamsSchema = z
  .strictObject({
    start: dateParam,
    end: dateParam,
    host: hostParam,
    limit: z.optional(digits(1, LIMITS.rawDataLimit)),
    tz: timeZoneParam,
    status: z._default(z.enum(RAW_DATA_STATUS, `must be one of ${RAW_DATA_STATUS.join(', ')}`), 'all'),
  })
  .check(
    z.superRefine((params, ctx) => {
      const days = (Date.parse(params.end) - Date.parse(params.start)) / DAY_MS;
      if (days < 0)
        ctx.issues.push({
          code: 'custom',
          message: 'must not be before start',
          path: ['end'],
          input: params.end,
        });
      else if (days >= LIMITS.rawDataRangeDays) {
        ctx.issues.push({
          code: 'custom',
          message: `must be less than ${LIMITS.rawDataRangeDays} days after start`,
          path: ['end'],
          input: params.end,
        });
      }
    }),
  );

export type ToppagesParams = z.infer<typeof toppagesParamsSchema>;
export type SummaryParams = z.infer<typeof summaryParamsSchema>;
export type ReferrersParams = z.infer<typeof referrersParamsSchema>;
export type TopGeoParams = z.infer<typeof topGeoParamsSchema>;
export type QuickstatsParams = z.infer<typeof quickstatsParamsSchema>;
export type RawDataParams = z.infer<typeof rawDataParamsSchema>;
export type SortBy = (typeof SORT_BY)[number];
export type SummaryKey = (typeof SUMMARY_KEYS)[number];
export type RawDataStatus = (typeof RAW_DATA_STATUS)[number];
