/**
 * One upstream call, built from scratch: the configured base URL, the route's path, the canonical
 * query, and exactly three headers (`X-SVC-AK`, `Accept`, `User-Agent`). Nothing from the client
 * request travels upstream. Redirects are not followed (undici's `request` has no redirect
 * handling unless an interceptor adds it), the body is capped by undici's `maxResponseSize`
 * (checked against Content-Length up front and counted while streaming), and the whole call is
 * bounded by an AbortSignal timeout shorter than the TTL.
 *
 * The answer is accepted only when it is a 200 with a JSON content type, parses, and the route's
 * response schema can read it: an optional value it cannot use is dropped (and counted), a body
 * whose essential fields are missing or of another type is an `invalid` failure naming the JSON
 * path. Any failure has a reason and is never cached.
 */
import type { Logger } from 'pino';
import { Agent, errors, request } from 'undici';
import { readDifferences, readShape, routes, type Difference, type RouteName } from '../api/index.ts';
import { RESPONSE_SHAPES } from '../api/response-shapes.ts';
import { retryAfterMs } from '../api/retry-after.ts';
import { deadline, type Clock, type Deadline } from '../runtime/clock.ts';
import { ContractDrift } from './contract-drift.ts';
import { VERSION } from './version.ts';

export const USER_AGENT = `pulse-widgets/${VERSION}`;

export type FailureReason =
  | 'timeout'
  | 'network'
  | 'cut'
  | 'too_large'
  | 'redirect'
  | 'rate_limited'
  | 'status'
  | 'content_type'
  | 'bad_json'
  | 'invalid'
  | 'closed';

/** What the upstream said about its rate limit, whatever the outcome. */
export interface RateLimitSignals {
  remaining?: number;
  retryAfterMs?: number;
}

export type UpstreamOutcome =
  | {
      ok: true;
      data: unknown;
      status: number;
      ms: number;
      limits: RateLimitSignals;
      dropped?: readonly Difference[];
    }
  | {
      ok: false;
      reason: FailureReason;
      status?: number;
      ms: number;
      limits: RateLimitSignals;
      problem?: Difference;
    };

/** The part of an HTTP answer the client reads (undici's `request` result has this shape). */
export interface TransportResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: { text(): Promise<string>; dump(): Promise<unknown> };
}

/**
 * How one call travels: undici over the network by default; the deterministic simulation
 * (test/simulation/) answers in process, on its virtual clock.
 */
export type UpstreamTransport = (
  url: URL,
  call: { headers: Record<string, string>; signal: AbortSignal; live: boolean },
) => Promise<TransportResponse>;

export interface UpstreamClientOptions {
  base: URL;
  apiKey: string;
  liveTimeoutMs: number;
  rawDataTimeoutMs: number;
  maxBodyBytes: number;
  rawDataMaxBytes: number;
  logger: Logger;
  /** The cache's clock: the call's timeout, its duration, and when log lines say it was sent. */
  clock: Clock;
  /** Default: undici, with the body caps above. */
  transport?: UpstreamTransport;
  /** Called once per call with the route and the status (a number, or the failure reason). */
  onCall?: (route: RouteName, status: string, seconds: number) => void;
  /** Called for each body read with values dropped (entries of lists and maps, or fields). */
  onDropped?: (route: RouteName, entries: number, fields: number) => void;
}

/** The upstream URL of a route and canonical query under the configured base: the only place one is built. */
export function upstreamUrlOf(base: URL, name: RouteName, query: string): URL {
  const url = new URL(base);
  url.pathname = url.pathname.replace(/\/+$/, '') + routes[name].path;
  url.search = query;
  return url;
}

/** The headers of every upstream request, and nothing from a client: the key, JSON, who we are. */
export function upstreamHeaders(apiKey: string): Record<string, string> {
  return { 'x-svc-ak': apiKey, accept: 'application/json', 'user-agent': USER_AGENT };
}

export const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

export class UpstreamClient {
  readonly #options: UpstreamClientOptions;
  readonly #transport: UpstreamTransport;
  readonly #agents: Agent[] = [];
  readonly #drift = new ContractDrift();

  constructor(options: UpstreamClientOptions) {
    this.#options = options;
    this.#transport = options.transport ?? this.#undici();
  }

  /** The upstream URL of a route and canonical query. */
  url(name: RouteName, query: string): URL {
    return upstreamUrlOf(this.#options.base, name, query);
  }

  /** `grantedAt`: when the budget granted this call, logged beside `sentAt` (see host-budget.ts). */
  async get(
    name: RouteName,
    query: string,
    fillSignal?: AbortSignal,
    grantedAt?: number,
  ): Promise<UpstreamOutcome> {
    const route = routes[name];
    const { clock } = this.#options;
    const limit = deadline(
      clock,
      route.live ? this.#options.liveTimeoutMs : this.#options.rawDataTimeoutMs,
      fillSignal,
    );
    const sentAt = clock.now();
    const began = clock.monotonic();
    let limits: RateLimitSignals = {};
    let status: number | undefined;
    let outcome: UpstreamOutcome;
    let readingBody = false;
    try {
      const response = await this.#transport(this.url(name, query), {
        headers: upstreamHeaders(this.#options.apiKey),
        signal: limit.signal,
        live: route.live,
      });
      status = response.statusCode;
      limits = readLimits(response.headers, clock.now());
      const refusal = refuse(response.statusCode, response.headers['content-type']);
      if (refusal) {
        await response.body.dump().catch(() => undefined);
        outcome = { ok: false, reason: refusal, status, ms: 0, limits };
      } else {
        readingBody = true;
        outcome = parse(name, await response.body.text(), status, limits);
      }
    } catch (error) {
      outcome = { ok: false, reason: classify(error, limit, fillSignal, readingBody), status, ms: 0, limits };
    } finally {
      limit.clear();
    }
    outcome.ms = Math.round(clock.monotonic() - began);
    this.#report(name, query, { grantedAt, sentAt }, outcome);
    return outcome;
  }

  async close(): Promise<void> {
    await Promise.all(this.#agents.map((agent) => agent.close()));
  }

  /** undici with one connection pool for live routes and one for raw data, each with its body cap. */
  #undici(): UpstreamTransport {
    const common = { connections: 16, keepAliveTimeout: 10_000 };
    const live = new Agent({ ...common, maxResponseSize: this.#options.maxBodyBytes });
    const rawData = new Agent({ ...common, maxResponseSize: this.#options.rawDataMaxBytes });
    this.#agents.push(live, rawData);
    return (url, call) =>
      request(url, {
        method: 'GET',
        headers: call.headers,
        dispatcher: call.live ? live : rawData,
        signal: call.signal,
      });
  }

  #report(
    name: RouteName,
    query: string,
    times: { grantedAt?: number; sentAt: number },
    outcome: UpstreamOutcome,
  ): void {
    const fields = {
      route: name,
      query,
      ...times,
      status: outcome.status,
      ms: outcome.ms,
      outcome: outcome.ok ? 'ok' : outcome.reason,
      remaining: outcome.limits.remaining,
      retryAfterMs: outcome.limits.retryAfterMs,
      ...contractFields(outcome),
    };
    if (outcome.ok) this.#options.logger.info(fields, 'upstream call');
    else this.#options.logger.warn(fields, 'upstream call failed');
    this.#options.onCall?.(name, outcome.ok ? String(outcome.status) : outcome.reason, outcome.ms / 1000);
    if (outcome.ok && outcome.dropped?.length) {
      const entries = outcome.dropped.filter((difference) => difference.entry).length;
      this.#options.onDropped?.(name, entries, outcome.dropped.length - entries);
    }
    if (outcome.ok || outcome.reason === 'invalid') {
      const line = this.#drift.note(
        name,
        query,
        outcome.ok ? undefined : outcome.problem,
        outcome.ok ? (outcome.dropped ?? []) : [],
      );
      if (line) this.#options.logger[line.level](line.fields, line.message);
    }
  }
}

/** What every call's log line says about the contract: how many values were dropped, or where a refused body went wrong. */
function contractFields(outcome: UpstreamOutcome): Record<string, unknown> {
  if (outcome.ok) return outcome.dropped?.length ? { dropped: outcome.dropped.length } : {};
  const { problem } = outcome;
  return problem ? { path: problem.path, expected: problem.expected, found: problem.found } : {};
}

function refuse(status: number, contentType: string | string[] | undefined): FailureReason | undefined {
  if (status === 429) return 'rate_limited';
  if (status >= 300 && status < 400) return 'redirect';
  if (status !== 200) return 'status';
  if (typeof contentType !== 'string' || !JSON_TYPE.test(contentType)) return 'content_type';
  return undefined;
}

/**
 * The route's shape decides, keeps the value and names what was dropped or refused, with JSON
 * paths: one walk over the body (check-response.ts, the same rules as the contract's zod schema;
 * test/check-response.node.test.ts holds both to the same verdict and value over thousands of
 * mutated bodies). A body with nothing dropped is kept as sent (same bytes, same key order).
 */
function parse(name: RouteName, text: string, status: number, limits: RateLimitSignals): UpstreamOutcome {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'bad_json', status, ms: 0, limits };
  }
  // The quiet reader first: a body it reads whole, as sent (the usual case), has no difference
  // to name, and the walk that names them (JSON paths) is not needed.
  if (readShape(RESPONSE_SHAPES[name], data) === data) return { ok: true, data, status, ms: 0, limits };
  const reading = readDifferences(RESPONSE_SHAPES[name], data);
  if (!reading.ok) return { ok: false, reason: 'invalid', status, ms: 0, limits, problem: reading.problem };
  if (reading.differences.length === 0) return { ok: true, data, status, ms: 0, limits };
  return { ok: true, data: reading.value, status, ms: 0, limits, dropped: reading.differences };
}

function classify(
  error: unknown,
  limit: Deadline,
  fillSignal: AbortSignal | undefined,
  readingBody: boolean,
): FailureReason {
  if (fillSignal?.aborted) return 'closed';
  if (limit.expired) return 'timeout';
  if (error instanceof errors.ResponseExceededMaxSizeError) return 'too_large';
  return readingBody ? 'cut' : 'network';
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function readLimits(headers: Record<string, string | string[] | undefined>, now: number): RateLimitSignals {
  const limits: RateLimitSignals = {};
  const remaining = header(headers, 'x-ratelimit-remaining');
  if (remaining !== undefined && /^\s*\d+\s*$/.test(remaining)) limits.remaining = Number(remaining);
  const wait = retryAfterMs(header(headers, 'retry-after'), now);
  if (wait !== undefined && wait > 0) limits.retryAfterMs = wait;
  return limits;
}
