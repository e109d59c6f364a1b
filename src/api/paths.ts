/**
 * The six upstream paths and their versions (spec 4 and 9), free of zod so the browser can find
 * a URL's route without shipping the parameter schemas. `routes.ts` builds the full table on it.
 */
export const ROUTE_PATHS = {
  toppages: '/live/toppages/v3/',
  summary: '/live/summary/v3/',
  referrers: '/live/referrers/v3/',
  top_geo: '/live/top_geo/v1/',
  quickstats: '/live/quickstats/v4/',
  raw_data: '/mab/htapi/v1/experiments/raw_data/',
} as const;

export type RouteName = keyof typeof ROUTE_PATHS;

export const ROUTE_NAMES = Object.keys(ROUTE_PATHS) as RouteName[];

/** The route whose path matches `pathname`, the trailing slash being optional. */
export function findRoute(pathname: string): RouteName | undefined {
  const withSlash = pathname.endsWith('/') ? pathname : `${pathname}/`;
  return ROUTE_NAMES.find((name) => ROUTE_PATHS[name] === withSlash);
}
