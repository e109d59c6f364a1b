/**
 * Operators can pin the query shapes their pages use (issue 27): a public endpoint answers any
 * valid combination of `author`, `section`, `path`, `limit`, `keys`…, thousands of distinct
 * queries each an upstream call; pinned, it answers only what its templates ask.
 *
 * The syntax (`PULSE_QUERIES`, `--queries`, the `queries` option): entries separated by spaces
 * or `;`, each a route and the parameters it may carry, written like a query string:
 *
 *   quickstats  toppages?limit&section=Politics|Tech  referrers?limit=5|10  summary?keys
 *
 * `param` alone allows any value, `param=a|b` only those values (URL-encoded: `author=Ann%20Lee`),
 * `route?*` any parameter; `host` is always allowed (the hosts setting decides). A query is
 * answered when one entry of its route allows every parameter it has.
 */
import { ROUTE_NAMES, routes, type RouteName } from '../../api/index.ts';

/** Per route, its entries: per parameter the values allowed (undefined: any), or `any` for `route?*`. */
export type QueryShapes = ReadonlyMap<
  RouteName,
  readonly (ReadonlyMap<string, ReadonlySet<string> | undefined> | 'any')[]
>;

/** The shapes, or the problem with the text. */
export function parseQueryShapes(text: string): { shapes: QueryShapes } | { error: string } {
  const shapes = new Map<RouteName, (ReadonlyMap<string, ReadonlySet<string> | undefined> | 'any')[]>();
  for (const entry of text.split(/[\s;]+/).filter(Boolean)) {
    const at = entry.indexOf('?');
    const name = (at === -1 ? entry : entry.slice(0, at)) as RouteName;
    if (!ROUTE_NAMES.includes(name))
      return { error: `queries: "${name}" is not a route (${ROUTE_NAMES.join(', ')})` };
    const list = shapes.get(name) ?? [];
    shapes.set(name, list);
    const rest = at === -1 ? '' : entry.slice(at + 1);
    if (rest === '*') {
      list.push('any');
      continue;
    }
    const known = Object.keys((routes[name].params as unknown as { shape: object }).shape);
    const params = new Map<string, Set<string> | undefined>();
    for (const part of rest.split('&').filter(Boolean)) {
      const equals = part.indexOf('=');
      const param = equals === -1 ? part : part.slice(0, equals);
      if (!known.includes(param))
        return { error: `queries: ${name} has no parameter "${param}" (${known.join(', ')})` };
      params.set(
        param,
        equals === -1
          ? undefined
          : new Set(
              part
                .slice(equals + 1)
                .split('|')
                .map(decodeURIComponent),
            ),
      );
    }
    list.push(params);
  }
  return { shapes };
}

/** Whether a canonical query of `route` is pinned; else the parameter that is not (undefined: the route is not). */
export function pinned(
  shapes: QueryShapes,
  route: RouteName,
  query: string,
): { ok: true } | { ok: false; param?: string } {
  const entries = shapes.get(route);
  if (!entries) return { ok: false };
  const params = [...new URLSearchParams(query)].filter(([name]) => name !== 'host');
  let refused: string | undefined;
  for (const entry of entries) {
    if (entry === 'any') return { ok: true };
    const outside = params.find(
      ([name, value]) => !entry.has(name) || (entry.get(name) !== undefined && !entry.get(name)!.has(value)),
    );
    if (!outside) return { ok: true };
    refused ??= outside[0];
  }
  return { ok: false, param: refused };
}

/** A query's shape as the syntax writes it, without values: `toppages?limit&section`. */
export function shapeOf(route: RouteName, query: string): string {
  const names = [...new Set([...new URLSearchParams(query).keys()].filter((name) => name !== 'host'))].sort();
  return names.length === 0 ? route : `${route}?${names.join('&')}`;
}
