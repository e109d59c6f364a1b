/** Small hand-made response bodies that validate against the contract schemas (src/api). */
import type {
  QuickstatsResponse,
  ReferrersResponse,
  TopGeoResponse,
  TopPage,
  ToppagesResponse,
} from '../../src/api/index.ts';

export const URLS = {
  quickstats: '/live/quickstats/v4/?host=example.com',
  toppages: '/live/toppages/v3/?host=example.com&limit=10',
  geo: '/live/top_geo/v1/?host=example.com',
  referrers: '/live/referrers/v3/?host=example.com',
} as const;

export function quickstats(people: number, extra: Record<string, number> = {}): QuickstatsResponse {
  return {
    data: {
      metrics: {},
      host_metadata: { subdomain_handling: false },
      stats: {
        people,
        read: Math.round(people * 0.6),
        write: 1,
        idle: Math.round(people * 0.3),
        new: 7,
        search: 12,
        ...extra,
      },
    },
  };
}

export function page(path: string, people: number, extra: Partial<TopPage> = {}): TopPage {
  return {
    path,
    title: `Story ${path}`,
    host: 'example.com',
    stats: { people, article: people },
    sections: ['news'],
    authors: ['Ada'],
    ...extra,
  };
}

export function toppages(...pages: TopPage[]): ToppagesResponse {
  return { pages };
}

/** Ten article pages, /a1 with the most people. */
export function tenPages(): ToppagesResponse {
  return toppages(
    ...Array.from({ length: 10 }, (_, index) => page(`example.com/a${index + 1}`, 100 - index * 9)),
  );
}

export function topGeo(
  countries: Record<string, number> = { US: 50, FR: 30, DE: 20 },
  total = 100,
): TopGeoResponse {
  return {
    geo: {
      countries,
      regions: { 'US-CA': 30, 'FR-IDF': 20, 'US-NY': 10 },
      cities: { Paris: 20, 'San Francisco': 15 },
      metro_codes: { '807': 15, '501': 10 },
      total,
    },
  };
}

export function referrers(
  counts: Record<string, number> = {
    'www.google.com': 40,
    't.co': 10,
    '': 25,
    'news.google.com': 5,
    'example.org': 2.5,
  },
): ReferrersResponse {
  return { referrers: counts };
}

/** Answers each route with the body `bodies` gives for it. */
export function bodiesByRoute(bodies: {
  quickstats?: unknown;
  toppages?: unknown;
  geo?: unknown;
  referrers?: unknown;
}): (url: string) => unknown {
  return (url) => {
    if (url.includes('/quickstats/')) return bodies.quickstats ?? quickstats(42);
    if (url.includes('/toppages/')) return bodies.toppages ?? tenPages();
    if (url.includes('/top_geo/')) return bodies.geo ?? topGeo();
    return bodies.referrers ?? referrers();
  };
}
