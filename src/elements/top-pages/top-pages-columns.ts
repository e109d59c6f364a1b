/**
 * The detail columns of <top-pages> (a newsroom feature, src/newsroom.ts): the built-in ones that
 * `columns` names, then one per custom metric that the `metrics=` query of `src` asks for.
 */
import { css } from '../../internal/style-sheet.ts';
import { html, type TemplateResult } from 'lit/html.js';
import type { PageStats, TopPage } from '../../api/index.ts';
import { histogramFields } from '../../api/statistics.ts';
import { formatCount, formatList, formatSeconds, formatShare } from '../../internal/format.ts';
import type { LocalizeController } from '../../internal/localize.ts';
import { LOYALTY_TERMS, PLATFORM_TERMS, SOURCE_TERMS } from '../../internal/stats-names.ts';
import type { TextTerm } from '../../locales/en.ts';
import { describeReferrer } from '../referrer-bars/referrer-names.ts';
import { describeMetric, metricLabels, metricNames, requestedMetrics } from './custom-metrics.ts';

/** What a cell needs besides its page. */
export interface CellContext {
  readonly locale: string;
  readonly localize: LocalizeController;
  readonly siteHost: string;
  /** The http(s) link to a page, if its path allows one. */
  readonly href: (path: string, host: string) => string | undefined;
}

type Cell = string | TemplateResult;

export interface Column {
  readonly header: string;
  readonly cell: (page: TopPage, context: CellContext) => Cell;
  /** Custom metric columns carry the `metric` part too. */
  readonly metric?: boolean;
}

/** The settings of a list that choose its columns (its properties of the same names). */
export interface ColumnSettings {
  readonly columns: string;
  readonly hideNumbers: boolean;
  readonly metricNames?: Record<string, string>;
  readonly metricLabels?: Record<string, string[]>;
}

/** Optional columns, in display order: the term of the header, whether the data carries it, the cell. */
const COLUMNS = {
  sections: {
    header: 'pagesSections',
    present: (page: TopPage) => !!page.sections?.length,
    cell: (page: TopPage, { locale }: CellContext): Cell => formatList(locale, page.sections ?? []),
  },
  authors: {
    header: 'pagesAuthors',
    present: (page: TopPage) => !!page.authors?.length,
    cell: (page: TopPage, { locale }: CellContext): Cell => formatList(locale, page.authors ?? []),
  },
  'engaged-time': {
    header: 'pagesEngagedTime',
    present: (page: TopPage) => page.stats?.engaged_time !== undefined,
    cell: ({ stats = {} }: TopPage, { locale }: CellContext): Cell => {
      // The median when sent; an answer that sends the histogram as its average gives that.
      const time = histogramFields(stats.engaged_time);
      const seconds = time?.median ?? time?.avg;
      return seconds === undefined ? '' : formatSeconds(locale, seconds);
    },
  },
  sources: {
    header: 'pagesSources',
    present: (page: TopPage) => SOURCES.some((key) => page.stats?.[key] !== undefined),
    cell: ({ stats = {} }: TopPage, { locale, localize }: CellContext): Cell =>
      shares(
        locale,
        SOURCES.map((key) => [localize.term(SOURCE_TERMS[key]), stats[key] ?? 0]),
        2,
      ),
  },
  referrers: {
    header: 'pagesReferrers',
    present: (page: TopPage) => page.stats?.num_refs !== undefined,
    cell: ({ stats = {} }: TopPage, context: CellContext): Cell => referrers(context, stats),
  },
  platform: {
    header: 'pagesPlatforms',
    present: (page: TopPage) => page.stats?.platform !== undefined,
    cell: ({ stats = {} }: TopPage, { locale, localize }: CellContext): Cell =>
      shares(
        locale,
        Object.entries(stats.platform ?? {}).map(([letter, count]) => [
          localize.term(PLATFORM_TERMS[letter] ?? 'platformOther'),
          count,
        ]),
        2,
      ),
  },
  loyalty: {
    header: 'pagesLoyalty',
    present: (page: TopPage) => page.stats?.loyalty !== undefined,
    cell: ({ stats: { loyalty } = {} }: TopPage, { locale, localize }: CellContext): Cell =>
      loyalty
        ? shares(
            locale,
            LOYALTY.map((key) => [localize.term(LOYALTY_TERMS[key]), loyalty[key] ?? 0]),
            3,
          )
        : '',
  },
  type: {
    header: 'pagesType',
    present: (page: TopPage) => page.type !== undefined,
    cell: ({ type = '' }: TopPage, { localize }: CellContext): Cell =>
      type in PAGE_TYPES ? localize.term(PAGE_TYPES[type]!) : type,
  },
  'now-on': {
    header: 'pagesReadNext',
    present: (page: TopPage) => page.stats?.now_on !== undefined,
    cell: ({ stats = {}, host }: TopPage, context: CellContext): Cell =>
      stats.now_on ? nowOn(stats.now_on, host ?? context.siteHost, context) : '',
  },
} as const satisfies Record<string, { header: TextTerm; present: unknown; cell: unknown }>;

export type TopPagesColumn = keyof typeof COLUMNS;

/** The traffic sources a page entry carries (no `subscr`). */
const SOURCES = [
  'search',
  'social',
  'links',
  'direct',
  'internal',
] as const satisfies readonly (keyof PageStats)[];
const LOYALTY = ['new', 'returning', 'loyal'] as const;
/** The page types the service names (spec 4.1); another is shown as sent. */
const PAGE_TYPES: Readonly<Record<string, TextTerm>> = {
  Article: 'pagesTypeArticle',
  'Landing Page': 'pagesTypeLanding',
};
/** How many items a list cell shows: `now_on` recirculation targets, `toprefs` referrers. */
const CELL_ITEMS = 3;

/** Columns without readership numbers: what `hide-numbers` keeps. */
const NUMBERLESS_COLUMNS: ReadonlySet<string> = new Set(['sections', 'authors', 'type']);

/** The columns `settings` ask for that `pages` carry data for, in display order; `url` is the list's (its `metrics=`). */
export function detailColumns(
  settings: ColumnSettings,
  pages: readonly TopPage[],
  url: string,
  localize: LocalizeController,
): Column[] {
  const wanted = new Set(settings.columns.split(/[\s,]+/));
  const builtIn = (Object.keys(COLUMNS) as TopPagesColumn[])
    .filter(
      (column) =>
        wanted.has(column) &&
        (!settings.hideNumbers || NUMBERLESS_COLUMNS.has(column)) &&
        pages.some(COLUMNS[column].present),
    )
    .map((column): Column => ({ ...COLUMNS[column], header: localize.term(COLUMNS[column].header) }));
  const names = metricNames(settings.metricNames);
  const labels = metricLabels(settings.metricLabels);
  const metrics = requestedMetrics(url)
    .filter((key) => !settings.hideNumbers && pages.some((page) => page.metrics?.[key] !== undefined))
    .map(
      (key): Column => ({
        header: names.get(key) ?? key,
        metric: true,
        cell: (page, { localize }) => {
          const value = page.metrics?.[key];
          return value === undefined ? '' : describeMetric(value, localize, labels.get(key));
        },
      }),
    );
  return [...builtIn, ...metrics];
}

export const detailColumnStyles = css`
  .detail {
    color: var(--_muted);
    font-size: 0.875em;
    overflow-wrap: anywhere;
  }
`;

/** "Search 45 %, Social 20 %": the `top` largest parts of a whole (parts of one name added up). */
function shares(locale: string, parts: readonly (readonly [string, number])[], top: number): string {
  let total = 0;
  const merged: [string, number][] = [];
  for (const [name, count] of parts) {
    total += count;
    if (!(count > 0)) continue;
    const same = merged.find((part) => part[0] === name);
    if (same) same[1] += count;
    else merged.push([name, count]);
  }
  if (total <= 0) return '';
  merged.sort((a, b) => b[1] - a[1]);
  return formatList(
    locale,
    merged.slice(0, top).map(([name, count]) => `${name} ${formatShare(locale, count / total)}`),
  );
}

/** "31 referrers: Google 39, Bing 19, t.co 16": how many sites send readers (`num_refs`), and the top ones (`toprefs`), as text. */
function referrers({ locale, localize }: CellContext, { toprefs = [], num_refs: count }: PageStats): string {
  if (count === undefined) return '';
  const list = formatList(
    locale,
    toprefs
      .slice(0, CELL_ITEMS)
      .map(({ domain, visitors }) =>
        withCount(locale, describeReferrer(domain).name || localize.term('referrersNone'), visitors),
      ),
  );
  return localize.term('pagesReferrerCount', localize.count(count), list);
}

/** The pages readers of this one go to next (`now_on=1`), linked when their path allows, with how many. */
function nowOn(
  targets: readonly { path: string; visitors?: number }[],
  host: string,
  { locale, href }: CellContext,
): Cell {
  return html`${targets.slice(0, CELL_ITEMS).map(({ path, visitors }, index) => {
    const link = href(path, host);
    const name = link ? new URL(link).pathname : path;
    return html`${index > 0 ? ', ' : ''}${link ? html`<a part="link" href=${link}>${name}</a>` : name}${visitors === undefined ? '' : ` ${formatCount(locale, visitors)}`}`;
  })}`;
}

/** "Google 39", or the name alone when the answer lacks its count. */
function withCount(locale: string, name: string, count: number | undefined): string {
  return count === undefined ? name : `${name} ${formatCount(locale, count)}`;
}
