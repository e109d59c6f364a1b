/**
 * The one route table: upstream path -> parameter schema -> response schema -> default TTL.
 * The simulator, the cache endpoint and the poll hub all read it; nothing else lists routes.
 */
import type * as z from 'zod/mini';
import {
  quickstatsParamsSchema,
  rawDataParamsSchema,
  referrersParamsSchema,
  summaryParamsSchema,
  topGeoParamsSchema,
  toppagesParamsSchema,
} from './params.ts';
import { LIVE_TTL_MS, RAW_DATA_TTL_MS } from './constants.ts';
import { ROUTE_PATHS, type RouteName } from './paths.ts';
import {
  quickstatsResponseSchema,
  rawDataResponseSchema,
  referrersResponseSchema,
  summaryResponseSchema,
  topGeoResponseSchema,
  toppagesResponseSchema,
} from './responses.ts';

export const routes = {
  toppages: {
    path: ROUTE_PATHS.toppages,
    params: toppagesParamsSchema,
    response: toppagesResponseSchema,
    ttlMs: LIVE_TTL_MS,
    live: true,
  },
  summary: {
    path: ROUTE_PATHS.summary,
    params: summaryParamsSchema,
    response: summaryResponseSchema,
    ttlMs: LIVE_TTL_MS,
    live: true,
  },
  referrers: {
    path: ROUTE_PATHS.referrers,
    params: referrersParamsSchema,
    response: referrersResponseSchema,
    ttlMs: LIVE_TTL_MS,
    live: true,
  },
  top_geo: {
    path: ROUTE_PATHS.top_geo,
    params: topGeoParamsSchema,
    response: topGeoResponseSchema,
    ttlMs: LIVE_TTL_MS,
    live: true,
  },
  quickstats: {
    path: ROUTE_PATHS.quickstats,
    params: quickstatsParamsSchema,
    response: quickstatsResponseSchema,
    ttlMs: LIVE_TTL_MS,
    live: true,
  },
  raw_data: {
    path: ROUTE_PATHS.raw_data,
    params: rawDataParamsSchema,
    response: rawDataResponseSchema,
    ttlMs: RAW_DATA_TTL_MS,
    live: false,
  },
} as const satisfies Record<RouteName, unknown>;

export { findRoute, ROUTE_NAMES, ROUTE_PATHS, type RouteName } from './paths.ts';
export type Route<N extends RouteName = RouteName> = (typeof routes)[N];
export type RouteParams<N extends RouteName> = z.infer<Route<N>['params']>;
export type RouteResponse<N extends RouteName> = z.infer<Route<N>['response']>;

/** What a bad query is reported as: the parameter at fault and a sentence about it. */
export interface ParamProblem {
  param?: string;
  message: string;
}

export type ParseResult<N extends RouteName> =
  | { success: true; params: RouteParams<N> }
  | { success: false; problem: ParamProblem };

/**
 * Validates a query against the route's schema. A parameter given twice is refused rather than
 * letting one copy win silently, because a cache and its upstream could pick different copies.
 */
export function parseQuery<N extends RouteName>(name: N, query: URLSearchParams): ParseResult<N> {
  return parseQueryWith(routes[name].params, routes[name].path, query) as ParseResult<N>;
}

/** {@link parseQuery} for a route outside the upstream table (our `/history/v1/`). */
export function parseQueryWith<S extends z.ZodMiniType<unknown, Record<string, string>>>(
  schema: S,
  path: string,
  query: URLSearchParams,
): { success: true; params: z.infer<S> } | { success: false; problem: ParamProblem } {
  const raw: Record<string, string> = {};
  for (const [key, value] of query) {
    if (Object.hasOwn(raw, key))
      return { success: false, problem: { param: key, message: `${key} is given more than once` } };
    raw[key] = value;
  }
  const result = schema.safeParse(raw);
  if (result.success) return { success: true, params: result.data as z.infer<S> };
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const param = issue.keys[0]!;
    return { success: false, problem: { param, message: `${param} is not a parameter of ${path}` } };
  }
  const param = issue.path[0] === undefined ? undefined : String(issue.path[0]);
  if (param !== undefined && raw[param] === undefined)
    return { success: false, problem: { param, message: `${param} is required` } };
  return { success: false, problem: { param, message: param ? `${param} ${issue.message}` : issue.message } };
}

/**
 * The canonical query string of parsed parameters: names sorted, lists comma-joined, flags that
 * are 0 left out (the same as absent). Equal queries give equal strings, so it is the cache key.
 */
export function canonicalQuery(params: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const name of Object.keys(params).sort()) {
    const value = params[name];
    if (value === undefined || (value === 0 && isFlag(name))) continue;
    query.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  return query.toString();
}

const FLAGS = new Set(['now_on', 'all_platforms', 'loyalty', 'types', 'by_type']);
function isFlag(name: string): boolean {
  return FLAGS.has(name);
}
