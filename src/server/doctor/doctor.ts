/**
 * `pulse-widgets doctor`: one call per route to the real service, with the parameters the
 * elements use (raw data for one day), and every difference between each answer and our
 * contract (docs/upstream-assumptions.md). Six calls, and one more for a route that answers
 * "not now" (a 429 or 503 with a short Retry-After): a small share of the minute's budget.
 * The key travels in its header only; nothing here prints or returns it.
 */
import {
  canonicalQuery,
  parseQuery,
  readDifferences,
  ROUTE_NAMES,
  SUMMARY_KEYS,
  type Difference,
  type RouteName,
} from '../../api/index.ts';
import { RESPONSE_SHAPES } from '../../api/response-shapes.ts';
import { realClock, type Clock } from '../../runtime/clock.ts';
import { retryAfterMs } from '../../api/retry-after.ts';
import { JSON_TYPE, upstreamHeaders, upstreamUrlOf } from '../upstream.ts';

/** The query of each route as the elements send it; `today` is the raw data day (YYYY-MM-DD, UTC). */
export function doctorQueries(host: string, today: string): Record<RouteName, string> {
  const raw: Record<RouteName, Record<string, string>> = {
    // <top-pages> with its detail columns: every flag that adds a field.
    toppages: { host, limit: '10', all_platforms: '1', loyalty: '1', now_on: '1', types: '1' },
    summary: { host, keys: SUMMARY_KEYS.join(',') },
    referrers: { host, limit: '10' },
    top_geo: { host, limit: '10' },
    // <live-counter>, <traffic-sources>, <platform-split>, <engagement-histogram>, <traffic-chart>.
    quickstats: { host, all_platforms: '1', loyalty: '1', now_on: '1' },
    raw_data: { host, start: today, end: today, tz: 'UTC' },
  };
  const queries = {} as Record<RouteName, string>;
  for (const route of ROUTE_NAMES) {
    const parsed = parseQuery(route, new URLSearchParams(raw[route]));
    if (!parsed.success) throw new Error(`${route}: ${parsed.problem.message}`);
    queries[route] = canonicalQuery(parsed.params);
  }
  return queries;
}

/** What one call found. */
export interface RouteReport {
  route: RouteName;
  /** The path and query asked for (the key is never in it: it travels in a header). */
  request: string;
  status?: number;
  ms: number;
  /** The rate-limit headers of the answer, as sent. */
  rateLimit: Record<string, string>;
  /** `ok`: the widgets can show it; otherwise why not. */
  outcome: 'ok' | 'invalid' | 'status' | 'content_type' | 'bad_json' | 'network' | 'timeout';
  /** For `invalid`: the essential field that makes the body unusable. */
  problem?: Difference;
  /** Every difference from the contract, refusals and drops included; fields the query did not ask for are left out. */
  differences: Difference[];
  /** A network error, in a sentence. */
  error?: string;
  /** The first answer, when it said "not now" and this report is of the call made when it said. */
  notNow?: { status: number; ms: number; rateLimit: Record<string, string>; waitedMs: number };
}

export interface DoctorOptions {
  upstream: URL;
  apiKey: string;
  host: string;
  /** Raw data day, each call's time and timeout (default the real clock). */
  clock?: Clock;
  timeoutMs?: number;
}

const RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'retry-after'] as const;

/** The longest Retry-After the doctor waits out: as long as it waits for one answer. */
export const LONGEST_WAIT_MS = 10_000;

/**
 * How long to wait before asking a route once more, or undefined to report the answer as it is.
 * Only a 429 or a 503 whose Retry-After asks for at most `LONGEST_WAIT_MS`: those say "not now"
 * (RFC 9110 15.6.4, RFC 6585 4). Reported as they came, a cache endpoint still filling a cold
 * key, or a service at the end of a busy minute, read as a broken route. A second "not now" is
 * the finding.
 */
export function notNowWaitMs(
  report: Pick<RouteReport, 'status' | 'rateLimit'>,
  now: number,
): number | undefined {
  if (report.status !== 429 && report.status !== 503) return undefined;
  const waitMs = retryAfterMs(report.rateLimit['retry-after'], now);
  return waitMs !== undefined && waitMs <= LONGEST_WAIT_MS ? waitMs : undefined;
}

/** Calls each route, one after the other (the service's budget counts them all). */
export async function runDoctor(options: DoctorOptions): Promise<RouteReport[]> {
  const clock = options.clock ?? realClock;
  const queries = doctorQueries(options.host, new Date(clock.now()).toISOString().slice(0, 10));
  const reports: RouteReport[] = [];
  for (const route of ROUTE_NAMES) {
    const first = await callRoute(route, queries[route], options, clock);
    const waitMs = notNowWaitMs(first, clock.now());
    if (waitMs === undefined) {
      reports.push(first);
      continue;
    }
    await clock.sleep(waitMs);
    const { status, ms, rateLimit } = first;
    reports.push({
      ...(await callRoute(route, queries[route], options, clock)),
      notNow: { status: status!, ms, rateLimit, waitedMs: waitMs },
    });
  }
  return reports;
}

async function callRoute(
  route: RouteName,
  query: string,
  options: DoctorOptions,
  clock: Clock,
): Promise<RouteReport> {
  const url = upstreamUrlOf(options.upstream, route, query);
  const report: RouteReport = {
    route,
    request: `${url.pathname}${url.search}`,
    ms: 0,
    rateLimit: {},
    outcome: 'ok',
    differences: [],
  };
  const started = clock.now();
  const timeout = clock.timeout(options.timeoutMs ?? 10_000);
  try {
    const response = await fetch(url, {
      headers: upstreamHeaders(options.apiKey),
      redirect: 'manual',
      signal: timeout,
    });
    report.status = response.status;
    for (const name of RATE_LIMIT_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) report.rateLimit[name] = value;
    }
    const text = await response.text();
    report.ms = Math.round(clock.now() - started);
    if (response.status !== 200) return { ...report, outcome: 'status' };
    if (!JSON_TYPE.test(response.headers.get('content-type') ?? ''))
      return { ...report, outcome: 'content_type' };
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { ...report, outcome: 'bad_json' };
    }
    const reading = readDifferences(RESPONSE_SHAPES[route], body, { all: true });
    const asked = new URLSearchParams(query);
    report.differences = reading.differences.filter(
      (difference) => !(difference.addedBy && asked.get(difference.addedBy) === null),
    );
    if (!reading.ok) return { ...report, outcome: 'invalid', problem: reading.problem };
    return report;
  } catch (error) {
    report.ms = Math.round(clock.now() - started);
    return { ...report, outcome: timeout.aborted ? 'timeout' : 'network', error: (error as Error).message };
  }
}
