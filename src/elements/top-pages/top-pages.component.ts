import { html, nothing, type TemplateResult } from 'lit/html.js';
import type { PropertyDeclarations } from 'lit';
import { LIMITS } from '../../api/constants.ts';
import type { RouteName, Shape, TopPage, ToppagesResponse } from '../../api/index.ts';
import { pageUrl } from '../../api/page-url.ts';
import { TOPPAGES_SHAPE } from '../../api/response-shapes.ts';
import { bar } from '../../internal/bar.ts';
import { formatCount } from '../../internal/format.ts';
import type { LocalizeController } from '../../internal/localize.ts';
import { memoize } from '../../internal/memo.ts';
import { noData } from '../../internal/no-data.ts';
import type { Changes } from '../../internal/lean-element.ts';
import type { Styles } from '../../internal/style-sheet.ts';
import { PulseElement } from '../../internal/pulse-element.ts';
import { cardTerms, topPagesTerms } from '../../locales/en.ts';
import type { RowDetail, RowDetailHost } from './page-detail.ts';
import type { SiteSettings } from './site-label.ts';
import { rowKey, siteHostOf, type SitePage } from './site-pages.ts';
import type { CellContext, Column, ColumnSettings } from './top-pages-columns.ts';
import { topPagesStyles } from './top-pages.styles.ts';

export type { TopPagesColumn } from './top-pages-columns.ts';

declare module '../../internal/features.ts' {
  /** The newsroom features of <top-pages>, registered by src/newsroom.ts. */
  interface Features {
    /** The drill-down of a row into its page's own numbers, which `tools="drill-down"` shows. */
    rowDetail: (host: RowDetailHost) => RowDetail;
    /** The site of a row in the network view. */
    siteLabel: (site: string, settings: SiteSettings, localize: LocalizeController) => TemplateResult;
    /** The detail columns (`columns`) and custom metric columns (`metrics=` in `src`). */
    detailColumns: (
      settings: ColumnSettings,
      pages: readonly TopPage[],
      url: string,
      localize: LocalizeController,
    ) => Column[];
  }
}

/** Hosts whose page links are kept (a site's pages normally share one). */
const MAX_HOSTS = 50;
/** How many more pages `articles-only` asks for than it shows, since landing pages are dropped. */
const ARTICLES_READ_FACTOR = 3;
/** Separators before a site name at the end of a title: "Story | Site", "Story – Site". */
const TITLE_SUFFIX = /\s+[|·•–—-]\s+[^|·•–—-]+$/;
/** A bar moves in steps of 1/200 of its width: finer changes are below a pixel and not worth a style write. */
const BAR_STEPS = 200;

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
 * The detail columns, custom metrics, the network view (several addresses in `src`), the freeze
 * control and the drill-down of a row are newsroom features: they come with the full bundle
 * (`pulse-widgets`, `pulse-widgets.js`) or `pulse-widgets/newsroom`, imported before or after
 * the element. The freeze control and the drill-down are editors' tools, shown only when `tools`
 * names them (`tools="freeze drill-down"`).
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
 * @csspart column - A cell of a detail column (newsroom features).
 * @csspart metric - A cell of a custom metric column (also has the `column` part).
 * @csspart site - The site of a row, in the network view (several addresses in `src`; newsroom features).
 * @csspart site-icon - The site's icon, when `site-icons` gives one.
 * @csspart expand - A row's button that opens or closes its live numbers (`aria-expanded`; newsroom features, with `tools="drill-down"`).
 * @csspart detail-row - The row under an opened page, holding its live numbers.
 * @csspart page-detail - One page's people, sources, platforms and top referrers.
 *
 * @cssproperty --pulse-top-pages-row-gap - Vertical padding of a row.
 * @cssproperty --pulse-top-pages-bar-width - Width of the people column and its bars.
 * @cssproperty --pulse-top-pages-title-lines - Most lines a title takes (2): every row is this tall, so the list's height never changes with its data.
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
  static override styles: Styles = [PulseElement.styles, topPagesStyles];
  static override route: RouteName = 'toppages';
  static override shape: Shape = TOPPAGES_SHAPE;
  static override terms = { ...cardTerms, ...topPagesTerms };

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
  /** The drill-down of the rows, with the newsroom features. */
  readonly #detail = this.feature('rowDetail')?.({
    localize: this.localize,
    announcer: this.announcer,
    theme: () => this.theme,
    urls: () => this.source.url?.split(' ') ?? [],
    shownPages: () => {
      const data = this.shownData;
      return data ? this.#visiblePages(data) : [];
    },
    title: (page) => this.#title(page),
    requestUpdate: () => this.requestUpdate(),
  });

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

  /** Detail columns, space separated: sections authors engaged-time sources referrers platform loyalty type now-on (newsroom features). */
  columns = '';

  /** Hides landing pages; reads more pages so the row count stays the same. */
  articlesOnly = false;

  /** Removes a site name from titles: this exact suffix, or when empty whatever follows a final " | ", " - " or " – ". */
  stripTitle?: string;

  /** Column titles of custom metrics (newsroom features), as JSON: `{"_rv": "Reader value"}`; a metric without one is titled by its key. */
  metricNames?: Record<string, string>;

  /** Labels of enum metric values by index (newsroom features), as JSON: `{"_pw": ["free", "metered", "paid"]}`; an unlabelled index shows as `#2`. */
  metricLabels?: Record<string, string[]>;

  /** Ranks and titles only, for a public "most read" list: no people column, bars, counts or drill-down. */
  hideNumbers = false;

  /** Network view (newsroom features): names of the sites in `src`, as JSON: `{"example.com": "Example Daily"}`; a site without one shows its ID. */
  siteNames?: Record<string, string>;

  /** Network view (newsroom features): an icon per site, as JSON: `{"example.com": "/icons/example.png"}`. Only same-origin http(s) images are shown: nothing is fetched from third parties. */
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

  protected override willUpdate(changed: Changes): void {
    if (changed.has('stripTitle')) this.#titleOf = memoize((title: string) => this.#strip(title));
    if (changed.has('linkBase')) this.#hrefs = new Map();
    const url = this.source.url;
    super.willUpdate(changed);
    this.#detail?.close(url !== this.source.url || this.hideNumbers || !this.hasTool('drill-down'));
    // Nothing on screen would say why the columns asked for are missing.
    if (changed.has('columns') && this.columns && !this.feature('detailColumns'))
      console.warn('pulse-widgets: <top-pages columns> needs pulse-widgets/newsroom');
  }

  protected override get rows(): number {
    return this.#rowCount;
  }

  get #firstUrl(): string {
    return this.source.url!.split(' ')[0]!;
  }

  protected override requestUrl(url: URL): URL {
    const limit = Number(url.searchParams.get('limit')) || 10;
    this.#rowCount = this.max > 0 ? this.max : limit;
    if (this.articlesOnly) {
      url.searchParams.set('types', '1');
      url.searchParams.set(
        'limit',
        String(Math.min(LIMITS.listLimit, Math.max(limit, this.#rowCount * ARTICLES_READ_FACTOR))),
      );
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
      this.#previousRanks = {
        data: previous,
        ranks: new Map(this.#rankedPages(previous).map((page, index) => [rowKey(page), index])),
      };
    }
    return this.#previousRanks.ranks;
  }

  #strip(title: string): string {
    const trimmed = title.trim();
    if (this.stripTitle === undefined) return trimmed;
    const stripped = this.stripTitle
      ? trimmed.endsWith(this.stripTitle)
        ? trimmed.slice(0, -this.stripTitle.length)
        : trimmed
      : trimmed.replace(TITLE_SUFFIX, '');
    return stripped.trim() || trimmed;
  }

  #title(page: TopPage): string {
    return (page.title === undefined ? '' : this.#titleOf(page.title)) || page.path;
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
    return this.feature('detailColumns')?.(this, pages, this.#firstUrl, this.localize) ?? [];
  }

  #renderChange(before: number | undefined, now: number): TemplateResult {
    if (before === undefined)
      return html`<span part="rank-change" class="rank-change new">${this.localize.term('pagesNew')}</span>`;
    if (before === now)
      return html`<span class="visually-hidden">${this.localize.term('pagesSameRank')}</span>`;
    const up = before > now;
    const by = this.localize.count(Math.abs(before - now));
    return html`<span part="rank-change" class="rank-change ${up ? 'up' : 'down'}"><span aria-hidden="true">${(up ? '▲' : '▼') + by}</span><span class="visually-hidden">${this.localize.term(up ? 'pagesRankUp' : 'pagesRankDown', by)}</span></span>`;
  }

  /**
   * The title is the clamped box itself, link or not: a link inside a clamped box keeps the lines
   * the clamp hides, and their boxes lie over the next rows' links (a touch target overlapped).
   */
  #renderTitle(page: SitePage, siteHost: string): TemplateResult {
    const href = this.#href(page.path, page.host ?? page.site ?? siteHost);
    const title = this.#title(page);
    return href
      ? html`<a part="link" class="name" href=${href}>${title}</a>`
      : html`<span class="name">${title}</span>`;
  }

  #renderPeople(people: number | undefined, most: number, locale: string): TemplateResult {
    if (people === undefined)
      return html`<td part="people" class="people"><span class="count">${noData(this.localize)}</span></td>`;
    return html`<td part="people" class="people"><span class="count">${formatCount(locale, people)}</span>${bar(most > 0 ? Math.round((people / most) * BAR_STEPS) / BAR_STEPS : 0)}</td>`;
  }

  protected override renderData(data: ToppagesResponse, locale: string): TemplateResult {
    const pages = this.#visiblePages(data);
    const ranksBefore = this.#ranksBefore();
    let most = 0;
    for (const page of pages) most = Math.max(most, page.stats?.people ?? 0);
    const columns = this.#columns(pages);
    const context: CellContext = {
      locale,
      localize: this.localize,
      siteHost: siteHostOf(this.#firstUrl),
      href: this.#href,
    };
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
          ${pages.map(
            (page, index) => html`<tr part="row">
            <td part="rank" class="rank">${formatCount(locale, index + 1)}${ranksBefore ? this.#renderChange(ranksBefore.get(rowKey(page)), index) : nothing}</td>
            <td part="title" class="title"><div class="line">${numbers && this.hasTool('drill-down') ? this.#detail?.button(page) : nothing}${this.#renderTitle(page, context.siteHost)}${typeof page.site === 'string' ? this.feature('siteLabel')?.(page.site, this, this.localize) : nothing}</div></td>
            ${numbers ? this.#renderPeople(page.stats?.people, most, locale) : nothing}
            ${columns.map((column) => {
              const cell = column.cell(page, context);
              const shown = cell === '' ? noData(this.localize) : cell;
              return column.metric
                ? html`<td part="column metric" class="detail">${shown}</td>`
                : html`<td part="column" class="detail">${shown}</td>`;
            })}
          </tr>${this.#detail?.row(page, span)}`,
          )}
        </tbody>
      </table>
    </div>`;
  }
}

/** `types=1` names the type; without it, a page with nobody on an article is a landing page. */
function isLandingPage(page: TopPage): boolean {
  return page.type !== undefined ? !/article/i.test(page.type) : page.stats?.article === 0;
}
