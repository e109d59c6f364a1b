import { html, nothing, type CSSResultGroup, type TemplateResult } from 'lit';
import { property } from 'lit/decorators.js';
import { LIMITS, pageUrl, type PageStats, type RouteName, type ToppagesResponse, type TopPage } from '../../api/index.ts';
import { newLeader } from '../../internal/announcer.ts';
import { bar } from '../../internal/bar.ts';
import { formatCount, formatList, formatSeconds, formatShare } from '../../internal/format.ts';
import { PulseElement } from '../../internal/pulse-element.ts';
import { topPagesStyles } from './top-pages.styles.ts';

/** Optional columns, in display order, with the test that the data carries them. */
const COLUMNS = {
  sections: { header: 'Sections', present: (page: TopPage) => !!page.sections?.length },
  authors: { header: 'Authors', present: (page: TopPage) => !!page.authors?.length },
  'engaged-time': { header: 'Engaged time', present: (page: TopPage) => page.stats.engaged_time !== undefined },
  sources: { header: 'Sources', present: (page: TopPage) => SOURCES.some(([key]) => page.stats[key] !== undefined) },
  platform: { header: 'Platforms', present: (page: TopPage) => page.stats.platform !== undefined },
  loyalty: { header: 'Loyalty', present: (page: TopPage) => page.stats.loyalty !== undefined },
  type: { header: 'Type', present: (page: TopPage) => page.type !== undefined },
} as const;

export type TopPagesColumn = keyof typeof COLUMNS;

const SOURCES = [['search', 'Search'], ['social', 'Social'], ['links', 'Links'], ['direct', 'Direct'], ['internal', 'Internal']] as const satisfies readonly (readonly [keyof PageStats, string])[];
/** Platform letters (spec 2.2 leaves them unnamed; all_platforms names desktop, mobile, tablet and app). */
const PLATFORMS: Record<string, string> = { d: 'Desktop', m: 'Mobile', t: 'Tablet', a: 'App' };
const LOYALTY = [['new', 'New'], ['returning', 'Returning'], ['loyal', 'Loyal']] as const;
/** How many more pages `articles-only` asks for than it shows, since landing pages are dropped. */
const ARTICLES_READ_FACTOR = 3;
/** Separators before a site name at the end of a title: "Story | Site", "Story – Site". */
const TITLE_SUFFIX = /\s+[|·•–—-]\s+[^|·•–—-]+$/;

type RankChange = { kind: 'new' } | { kind: 'up' | 'down'; by: number } | { kind: 'same' };

/**
 * @summary The pages read most right now, ranked, with people per page as a number and a bar,
 * the change of rank since the last update and optional detail columns. Shows toppages v3 data.
 *
 * @csspart table - The table of pages.
 * @csspart row - One page.
 * @csspart rank - The rank cell, with the rank change.
 * @csspart rank-change - "New", or the arrow and number of places moved.
 * @csspart title - The title cell.
 * @csspart link - The link to a page (http and https only).
 * @csspart people - The people cell.
 * @csspart bar - The track of a bar.
 * @csspart bar-fill - The filled part of a bar.
 * @csspart column - A cell of an optional column.
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

  #rowCount = 10;

  /** Most rows shown; 0 shows as many as the `limit` of `src` (default 10). */
  @property({ type: Number }) max = 0;

  /** Base URL for page links instead of `https://<host>` (for staging or a proxy). */
  @property({ attribute: 'link-base' }) linkBase?: string;

  /** Optional columns, space separated: sections authors engaged-time sources platform loyalty type. */
  @property() columns = '';

  /** Hides landing pages; reads more pages so the row count stays the same. */
  @property({ type: Boolean, attribute: 'articles-only' }) articlesOnly = false;

  /** Removes a site name from titles: this exact suffix, or when empty whatever follows a final " | ", " - " or " – ". */
  @property({ attribute: 'strip-title' }) stripTitle?: string;

  protected override get defaultLabel(): string {
    return this.articlesOnly ? 'Top articles now' : 'Top pages now';
  }

  protected override get emptyText(): string {
    return 'No pages are being read right now.';
  }

  protected override isEmpty(data: ToppagesResponse): boolean {
    return this.#visiblePages(data).length === 0;
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

  protected override dataChanged(data: ToppagesResponse, previous: ToppagesResponse | undefined): string | undefined {
    const leader = newLeader(this.#visiblePages(data), previous && this.#visiblePages(previous), (page) => page.path);
    return leader && `Top page now: ${this.#title(leader)}`;
  }

  #visiblePages(data: ToppagesResponse): TopPage[] {
    const pages = this.articlesOnly ? data.pages.filter((page) => !isLandingPage(page)) : data.pages;
    return pages.slice(0, this.#rowCount);
  }

  #title(page: TopPage): string {
    const title = page.title.trim();
    if (this.stripTitle === undefined) return title || page.path;
    const stripped = this.stripTitle
      ? (title.endsWith(this.stripTitle) ? title.slice(0, -this.stripTitle.length) : title)
      : title.replace(TITLE_SUFFIX, '');
    return stripped.trim() || title || page.path;
  }

  #columns(pages: TopPage[]): TopPagesColumn[] {
    const wanted = new Set(this.columns.split(/[\s,]+/));
    return (Object.keys(COLUMNS) as TopPagesColumn[]).filter((column) => wanted.has(column) && pages.some(COLUMNS[column].present));
  }

  #cell(column: TopPagesColumn, page: TopPage, locale: string): string {
    const stats = page.stats;
    switch (column) {
      case 'sections':
        return formatList(locale, page.sections ?? []);
      case 'authors':
        return formatList(locale, page.authors ?? []);
      case 'engaged-time':
        return stats.engaged_time ? formatSeconds(locale, stats.engaged_time.median) : '';
      case 'sources':
        return shares(locale, SOURCES.map(([key, name]) => [name, stats[key] ?? 0]), 2);
      case 'platform':
        return shares(locale, Object.entries(stats.platform ?? {}).map(([letter, count]) => [PLATFORMS[letter] ?? 'Other', count]), 2);
      case 'loyalty':
        return stats.loyalty ? shares(locale, LOYALTY.map(([key, name]) => [name, stats.loyalty![key]]), 3) : '';
      case 'type':
        return page.type ?? '';
    }
  }

  #renderChange(change: RankChange | undefined): TemplateResult | typeof nothing {
    if (!change) return nothing;
    if (change.kind === 'new') return html`<span part="rank-change" class="rank-change new">New</span>`;
    if (change.kind === 'same') return html`<span class="visually-hidden">, no change</span>`;
    const arrow = change.kind === 'up' ? '▲' : '▼';
    return html`<span part="rank-change" class="rank-change ${change.kind}"><span aria-hidden="true">${arrow}${change.by}</span><span class="visually-hidden">, ${change.kind} ${change.by}</span></span>`;
  }

  #renderTitle(page: TopPage, siteHost: string): TemplateResult {
    const url = pageUrl(page.path, page.host ?? siteHost, this.linkBase || undefined);
    const title = this.#title(page);
    return url ? html`<a part="link" href=${url.href}>${title}</a>` : html`${title}`;
  }

  protected override renderData(data: ToppagesResponse, locale: string): TemplateResult {
    const pages = this.#visiblePages(data);
    const previousRanks = this.previousData && new Map(this.#visiblePages(this.previousData).map((page, index) => [page.path, index]));
    const most = Math.max(...pages.map((page) => page.stats.people));
    const columns = this.#columns(pages);
    const siteHost = new URL(this.poll.url!).searchParams.get('host') ?? '';
    return html`<div class="scroller">
      <table part="table" aria-labelledby="label">
        <thead>
          <tr>
            <th scope="col">Rank</th>
            <th scope="col">Page</th>
            <th scope="col">People</th>
            ${columns.map((column) => html`<th scope="col">${COLUMNS[column].header}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${pages.map((page, index) => html`<tr part="row">
            <td part="rank" class="rank">${index + 1}${this.#renderChange(previousRanks && rankChange(previousRanks.get(page.path), index))}</td>
            <td part="title" class="title">${this.#renderTitle(page, siteHost)}</td>
            <td part="people" class="people"><span class="count">${formatCount(locale, page.stats.people)}</span>${bar(page.stats.people / most)}</td>
            ${columns.map((column) => html`<td part="column" class="detail">${this.#cell(column, page, locale)}</td>`)}
          </tr>`)}
        </tbody>
      </table>
    </div>`;
  }
}

function rankChange(before: number | undefined, now: number): RankChange {
  if (before === undefined) return { kind: 'new' };
  if (before === now) return { kind: 'same' };
  return before > now ? { kind: 'up', by: before - now } : { kind: 'down', by: now - before };
}

/** `types=1` names the type; without it, a page with nobody on an article is a landing page. */
function isLandingPage(page: TopPage): boolean {
  return page.type !== undefined ? !/article/i.test(page.type) : page.stats.article === 0;
}

/** "Search 45 %, Social 20 %": the `top` largest parts of a whole. */
function shares(locale: string, parts: [string, number][], top: number): string {
  const merged = new Map<string, number>();
  for (const [name, count] of parts) merged.set(name, (merged.get(name) ?? 0) + count);
  const total = [...merged.values()].reduce((sum, count) => sum + count, 0);
  if (total <= 0) return '';
  const largest = [...merged].filter(([, count]) => count > 0).sort((a, b) => b[1] - a[1]).slice(0, top);
  return formatList(locale, largest.map(([name, count]) => `${name} ${formatShare(locale, count / total)}`));
}

TopPages.define('top-pages');

declare global {
  interface HTMLElementTagNameMap {
    'top-pages': TopPages;
  }
}
