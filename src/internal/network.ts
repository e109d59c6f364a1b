/**
 * The network view (a newsroom feature, src/newsroom.ts): the bodies of one route from several
 * sites merged into one, the way each element that shows several sites wants them.
 */
import type { QuickstatsResponse, ToppagesResponse } from '../api/index.ts';
import type { SourceData } from '../client/index.ts';

/**
 * Adds bodies of one shape key by key: numbers are summed, plain objects merged the same way,
 * anything else (arrays, text, flags) taken from the first body that has it. Referrer and geo
 * counts, by type or segment, add up exactly like this.
 */
export function sumCounts<T>(bodies: readonly T[]): T {
  const present = bodies.filter((body) => body !== undefined && body !== null);
  const [first] = present;
  if (typeof first === 'number')
    return present.reduce<number>((sum, value) => sum + (typeof value === 'number' ? value : 0), 0) as T;
  if (!isPlainObject(first)) return first as T;
  const keys = new Set(present.flatMap((body) => (isPlainObject(body) ? Object.keys(body) : [])));
  const merged: Record<string, unknown> = {};
  for (const key of keys)
    merged[key] = sumCounts(present.map((body) => (body as Record<string, unknown>)[key]));
  return merged as T;
}

/** <live-counter>: the counts add up (breakdowns and histograms are left out). */
export function mergeCounts(parts: readonly SourceData<QuickstatsResponse>[]): QuickstatsResponse {
  const counts = parts.map(({ data }) =>
    Object.fromEntries(Object.entries(data.data.stats).filter(([, value]) => typeof value === 'number')),
  );
  return {
    data: {
      ...parts[0]!.data.data,
      metrics: {},
      stats: sumCounts(counts) as QuickstatsResponse['data']['stats'],
    },
  };
}

/** <top-pages>: one ranking by people, each page with its site. */
export function mergePages(parts: readonly SourceData<ToppagesResponse>[]): ToppagesResponse {
  const pages = parts.flatMap(({ site, data }) => data.pages.map((page) => ({ ...page, site })));
  return { pages: pages.sort((a, b) => (b.stats?.people ?? 0) - (a.stats?.people ?? 0)) };
}

/** <geo-list>, <referrer-bars>: places (and the total) or referrers add up. */
export function mergeSums<T>(parts: readonly SourceData<T>[]): T {
  return sumCounts(parts.map((part) => part.data));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
