import { css, type Styles } from '../../internal/style-sheet.ts';
import { html, nothing, type TemplateResult } from 'lit/html.js';
import { ROUTE_PATHS } from '../../api/paths.ts';
import type { Announcer } from '../../internal/announcer.ts';
import type { LocalizeController } from '../../internal/localize.ts';
import { buttonStyles } from '../../internal/button-styles.ts';
import { rowKey, siteHostOf, type SitePage } from './site-pages.ts';

/** Top referrers listed for one page. */
const TOP_REFERRERS = 5;

/** What <top-pages> lends the drill-down of its rows. */
export interface RowDetailHost {
  readonly localize: LocalizeController;
  readonly announcer: Announcer;
  /** The list's colour scheme, which the page's own numbers take. */
  theme(): string;
  /** The list's addresses (one per site). */
  urls(): readonly string[];
  /** The pages on screen, in rank order. */
  shownPages(): readonly SitePage[];
  /** A page's title as the list shows it. */
  title(page: SitePage): string;
  requestUpdate(): void;
}

/**
 * The drill-down of <top-pages> (a newsroom feature, src/newsroom.ts): a button on each row
 * (`aria-expanded`, announced) opens the row into its page's own live numbers, polled only while
 * the row is open and on screen.
 */
export class RowDetail {
  readonly #host: RowDetailHost;
  /** Keys of the opened rows: each shows its page's own numbers until closed. */
  readonly #opened = new Set<string>();

  constructor(host: RowDetailHost) {
    this.#host = host;
  }

  /** Closes opened rows that are no longer shown (or all): their pages stop being polled. */
  close(all: boolean): void {
    if (this.#opened.size === 0) return;
    const shown = new Set(all ? [] : this.#host.shownPages().map(rowKey));
    for (const key of this.#opened) if (!shown.has(key)) this.#opened.delete(key);
  }

  /** The button that opens or closes the row of `page`. */
  button(page: SitePage): TemplateResult {
    const open = this.#opened.has(rowKey(page));
    return html`<button part="expand" class="expand" type="button" aria-expanded=${open ? 'true' : 'false'} data-key=${rowKey(page)} @click=${this.#toggle}><span aria-hidden="true">${open ? '−' : '+'}</span><span class="visually-hidden">${this.#host.localize.term('detailOpen', this.#host.title(page))}</span></button>`;
  }

  /** The row under `page` while it is open, spanning the list's `span` columns. */
  row(page: SitePage, span: number): TemplateResult | typeof nothing {
    if (!this.#opened.has(rowKey(page))) return nothing;
    const host = this.#host;
    const [first, ...others] = host.urls();
    const site = page.site ?? siteHostOf(first!);
    const listUrl = [first!, ...others].find((url) => siteHostOf(url) === site) ?? first!;
    return html`<tr part="detail-row"><td colspan=${span}>${pageDetail(listUrl, site, page.path, host.theme(), host.localize)}</td></tr>`;
  }

  /** One listener for every row's button (a closure per row would be re-bound on every tick). */
  readonly #toggle = (event: Event): void => {
    const key = (event.currentTarget as HTMLElement).dataset.key!;
    const host = this.#host;
    const page = host.shownPages().find((one) => rowKey(one) === key);
    if (!page) return;
    const open = this.#opened.delete(key);
    if (!open) this.#opened.add(key);
    host.announcer.announce(host.localize.term(open ? 'detailClosed' : 'detailOpened', host.title(page)), {
      urgent: true,
    });
    host.requestUpdate();
  };
}

export const rowDetailStyles: Styles = [
  buttonStyles,
  css`
  /* At least 24 × 24 px: a touch target (WCAG 2.5.8). */
  .expand {
    flex: none;
    min-inline-size: max(24px, 1.6em);
    min-block-size: max(24px, 1.6em);
    padding: 0;
    line-height: 1;
  }

  .page-detail {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(min(100%, 14em), 1fr));
    gap: calc(var(--_space) / 2);
    --pulse-font-size: 0.875em;
    --pulse-counter-size: 2em;
  }
`,
];

/**
 * One page's own live numbers, for an opened row: our own elements on quickstats and referrers
 * with `path=`. They poll through the page's hub while they are in the document, so closing the
 * row, or the row leaving the list, unsubscribes them. src/newsroom.ts registers <live-counter>
 * and <referrer-bars>; sources and platforms show where <traffic-sources> and <platform-split>
 * are loaded too (the all-elements bundle, the board).
 */
function pageDetail(
  listUrl: string,
  site: string,
  path: string,
  theme: string,
  localize: LocalizeController,
): TemplateResult {
  // One quickstats address for the three (platform-split needs all_platforms=1): one request per tick.
  const quickstats = detailUrl(listUrl, ROUTE_PATHS.quickstats, site, path, '&all_platforms=1');
  return html`<div part="page-detail" class="page-detail">
    <live-counter theme=${theme} src=${quickstats} history="0" label=${localize.term('detailPeople')}></live-counter>
    <traffic-sources theme=${theme} src=${quickstats} label=${localize.term('detailSources')}></traffic-sources>
    <platform-split theme=${theme} src=${quickstats} label=${localize.term('detailPlatforms')}></platform-split>
    <referrer-bars theme=${theme} src=${detailUrl(listUrl, ROUTE_PATHS.referrers, site, path, `&limit=${TOP_REFERRERS}`)} max=${TOP_REFERRERS} label=${localize.term('detailReferrers')}></referrer-bars>
  </div>`;
}

/** The cache address of `routePath` for one page, beside `listUrl` (its prefix kept). */
function detailUrl(listUrl: string, routePath: string, site: string, path: string, extra = ''): string {
  const url = new URL(listUrl);
  url.pathname = url.pathname.replace(ROUTE_PATHS.toppages.slice(0, -1), routePath.slice(0, -1));
  url.search = `host=${encodeURIComponent(site)}&path=${encodeURIComponent(path.replace(/^https?:\/\//i, ''))}${extra}`;
  return url.href;
}
