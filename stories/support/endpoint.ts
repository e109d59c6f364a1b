/**
 * A stand-in for the cache endpoint that runs inside the Storybook page, so every story is live
 * with no server: the page's poll hub is given a `fetch` that answers cache-endpoint URLs from
 * the seeded upstream simulator. The key it adds is made up here and never leaves this page.
 *
 * A story picks how the endpoint behaves with a path prefix, which the hub accepts like any
 * deployment prefix: `/scenario/empty/live/toppages/v3/?host=example.com`.
 */
import {
  HISTORY_METRICS,
  historyParamsSchema,
  HISTORY_PATH,
  isHistoryPath,
  parseQueryWith,
  routes,
  type RouteName,
} from '../../src/api/index.ts';
import { routeOf } from '../../src/client/index.ts';
import { buildHistory } from '../../src/history/series.ts';
import { MemoryStore, withBaseline } from '../../src/history/store.ts';
import { createSimulator, createUpstreamHandler, DEMO_HOSTS } from '../../src/simulator/index.ts';

/** The host every story shows, one of the simulator's demo sites. */
export const HOST = DEMO_HOSTS[0]!;

export type Scenario =
  /** Fresh simulator data every 3 s. */
  | 'live'
  /** The request never completes. */
  | 'loading'
  /** A valid answer with nothing in it. */
  | 'empty'
  /** The endpoint fails (503) on every request. */
  | 'error'
  /** Simulator data produced two minutes ago. */
  | 'stale'
  /** Simulator data whose page titles are very long or right-to-left. */
  | 'long-titles'
  | 'rtl-titles'
  /** Live data; `/history/v1/` fails (a cache that keeps no history). */
  | 'no-history'
  /** Live data; `/history/v1/` from a cache that has recorded nothing yet. */
  | 'new-history';

const STALE_AGE_MS = 120_000;
const SCENARIO = /^\/scenario\/([a-z-]+)(\/.*)$/;

const demoKey = crypto.randomUUID();
const upstream = createUpstreamHandler({
  apiKey: demoKey,
  // A docs page polls many distinct URLs of one host at once; the real per-host budget is the
  // cache endpoint's business, not what these stories show.
  rateLimitPerMinute: 100_000,
});

// History as the cache endpoint in demo mode keeps it: every minute before now from the model.
const model = createSimulator();
const backfilled = withBaseline(
  new MemoryStore(),
  (host, metric, from, minutes) => model.history(host, HISTORY_METRICS[metric]!, from, minutes),
  Infinity,
);
const nothingRecorded = new MemoryStore();

/**
 * The cache-endpoint address of a route for the demo host, under a scenario:
 * `storySrc('toppages', { limit: 5 }, 'empty')` is `/scenario/empty/live/toppages/v3/?host=example.com&limit=5`.
 */
export function storySrc(
  route: RouteName,
  query: Record<string, string | number> = {},
  scenario: Scenario = 'live',
): string {
  const search = new URLSearchParams({ host: HOST });
  for (const [name, value] of Object.entries(query)) search.set(name, String(value));
  const path = `${routes[route].path}?${search}`;
  return scenario === 'live' ? path : `/scenario/${scenario}${path}`;
}

/**
 * The network view's `src`: one address per demo site, space-separated; with `failing`, the
 * second site's endpoint fails (503) on every request.
 */
export function networkSrc(
  route: RouteName,
  query: Record<string, string | number> = {},
  failing = false,
): string {
  return DEMO_HOSTS.map((host, index) =>
    storySrc(route, { ...query, host }, failing && index > 0 ? 'error' : 'live'),
  ).join(' ');
}

/** The `fetch` the stories give the hub: `configure({ fetch: storyFetch })`. */
export const storyFetch: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input), document.baseURI);
  const [, scenario = 'live', path = url.pathname] = SCENARIO.exec(url.pathname) ?? [];
  const route = routeOf(url.href) ?? (isHistoryPath(path) ? 'history' : undefined);
  if (!route) return problem(404, 'not_found', `no endpoint at ${url.pathname}`);
  if (route === 'history' && scenario === 'no-history')
    return problem(404, 'not_found', `no endpoint at ${url.pathname}`);
  if (route === 'history' && scenario !== 'loading' && scenario !== 'error')
    return history(url, scenario as Scenario);
  switch (scenario as Scenario) {
    case 'loading':
      return new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal!.reason));
      });
    case 'error':
      return problem(503, 'upstream_unavailable', 'the analytics service did not answer');
    case 'empty':
      return json(EMPTY[route as RouteName], Date.now());
    case 'stale':
      return simulated(url, path, Date.now() - STALE_AGE_MS);
    case 'long-titles':
      return simulated(url, path, Date.now(), (body) => retitle(body, LONG_TITLES));
    case 'rtl-titles':
      return simulated(url, path, Date.now(), (body) => retitle(body, RTL_TITLES));
    default:
      return simulated(url, path, Date.now());
  }
};

/** Asks the simulated upstream, as the cache endpoint would (with the key), for `path`. */
async function simulated(
  url: URL,
  path: string,
  producedAt: number,
  edit: (body: unknown) => unknown = (body) => body,
): Promise<Response> {
  const answer = await upstream(
    new Request(`https://upstream.invalid${path}${url.search}`, { headers: { 'X-SVC-AK': demoKey } }),
  );
  if (!answer.ok) return answer;
  return json(edit(await answer.json()), producedAt);
}

/** `/history/v1/` as the endpoint answers it: backfilled from the model, or nothing recorded for `empty`. */
async function history(url: URL, scenario: Scenario): Promise<Response> {
  const parsed = parseQueryWith(historyParamsSchema, HISTORY_PATH, url.searchParams);
  if (!parsed.success) return problem(400, 'bad_param', parsed.problem.message);
  const producedAt = scenario === 'stale' ? Date.now() - STALE_AGE_MS : Date.now();
  const store = scenario === 'empty' || scenario === 'new-history' ? nothingRecorded : backfilled;
  return json(
    await buildHistory(store, parsed.params, model.timeZone(parsed.params.host) ?? 'UTC', producedAt),
    producedAt,
  );
}

function json(body: unknown, producedAt: number): Response {
  return new Response(JSON.stringify(body), {
    headers: {
      'content-type': 'application/json; charset=utf-8',
      date: new Date().toUTCString(),
      'last-modified': new Date(producedAt).toUTCString(),
    },
  });
}

function problem(status: number, code: string, message: string): Response {
  return new Response(JSON.stringify({ error: { code, message } }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
}

const EMPTY: Record<RouteName, unknown> = {
  toppages: { pages: [] },
  summary: {},
  referrers: { referrers: {} },
  top_geo: { geo: { regions: {}, countries: {}, cities: {}, metro_codes: {}, total: 0 } },
  quickstats: { data: { metrics: {}, host_metadata: { subdomain_handling: false }, stats: { people: 0 } } },
  raw_data: { status: 'ok', data: [] },
};

const LONG_TITLES = [
  'Council approves the long-debated plan to rebuild the river embankment, the old tram depot and three schools over the next decade, with a public consultation promised for every phase',
  'Live: what we know so far about the storm that closed every road north of the city overnight',
  'Averyveryveryveryverylongsinglewordheadlinethatneverbreaksanywhereatalltotestwrapping',
];
const RTL_TITLES = [
  'المجلس يوافق على خطة إعادة بناء ضفة النهر',
  'מזג האוויר: סערה צפויה בסוף השבוע',
  'مباشر: ما نعرفه حتى الآن عن العاصفة',
];

/** Replaces page titles in a toppages body, cycling through `titles`. */
function retitle(body: unknown, titles: readonly string[]): unknown {
  const pages = (body as { pages?: { title: string }[] }).pages;
  pages?.forEach((page, index) => {
    page.title = titles[index % titles.length]!;
  });
  return body;
}
