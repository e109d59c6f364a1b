/**
 * The router: one Web-standard handler `(Request) => Promise<Response>` for the six upstream
 * routes (trailing slash optional) under an optional prefix, our `/history/v1/`, plus
 * `/healthz`, `/readyz` and `/metrics`. It checks a request in a fixed order (URL length,
 * prefix and route, OPTIONS, method, the per-IP limit, the query, pinned shapes, the site's cap
 * of new queries, the new-query meter), then asks the cache and answers. Only validated,
 * canonical parameters ever reach the cache, and so the upstream. The parts it calls are built
 * by `createCacheHandler` (handler.ts).
 */
import type { Logger } from 'pino';
import {
  findRoute,
  historyParamsSchema,
  siteOf,
  HISTORY_PATH,
  isHistoryPath,
  parseQueryWith,
  type RouteName,
} from '../../api/index.ts';
import { memoizeByQuery } from '../../internal/memo.ts';
import type { HistoryService } from '../../history/service.ts';
import type { WebHandler } from '../../runtime/node-http.ts';
import { respondStored } from '../../runtime/stored-response.ts';
import type { Lookup } from '../cache/decision.ts';
import type { FillCache } from '../cache/fill-cache.ts';
import type { ResolvedOptions } from '../config/options.ts';
import type { CacheMetrics } from '../metrics.ts';
import { clientAddress } from './client-address.ts';
import type { ClientLimit } from './client-limit.ts';
import type { Cors } from './cors.ts';
import { errorResponse, retryAfterSeconds } from './errors.ts';
import type { NewQueryMeter } from './new-query-meter.ts';
import type { NewQuerySiteCap } from './new-query-site-cap.ts';
import { refusedParam, resolveQuery } from './query.ts';
import { pinned, shapeOf } from './query-shapes.ts';

export interface RouterParts {
  options: ResolvedOptions;
  fills: FillCache;
  history: HistoryService;
  metrics: CacheMetrics;
  cors: Cors;
  logger: Logger;
  /** The per-IP limit; unset when off. */
  clientLimit?: ClientLimit;
  /** The per-client meter of new queries; unset when off. */
  newQueries?: NewQueryMeter;
  /** The cap of every client's new queries per site; unset when off. */
  siteNewQueries?: NewQuerySiteCap;
}

export interface Router {
  handle: WebHandler;
  /** Whether a URL is one of this endpoint's (under its prefix). */
  owns(url: URL): boolean;
  /** The reader's address as the per-IP limit counts it. */
  clientAddress(request: Request): string | undefined;
  /** The 429 of the per-IP limit, for the hit path to answer alike. */
  tooManyRequests(waitMs: number, headers: Headers): Response;
  /** The shapes of the valid queries asked so far, sorted. */
  queryShapes(): string[];
  /** From now on `/readyz` answers 503 `closing`. */
  close(): void;
}

const MAX_URL_LENGTH = 4096;
/** Query shapes remembered for `queryShapes()`: a sprayer of new shapes cannot grow the list past it. */
const MAX_SHAPES_SEEN = 200;

const OPS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** Each refusal's code, and its message: the site's cap answers as the meter does, saying whose limit it is. */
const REFUSALS = {
  too_many_requests: {
    code: 'too_many_requests',
    message: 'Too many requests from this address; try again after Retry-After seconds.',
  },
  too_many_new_queries: {
    code: 'too_many_new_queries',
    message:
      'This address asked for too many queries nobody else polls, each an upstream call; try again after Retry-After seconds.',
  },
  site_new_queries: {
    code: 'too_many_new_queries',
    message:
      "This site's queries nobody polls have had their share of the upstream calls this minute; try again after Retry-After seconds.",
  },
} as const;

export function createRouter({
  options,
  fills,
  history,
  metrics,
  cors,
  logger,
  clientLimit,
  newQueries,
  siteNewQueries,
}: RouterParts): Router {
  let closed = false;
  const shapesSeen = new Set<string>();

  const localPath = (url: URL): string | undefined => {
    if (options.prefix === '') return url.pathname;
    if (!url.pathname.startsWith(`${options.prefix}/`)) return undefined;
    return url.pathname.slice(options.prefix.length);
  };

  const owns = (url: URL): boolean => {
    const path = localPath(url);
    return (
      path !== undefined && (OPS_PATHS.has(path) || findRoute(path) !== undefined || isHistoryPath(path))
    );
  };

  const operations = async (path: string): Promise<Response> => {
    if (path === '/metrics') {
      return new Response(await metrics.registry.metrics(), {
        headers: { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' },
      });
    }
    // Readiness never depends on the upstream: while it is down we still serve stale data and 503s.
    const body = path === '/healthz' ? { status: 'ok' } : { status: closed ? 'closing' : 'ready' };
    return Response.json(body, { status: closed ? 503 : 200, headers: { 'cache-control': 'no-store' } });
  };

  const answer = (request: Request, route: RouteName, lookup: Lookup, headers: Headers): Response => {
    if (lookup.kind === 'unavailable') {
      // The service answered, but nothing could be read from it: a bad gateway, not an outage.
      const rateLimited = lookup.detail === 'rate-limited';
      const invalid = lookup.invalid && !rateLimited;
      if (!invalid) metrics.unavailable.inc({ route });
      headers.set('retry-after', retryAfterSeconds(lookup.retryAfterMs));
      if (invalid) {
        headers.set('cache-status', 'pulse-widgets; fwd=miss; detail=upstream-invalid');
        return errorResponse(
          502,
          'upstream_invalid',
          'The analytics service answered, but its answer could not be read (see the cache log for the field) and no recent data is cached; try again after Retry-After seconds.',
          { headers },
        );
      }
      headers.set('cache-status', 'pulse-widgets; fwd=miss; detail=upstream-unavailable');
      return rateLimited
        ? errorResponse(
            503,
            'upstream_rate_limited',
            'The analytics service asked us to slow down; try again after Retry-After seconds.',
            { headers },
          )
        : errorResponse(
            503,
            'upstream_unavailable',
            'The analytics service is not answering and no recent data is cached; try again after Retry-After seconds.',
            { headers },
          );
    }
    const { status } = lookup;
    if (status.kind === 'hit') metrics.hits.inc({ route });
    else if (status.kind === 'miss') metrics.misses.inc({ route });
    else metrics.staleServes.inc({ route, detail: status.detail });
    return respondStored(request, lookup.stored, status, options.now(), headers);
  };

  const tooManyRequests = (
    waitMs: number,
    headers: Headers,
    refusal: keyof typeof REFUSALS = 'too_many_requests',
  ): Response => {
    metrics.clientRejections.inc();
    headers.set('retry-after', retryAfterSeconds(waitMs));
    return errorResponse(429, REFUSALS[refusal].code, REFUSALS[refusal].message, { headers });
  };

  /**
   * Whether a query nobody polls may start its upstream call: the site's cap, then the client's
   * meter, each asked only if the one before let it through, so a refused request spends nothing.
   */
  const newQueryRefusal = (
    client: string | undefined,
    key: string,
    host: string,
    headers: Headers,
  ): Response | undefined => {
    const site = siteOf(host);
    const siteWait = siteNewQueries?.refusal(site, key);
    if (siteWait !== undefined) return tooManyRequests(siteWait, headers, 'site_new_queries');
    const clientWait = client === undefined ? undefined : newQueries?.refusal(client);
    if (clientWait !== undefined) return tooManyRequests(clientWait, headers, 'too_many_new_queries');
    siteNewQueries?.count(site, key);
    return undefined;
  };

  const clientOf = (request: Request): string | undefined =>
    clientAddress(
      options.clientIp(request),
      {
        xForwardedFor: request.headers.get('x-forwarded-for'),
        forwarded: request.headers.get('forwarded'),
      },
      options.trustProxy,
    );

  /** A route's query, validated once per distinct query string (as the hit path does). */
  const resolve = memoizeByQuery((route: RouteName, query: string) =>
    resolveQuery(route, new URLSearchParams(query), options.hosts),
  );

  const handle = async (request: Request): Promise<Response> => {
    if (request.url.length > MAX_URL_LENGTH)
      return errorResponse(414, 'uri_too_long', `URLs are limited to ${MAX_URL_LENGTH} characters`);
    const url = new URL(request.url);
    const path = localPath(url);
    if (path === undefined)
      return errorResponse(404, 'not_found', `${url.pathname} is not a route of this endpoint`);
    const name = findRoute(path);
    const historyRoute = isHistoryPath(path);
    if (name === undefined && !historyRoute && !OPS_PATHS.has(path))
      return errorResponse(404, 'not_found', `${url.pathname} is not a route of this endpoint`);
    if (request.method === 'OPTIONS') return cors.preflight(request);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return errorResponse(405, 'method_not_allowed', `${request.method} is not allowed: use GET`, {
        headers: { allow: 'GET, HEAD, OPTIONS' },
      });
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
    if (!resolved.ok)
      return errorResponse(
        resolved.status,
        resolved.status === 403 ? 'host_not_allowed' : 'bad_param',
        resolved.message,
        { param: resolved.param, headers },
      );
    const shape = shapeOf(name!, resolved.context.query);
    if (shapesSeen.size < MAX_SHAPES_SEEN) shapesSeen.add(shape);
    const pin = options.queries && pinned(options.queries, name!, resolved.context.query);
    if (pin && !pin.ok) {
      const what = pin.param === undefined ? `the route ${name}` : `${shape} (its ${pin.param} as asked)`;
      return errorResponse(
        403,
        'query_not_allowed',
        `This endpoint answers only the query shapes its operator pinned; ${what} is not one of them.`,
        { param: pin.param, headers },
      );
    }
    const metered = siteNewQueries !== undefined || (newQueries !== undefined && client !== undefined);
    if (metered && fills.startsNewQuery(resolved.key, resolved.context)) {
      const refused = newQueryRefusal(client, resolved.key, resolved.context.host, headers);
      if (refused) return refused;
    }
    const lookup = await fills.lookup(resolved.key, resolved.context);
    return answer(request, name!, lookup, headers);
  };

  const historyAnswer = async (request: Request, url: URL, headers: Headers): Promise<Response> => {
    const refused = refusedParam(url.searchParams);
    if (refused) return errorResponse(400, 'bad_param', refused.message, { param: refused.param, headers });
    const parsed = parseQueryWith(historyParamsSchema, HISTORY_PATH, url.searchParams);
    if (!parsed.success)
      return errorResponse(400, 'bad_param', parsed.problem.message, {
        param: parsed.problem.param,
        headers,
      });
    const { host } = parsed.params;
    if (!options.hosts.has(host))
      return errorResponse(403, 'host_not_allowed', `host ${host} is not served by this endpoint`, {
        param: 'host',
        headers,
      });
    try {
      return await history.respond(request, parsed.params, headers);
    } catch (error) {
      logger.error({ err: (error as Error).message }, 'history: cannot answer');
      return errorResponse(
        503,
        'history_unavailable',
        'History cannot be read right now; try again in a minute.',
        { headers },
      );
    }
  };

  return {
    handle,
    owns,
    clientAddress: clientOf,
    tooManyRequests,
    queryShapes: () => [...shapesSeen].sort(),
    close: () => {
      closed = true;
    },
  };
}
