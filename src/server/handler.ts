/**
 * The cache endpoint as one Web-standard handler `(Request) => Promise<Response>`: the six
 * upstream routes (trailing slash optional) under an optional prefix, plus `/healthz`,
 * `/readyz` and `/metrics`. Only validated, canonical parameters ever reach the upstream.
 */
import pino, { type Logger } from 'pino';
import { canonicalQuery, findRoute, parseQuery, routes, type RouteName } from '../api/index.ts';
import { ClientLimit } from './client-limit.ts';
import { Cors } from './cors.ts';
import { errorResponse, retryAfterSeconds } from './errors.ts';
import { FillCache, type Lookup } from './fill-cache.ts';
import { HostBudget, WindowSlots } from './host-budget.ts';
import { createMetrics } from './metrics.ts';
import type { WebHandler } from './node-http.ts';
import { resolveOptions, type CacheOptions } from './options.ts';
import { SharedSlots, SharedTier } from './shared-tier.ts';
import { respondStored } from './stored-response.ts';
import { UpstreamClient } from './upstream.ts';

export interface CacheHandler {
  /** The handler; bound, so it can be passed around (`Deno.serve(cache.handle)`). */
  handle: WebHandler;
  /** Whether a URL is one of this endpoint's (under its prefix); adapters pass others on. */
  owns(url: URL): boolean;
  /** Stops refresh timers, drops queued fills, closes upstream connections and the Redis connection. */
  close(): Promise<void>;
  /** The Prometheus registry behind `/metrics`. */
  registry: ReturnType<typeof createMetrics>['registry'];
}

/** Transport parameters the endpoint refuses by name: it adds the key itself and never wraps JSON. */
const REFUSED_PARAMS: Record<string, string> = {
  apikey: 'apikey must not be sent: this endpoint adds the key itself',
  jsonp: 'jsonp is not supported: responses are plain JSON (use CORS)',
  callback: 'callback is not supported: responses are plain JSON (use CORS)',
};
const MAX_URL_LENGTH = 4096;
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
    now: options.now,
    onCall: (route, status, seconds) => {
      metrics.upstreamCalls.inc({ route, status });
      metrics.upstreamSeconds.observe({ route }, seconds);
    },
  });
  const shared = options.redisUrl === undefined ? undefined : new SharedTier({
    url: options.redisUrl,
    prefix: options.redisPrefix,
    timeoutMs: options.redisTimeoutMs,
    logger,
    onOnline: (online) => metrics.sharedTierUp.set(online ? 1 : 0),
  });
  if (shared) metrics.sharedTierUp.set(0);
  const slots = shared
    ? new SharedSlots(shared, options.budgetFills, options.budgetWindowMs, options.instances)
    // Alone, a cold dashboard may take a second's burst of what a tick's windows carry (host-budget.ts).
    : new WindowSlots(options.budgetFills, options.budgetWindowMs, options.budgetFills * Math.max(1, Math.floor(options.liveTtlMs / options.budgetWindowMs)));
  const budget = new HostBudget(slots, options.now);
  const fills = new FillCache({ options, upstream, budget, metrics, logger, shared });
  let closed = false;

  const localPath = (url: URL): string | undefined => {
    if (options.prefix === '') return url.pathname;
    if (!url.pathname.startsWith(`${options.prefix}/`)) return undefined;
    return url.pathname.slice(options.prefix.length);
  };

  const owns = (url: URL): boolean => {
    const path = localPath(url);
    return path !== undefined && (OPS_PATHS.has(path) || findRoute(path) !== undefined);
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
      metrics.unavailable.inc({ route });
      headers.set('retry-after', retryAfterSeconds(lookup.retryAfterMs));
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

  const handle = async (request: Request): Promise<Response> => {
    if (request.url.length > MAX_URL_LENGTH) return errorResponse(414, 'uri_too_long', `URLs are limited to ${MAX_URL_LENGTH} characters`);
    const url = new URL(request.url);
    const path = localPath(url);
    if (path === undefined) return errorResponse(404, 'not_found', `${url.pathname} is not a route of this endpoint`);
    const name = findRoute(path);
    if (name === undefined && !OPS_PATHS.has(path)) return errorResponse(404, 'not_found', `${url.pathname} is not a route of this endpoint`);
    if (request.method === 'OPTIONS') return cors.preflight(request);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return errorResponse(405, 'method_not_allowed', `${request.method} is not allowed: use GET`, { headers: { allow: 'GET, HEAD, OPTIONS' } });
    }
    if (name === undefined) return operations(path);

    const headers = cors.headers(request);
    const ip = options.clientIp(request);
    if (clientLimit && ip !== undefined) {
      const waitMs = await clientLimit.refusal(ip);
      if (waitMs !== undefined) {
        metrics.clientRejections.inc();
        headers.set('retry-after', retryAfterSeconds(waitMs));
        return errorResponse(429, 'too_many_requests', 'Too many requests from this address; try again after Retry-After seconds.', { headers });
      }
    }
    for (const param of url.searchParams.keys()) {
      const refused = REFUSED_PARAMS[param.toLowerCase()];
      if (refused) return errorResponse(400, 'bad_param', refused, { param, headers });
    }
    const parsed = parseQuery(name, url.searchParams);
    if (!parsed.success) return errorResponse(400, 'bad_param', parsed.problem.message, { param: parsed.problem.param, headers });
    const { host } = parsed.params;
    if (!options.hosts.has(host)) return errorResponse(403, 'host_not_allowed', `host ${host} is not served by this endpoint`, { param: 'host', headers });

    const query = canonicalQuery(parsed.params);
    const lookup = await fills.lookup(`${routes[name].path}?${query}`, { route: name, query, host });
    return answer(request, name, lookup, headers);
  };

  return {
    handle,
    owns,
    registry: metrics.registry,
    close: async () => {
      closed = true;
      await fills.close();
    },
  };
}
