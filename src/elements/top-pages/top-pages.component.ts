import { html, nothing, type CSSResultGroup, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import { LIMITS } from '../../api/constants.ts';
import type { PageStats, RouteName, Shape, TopPage, ToppagesResponse } from '../../api/index.ts';
import { pageUrl } from '../../api/page-url.ts';
import { TOPPAGES_SHAPE } from '../../api/response-shapes.ts';
import type { SourceData } from '../../client/index.ts';
import { bar } from '../../internal/bar.ts';
import { formatCount, formatList, formatSeconds, formatShare } from '../../internal/format.ts';
import type { LocalizeController } from '../../internal/localize.ts';
import { memoize } from '../../internal/memo.ts';
import { PulseElement } from '../../internal/pulse-element.ts';
import { LOYALTY_TERMS, PLATFORM_TERMS, SOURCE_TERMS } from '../../internal/stats-names.ts';
import { cardTerms, networkTerms, pageDetailTerms, topPagesTerms, type TextTerm } from '../../locales/en.ts';
import { describeReferrer } from '../referrer-bars/referrer-names.ts';
import { describeMetric, isRecord, metricLabels, metricNames, requestedMetrics } from './custom-metrics.ts';
import { pageDetail } from './page-detail.ts';
import { topPagesStyles } from './top-pages.styles.ts';

/** What a cell needs besides its page. */
interface CellContext {
  readonly locale: string;
  readonly localize: LocalizeController;
  readonly siteHost: string;
  /** The http(s) link to a page, if its path allows one. */
  readonly href: (path: string, host: string) => string | undefined;
}

type Cell = string | TemplateResult;

/** Optional columns, in display order: the term of the header, whether the data carries it, the cell. */
const COLUMNS = {
  sections: { header: 'pagesSections', present: (page: TopPage) => !!page.sections?.length, cell: (page: TopPage, { locale }: CellContext): Cell => formatList(locale, page.sections ?? []) },
  authors: { header: 'pagesAuthors', present: (page: TopPage) => !!page.authors?.length, cell: (page: TopPage, { locale }: CellContext): Cell => formatList(locale, page.authors ?? []) },
  'engaged-time': {
    header: 'pagesEngagedTime',
    present: (page: TopPage) => page.stats.engaged_time !== undefined,
    cell: ({ stats }: TopPage, { locale }: CellContext): Cell => (stats.engaged_time ? formatSeconds(locale, stats.engaged_time.median) : ''),
  },
  sources: {
    header: 'pagesSources',
    present: (page: TopPage) => SOURCES.some((key) => page.stats[key] !== undefined),
    cell: ({ stats }: TopPage, { locale, localize }: CellContext): Cell => shares(locale, SOURCES.map((key) => [localize.term(SOURCE_TERMS[key]), stats[key] ?? 0]), 2),
  },
  referrers: {
    header: 'pagesReferrers',
    present: (page: TopPage) => page.stats.num_refs !== undefined,
    cell: ({ stats }: TopPage, context: CellContext): Cell => referrers(context, stats),
  },
  platform: {
    header: 'pagesPlatforms',
    present: (page: TopPage) => page.stats.platform !== undefined,
    cell: ({ stats }: TopPage, { locale, localize }: CellContext): Cell => shares(locale, Object.entries(stats.platform ?? {}).map(([letter, count]) => [localize.term(PLATFORM_TERMS[letter] ?? 'platformOther'), count]), 2),
  },
  loyalty: {
    header: 'pagesLoyalty',
    present: (page: TopPage) => page.stats.loyalty !== undefined,
    cell: ({ stats: { loyalty } }: TopPage, { locale, localize }: CellContext): Cell => (loyalty ? shares(locale, LOYALTY.map((key) => [localize.term(LOYALTY_TERMS[key]), loyalty[key]]), 3) : ''),
  },
  type: {
    header: 'pagesType',
    present: (page: TopPage) => page.type !== undefined,
    cell: ({ type = '' }: TopPage, { localize }: CellContext): Cell => (type in PAGE_TYPES ? localize.term(PAGE_TYPES[type]!) : type),
  },
  'now-on': {
    header: 'pagesReadNext',
    present: (page: TopPage) => page.stats.now_on !== undefined,
    cell: ({ stats, host }: TopPage, context: CellContext): Cell => nowOn(stats.now_on ?? [], host ?? context.siteHost, context),
  },
} as const satisfies Record<string, { header: TextTerm; present: unknown; cell: unknown }>;

export type TopPagesColumn = keyof typeof COLUMNS;

interface Column {
  readonly header: string;
  readonly cell: (page: TopPage, context: CellContext) => Cell;
  /** Custom metric columns carry the `metric` part too. */
  readonly metric?: boolean;
}

/** The traffic sources a page entry carries (no `subscr`). */
const SOURCES = ['search', 'social', 'links', 'direct', 'internal'] as const satisfies readonly (keyof PageStats)[];
const LOYALTY = ['new', 'returning', 'loyal'] as const;
/** The page types the service names (spec 4.1); another is shown as sent. */
const PAGE_TYPES: Readonly<Record<string, TextTerm>> = { Article: 'pagesTypeArticle', 'Landing Page': 'pagesTypeLanding' };
/** Hosts whose page links are kept (a site's pages normally share one). */
const MAX_HOSTS = 50;
/** How many items a list cell shows: `now_on` recirculation targets, `toprefs` referrers. */
const CELL_ITEMS = 3;
/** How many more pages `articles-only` asks for than it shows, since landing pages are dropped. */
const ARTICLES_READ_FACTOR = 3;
/** Separators before a site name at the end of a title: "Story | Site", "Story – Site". */
const TITLE_SUFFIX = /\s+[|·•–—-]\s+[^|·•–—-]+$/;
/** A bar moves in steps of 1/200 of its width: finer changes are below a pixel and not worth a style write. */
const BAR_STEPS = 200;

/** Columns without readership numbers: what `hide-numbers` keeps. */
const NUMBERLESS_COLUMNS: ReadonlySet<string> = new Set(['sections', 'authors', 'type']);

/** A page of a merge of several sites, with the site (the `host` of its source) it came from. */
type SitePage = TopPage & { site?: string };

/**
 * @summary The pages read most right now, ranked, with people per page as a number and a bar,
 * the change of rank since the last update and optional detail columns. Shows toppages v3 data.
 *
 * The query of `src` is passed to the service as it is, so its filters apply: several sections
 * or authors (`section=news,sport`, `author=Ada,Grace`), a minimum of people (`exclude_people=5`),
 * `sort_by`, and the flags that add data for columns (`all_platforms=1`, `loyalty=1`, `types=1`,
 * `now_on=1`). Custom metrics asked for with `metrics=_pw,_rv` become one column each, in that
 * order, when the data carries them; `metric-names` titles them and `metric-labels` names the
 * values of enum metrics.
 *
 * @csspart table - The table of pages.
 * @csspart row - One page.
 * @csspart rank - The rank cell, with the rank change.
 * @csspart rank-change - "New", or the arrow and number of places moved.
 * @csspart title - The title cell.
 * @csspart link - A link to a page (http and https only): the title, and the pages in the "Read next" column.
 * @csspart people - The people cell.
 * @csspart bar - The track of a bar.
 * @csspart bar-fill - The filled part of a bar.
 * @csspart column - A cell of an optional column.
 * @csspart metric - A cell of a custom metric column (also has the `column` part).
 * @csspart site - The site of a row, in the network view (several addresses in `src`).
 * @csspart site-icon - The site's icon, when `site-icons` gives one.
 * @csspart expand - A row's button that opens or closes its live numbers (`aria-expanded`).
 * @csspart detail-row - The row under an opened page, holding its live numbers.
 * @csspart page-detail - One page's people, sources, platforms and top referrers.
 *
 * @cssproperty --pulse-top-pages-row-gap - Vertical padding of a row.
 * @cssproperty --pulse-top-pages-bar-width - Width of the people column and its bars.
 *
 * @cssstate loading - No data yet.
 * @cssstate ready - Showing pages.
 * @cssstate empty - No page is being read.
 * @cssstate error - No data can be shown; the card says why.
 * @cssstate stale - The pages shown may be out of date.
 * @cssstate paused - Polling is paused (page hidden or offline).
 *
 * @fires pulse-data - New data arrived ({@link PulseDataEvent}).
 * @fires pulse-error - A request failed or `src` is unusable ({@link PulseErrorEvent}).
 */
export class TopPages extends PulseElement<ToppagesResponse> {
  static override styles: CSSResultGroup = [PulseElement.styles, topPagesStyles];
  static override route: RouteName = 'toppages';
  static override shape: Shape = TOPPAGES_SHAPE;
  static override freezable = true;
  static override terms = { ...cardTerms, ...networkTerms, ...topPagesTerms, ...pageDetailTerms };

  #rowCount = 10;
  /** The pages each response ranks, for the settings in `#rankedFor`. */
  #ranked = new WeakMap<ToppagesResponse, TopPage[]>();
  #rankedFor = '';
  /** Rank by path of the previous response's visible pages. */
  #previousRanks: { data: ToppagesResponse; ranks: Map<string, number> } | undefined;
  /** Shown titles, for the current `strip-title`. */
  #titleOf = memoize((title: string) => this.#strip(title));
  /** Page links by host then path, for the current `link-base`: a URL parse per row and tick would cost more than the row. */
  #hrefs = new Map<string, (path: string) => string | undefined>();
  /** Keys of the opened rows: each shows its page's own numbers until closed. */
  #opened = new Set<string>();

  static override properties: PropertyDeclarations = {
    max: { type: Number },
    linkBase: { attribute: 'link-base' },
    columns: {},
    articlesOnly: { type: Boolean, attribute: 'articles-only' },
    stripTitle: { attribute: 'strip-title' },
    metricNames: { type: Object, attribute: 'metric-names' },
    metricLabels: { type: Object, attribute: 'metric-labels' },
    hideNumbers: { type: Boolean, attribute: 'hide-numbers' },
    siteNames: { type: Object, attribute: 'site-names' },
    siteIcons: { type: Object, attribute: 'site-icons' },
  };

  /** Most rows shown; 0 shows as many as the `limit` of `src` (default 10). */
  max = 0;

  /** Base URL for page links instead of `https://<host>` (for staging or a proxy). */
  linkBase?: string;

  /** Optional columns, space separated: sections authors engaged-time sources referrers platform loyalty type now-on. */
  columns = '';

  /** Hides landing pages; reads more pages so the row count stays the same. */
  articlesOnly = false;

  /** Removes a site name from titles: this exact suffix, or when empty whatever follows a final " | ", " - " or " – ". */
  stripTitle?: string;

  /** Column titles of custom metrics, as JSON: `{"_rv": "Reader value"}`; a metric without one is titled by its key. */
  metricNames?: Record<string, string>;

  /** Labels of enum metric values by index, as JSON: `{"_pw": ["free", "metered", "paid"]}`; an unlabelled index shows as `#2`. */
  metricLabels?: Record<string, string[]>;

  /** Ranks and titles only, for a public "most read" list: no people column, bars, counts or drill-down. */
  hideNumbers = false;

  /** Network view: names of the sites in `src`, as JSON: `{"example.com": "Example Daily"}`; a site without one shows its ID. */
  siteNames?: Record<string, string>;

  /** Network view: an icon per site, as JSON: `{"example.com": "/icons/example.png"}`. Only same-origin http(s) images are shown: nothing is fetched from third parties. */
  siteIcons?: Record<string, string>;

  protected override get defaultLabel(): string {
    return this.localize.term(this.articlesOnly ? 'pagesArticlesLabel' : 'pagesLabel');
  }

  protected override get emptyText(): string {
    return this.localize.term('pagesEmpty');
  }

  protected override isEmpty(data: ToppagesResponse): boolean {
    return this.#visiblePages(data).length === 0;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('stripTitle')) this.#titleOf = memoize((title: string) => this.#strip(title));
    if (changed.has('linkBase')) this.#hrefs = new Map();
    const url = this.source.url;
    super.willUpdate(changed);
    this.#closeDetails(url !== this.source.url || this.hideNumbers);
  }

  /** Several sites (`src` with several addresses): one ranking by people, each page with its site. */
  protected override merge(parts: readonly SourceData<ToppagesResponse>[]): ToppagesResponse {
    const pages: SitePage[] = parts.flatMap(({ site, data }) => data.pages.map((page) => ({ ...page, site })));
    return { pages: pages.sort((a, b) => b.stats.people - a.stats.people) };
  }

  /** Closes opened rows that are no longer shown (or all): their pages stop being polled. */
  #closeDetails(all: boolean): void {
    if (this.#opened.size === 0) return;
    const data = this.shownData;
    const shown = new Set(!all && data ? this.#visiblePages(data).map(rowKey) : []);
    for (const key of this.#opened) if (!shown.has(key)) this.#opened.delete(key);
  }

  /** One listener for every row's open button (a closure per row would be re-bound on every tick). */
  readonly #toggleDetail = (event: Event): void => {
    const key = (event.currentTarget as HTMLElement).dataset.key!;
    const data = this.shownData;
    const page = data && this.#visiblePages(data).find((one) => rowKey(one) === key);
    if (!page) return;
    const open = this.#opened.delete(key);
    if (!open) this.#opened.add(key);
    const title = this.#title(page);
    this.announcer.announce(this.localize.term(open ? 'detailClosed' : 'detailOpened', title), { urgent: true });
    this.requestUpdate();
  };

  #renderDetail(page: SitePage, span: number): TemplateResult {
    const site = page.site ?? siteHostOf(this.#firstUrl);
    const listUrl = this.source.url!.split(' ').find((url) => siteHostOf(url) === site) ?? this.#firstUrl;
    return html`<tr part="detail-row"><td colspan=${span}>${pageDetail(listUrl, site, page.path, this.theme, this.localize)}</td></tr>`;
  }

  get #firstUrl(): string {
    return this.source.url!.split(' ')[0]!;
  }

  protected override requestUrl(url: URL): URL {
    const limit = Number(url.searchParams.get('limit')) || 10;
    this.#rowCount = this.max > 0 ? this.max : limit;
    if (this.articlesOnly) {
      url.searchParams.set('types', '1');
      url.searchParams.set('limit', String(Math.min(LIMITS.listLimit, Math.max(limit, this.#rowCount * ARTICLES_READ_FACTOR))));
    }
    return url;
  }

  protected override dataChanged(data: ToppagesResponse): string | undefined {
    const [leader] = this.#visiblePages(data);
    return leader && this.localize.term('pagesAnnouncement', this.#title(leader));
  }

  #visiblePages(data: ToppagesResponse): TopPage[] {
    return this.#rankedPages(data).slice(0, this.#rowCount);
  }

  /** Every page of `data` this element could show, in rank order (landing pages out with `articles-only`). */
  #rankedPages(data: ToppagesResponse): TopPage[] {
    const settings = `${this.articlesOnly}`;
    if (settings !== this.#rankedFor) {
      this.#ranked = new WeakMap();
      this.#rankedFor = settings;
    }
    let pages = this.#ranked.get(data);
    if (!pages) {
      pages = this.articlesOnly ? data.pages.filter((page) => !isLandingPage(page)) : data.pages;
      this.#ranked.set(data, pages);
    }
    return pages;
  }

  /** Ranks in the previous data, rows below the visible ones included: a page climbing from there moved up, it is not new. */
  #ranksBefore(): Map<string, number> | undefined {
    const previous = this.previousData;
    if (!previous) return undefined;
    if (this.#previousRanks?.data !== previous) {
      this.#previousRanks = { data: previous, ranks: new Map(this.#rankedPages(previous).map((page, index) => [rowKey(page), index])) };
    }
    return this.#previousRanks.ranks;
  }

  #strip(title: string): string {
    const trimmed = title.trim();
    if (this.stripTitle === undefined) return trimmed;
    const stripped = this.stripTitle
      ? (trimmed.endsWith(this.stripTitle) ? trimmed.slice(0, -this.stripTitle.length) : trimmed)
      : trimmed.replace(TITLE_SUFFIX, '');
    return stripped.trim() || trimmed;
  }

  #title(page: TopPage): string {
    return this.#titleOf(page.title) || page.path;
  }

  readonly #href = (path: string, host: string): string | undefined => {
    let hrefs = this.#hrefs.get(host);
    if (!hrefs) {
      if (this.#hrefs.size >= MAX_HOSTS) this.#hrefs.clear();
      const linkBase = this.linkBase || undefined;
      hrefs = memoize((path: string) => pageUrl(path, host, linkBase)?.href);
      this.#hrefs.set(host, hrefs);
    }
    return hrefs(path);
  };

  #columns(pages: TopPage[]): Column[] {
    const wanted = new Set(this.columns.split(/[\s,]+/));
    const builtIn = (Object.keys(COLUMNS) as TopPagesColumn[])
      .filter((column) => wanted.has(column) && (!this.hideNumbers || NUMBERLESS_COLUMNS.has(column)) && pages.some(COLUMNS[column].present))
      .map((column): Column => ({ ...COLUMNS[column], header: this.localize.term(COLUMNS[column].header) }));
    const names = metricNames(this.metricNames);
    const labels = metricLabels(this.metricLabels);
    const metrics = requestedMetrics(this.#firstUrl)
      .filter((key) => !this.hideNumbers && pages.some((page) => page.metrics?.[key] !== undefined))
      .map((key): Column => ({
        header: names.get(key) ?? key,
        metric: true,
        cell: (page, { localize }) => {
          const value = page.metrics?.[key];
          return value === undefined ? '' : describeMetric(value, localize, labels.get(key));
        },
      }));
    return [...builtIn, ...metrics];
  }

  #renderChange(before: number | undefined, now: number): TemplateResult {
    if (before === undefined) return html`<span part="rank-change" class="rank-change new">${this.localize.term('pagesNew')}</span>`;
    if (before === now) return html`<span class="visually-hidden">${this.localize.term('pagesSameRank')}</span>`;
    const up = before > now;
    const by = this.localize.count(Math.abs(before - now));
    return html`<span part="rank-change" class="rank-change ${up ? 'up' : 'down'}"><span aria-hidden="true">${(up ? '▲' : '▼') + by}</span><span class="visually-hidden">${this.localize.term(up ? 'pagesRankUp' : 'pagesRankDown', by)}</span></span>`;
  }

  #renderTitle(page: SitePage, siteHost: string): TemplateResult | string {
    const href = this.#href(page.path, page.host ?? page.site ?? siteHost);
    const title = this.#title(page);
    return href ? html`<a part="link" href=${href}>${title}</a>` : title;
  }

  #renderSite(site: string): TemplateResult {
    const named = isRecord(this.siteNames) ? this.siteNames[site] : undefined;
    const name = typeof named === 'string' && named.trim() ? named : site;
    const icon = sameOriginIcon(isRecord(this.siteIcons) ? this.siteIcons[site] : undefined);
    return html`<span part="site" class="site">${icon ? html`<img part="site-icon" src=${icon} alt="" width="16" height="16">` : nothing}<span class="visually-hidden">${this.localize.term('pagesSite')}: </span>${name}</span>`;
  }

  #renderExpand(page: SitePage, open: boolean): TemplateResult {
    return html`<button part="expand" class="expand" type="button" aria-expanded=${open ? 'true' : 'false'} data-key=${rowKey(page)} @click=${this.#toggleDetail}><span aria-hidden="true">${open ? '−' : '+'}</span><span class="visually-hidden">${this.localize.term('detailOpen', this.#title(page))}</span></button>`;
  }

  protected override renderData(data: ToppagesResponse, locale: string): TemplateResult {
    const pages = this.#visiblePages(data);
    const ranksBefore = this.#ranksBefore();
    let most = 0;
    for (const page of pages) most = Math.max(most, page.stats.people);
    const columns = this.#columns(pages);
    const context: CellContext = { locale, localize: this.localize, siteHost: siteHostOf(this.#firstUrl), href: this.#href };
    const numbers = !this.hideNumbers;
    const span = 2 + (numbers ? 1 : 0) + columns.length;
    return html`<div class="scroller">
      <table part="table" aria-labelledby="label">
        <thead>
          <tr>
            <th scope="col">${this.localize.term('pagesRank')}</th>
            <th scope="col">${this.localize.term('pagesPage')}</th>
            ${numbers ? html`<th scope="col">${this.localize.term('pagesPeople')}</th>` : nothing}
            ${columns.map((column) => html`<th scope="col">${column.header}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${pages.map((page, index) => {
            const open = this.#opened.has(rowKey(page));
            return html`<tr part="row">
            <td part="rank" class="rank">${formatCount(locale, index + 1)}${ranksBefore ? this.#renderChange(ranksBefore.get(rowKey(page)), index) : nothing}</td>
            <td part="title" class="title"><div class="line">${numbers ? this.#renderExpand(page, open) : nothing}<span class="name">${this.#renderTitle(page, context.siteHost)}</span>${typeof page.site === 'string' ? this.#renderSite(page.site) : nothing}</div></td>
            ${numbers ? html`<td part="people" class="people"><span class="count">${formatCount(locale, page.stats.people)}</span>${bar(Math.round((page.stats.people / most) * BAR_STEPS) / BAR_STEPS)}</td>` : nothing}
            ${columns.map((column) => column.metric
              ? html`<td part="column metric" class="detail">${column.cell(page, context)}</td>`
              : html`<td part="column" class="detail">${column.cell(page, context)}</td>`)}
          </tr>${open ? this.#renderDetail(page, span) : nothing}`;
          })}
        </tbody>
      </table>
    </div>`;
  }
}

/** Pages of several sites can share a path: a row is its site and its path. */
function rowKey(page: SitePage): string {
  return page.site === undefined ? page.path : `${page.site} ${page.path}`;
}

/** An operator's icon address, if it is http(s) on this page's origin: nothing is fetched from third parties. */
function sameOriginIcon(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value, document.baseURI);
    return /^https?:$/.test(url.protocol) && url.origin === location.origin ? url.href : undefined;
  } catch {
    return undefined;
  }
}

const siteHostOf = memoize((url: string) => new URL(url).searchParams.get('host') ?? '', 100);

/** `types=1` names the type; without it, a page with nobody on an article is a landing page. */
function isLandingPage(page: TopPage): boolean {
  return page.type !== undefined ? !/article/i.test(page.type) : page.stats.article === 0;
}

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
  return formatList(locale, merged.slice(0, top).map(([name, count]) => `${name} ${formatShare(locale, count / total)}`));
}

/** "31 referrers: Google 39, Bing 19, t.co 16": how many sites send readers (`num_refs`), and the top ones (`toprefs`), as text. */
function referrers({ locale, localize }: CellContext, { toprefs = [], num_refs: count = 0 }: PageStats): string {
  const list = formatList(locale, toprefs.slice(0, CELL_ITEMS).map(({ domain, visitors }) => `${describeReferrer(domain).name || localize.term('referrersNone')} ${formatCount(locale, visitors)}`));
  return localize.term('pagesReferrerCount', localize.count(count), list);
}

/** The pages readers of this one go to next (`now_on=1`), linked when their path allows, with how many. */
function nowOn(targets: readonly { path: string; visitors: number }[], host: string, { locale, href }: CellContext): Cell {
  return html`${targets.slice(0, CELL_ITEMS).map(({ path, visitors }, index) => {
    const link = href(path, host);
    const name = link ? new URL(link).pathname : path;
    return html`${index > 0 ? ', ' : ''}${link ? html`<a part="link" href=${link}>${name}</a>` : name} ${formatCount(locale, visitors)}`;
  })}`;
}
