/**
 * The cache endpoint as one Web-standard handler `(Request) => Promise<Response>`: the six
 * upstream routes (trailing slash optional) under an optional prefix, our `/history/v1/`, plus
 * `/healthz`, `/readyz` and `/metrics`. Only validated, canonical parameters ever reach the upstream.
 */
import pino, { type Logger } from 'pino';
import { canonicalQuery, findRoute, historyParamsSchema, HISTORY_PATH, isHistoryPath, parseQueryWith, routes, type QuickstatsResponse, type RouteName } from '../../api/index.ts';
import { HistoryService } from '../../history/service.ts';
import { clientAddress } from './client-address.ts';
import { ClientLimit } from './client-limit.ts';
import { Cors } from './cors.ts';
import { errorResponse, retryAfterSeconds } from './errors.ts';
import type { Lookup } from '../cache/decision.ts';
import { FillCache } from '../cache/fill-cache.ts';
import { createHitPath, type HitPath } from './hit-path.ts';
import { HostBudget, WindowSlots } from '../budget/host-budget.ts';
import { createMetrics } from '../metrics.ts';
import { NewQueryMeter } from './new-query-meter.ts';
import type { WebHandler } from '../../runtime/node-http.ts';
import { resolveOptions, type CacheOptions } from '../config/options.ts';
import { refusedParam, resolveQuery } from './query.ts';
import { pinned, shapeOf } from './query-shapes.ts';
import { SharedSlots } from '../budget/shared-slots.ts';
import { RedisTier } from '../tier/redis-tier.ts';
import { memoizeByQuery } from '../../internal/memo.ts';
import { respondStored } from '../../runtime/stored-response.ts';
import { UpstreamClient } from '../upstream.ts';

export interface CacheHandler {
  /** The handler; bound, so it can be passed around (`Deno.serve(cache.handle)`). */
  handle: WebHandler;
  /**
   * node:http only: answers a plain fresh hit straight from the stored buffers and returns true,
   * or returns false (having done nothing) when `handle` must answer.
   */
  serveHit: HitPath;
  /**
   * The reader's address as the per-IP limit counts it: the peer, or with `trustProxy` the
   * address a trusted proxy forwarded (client-address.ts).
   */
  clientAddress(request: Request): string | undefined;
  /** The shapes of the valid queries this process was asked, to start a `queries` list from (the `/` page shows them). */
  queryShapes(): string[];
  /** Whether a URL is one of this endpoint's (under its prefix); adapters pass others on. */
  owns(url: URL): boolean;
  /** Stops refresh timers, drops queued fills, closes upstream connections and the Redis connection. */
  close(): Promise<void>;
  /** The Prometheus registry behind `/metrics`. */
  registry: ReturnType<typeof createMetrics>['registry'];
  /** The history recorder and `/history/v1/`. */
  history: HistoryService;
}

const MAX_URL_LENGTH = 4096;
/** Query shapes remembered for `queryShapes()`: a sprayer of new shapes cannot grow the list past it. */
const MAX_SHAPES_SEEN = 200;

const OPS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** The default logger: JSON lines, and the key censored should it ever be handed to a log call. */
export function createLogger(level = 'info', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { name: 'pulse-widgets' },
    redact: { paths: ['apiKey', '*.apiKey', 'headers["x-svc-ak"]', '*.headers["x-svc-ak"]'], censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}

export function createCacheHandler(cacheOptions: CacheOptions): CacheHandler {
  const options = resolveOptions(cacheOptions);
  const logger = options.logger ?? createLogger();
  const cors = new Cors(options.allowedOrigins);
  const clientLimit = options.clientLimit > 0 ? new ClientLimit(options.clientLimit, options.clientLimitWindowMs) : undefined;
  const newQueries = options.newQueryLimit > 0 ? new NewQueryMeter(options.newQueryLimit, options.newQueryBurst, options.clock) : undefined;
  // Read at scrape time only, once `fills` exists.
  const metrics = createMetrics({ bytes: () => fills.bytes, entries: () => fills.size });
  const upstream = new UpstreamClient({
    base: options.upstream,
    apiKey: options.apiKey,
    liveTimeoutMs: options.upstreamTimeoutMs,
    rawDataTimeoutMs: options.rawDataTimeoutMs,
    maxBodyBytes: options.maxBodyBytes,
    rawDataMaxBytes: options.rawDataMaxBytes,
    logger,
    clock: options.clock,
    transport: options.upstreamTransport,
    onCall: (route, status, seconds) => {
      metrics.upstreamCalls.inc({ route, status });
      metrics.upstreamSeconds.observe({ route }, seconds);
      if (status === 'invalid') metrics.invalidBodies.inc({ route });
    },
    onDropped: (route, entries, fields) => {
      if (entries > 0) metrics.droppedValues.inc({ route, what: 'entry' }, entries);
      if (fields > 0) metrics.droppedValues.inc({ route, what: 'field' }, fields);
    },
  });
  const shared = options.redisUrl === undefined ? options.sharedTier : new RedisTier({
    url: options.redisUrl,
    prefix: options.redisPrefix,
    timeoutMs: options.redisTimeoutMs,
    logger,
    onOnline: (online) => metrics.sharedTierUp.set(online ? 1 : 0),
  });
  if (shared) metrics.sharedTierUp.set(shared.online ? 1 : 0);
  // A cold dashboard may take a second's burst of what a tick's windows carry (host-budget.ts).
  const burst = options.budgetFills * Math.max(1, Math.floor(options.liveTtlMs / options.budgetWindowMs));
  const slots = shared
    ? new SharedSlots(shared, options.budgetFills, options.budgetWindowMs, burst, options.instances, logger)
    : new WindowSlots(options.budgetFills, options.budgetWindowMs, burst);
  // New queries take only what the refresh plan leaves of each window (read once `fills` exists).
  const budget = new HostBudget(slots, options.clock, (site, now) => fills.newQueryShare(site, now));
  const fills = new FillCache({ options, upstream, budget, metrics, logger, shared });
  let closed = false;
  const shapesSeen = new Set<string>();

  // History samples quickstats with every platform, through the fill cache (a fresh fill that covers it is reused).
  // Without `history` options nothing is recorded: the route answers what a shared store holds.
  const history = new HistoryService({
    options: cacheOptions.history ?? { record: false },
    hosts: [...options.hosts],
    clock: options.clock,
    logger,
    redis: options.redisUrl === undefined ? undefined : { url: options.redisUrl, prefix: options.redisPrefix, timeoutMs: options.redisTimeoutMs },
    retryMs: options.liveTtlMs,
    onMinute: (host, outcome) => metrics.historySamples.inc({ host, outcome }),
    quickstats: async (host) => {
      const query = canonicalQuery({ host, all_platforms: 1 });
      const lookup = await fills.lookup(`${routes.quickstats.path}?${query}`, { route: 'quickstats', query, host, passive: true });
      if (lookup.kind !== 'stored') return undefined;
      return { stats: (JSON.parse(lookup.stored.identity.toString()) as QuickstatsResponse).data.stats, fetchedAt: lookup.stored.fetchedAt };
    },
  });

  const localPath = (url: URL): string | undefined => {
    if (options.prefix === '') return url.pathname;
    if (!url.pathname.startsWith(`${options.prefix}/`)) return undefined;
    return url.pathname.slice(options.prefix.length);
  };

  const owns = (url: URL): boolean => {
    const path = localPath(url);
    return path !== undefined && (OPS_PATHS.has(path) || findRoute(path) !== undefined || isHistoryPath(path));
  };

  const operations = async (path: string): Promise<Response> => {
    if (path === '/metrics') {
      return new Response(await metrics.registry.metrics(), { headers: { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' } });
    }
    // Readiness never depends on the upstream: while it is down we still serve stale data and 503s.
    const body = path === '/healthz' ? { status: 'ok' } : { status: closed ? 'closing' : 'ready' };
    return Response.json(body, { status: closed ? 503 : 200, headers: { 'cache-control': 'no-store' } });
  };

  const answer = (request: Request, route: RouteName, lookup: Lookup, headers: Headers): Response => {
    if (lookup.kind === 'unavailable') {
      // The service answered, but nothing could be read from it: a bad gateway, not an outage.
      const invalid = lookup.invalid && !lookup.rateLimited;
      if (!invalid) metrics.unavailable.inc({ route });
      headers.set('retry-after', retryAfterSeconds(lookup.retryAfterMs));
      if (invalid) {
        headers.set('cache-status', 'pulse-widgets; fwd=miss; detail=upstream-invalid');
        return errorResponse(502, 'upstream_invalid', 'The analytics service answered, but its answer could not be read (see the cache log for the field) and no recent data is cached; try again after Retry-After seconds.', { headers });
      }
      headers.set('cache-status', 'pulse-widgets; fwd=miss; detail=upstream-unavailable');
      return lookup.rateLimited
        ? errorResponse(503, 'upstream_rate_limited', 'The analytics service asked us to slow down; try again after Retry-After seconds.', { headers })
        : errorResponse(503, 'upstream_unavailable', 'The analytics service is not answering and no recent data is cached; try again after Retry-After seconds.', { headers });
    }
    const { status } = lookup;
    if (status.kind === 'hit') metrics.hits.inc({ route });
    else if (status.kind === 'miss') metrics.misses.inc({ route });
    else metrics.staleServes.inc({ route, detail: status.detail });
    return respondStored(request, lookup.stored, status, options.now(), headers);
  };

  const REFUSALS = {
    too_many_requests: 'Too many requests from this address; try again after Retry-After seconds.',
    too_many_new_queries: 'This address asked for too many queries nobody else polls, each an upstream call; try again after Retry-After seconds.',
  } as const;
  const tooManyRequests = (waitMs: number, headers: Headers, code: keyof typeof REFUSALS = 'too_many_requests'): Response => {
    metrics.clientRejections.inc();
    headers.set('retry-after', retryAfterSeconds(waitMs));
    return errorResponse(429, code, REFUSALS[code], { headers });
  };

  const clientOf = (request: Request): string | undefined => clientAddress(options.clientIp(request), {
    xForwardedFor: request.headers.get('x-forwarded-for'),
    forwarded: request.headers.get('forwarded'),
  }, options.trustProxy);

  /** A route's query, validated once per distinct query string (as the hit path does). */
  const resolve = memoizeByQuery((route: RouteName, query: string) => resolveQuery(route, new URLSearchParams(query), options.hosts));

  const handle = async (request: Request): Promise<Response> => {
    if (request.url.length > MAX_URL_LENGTH) return errorResponse(414, 'uri_too_long', `URLs are limited to ${MAX_URL_LENGTH} characters`);
    const url = new URL(request.url);
    const path = localPath(url);
    if (path === undefined) return errorResponse(404, 'not_found', `${url.pathname} is not a route of this endpoint`);
    const name = findRoute(path);
    const historyRoute = isHistoryPath(path);
    if (name === undefined && !historyRoute && !OPS_PATHS.has(path)) return errorResponse(404, 'not_found', `${url.pathname} is not a route of this endpoint`);
    if (request.method === 'OPTIONS') return cors.preflight(request);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return errorResponse(405, 'method_not_allowed', `${request.method} is not allowed: use GET`, { headers: { allow: 'GET, HEAD, OPTIONS' } });
    }
    if (name === undefined && !historyRoute) return operations(path);

    const headers = cors.headers(request.headers.get('origin'));
    const client = clientOf(request);
    if (clientLimit && client !== undefined) {
      const waitMs = await clientLimit.refusal(client);
      if (waitMs !== undefined) return tooManyRequests(waitMs, headers);
    }
    if (historyRoute) return historyAnswer(request, url, headers);
    const resolved = resolve(name!, url.search.slice(1));
    if (!resolved.ok) return errorResponse(resolved.status, resolved.status === 403 ? 'host_not_allowed' : 'bad_param', resolved.message, { param: resolved.param, headers });
    const shape = shapeOf(name!, resolved.context.query);
    if (shapesSeen.size < MAX_SHAPES_SEEN) shapesSeen.add(shape);
    const pin = options.queries && pinned(options.queries, name!, resolved.context.query);
    if (pin && !pin.ok) {
      const what = pin.param === undefined ? `the route ${name}` : `${shape} (its ${pin.param} as asked)`;
      return errorResponse(403, 'query_not_allowed', `This endpoint answers only the query shapes its operator pinned; ${what} is not one of them.`, { param: pin.param, headers });
    }
    if (newQueries && client !== undefined && fills.startsNewQuery(resolved.key, resolved.context)) {
      const waitMs = newQueries.refusal(client);
      if (waitMs !== undefined) return tooManyRequests(waitMs, headers, 'too_many_new_queries');
    }
    const lookup = await fills.lookup(resolved.key, resolved.context);
    return answer(request, name!, lookup, headers);
  };

  const historyAnswer = async (request: Request, url: URL, headers: Headers): Promise<Response> => {
    const refused = refusedParam(url.searchParams);
    if (refused) return errorResponse(400, 'bad_param', refused.message, { param: refused.param, headers });
    const parsed = parseQueryWith(historyParamsSchema, HISTORY_PATH, url.searchParams);
    if (!parsed.success) return errorResponse(400, 'bad_param', parsed.problem.message, { param: parsed.problem.param, headers });
    const { host } = parsed.params;
    if (!options.hosts.has(host)) return errorResponse(403, 'host_not_allowed', `host ${host} is not served by this endpoint`, { param: 'host', headers });
    try {
      return await history.respond(request, parsed.params, headers);
    } catch (error) {
      logger.error({ err: (error as Error).message }, 'history: cannot answer');
      return errorResponse(503, 'history_unavailable', 'History cannot be read right now; try again in a minute.', { headers });
    }
  };

  const serveHit = createHitPath({
    prefix: options.prefix,
    hosts: options.hosts,
    fills,
    cors,
    // A custom `clientIp` reads a Web Request: with one, limited requests all take the Web path.
    clientLimit: cacheOptions.clientIp === undefined ? clientLimit : undefined,
    trustProxy: options.trustProxy,
    limited: clientLimit !== undefined && cacheOptions.clientIp !== undefined,
    hits: metrics.hits,
    staleServes: metrics.staleServes,
    now: options.now,
    tooManyRequests: (waitMs, origin) => tooManyRequests(waitMs, cors.headers(origin)),
  });

  return {
    handle,
    serveHit,
    clientAddress: clientOf,
    queryShapes: () => [...shapesSeen].sort(),
    owns,
    registry: metrics.registry,
    history,
    close: async () => {
      closed = true;
      await history.close();
      await fills.close();
    },
  };
}
