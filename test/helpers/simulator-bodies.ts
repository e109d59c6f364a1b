/**
 * The simulator's answer to one query per route, with every flag the elements use: the starting
 * bodies of the lenient-reading property tests (contract, cache, elements). Isomorphic.
 */
import { parseQuery, type RouteName } from '../../src/api/index.ts';
import { createSimulator, DEMO_HOSTS } from '../../src/simulator/index.ts';

export const SIMULATED_AT = Date.UTC(2026, 10, 22, 14, 0, 0);

export const SIMULATED_QUERIES: Readonly<Record<RouteName, string>> = {
  toppages: `host=${DEMO_HOSTS[0]}&limit=3&all_platforms=1&loyalty=1&types=1&now_on=1&metrics=_pw,_rv,_cmp,video_state`,
  summary: `host=${DEMO_HOSTS[0]}&keys=title,time_spent,referrer,read`,
  referrers: `host=${DEMO_HOSTS[1]}&by_type=1`,
  top_geo: `host=${DEMO_HOSTS[0]}&limit=5`,
  quickstats: `host=${DEMO_HOSTS[1]}&all_platforms=1&loyalty=1&now_on=1`,
  raw_data: `host=${DEMO_HOSTS[0]}&start=2026-01-01&end=2026-11-01&tz=Europe/Paris&limit=4`,
};

/** The body as JSON would carry it (no `undefined`, no shared objects). */
export function simulatorBody(route: RouteName, seed = 11): unknown {
  const parsed = parseQuery(route, new URLSearchParams(SIMULATED_QUERIES[route]));
  if (!parsed.success) throw new Error(`${route}: ${parsed.problem.message}`);
  return JSON.parse(
    JSON.stringify(createSimulator({ seed }).answer(route, parsed.params as never, SIMULATED_AT)),
  );
}
