/**
 * From a route's query string to the cache key: the parameters refused by name, the route's
 * schema, the host allowlist, then the canonical query (sorted, defaults filled), so equal
 * queries share one key. The Web handler and the node:http hit path both resolve through here.
 */
import { canonicalQuery, parseQuery, routes, type RouteName } from '../../api/index.ts';
import type { FillContext } from '../cache/polled-keys.ts';

/** Transport parameters the endpoint refuses by name: it adds the key itself and never wraps JSON. */
const REFUSED_PARAMS: Record<string, string> = {
  apikey: 'apikey must not be sent: this endpoint adds the key itself',
  jsonp: 'jsonp is not supported: responses are plain JSON (use CORS)',
  callback: 'callback is not supported: responses are plain JSON (use CORS)',
};

/** A query the endpoint will fill: its cache key and what the fill needs, or why it is refused. */
export type Resolution =
  | { ok: true; key: string; context: FillContext }
  | { ok: false; status: 400 | 403; message: string; param: string | undefined };

/** The first transport parameter of `query` refused by name, on every route (ours included). */
export function refusedParam(query: URLSearchParams): { message: string; param: string } | undefined {
  for (const param of query.keys()) {
    const refused = REFUSED_PARAMS[param.toLowerCase()];
    if (refused) return { message: refused, param };
  }
  return undefined;
}

export function resolveQuery(
  name: RouteName,
  query: URLSearchParams,
  hosts: ReadonlySet<string>,
): Resolution {
  const refused = refusedParam(query);
  if (refused) return { ok: false, status: 400, ...refused };
  const parsed = parseQuery(name, query);
  if (!parsed.success)
    return { ok: false, status: 400, message: parsed.problem.message, param: parsed.problem.param };
  const { host } = parsed.params;
  if (!hosts.has(host))
    return { ok: false, status: 403, message: `host ${host} is not served by this endpoint`, param: 'host' };
  const canonical = canonicalQuery(parsed.params);
  return {
    ok: true,
    key: `${routes[name].path}?${canonical}`,
    context: { route: name, query: canonical, host },
  };
}
