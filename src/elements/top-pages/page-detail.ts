import { html, type TemplateResult } from 'lit';
import { ROUTE_PATHS } from '../../api/paths.ts';
import type { LocalizeController } from '../../internal/localize.ts';

/** Top referrers listed for one page. */
const TOP_REFERRERS = 5;

/**
 * One page's own live numbers, for an opened row of <top-pages>: our own elements on quickstats
 * and referrers with `path=`. They poll through the page's hub while they are in the document, so
 * closing the row, or the row leaving the list, unsubscribes them. top-pages.ts registers
 * <live-counter> and <referrer-bars>; sources and platforms show where <traffic-sources> and
 * <platform-split> are loaded too (the all-elements bundle, the board), which keeps them out of
 * the four-card budget.
 */
export function pageDetail(listUrl: string, site: string, path: string, theme: string, localize: LocalizeController): TemplateResult {
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
