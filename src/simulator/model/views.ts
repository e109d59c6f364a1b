/**
 * The five real-time responses, built from a snapshot and validated parameters. Flag blocks are
 * added only when their flag is 1, where `src/api/responses.ts` places them.
 */
import type {
  CustomMetricValue,
  FullHistogram,
  PageStats,
  QuickstatsParams,
  QuickstatsResponse,
  ReferrersParams,
  ReferrersResponse,
  SummaryKey,
  SummaryParams,
  SummaryResponse,
  TopGeoParams,
  TopGeoResponse,
  TopPage,
  ToppagesParams,
  ToppagesResponse,
  SortBy,
} from '../../api/index.ts';
import { BREAKS, bellHistogram, bucketBounds, mergeHistograms } from './histogram.ts';
import { hash, jitter, split, unit } from './random.ts';
import type { CustomMetricDefinition, Page, Site } from './site.ts';
import { pageReferrers, videoStates, videoViewers, type PageState, type Snapshot } from './snapshot.ts';
import { COUNTRIES, PLATFORMS, SOURCES, type Source } from './vocabulary.ts';

interface Flags {
  now_on?: 0 | 1;
  all_platforms?: 0 | 1;
  loyalty?: 0 | 1;
  types?: 0 | 1;
}

/** How many values a categorical summary or a top list holds at most (our bound). */
const TOP_VALUES = 100;
const TOP_REFS = 5;
const QUICKSTATS_TOPPAGES = 10;

/** `host/path`, the form of `path` in the spec's examples (2.3). */
const fullPath = (site: Site, page: Page) => `${site.host}${page.path}`;

/** A `path` parameter (`/x` or `host/x`) names this page. */
function isPath(site: Site, page: Page, query: string): boolean {
  return query.startsWith('/')
    ? query === page.path
    : query.toLowerCase() === fullPath(site, page).toLowerCase();
}

const anyOf = (wanted: readonly string[] | undefined, have: readonly string[]) =>
  !wanted || have.some((item) => wanted.includes(item));

const platformMap = (counts: readonly number[]) =>
  Object.fromEntries(PLATFORMS.map((key, index) => [key, counts[index] ?? 0]));

function sumInto(target: number[], counts: readonly number[]): void {
  counts.forEach((count, index) => (target[index] = (target[index] ?? 0) + count));
}

/** Sorted descending by count, ties by name, as `[name, count]` pairs. */
function ranked(counts: Map<string, number>): [string, number][] {
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

function addCount(map: Map<string, number>, name: string, count: number): void {
  map.set(name, (map.get(name) ?? 0) + count);
}

/** Where the readers of an article go next (`now_on=1`): other articles, from its recirculated people. */
function nowOn(snapshot: Snapshot, state: PageState): { path: string; visitors: number }[] {
  const { site, step } = snapshot;
  if (!state.page.isArticle || state.recirc === 0) return [];
  const targets: Page[] = [];
  for (let n = 0; targets.length < 3 && n < 12; n++) {
    const candidate = site.pages[hash(state.key, Math.floor(step / 100), 80, n) % site.pages.length]!;
    if (candidate.isArticle && candidate !== state.page && !targets.includes(candidate))
      targets.push(candidate);
  }
  const counts = split(state.recirc, jitter([5, 3, 2].slice(0, targets.length), 0.3, state.key, step, 81));
  return targets
    .map((page, index) => ({ path: fullPath(site, page), visitors: counts[index]! }))
    .filter((entry) => entry.visitors > 0);
}

/** The stats fields every page stats object carries, then the flag blocks. */
function commonStats(
  histograms: PageState['histograms'],
  totals: {
    people: number;
    read: number;
    write: number;
    idle: number;
    visits: number;
    crowd: number;
    recirc: number;
    article: number;
    performance: number | null;
  },
  sources: Record<Source, number>,
  platform: { all: readonly number[]; engaged: readonly number[] },
  loyalty: readonly number[],
  flags: Flags,
  nowOnList: () => { path: string; visitors: number }[],
): PageStats {
  const stats: PageStats = {
    engaged_visit: histograms.engaged_visit,
    engaged_time: histograms.engaged_time,
    writing_visit: histograms.writing_visit,
    domload: histograms.domload,
    scroll: histograms.scroll,
    visit: histograms.visit,
    people: totals.people,
    read: totals.read,
    visits: totals.visits,
    performance_score: totals.performance,
    subscr: sources.subscr,
    article: totals.article,
    recirc: totals.recirc,
    crowd: totals.crowd,
    write: totals.write,
    idle: totals.idle,
    direct: sources.direct,
    links: sources.links,
    search: sources.search,
    internal: sources.internal,
    social: sources.social,
    new: loyalty[0] ?? 0,
  };
  if (flags.all_platforms === 1) {
    stats.platform = platformMap(platform.all);
    stats.platform_engaged = platformMap(platform.engaged);
  }
  if (flags.loyalty === 1)
    stats.loyalty = { new: loyalty[0] ?? 0, returning: loyalty[1] ?? 0, loyal: loyalty[2] ?? 0 };
  if (flags.now_on === 1) stats.now_on = nowOnList();
  return stats;
}

const totalsOf = (state: PageState) => ({
  people: state.people,
  read: state.read,
  write: state.write,
  idle: state.idle,
  visits: state.visits,
  crowd: state.crowd,
  recirc: state.recirc,
  article: state.page.isArticle ? state.people : 0,
  performance: state.performance,
});

/** The value `sort_by` orders top pages by; default most concurrents (spec 4.1). */
export function sortValue(state: PageState, sortBy: SortBy | undefined): number {
  switch (sortBy) {
    case undefined:
      return state.people;
    // Average engaged time, which is why the spec suggests exclude_people with it.
    case 'engaged_time':
      return state.histograms.engaged_time.avg;
    case 'new':
      return state.loyalty[0] ?? 0;
    // Every visitor who is not new, loyal ones included.
    case 'returning':
      return state.people - (state.loyalty[0] ?? 0);
    default:
      return state.sources[sortBy];
  }
}

function customMetric(definition: CustomMetricDefinition, state: PageState, step: number): CustomMetricValue {
  const reporting = Math.round(state.people * 0.9);
  const key = hash(state.key, 90, definition.key.length, definition.key.charCodeAt(1));
  if (definition.type === 'number') {
    const { min, max } = definition;
    const center = min + (max - min) * (0.3 + 0.4 * unit(key, Math.floor(step / 50)));
    const spread = (max - min) * 0.3;
    const round = (value: number) => Math.round(value * 1000) / 1000;
    return reporting === 0
      ? { count: 0, sum: 0, avg: null, min: null, max: null }
      : {
          count: reporting,
          sum: round(center * reporting),
          avg: round(center),
          min: round(Math.max(min, center - spread)),
          max: round(Math.min(max, center + spread)),
        };
  }
  const counts = split(
    reporting,
    jitter(
      definition.values.map((_, index) => 1 / (index + 1)),
      0.5,
      key,
      step,
    ),
  );
  if (definition.type === 'enum') return counts;
  const values = new Map(definition.values.map((value, index) => [value, counts[index]!]));
  const top = ranked(values).filter(([, visitors]) => visitors > 0);
  return {
    visitors: reporting,
    unique: top.length,
    top: top.slice(0, 5).map(([value, visitors]) => ({ value, visitors })),
  };
}

function pageMetrics(
  snapshot: Snapshot,
  state: PageState,
  names: readonly string[],
): Record<string, CustomMetricValue> {
  const { site, step } = snapshot;
  const metrics: Record<string, CustomMetricValue> = {};
  for (const name of names) {
    if (name === 'video_state') {
      const viewers =
        snapshot.view === 'video' ? state.people : videoViewers(site, state.page, state.people, step);
      metrics[name] = viewers === 0 ? {} : videoStates(state, viewers, step);
      continue;
    }
    const definition = site.metrics.find((metric) => metric.key === name);
    if (definition) metrics[name] = customMetric(definition, state, step);
  }
  return metrics;
}

export function toppages(snapshot: Snapshot, params: ToppagesParams): ToppagesResponse {
  const { site, step } = snapshot;
  const chosen = snapshot.pages
    .filter((state) => anyOf(params.section, state.page.sections) && anyOf(params.author, state.page.authors))
    .filter((state) => state.people >= (params.exclude_people ?? 0))
    .map((state) => ({ state, value: sortValue(state, params.sort_by) }))
    .sort(
      (a, b) =>
        b.value - a.value || b.state.people - a.state.people || a.state.page.index - b.state.page.index,
    )
    .slice(0, params.limit);
  const pages = chosen.map(({ state }): TopPage => {
    const referrers = pageReferrers(site, state, step);
    const byName = new Map<string, number>();
    for (const source of SOURCES)
      for (const [name, count] of referrers[source]) if (name !== '') addCount(byName, name, count);
    const stats = commonStats(
      state.histograms,
      totalsOf(state),
      state.sources,
      { all: state.platform, engaged: state.platformEngaged },
      state.loyalty,
      params,
      () => nowOn(snapshot, state),
    );
    stats.toprefs = ranked(byName)
      .slice(0, TOP_REFS)
      .map(([domain, visitors]) => ({ visitors, domain }));
    stats.num_refs = byName.size;
    const entry: TopPage = {
      stats,
      title: state.page.title,
      host: site.host,
      authors: [...state.page.authors],
      path: fullPath(site, state.page),
      sections: [...state.page.sections],
    };
    if (params.types === 1) entry.type = state.page.isArticle ? 'Article' : 'Landing Page';
    if (params.metrics) entry.metrics = pageMetrics(snapshot, state, params.metrics);
    return entry;
  });
  return { pages };
}

export function quickstats(snapshot: Snapshot, params: QuickstatsParams): QuickstatsResponse {
  const { site } = snapshot;
  const states = snapshot.pages.filter(
    (state) =>
      (params.path === undefined || isPath(site, state.page, params.path)) &&
      anyOf(params.section, state.page.sections),
  );
  const totals = {
    people: 0,
    read: 0,
    write: 0,
    idle: 0,
    visits: 0,
    crowd: 0,
    recirc: 0,
    article: 0,
    performance: null as number | null,
  };
  const sources = Object.fromEntries(SOURCES.map((source) => [source, 0])) as Record<Source, number>;
  const platform: number[] = [];
  const engaged: number[] = [];
  const loyalty: number[] = [];
  let scored = 0;
  let scoreSum = 0;
  for (const state of states) {
    for (const field of ['people', 'read', 'write', 'idle', 'visits', 'crowd', 'recirc'] as const)
      totals[field] += state[field];
    if (state.page.isArticle) totals.article += state.people;
    for (const source of SOURCES) sources[source] += state.sources[source];
    sumInto(platform, state.platform);
    sumInto(engaged, state.platformEngaged);
    sumInto(loyalty, state.loyalty);
    if (state.performance !== null) {
      scored += state.people;
      scoreSum += state.performance * state.people;
    }
  }
  if (scored > 0) totals.performance = Math.round(scoreSum / scored);
  const merge = (name: keyof PageState['histograms'], breaks: readonly number[]): FullHistogram =>
    mergeHistograms(
      breaks,
      states.map((state) => state.histograms[name]),
    );
  const domloadSeconds = merge('domload', BREAKS.domloadSeconds);
  const histograms = {
    engaged_visit: merge('engaged_visit', BREAKS.visitMinutes),
    engaged_time: merge('engaged_time', BREAKS.engagedSeconds),
    writing_visit: merge('writing_visit', BREAKS.visitMinutes),
    // Quickstats reports DOM load in milliseconds (spec 2.1): same audience, finer breaks.
    domload: bellHistogram(
      BREAKS.domloadMilliseconds,
      totals.people,
      Math.max(0, domloadSeconds.avg - 0.5),
      1.2,
    ),
    scroll: merge('scroll', BREAKS.scrollTenths),
    visit: merge('visit', BREAKS.visitMinutes),
  };
  const stats = commonStats(histograms, totals, sources, { all: platform, engaged }, loyalty, params, () => {
    const flows = new Map<string, number>();
    for (const state of states)
      for (const { path, visitors } of nowOn(snapshot, state)) addCount(flows, path, visitors);
    return ranked(flows)
      .slice(0, QUICKSTATS_TOPPAGES)
      .map(([path, visitors]) => ({ path, visitors }));
  });
  stats.toppages = [...states]
    .sort((a, b) => b.people - a.people || a.page.index - b.page.index)
    .slice(0, QUICKSTATS_TOPPAGES)
    .map((state) => ({ path: fullPath(site, state.page), visitors: state.people }));
  stats.pages = states.length;
  const data: QuickstatsResponse['data'] = {
    metrics: {},
    host_metadata: { subdomain_handling: false },
    stats,
  };
  const onlyPage =
    params.path !== undefined ? site.pages.find((page) => isPath(site, page, params.path!)) : undefined;
  if (params.types === 1 && onlyPage) data.type = onlyPage.isArticle ? 'Article' : 'Landing Page';
  return { data };
}

export function referrers(snapshot: Snapshot, params: ReferrersParams): ReferrersResponse {
  const { site, step } = snapshot;
  const bySource = new Map(SOURCES.map((source) => [source, new Map<string, number>()]));
  for (const state of snapshot.pages) {
    if (params.path !== undefined && !isPath(site, state.page, params.path)) continue;
    const counts = pageReferrers(site, state, step);
    for (const source of SOURCES)
      for (const [name, count] of counts[source]) addCount(bySource.get(source)!, name, count);
  }
  if (params.by_type === 1) {
    // `limit` is the total number of referrers (spec 4.3), so the top ones are taken across sources.
    const entries = SOURCES.flatMap((source) =>
      ranked(bySource.get(source)!).map(([name, count]) => ({ source, name, count })),
    )
      .sort((a, b) => b.count - a.count)
      .slice(0, params.limit);
    const grouped: Record<string, Record<string, number>> = Object.fromEntries(
      SOURCES.map((source) => [source, {}]),
    );
    for (const { source, name, count } of entries) grouped[source]![name] = count;
    return { referrers: grouped };
  }
  const flat = new Map<string, number>();
  for (const counts of bySource.values()) for (const [name, count] of counts) addCount(flat, name, count);
  return { referrers: Object.fromEntries(ranked(flat).slice(0, params.limit)) };
}

export function topGeo(snapshot: Snapshot, params: TopGeoParams): TopGeoResponse {
  const { site, step } = snapshot;
  const key = hash(site.key, 100);
  const countries = new Map<string, number>();
  const regions = new Map<string, number>();
  const cities = new Map<string, number>();
  const metros = new Map<string, number>();
  // Some visitors are located only to their country or region: a share is left unassigned at each level.
  const countryCounts = split(
    snapshot.people,
    jitter(
      COUNTRIES.map((country) => country.weight),
      0.2,
      key,
      step,
    ),
  );
  COUNTRIES.forEach((country, countryIndex) => {
    const inCountry = countryCounts[countryIndex]!;
    if (inCountry > 0) countries.set(country.code, inCountry);
    const regionWeights = country.regions.map((region) => region.weight);
    const regionCounts = split(inCountry, [
      ...regionWeights,
      0.25 * regionWeights.reduce((a, b) => a + b, 0),
    ]);
    country.regions.forEach((region, regionIndex) => {
      const inRegion = regionCounts[regionIndex]!;
      if (inRegion > 0) regions.set(region.code, inRegion);
      const cityCounts = split(inRegion, [...region.cities.map((_, index) => 1 / (index + 1)), 0.4]);
      region.cities.forEach((city, cityIndex) => {
        const inCity = cityCounts[cityIndex]!;
        if (inCity === 0) return;
        addCount(cities, city.name, inCity);
        if (city.metro) addCount(metros, city.metro, inCity);
      });
    });
  });
  const top = (map: Map<string, number>) => Object.fromEntries(ranked(map).slice(0, params.limit));
  return {
    geo: {
      regions: top(regions),
      countries: top(countries),
      total: snapshot.people,
      cities: top(cities),
      metro_codes: top(metros),
    },
  };
}

const NUMERIC_KEYS: ReadonlySet<SummaryKey> = new Set<SummaryKey>([
  'pagetimer',
  'time_spent',
  'window_height',
  'scroll_top',
  'page_height',
  'read',
  'write',
  'idle',
]);

/**
 * The statistics of a numeric key over per-visitor values, named as the service's answers name
 * them (docs/upstream-assumptions.md, "Summary"): min, max, sum, nzObservations, observations,
 * sumOfSquares, and Tukey's median and hinges (the medians of the lower and upper halves).
 */
class NumericSummary {
  private readonly values: number[] = [];

  add(value: number): void {
    this.values.push(value);
  }

  result() {
    const sorted = [...this.values].sort((a, b) => a - b);
    const median = (from: number, to: number) => {
      if (to <= from) return 0;
      const middle = (from + to - 1) / 2;
      return (sorted[Math.floor(middle)]! + sorted[Math.ceil(middle)]!) / 2;
    };
    const half = Math.ceil(sorted.length / 2);
    const data = {
      min: sorted[0] ?? 0,
      max: sorted.at(-1) ?? 0,
      sum: sorted.reduce((total, value) => total + value, 0),
      nzObservations: sorted.filter((value) => value !== 0).length,
      observations: sorted.length,
      sumOfSquares: sorted.reduce((total, value) => total + value * value, 0),
      median: median(0, sorted.length),
      lowerHinge: median(0, half),
      upperHinge: median(sorted.length - half, sorted.length),
    };
    return { data, type: 'numeric' };
  }
}

/** One value per person in a histogram, spread uniformly inside their bucket. */
function eachValue(histogram: FullHistogram, key: number, visit: (value: number) => void): void {
  histogram.hist.forEach((count, index) => {
    const [low, high] = bucketBounds(histogram.breaks, index);
    for (let n = 0; n < count; n++) visit(low + (high - low) * unit(key, index, n));
  });
}

function numericSummary(snapshot: Snapshot, states: readonly PageState[], name: SummaryKey) {
  const summary = new NumericSummary();
  for (const state of states) {
    const key = hash(state.key, snapshot.step, 110, name.length);
    switch (name) {
      case 'pagetimer':
        eachValue(state.histograms.domload, key, (seconds) => summary.add(Math.round(seconds * 1000)));
        break;
      case 'time_spent':
        eachValue(state.histograms.engaged_time, key, (seconds) => summary.add(Math.round(seconds)));
        break;
      case 'scroll_top':
        eachValue(state.histograms.scroll, key, (tenths) =>
          summary.add(Math.round((tenths / 10) * state.page.pageHeight)),
        );
        break;
      case 'window_height':
        for (let n = 0; n < state.people; n++) summary.add(560 + Math.round(500 * unit(key, n)));
        break;
      case 'page_height':
        for (let n = 0; n < state.people; n++) summary.add(state.page.pageHeight);
        break;
      default: {
        const ones = state[name as 'read' | 'write' | 'idle'];
        for (let n = 0; n < state.people; n++) summary.add(n < ones ? 1 : 0);
      }
    }
  }
  return summary.result();
}

function categoricalSummary(snapshot: Snapshot, states: readonly PageState[], name: SummaryKey) {
  const { site, step } = snapshot;
  const counts = new Map<string, number>();
  for (const state of states) {
    switch (name) {
      case 'domain': {
        const [main = 0, amp = 0] = split(state.people, [9, 1]);
        addCount(counts, site.host, main);
        addCount(counts, `amp.${site.host}`, amp);
        break;
      }
      case 'uid':
        addCount(counts, site.accountId, state.people);
        break;
      case 'host':
        addCount(counts, site.host, state.people);
        break;
      case 'title':
        addCount(counts, state.page.title, state.people);
        break;
      case 'path':
        addCount(counts, fullPath(site, state.page), state.people);
        break;
      case 'new':
        addCount(counts, '1', state.loyalty[0] ?? 0);
        addCount(counts, '0', state.people - (state.loyalty[0] ?? 0));
        break;
      case 'referrer': {
        const bySource = pageReferrers(site, state, step);
        for (const source of SOURCES)
          for (const [referrer, count] of bySource[source])
            addCount(counts, referrer === '' ? '' : `https://${referrer}/`, count);
        break;
      }
      default: {
        // token: one per page session, user: one per visitor; each person is one value.
        const period = name === 'token' ? Math.floor(step / 100) : 0;
        for (let n = 0; n < state.people && counts.size < TOP_VALUES; n++) {
          addCount(counts, hash(state.key, 120, name.length, period, n).toString(16).padStart(8, '0'), 1);
        }
      }
    }
  }
  for (const [value, count] of counts) if (count === 0) counts.delete(value);
  return { data: Object.fromEntries(ranked(counts).slice(0, TOP_VALUES)), type: 'string' };
}

export function summary(snapshot: Snapshot, params: SummaryParams): SummaryResponse {
  const states =
    params.path === undefined
      ? snapshot.pages
      : snapshot.pages.filter((state) => isPath(snapshot.site, state.page, params.path!));
  const result: SummaryResponse = {};
  for (const key of params.keys) {
    result[key] = NUMERIC_KEYS.has(key)
      ? numericSummary(snapshot, states, key)
      : categoricalSummary(snapshot, states, key);
  }
  return result;
}
